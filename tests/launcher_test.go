//go:build mpi

package tests

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// mismatch is what every rank of a binary started by the other library's
// launcher prints.
const mismatch = "launcher and MPI library do not match"

// mpichRun returns MPICH's launcher (XPMPI_MPICH_RUN, else mpiexec.mpich or
// mpirun.mpich), or skips.
func mpichRun(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("XPMPI_MPICH_RUN"); p != "" {
		return p
	}
	for _, name := range []string{"mpiexec.mpich", "mpirun.mpich"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("MPICH's launcher is not installed (mpiexec.mpich; set XPMPI_MPICH_RUN, or install mpich: scripts/setup.sh)")
	return ""
}

// checkRefused checks that a job of np ranks refused a launcher of the other
// library quickly, with a non-zero exit, and that at least minRanks of them
// printed a message naming the library the binary links (lib) and the
// launcher (launcher).
func checkRefused(t *testing.T, r result, np, minRanks int, lib, launcher string) {
	t.Helper()
	if r.timedOut {
		r.fail(t, "the job hung: killed after %v", r.elapsed)
		return
	}
	if r.code == 0 {
		r.fail(t, "the job exited 0: the ranks ran as %d separate one-rank jobs", np)
	}
	if r.elapsed > 20*time.Second {
		r.fail(t, "the job took %v to refuse, want under 20s", r.elapsed)
	}
	var lines []string
	for _, line := range strings.Split(r.combined, "\n") {
		if strings.Contains(line, mismatch) {
			lines = append(lines, line)
		}
	}
	if len(lines) < minRanks || len(lines) > np {
		r.fail(t, "%d ranks printed %q, want %d to %d", len(lines), mismatch, minRanks, np)
	}
	for _, line := range lines {
		for _, want := range []string{"links " + lib, "started by " + launcher} {
			if !strings.Contains(line, want) {
				r.fail(t, "a rank's message lacks %q: %s", want, line)
			}
		}
	}
	if strings.Contains(r.stdout, "RANK") {
		r.fail(t, "a rank ran the info command")
	}
}

// TestOpenMPIBinaryUnderMPICH starts the Open MPI build under MPICH's
// mpiexec: every rank must refuse instead of running alone.
func TestOpenMPIBinaryUnderMPICH(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	launcher := mpichRun(t)
	const np = 2
	r := run(t, 60*time.Second, launcher, "-np", "2", bin, "info")
	// Hydra lets every rank finish: each must have said so.
	checkRefused(t, r, np, np, "Open MPI", "MPICH's hydra mpiexec")
	for _, want := range []string{"its rank 0", "its rank 1"} {
		if !strings.Contains(r.combined, want) {
			r.fail(t, "no message from the launcher's rank %q", want)
		}
	}

	t.Run("XPMPI_MPI=0 runs the separate jobs, with a warning", func(t *testing.T) {
		t.Setenv("XPMPI_MPI", "0")
		r := run(t, 60*time.Second, launcher, "-np", "2", bin, "info")
		checkOverride(t, r, np, "MPICH's hydra mpiexec")
	})
}

// TestMPICHBinaryUnderOpenMPI starts the MPICH build (XPMPI_MPICH_BIN) under
// Open MPI's mpirun.
func TestMPICHBinaryUnderOpenMPI(t *testing.T) {
	bin := binary(t, "XPMPI_MPICH_BIN")
	const np = 2
	// Open MPI's mpirun kills the other ranks once one exits non-zero, which
	// can be before they print anything: at least one rank must say why.
	r := launch(t, 60*time.Second, np, bin, "info")
	checkRefused(t, r, np, 1, "MPICH", "Open MPI's mpirun")

	// Told not to kill the others, it lets every rank refuse on its own (and
	// then exits 0 itself: only the messages are checked here).
	t.Run("every rank refuses", func(t *testing.T) {
		t.Setenv("OMPI_MCA_orte_abort_on_non_zero_status", "0")
		r := launch(t, 60*time.Second, np, bin, "info")
		if n := strings.Count(r.combined, mismatch); n != np || r.timedOut {
			r.fail(t, "%d ranks printed %q, want %d", n, mismatch, np)
		}
		for _, want := range []string{"links MPICH", "started by Open MPI's mpirun", "its rank 0", "its rank 1"} {
			if !strings.Contains(r.combined, want) {
				r.fail(t, "the output lacks %q", want)
			}
		}
	})
}

// checkOverride checks a job of np ranks run with XPMPI_MPI=0: it ran, and
// each process warned once.
func checkOverride(t *testing.T, r result, np int, launcher string) {
	t.Helper()
	if r.code != 0 || r.timedOut {
		r.fail(t, "the job with XPMPI_MPI=0 failed")
		return
	}
	if n := strings.Count(r.combined, "warning: XPMPI_MPI=0"); n != np {
		r.fail(t, "the XPMPI_MPI=0 warning was printed %d times, want once per process (%d)", n, np)
	}
	if !strings.Contains(r.combined, launcher) {
		r.fail(t, "the warning does not name %s", launcher)
	}
	if n := strings.Count(r.stdout, "RANK"); n != np {
		r.fail(t, "%d info tables, want %d (one per one-rank job)", n, np)
	}
	if strings.Contains(r.combined, mismatch) || strings.Contains(r.combined, "-tags mpi ") {
		r.fail(t, "a refusal was printed despite XPMPI_MPI=0")
	}
}

// TestOverrideWarnsInDefaultBuild starts the build without MPI under mpirun
// with XPMPI_MPI=0: the refusal to run without MPI is skipped, but each
// process says so on standard error, once.
func TestOverrideWarnsInDefaultBuild(t *testing.T) {
	bin := binary(t, "XPMPI_NOMPI_BIN")
	const np = 2
	t.Setenv("XPMPI_MPI", "0")
	r := launch(t, 60*time.Second, np, bin, "info")
	checkOverride(t, r, np, "Open MPI's mpirun")
	if strings.Contains(r.stdout, "XPMPI_MPI=0") {
		r.fail(t, "the warning went to standard output")
	}
}
