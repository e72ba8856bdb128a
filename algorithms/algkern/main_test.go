package algkern

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestOnBlocks runs on every rank of an MPI job: built with -tags mpi and
// started with mpirun at 1 to 4 ranks; in the default build on the
// one-rank stand-in. The other tests are local, and those that start a
// compiler or a child process run in the default build only.
func TestMain(m *testing.M) { mpitest.Main(m) }
