package kernels_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestMain starts MPI (one rank without the mpi build tag), for the tests
// of LaunchDist at 1-4 ranks; the other tests run on each rank alone.
func TestMain(m *testing.M) { mpitest.Main(m) }
