package optimize

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// The distributed tests run on every rank of an MPI job: built with -tags
// mpi and started with mpirun at 1 to 4 ranks; in the default build on the
// one-rank stand-in.
func TestMain(m *testing.M) { mpitest.Main(m) }

// serialOnly skips a test that does not communicate when the job has more
// than one rank: every rank would only repeat the one-rank run.
func serialOnly(t *testing.T) {
	t.Helper()
	if w := mpitest.World(t); w.Size() > 1 {
		t.Skipf("serial test: run at one rank only (this job has %d)", w.Size())
	}
}
