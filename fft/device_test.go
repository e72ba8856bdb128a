package fft

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// TestDeviceFFTN transforms arrays on the fake device (host memory treated
// as device memory, a backend.FFTer with the CPU's FFT) with MPI told it
// is CUDA-aware, so that nothing is copied to the host: neither the
// redistributions nor the local transforms record a copy, and the results
// equal the CPU's bit for bit.
func TestDeviceFFTN(t *testing.T) {
	c := mpitest.World(t)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.SetCUDAAware(true)
	t.Cleanup(staging.ClearCUDAAware)
	testDeviceFFTN(t, c, fakedev.Default, 0)
}

// deviceCases are the arrays of the device tests: split along the first,
// the last and the middle axis, lengths that need Bluestein on CUDA (7,
// 11, 13), fewer rows than ranks, a 1-D array, and replicated.
var deviceCases = []struct {
	shape []int
	opts  []dist.Option
}{
	{[]int{6, 5}, []dist.Option{dist.SplitAxis(0)}},
	{[]int{3, 7}, []dist.Option{dist.SplitAxis(1)}},
	{[]int{4, 3, 5}, []dist.Option{dist.SplitAxis(0)}},
	{[]int{2, 11, 8}, []dist.Option{dist.SplitAxis(1)}},
	{[]int{13, 12}, []dist.Option{dist.SplitAxis(0)}},
	{[]int{2, 9}, []dist.Option{dist.SplitAxis(0)}}, // fewer rows than ranks: empty blocks
	{[]int{10}, []dist.Option{dist.SplitAxis(0)}},   // 1-D: transformed replicated
	{[]int{2, 4}, []dist.Option{dist.SplitAxis(dist.Replicated)}},
}

// testDeviceFFTN runs FFTN and IFFTN (with and without TransposedOut) of
// the deviceCases on backend b, which must be a backend.FFTer, and checks
// that the result stays on b's device, that no copy between host and
// device is recorded (after a first run that makes the plans, whose
// twiddle factors a device may upload once), and that it equals the CPU
// backend's within tol relative (bit for bit if tol is 0).
func testDeviceFFTN(t *testing.T, c mpi.Comm, b backend.Backend, tol float64) {
	if _, ok := b.(backend.FFTer); !ok {
		t.Fatalf("%s is not a backend.FFTer", b.Name())
	}
	for _, tc := range deviceCases {
		f := func(idx []int) complex128 {
			return complex(float64(idx[0]*7+idx[len(idx)-1]), float64(idx[0]-idx[len(idx)-1]))
		}
		h, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(cpu.Default))...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(b))...)
		if err != nil {
			t.Fatal(err)
		}
		for _, transposed := range []bool{false, true} {
			for _, inverse := range []bool{false, true} {
				var opts []Option
				if transposed {
					opts = append(opts, TransposedOut())
				}
				run := FFTN
				if inverse {
					run = IFFTN
				}
				what := fmt.Sprintf("%s %v %v transposed=%v inverse=%v", b.Name(), tc.shape, h.Layout(), transposed, inverse)
				want, err := run(h, nil, opts...)
				if err != nil {
					t.Fatal(err)
				}
				warm, err := run(d, nil, opts...) // makes the plans
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				warm.Free()
				var got *dist.Array[complex128]
				cnt := profiling.Counting(func() { got, err = run(d, nil, opts...) })
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				mpitest.Check(t, c, got.Device() == b.Device(), "%s: result on %v", what, got.Device())
				mpitest.Check(t, c, cnt.Count(profiling.ToHost) == 0 && cnt.Count(profiling.ToDevice) == 0,
					"%s: copies to host %d (%d B), to device %d (%d B); want none", what,
					cnt.Count(profiling.ToHost), cnt.Bytes(profiling.ToHost), cnt.Count(profiling.ToDevice), cnt.Bytes(profiling.ToDevice))
				gw, err := dist.Allgather(want)
				if err != nil {
					t.Fatal(err)
				}
				gg, err := dist.Allgather(got)
				if err != nil {
					t.Fatal(err)
				}
				e := relErr(gg, gw)
				mpitest.Check(t, c, e <= tol, "%s: device result differs from the CPU's by %.3g (tolerance %.3g)", what, e, tol)
				want.Free()
				got.Free()
			}
		}
		h.Free()
		d.Free()
	}
}

// noFFTer is the fake device without its backend.FFTer (and every other
// optional interface): a device backend that cannot transform.
type noFFTer struct{ backend.Backend }

// TestDeviceFFTNHost transforms arrays on a device backend that is not a
// backend.FFTer: each stage's block is copied to the host and back
// (backend.HostCall), one copy each way per stage, recorded, and the
// results equal the CPU's bit for bit.
func TestDeviceFFTNHost(t *testing.T) {
	c := mpitest.World(t)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.SetCUDAAware(true)
	t.Cleanup(staging.ClearCUDAAware)
	b := noFFTer{fakedev.Default}
	for _, tc := range deviceCases {
		f := func(idx []int) complex128 {
			return complex(float64(idx[0]*3-idx[len(idx)-1]), float64(idx[0]+2*idx[len(idx)-1]))
		}
		h, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(cpu.Default))...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(b))...)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%v %v", tc.shape, h.Layout())
		want, err := FFTN(h, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got *dist.Array[complex128]
		cnt := profiling.Counting(func() { got, err = FFTN(d, nil) })
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
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
		mpitest.Check(t, c, relErr(gg, gw) == 0, "%s: result differs from the CPU's by %.3g", what, relErr(gg, gw))
		for _, x := range []*dist.Array[complex128]{h, d, want, got} {
			x.Free()
		}
	}
}
