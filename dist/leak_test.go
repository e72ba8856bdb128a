package dist_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// A Scatter that fails after allocating its result (here: ranks that
// disagree on the root, caught by the checking mode) frees the device
// block on every rank.
func TestScatterFailureFreesDeviceMemory(t *testing.T) {
	c := mpitest.World(t)
	if c.Size() == 1 {
		t.Skip("ranks can disagree only at 2 ranks or more")
	}
	defer mpi.SetChecking(mpi.SetChecking(true))
	before := fakedev.Stats().LiveBytes
	root := 0
	if c.Rank() == c.Size()-1 {
		root = 1
	}
	var data []float64
	if c.Rank() == root {
		data = make([]float64, 1000)
	}
	a, err := dist.Scatter(c, root, data, []int{1000}, dist.OnBackend(fakedev.Default))
	if err == nil || a != nil {
		t.Fatalf("Scatter with disagreeing roots = %v, %v; want nil and an error", a, err)
	}
	if after := fakedev.Stats().LiveBytes; after != before {
		t.Fatalf("device bytes live: %d before the failed Scatter, %d after", before, after)
	}
}
