package bench

import (
	_ "github.com/xpmpi/xpmpi/backend/cpu" // the CPU backend, which a program registers by importing it
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestMain runs the tests on every rank of an MPI job (scripts/test.sh
// launches the mpi build under mpirun at 1-4 ranks).
func TestMain(m *testing.M) { mpitest.Main(m) }
