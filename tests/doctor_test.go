//go:build mpi

package tests

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestDoctor runs the doctor on this machine, which has no GPU: a
// CPU-only machine is supported, so the missing driver is a note with what
// to install for the cuda backend; it must find the MPI job and the
// launcher in order, and exit 0. --json says the same; a bad environment
// is a problem (exit 1); a bad flag is "could not run" (exit 2).
func TestDoctor(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	launcher, _ := mpirun(t)
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("this machine has an NVIDIA device: the expectations below are for one without")
	}
	r := run(t, 2*time.Minute, bin, "doctor", "--mpirun", launcher)
	if r.code != 0 {
		r.fail(t, "doctor without a GPU: exit %d, want 0", r.code)
	}
	for _, want := range []string{"driver      note", "note (driver): for the cuda backend, install the NVIDIA driver", "mpi job     ok", "launcher    ok", "no device to probe", "no problems found"} {
		if !strings.Contains(r.stdout, want) {
			r.fail(t, "doctor: the output lacks %q", want)
		}
	}
	if strings.Contains(r.stdout, "PROBLEM") {
		r.fail(t, "doctor without a GPU reports a problem")
	}
	j := run(t, 2*time.Minute, bin, "doctor", "--mpirun", launcher, "--json")
	var rep struct {
		Healthy  bool
		Problems int
		Findings []struct{ Check, Status, Detail, Fix string }
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil || j.code != 0 || !rep.Healthy || rep.Problems != 0 {
		j.fail(t, "doctor --json without a GPU: %+v (%v), want healthy and exit 0", rep, err)
	}
	statuses := map[string]string{}
	for _, f := range rep.Findings {
		statuses[f.Check] = f.Status
	}
	if statuses["driver"] != "note" || statuses["mpi job"] != "ok" || statuses["launcher"] != "ok" {
		j.fail(t, "doctor --json: statuses %v", statuses)
	}
	e := runEnv(t, 2*time.Minute, []string{"XPMPI_THREADS=many"}, bin, "doctor", "--mpirun", launcher)
	if e.code != 1 || !strings.Contains(e.stdout, "PROBLEM") || !strings.Contains(e.stdout, `XPMPI_THREADS="many"`) {
		e.fail(t, "doctor with XPMPI_THREADS=many: want exit 1 and the problem named")
	}
	if f := run(t, 30*time.Second, bin, "doctor", "--np", "x"); f.code != 2 {
		f.fail(t, "doctor --np x: exit %d, want 2 (could not run)", f.code)
	}
	// A binary built without MPI: the doctor says to rebuild.
	if nompi := os.Getenv("XPMPI_NOMPI_BIN"); nompi != "" {
		r := run(t, 2*time.Minute, nompi, "doctor", "--mpirun", launcher)
		if r.code != 1 || !strings.Contains(r.stdout, "rebuild with -tags mpi") {
			r.fail(t, "doctor of a binary without MPI")
		}
	}
}
