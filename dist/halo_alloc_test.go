package dist_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestExchangeAllocations: without the checking mode an exchange does not
// format its layout for a check that does not run (it cost 6 of an
// exchange's 8 allocations and most of its time at one rank, where a
// Jacobi iteration of a small grid is a few microseconds).
func TestExchangeAllocations(t *testing.T) {
	c := mpitest.World(t)
	if c.Size() > 1 {
		t.Skip("counts one rank's exchange, which sends nothing")
	}
	prev := mpi.SetChecking(false)
	defer mpi.SetChecking(prev)
	u, err := dist.Zeros[float64](c, []int{9, 11}, dist.Ghosts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	allocs := testing.AllocsPerRun(50, func() {
		if err := u.Exchange(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("an exchange without the checking mode made %g allocations, want at most 2", allocs)
	}
}
