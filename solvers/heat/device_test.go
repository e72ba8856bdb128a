package heat

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// TestDeviceCopiesPerIteration runs on the fake device with an MPI that is
// not CUDA-aware, and checks that an iteration copies nothing but the
// staged ghost rows: one copy to the host per row sent and one to the
// device per row received, to and from each neighbour, and no copy on the
// device.
func TestDeviceCopiesPerIteration(t *testing.T) {
	c := mpitest.World(t)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.SetCUDAAware(false)
	t.Cleanup(staging.ClearCUDAAware)
	if err := backend.Select("fake"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Select("cpu") })
	me, p := c.Rank(), c.Size()
	neighbours := 0
	if me > 0 {
		neighbours++
	}
	if me < p-1 {
		neighbours++
	}
	count := func(iters int) [3]int {
		cnt := profiling.Count()
		_, err := Solve(c, Config{N: 12, Iters: iters})
		cnt.Stop()
		if err != nil {
			t.Fatal(err)
		}
		return [3]int{cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice), cnt.Count(profiling.DeviceCopy)}
	}
	a, b := count(4), count(9)
	got := [3]int{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
	if want := [3]int{5 * neighbours, 5 * neighbours, 0}; got != want {
		t.Errorf("5 more iterations: %d copies to the host, %d to the device, %d on the device; want %v", got[0], got[1], got[2], want)
	}
}
