package mpi_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// onlineCPUs returns the number of CPUs /sys/devices/system/cpu/online
// lists ("0-1,4"), or 0 if it cannot tell.
func onlineCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, ok := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		z := a
		var err2 error
		if ok {
			z, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || z < a {
			return 0
		}
		n += z - a + 1
	}
	return n
}

// TestWaitMode checks the wait mode Init chose against XPMPI_MPI_WAIT: the
// one it forces, or under auto (the default) "block" under Open MPI and
// where every rank's node has no more ranks than the rank may use CPUs,
// and "sleep" where every rank may use all the machine's CPUs and its node
// has more ranks than that. The calls themselves run in that mode in every other test of
// the package (scripts/test.sh runs them in both).
func TestWaitMode(t *testing.T) {
	c := mpitest.World(t)
	mode := mpi.LibraryInfo().WaitMode
	if !mpi.Built {
		mpitest.Check(t, c, mode == "n/a", "stand-in wait mode %q, want n/a", mode)
		return
	}
	env := strings.ToLower(strings.TrimSpace(os.Getenv(mpi.WaitModeEnv)))
	switch env {
	case "sleep", "block":
		mpitest.Check(t, c, mode == env, "%s=%s: wait mode %q", mpi.WaitModeEnv, env, mode)
		return
	case "", "auto":
	default:
		t.Fatalf("%s=%q: Init should have refused it", mpi.WaitModeEnv, env)
	}
	_, nodeSize := mpi.NodeRank()
	fits := nodeSize <= runtime.NumCPU()
	over := !fits && runtime.NumCPU() == onlineCPUs()
	allFit, err := mpi.AllreduceValue(c, boolInt(fits), mpi.Min)
	if err != nil {
		t.Fatal(err)
	}
	allOver, err := mpi.AllreduceValue(c, boolInt(over), mpi.Min)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case mpi.LibraryInfo().Implementation == "Open MPI":
		mpitest.Check(t, c, mode == "block", "Open MPI: wait mode %q, want block (it yields by itself)", mode)
	case libraryAware():
		t.Logf("CUDA-aware MPI: auto waits in MPI's blocking calls; mode %q", mode)
	case allFit == 1:
		mpitest.Check(t, c, mode == "block", "%d ranks on a node of %d CPUs: wait mode %q, want block", nodeSize, runtime.NumCPU(), mode)
	case allOver == 1:
		mpitest.Check(t, c, mode == "sleep", "%d ranks on a node of %d CPUs: wait mode %q, want sleep", nodeSize, runtime.NumCPU(), mode)
	default:
		t.Logf("ranks bound to some CPUs: mode %q not checked", mode)
	}
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// libraryAware reports whether the library itself says it is CUDA-aware,
// which is what Init's choice reads (not an explicit setting or a probe).
func libraryAware() bool {
	aware, known := mpi.LibraryCUDAAware()
	return aware && known
}
