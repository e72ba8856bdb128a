package fft

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// TestDeviceFFTN transforms arrays on the fake device (host memory treated
// as device memory) with MPI told it is CUDA-aware, so that the
// redistributions copy nothing to the host: each stage's local transforms
// copy the block to the host and back (backend.HostCall), one copy each
// way per stage, recorded; the results equal the CPU's bit for bit.
func TestDeviceFFTN(t *testing.T) {
	c := mpitest.World(t)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	mpi.SetCUDAAware(true)
	t.Cleanup(mpi.ClearCUDAAware)
	for _, tc := range []struct {
		shape []int
		opts  []dist.Option
	}{
		{[]int{6, 5}, []dist.Option{dist.SplitAxis(0)}},
		{[]int{3, 7}, []dist.Option{dist.SplitAxis(1)}},
		{[]int{4, 3, 5}, []dist.Option{dist.SplitAxis(0)}},
		{[]int{2, 4}, []dist.Option{dist.SplitAxis(dist.Replicated)}},
	} {
		f := func(idx []int) complex128 {
			return complex(float64(idx[0]*7+idx[len(idx)-1]), float64(idx[0]-idx[len(idx)-1]))
		}
		h, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(cpu.Default))...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(fakedev.Default))...)
		if err != nil {
			t.Fatal(err)
		}
		for _, transposed := range []bool{false, true} {
			var opts []Option
			if transposed {
				opts = append(opts, TransposedOut())
			}
			what := fmt.Sprintf("%v %v transposed=%v", tc.shape, h.Layout(), transposed)
			want, err := FFTN(h, nil, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got *dist.Array[complex128]
			cnt := profiling.Counting(func() { got, err = FFTN(d, nil, opts...) })
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			mpitest.Check(t, c, got.Device() == fakedev.Default.Device(), "%s: result on %v", what, got.Device())
			stages := planStages(h.Layout(), []int{0, 1, 2}[:len(tc.shape)])
			var bytes int64
			for _, s := range stages {
				bytes += int64(s.layout.LocalLen(c.Rank()) * 16)
			}
			n := len(stages)
			mpitest.Check(t, c, cnt.Count(profiling.ToHost) == n && cnt.Count(profiling.ToDevice) == n &&
				cnt.Bytes(profiling.ToHost) == bytes && cnt.Bytes(profiling.ToDevice) == bytes,
				"%s: copies to host %d (%d B), to device %d (%d B); want %d each way (%d B)", what,
				cnt.Count(profiling.ToHost), cnt.Bytes(profiling.ToHost), cnt.Count(profiling.ToDevice), cnt.Bytes(profiling.ToDevice), n, bytes)
			gw, err := dist.Allgather(want)
			if err != nil {
				t.Fatal(err)
			}
			gg, err := dist.Allgather(got)
			if err != nil {
				t.Fatal(err)
			}
			mpitest.Check(t, c, relErr(gg, gw) == 0, "%s: device result differs from the CPU's by %.3g", what, relErr(gg, gw))
			want.Free()
			got.Free()
		}
		h.Free()
		d.Free()
	}
}
