package optimize

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// The distributed tests run on every rank of an MPI job: built with -tags
// mpi and started with mpirun at 1 to 4 ranks; in the default build on the
// one-rank stand-in.
func TestMain(m *testing.M) { mpitest.Main(m) }
