//go:build mpi

package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stoppedLine is what heat2d prints (rank 0, standard error) when a signal
// stopped it: the step its checkpoint is at.
var stoppedLine = regexp.MustCompile(`stopped at step (\d+) on request \((SIG\w+) on rank (\d+)\): checkpoint \S+ written in (\S+) s`)

// TestStopOnSignal sends SIGUSR1 to one rank of a 2-rank heat2d job that
// checkpoints (mpirun, no batch system): every rank must stop at the same
// step, the job must exit with 75 (mpi.ExitStopped) and say where it
// stopped, and a restart from the checkpoint must end with the checksum of
// an uninterrupted run. The run would take hours; the restart and the
// uninterrupted run go 300 steps past the stop.
func TestStopOnSignal(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	launcher, flags := mpirun(t)
	dir := filepath.Join(t.TempDir(), "ck")
	args := []string{"run", "heat2d", "--n", "48", "--quiet"}
	cmd := exec.Command(launcher, append(append(flags, "-np", "2", bin), append(args, "--iters", "100000000", "--checkpoint", dir, "--every", "50")...)...)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var err error
	done := make(chan struct{}) // closed when the job has ended, err its error
	go func() { err = cmd.Wait(); close(done) }()
	defer func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	}()
	// The ranks are running once the first checkpoint is there.
	var rank int
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no checkpoint after 60 s; output:\n%s", out.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			if rank = rankPid(dir); rank > 0 {
				break
			}
		}
	}
	if err := syscall.Kill(rank, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the job did not stop within 60 s of SIGUSR1; output:\n%s", out.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	m := stoppedLine.FindStringSubmatch(out.String())
	if code != 75 || m == nil || m[2] != "SIGUSR1" {
		t.Fatalf("exit %d (want 75) and no 'stopped at step N on request (SIGUSR1 ...)'; output:\n%s", code, out.String())
	}
	t.Logf("stopped %v after the signal: %s", time.Since(sent).Round(time.Millisecond), m[0])
	step, _ := strconv.Atoi(m[1])
	iters := strconv.Itoa(step + 300)
	r := launch(t, 2*time.Minute, 2, bin, append(args, "--iters", iters, "--restart", dir)...)
	full := launch(t, 2*time.Minute, 2, bin, append(args, "--iters", iters)...)
	if got, want := checksum(t, r, "restarted"), checksum(t, full, "uninterrupted"); got != want {
		t.Errorf("restarted from step %d: checksum %s, uninterrupted %s", step, got, want)
	}
}

// rankPid returns the pid of one rank (an xpmpi process, not the launcher)
// whose command line names dir, or 0.
func rankPid(dir string) int {
	out, _ := exec.Command("pgrep", "-x", "-f", fmt.Sprintf(".*xpmpi.*%s.*", regexp.QuoteMeta(dir))).Output()
	for _, f := range strings.Fields(string(out)) {
		pid, _ := strconv.Atoi(f)
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.HasPrefix(strings.TrimSpace(string(comm)), "xpmpi") {
			return pid
		}
	}
	return 0
}
