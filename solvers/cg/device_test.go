package cg

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// TestDeviceCopiesPerIteration solves on the fake device with an MPI that
// is not CUDA-aware, and checks that an iteration copies nothing but the
// staged ghost rows of the search direction: one copy to the host per row
// sent and one to the device per row received, to and from each
// neighbour, and no copy on the device (the plain and the fused solve).
func TestDeviceCopiesPerIteration(t *testing.T) {
	c := mpitest.World(t)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.SetCUDAAware(false)
	t.Cleanup(staging.ClearCUDAAware)
	if err := backend.Select("fake"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Select("cpu") })
	const n = 12
	me, p := c.Rank(), c.Size()
	neighbours := 0
	if me > 0 {
		neighbours++
	}
	if me < p-1 {
		neighbours++
	}
	for _, fused := range []bool{false, true} {
		count := func(iters int) [3]int {
			cnt := profiling.Count()
			res, err := Solve(c, Config{N: n, MaxIter: iters, Fused: fused})
			cnt.Stop()
			if err != nil || res.Iters != iters {
				t.Fatalf("%+v, %v", res, err)
			}
			return [3]int{cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice), cnt.Count(profiling.DeviceCopy)}
		}
		a, b := count(4), count(9)
		per := [3]int{(b[0] - a[0]) / 5, (b[1] - a[1]) / 5, (b[2] - a[2]) / 5}
		if want := [3]int{neighbours, neighbours, 0}; per != want || (b[0]-a[0])%5 != 0 || (b[1]-a[1])%5 != 0 {
			t.Errorf("fused %v: per iteration %d to the host, %d to the device, %d on the device; want %v (4 iterations %v, 9 %v)", fused, per[0], per[1], per[2], want, a, b)
		}
	}
}

// TestDeviceReproducible: the reproducible solve on the fake device gives
// the CPU's bits, and each iteration copies, besides the ghost rows, the
// blocks its two DotRepro calls read to the host (p and Ap, then r: three
// recorded copies), with Fused set or not (it runs the plain iterations).
func TestDeviceReproducible(t *testing.T) {
	c := mpitest.World(t)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.SetCUDAAware(false)
	t.Cleanup(staging.ClearCUDAAware)
	t.Cleanup(func() { backend.Select("cpu") })
	const n = 13
	neighbours := 0
	if c.Rank() > 0 {
		neighbours++
	}
	if c.Rank() < c.Size()-1 {
		neighbours++
	}
	for _, fused := range []bool{false, true} {
		if fused && testing.Short() {
			continue // the reproducible iterations ignore Fused: the full suite checks that
		}
		cfg := Config{N: n, Tol: 1e-10, Fused: fused, Reproducible: true}
		want, err := Solve(c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := backend.Select("fake"); err != nil {
			t.Fatal(err)
		}
		got, err := Solve(c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		count := func(iters int) [3]int {
			cfg := cfg
			cfg.Tol, cfg.MaxIter = 0, iters
			cnt := profiling.Count()
			res, err := Solve(c, cfg)
			cnt.Stop()
			if err != nil || res.Iters != iters {
				t.Fatalf("%+v, %v", res, err)
			}
			return [3]int{cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice), cnt.Count(profiling.DeviceCopy)}
		}
		a, b := count(4), count(9)
		backend.Select("cpu")
		if got.Iters != want.Iters || got.RelRes != want.RelRes || got.Checksum != want.Checksum {
			t.Errorf("fused %v: fake device %+v, CPU %+v", fused, got, want)
		}
		per := [3]int{(b[0] - a[0]) / 5, (b[1] - a[1]) / 5, (b[2] - a[2]) / 5}
		if want := [3]int{neighbours + 3, neighbours, 0}; per != want || (b[0]-a[0])%5 != 0 || (b[1]-a[1])%5 != 0 {
			t.Errorf("fused %v: per iteration %d to the host, %d to the device, %d on the device; want %v (4 iterations %v, 9 %v)", fused, per[0], per[1], per[2], want, a, b)
		}
	}
}
