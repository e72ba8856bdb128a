//go:build mpi

package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// failWriteLib builds tests/testdata/failwrite as a shared library, or
// skips.
func failWriteLib(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the write-failure library")
	}
	lib := filepath.Join(t.TempDir(), "failwrite.so")
	out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-Wall", "-o", lib, "testdata/failwrite/failwrite.c", "-ldl").CombinedOutput()
	if err != nil {
		t.Fatalf("building failwrite.so: %v\n%s", err, out)
	}
	return lib
}

// launchEnv runs bin under mpirun -np np with the environment variables
// env (NAME=VALUE) set on every rank.
func launchEnv(t *testing.T, timeout time.Duration, np int, env []string, bin string, args ...string) result {
	t.Helper()
	launcher, flags := mpirun(t)
	for _, e := range env {
		flags = append(flags, "-x", e)
	}
	all := append(append(flags, "-np", strconv.Itoa(np), bin), args...)
	return run(t, timeout, launcher, all...)
}

// manifestStep returns the step of the checkpoint in dir.
func manifestStep(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), `"step": `); ok {
			return strings.TrimSuffix(s, ",")
		}
	}
	return "no step in " + string(b)
}

// copyDir copies the files of the directory src into a new directory dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckpointWriteFailure makes every write of one rank to the
// checkpoint's .npy file fail, with EIO or ENOSPC, in the C library (so
// that Open MPI's MPI-IO reports success for the failed write) and in
// xpmpi's own POSIX write path, on each rank position at 2 and 3 ranks
// and on ranks 1 and 3 at 4 ranks:
// the save fails on every rank with the cause and the job exits non-zero,
// the previous checkpoint (step 30) stays in place, and a restart from it
// reaches the checksum of an uninterrupted run. The grid has fewer rows
// than iterations, so that no block is still all zeros when it is saved
// (zeros that never reach a file of zeros are not a lost write).
func TestCheckpointWriteFailure(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	lib := failWriteLib(t)
	args := []string{"run", "heat2d", "--n", "25", "--quiet"}
	for _, np := range []int{2, 3, 4} {
		full := launch(t, 2*time.Minute, np, bin, append(args, "--iters", "60")...)
		want := checksum(t, full, "uninterrupted")
		good := filepath.Join(t.TempDir(), "good")
		if r := launch(t, 2*time.Minute, np, bin, append(args, "--iters", "30", "--checkpoint", good)...); r.code != 0 {
			r.fail(t, "the first checkpoint at %d ranks", np)
			continue
		}
		for pi, path := range []string{"posix", "mpiio"} {
			for rank := 0; rank < np; rank++ {
				if np == 4 && (rank == 0 || rank == 2) {
					continue // rank 0 and a middle rank: at 2 and 3 ranks
				}
				errno, text := "EIO", "input/output error"
				if (rank+pi)%2 == 1 {
					errno, text = "ENOSPC", "no space left on device"
				}
				t.Run(fmt.Sprintf("np%d/%s/rank%d/%s", np, path, rank, errno), func(t *testing.T) {
					t.Parallel()
					dir := filepath.Join(t.TempDir(), "ck")
					copyDir(t, good, dir)
					env := []string{"LD_PRELOAD=" + lib, "XPMPI_FAILWRITE_RANK=" + strconv.Itoa(rank),
						"XPMPI_FAILWRITE_ERRNO=" + errno, "XPMPI_IO=" + path}
					r := launchEnv(t, time.Minute, np, env, bin,
						append(args, "--iters", "60", "--restart", dir, "--checkpoint", dir, "--every", "10", "--timeout", "40s")...)
					if r.code == 0 || r.timedOut || strings.Contains(r.combined, "exceeded its time limit") {
						r.fail(t, "a save with failing writes on rank %d must fail, not exit 0 or hang", rank)
						return
					}
					onRank := fmt.Sprintf("failed on rank %d", rank)
					lost := strings.Contains(r.combined, "reported as done") // MPI-IO's swallowed error, caught by reading back
					if !strings.Contains(r.combined, "SaveCheckpoint") || !strings.Contains(r.combined, onRank) ||
						!(strings.Contains(r.combined, text) || path == "mpiio" && lost) {
						r.fail(t, "want the save's failure on rank %d with its cause (%s)", rank, text)
						return
					}
					if got := manifestStep(t, dir); got != "30" {
						t.Errorf("after the failed save, the checkpoint is of step %s, want 30", got)
					}
					re := launch(t, time.Minute, np, bin, append(args, "--iters", "60", "--restart", dir)...)
					if got := checksum(t, re, "restarted"); got != want {
						re.fail(t, "restarted from the kept checkpoint: checksum %v, uninterrupted %v", got, want)
					}
				})
			}
		}
	}
}

// TestStaleOMPIOSemaphore leaves behind what a job killed inside Open
// MPI's MPI_File_open leaves, /dev/shm/sem.OMPIO_u.npy holding 0: every
// later job of 3 or more ranks that opened a file called u.npy with MPI-IO
// waited on it forever. xpmpi turns Open MPI's sharedfp/sm component off,
// so the save and the restart go through.
func TestStaleOMPIOSemaphore(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	sem := "/dev/shm/sem.OMPIO_u.npy"
	if _, err := os.Stat(sem); err == nil {
		t.Skipf("%s exists already; not touching it", sem)
	}
	if err := os.WriteFile(sem, make([]byte, 32), 0o644); err != nil {
		t.Skipf("cannot make a stale semaphore: %v", err)
	}
	defer os.Remove(sem)
	dir := filepath.Join(t.TempDir(), "ck")
	args := []string{"run", "--timeout", "20s", "heat2d", "--n", "40", "--quiet"}
	env := []string{"XPMPI_IO=mpiio"}
	if r := launchEnv(t, time.Minute, 3, env, bin, append(args, "--iters", "10", "--checkpoint", dir)...); r.code != 0 {
		r.fail(t, "save at 3 ranks through MPI-IO beside a stale semaphore")
		return
	}
	if r := launchEnv(t, time.Minute, 3, env, bin, append(args, "--iters", "20", "--restart", dir)...); r.code != 0 {
		r.fail(t, "restart at 3 ranks through MPI-IO beside a stale semaphore")
	}
}

// TestCheckpointLockedByAnotherJob starts two copies of the default-build
// CLI (no MPI) writing checkpoints to one directory: the second is refused
// at once with a message that says another job writes it, and the first
// is not disturbed.
func TestCheckpointLockedByAnotherJob(t *testing.T) {
	bin := binary(t, "XPMPI_NOMPI_BIN")
	dir := filepath.Join(t.TempDir(), "ck")
	first := exec.Command(bin, "run", "heat2d", "--n", "64", "--iters", "1000000", "--quiet", "--checkpoint", dir, "--every", "1")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		first.Process.Kill()
		first.Wait()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first job wrote no checkpoint in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := run(t, time.Minute, bin, "run", "heat2d", "--n", "64", "--iters", "10", "--quiet", "--checkpoint", dir, "--every", "1")
	if r.code == 0 || !strings.Contains(r.combined, "another job is writing the checkpoint") ||
		!strings.Contains(r.combined, fmt.Sprintf("pid %d", first.Process.Pid)) {
		r.fail(t, "a second job writing the same checkpoint must be refused, naming the first (pid %d)", first.Process.Pid)
	}
	if first.ProcessState != nil {
		t.Errorf("the first job ended: %v", first.ProcessState)
	}
}

// TestWatchdogAlwaysFails: a watchdog that fires ends the job non-zero,
// even when the job would finish right after (--timeout 1ns), at 2 ranks.
func TestWatchdogAlwaysFails(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	r := launch(t, time.Minute, 2, bin, "run", "--timeout", "1ns", "heat2d", "--n", "32", "--iters", "5", "--quiet")
	if r.code != 3 || !strings.Contains(r.combined, "exceeded its time limit of 1ns") {
		r.fail(t, "want exit code 3 and the watchdog's message")
	}
}
