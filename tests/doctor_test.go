//go:build mpi

package tests

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestDoctor runs the doctor on this machine, which has no GPU: it must
// name the missing driver with its fix, find the MPI job and the launcher
// in order, and exit 1.
func TestDoctor(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	launcher, _ := mpirun(t)
	r := run(t, 2*time.Minute, bin, "doctor", "--mpirun", launcher)
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("this machine has an NVIDIA device: the expectations below are for one without")
	}
	if r.code != 1 {
		r.fail(t, "doctor without a GPU: exit %d, want 1", r.code)
	}
	for _, want := range []string{"driver", "PROBLEM", "fix (driver): install the NVIDIA driver", "mpi job     ok", "launcher    ok", "no device to probe"} {
		if !strings.Contains(r.stdout, want) {
			r.fail(t, "doctor: the output lacks %q", want)
		}
	}
	// A binary built without MPI: the doctor says to rebuild.
	if nompi := os.Getenv("XPMPI_NOMPI_BIN"); nompi != "" {
		r := run(t, 2*time.Minute, nompi, "doctor", "--mpirun", launcher)
		if r.code != 1 || !strings.Contains(r.stdout, "rebuild with -tags mpi") {
			r.fail(t, "doctor of a binary without MPI")
		}
	}
}
