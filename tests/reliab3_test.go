//go:build mpi

package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRestartFromFIFORefused: a checkpoint whose u.npy is a FIFO (a
// damaged or hostile directory) is refused at once on every rank with a
// message that says what it found, at 1 and 2 ranks, instead of an open
// that waits forever for a writer.
func TestRestartFromFIFORefused(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	dir := filepath.Join(t.TempDir(), "ck")
	args := []string{"run", "heat2d", "--n", "17", "--quiet"}
	if r := launch(t, time.Minute, 2, bin, append(args, "--iters", "4", "--checkpoint", dir, "--every", "2")...); r.code != 0 {
		r.fail(t, "heat2d with a checkpoint")
		return
	}
	u := filepath.Join(dir, "u.npy")
	if err := os.Remove(u); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(u, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, np := range []int{1, 2} {
		r := launch(t, 30*time.Second, np, bin, append(args, "--iters", "8", "--restart", dir)...)
		if r.timedOut || r.code != 1 || !strings.Contains(r.combined, "FIFO") || !strings.Contains(r.combined, "not a regular file") {
			r.fail(t, "restart at %d ranks from a checkpoint whose u.npy is a FIFO: want exit 1 at once, saying it is a FIFO, not a regular file", np)
		}
	}
}

// TestCheckpointLockedThroughLink: two jobs writing one checkpoint, the
// first by its real path and the second through a symbolic link to it:
// the second is refused by the lock, the first is not disturbed, and the
// link stays a link.
func TestCheckpointLockedThroughLink(t *testing.T) {
	bin := binary(t, "XPMPI_NOMPI_BIN")
	tmp := t.TempDir()
	dir, link := filepath.Join(tmp, "ck"), filepath.Join(tmp, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
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
	r := run(t, time.Minute, bin, "run", "heat2d", "--n", "64", "--iters", "10", "--quiet", "--checkpoint", link, "--every", "1")
	if r.code == 0 || !strings.Contains(r.combined, "another job is writing the checkpoint") {
		r.fail(t, "a second job writing the checkpoint through a link must be refused by the lock")
	}
	if first.ProcessState != nil {
		t.Errorf("the first job ended: %v", first.ProcessState)
	}
	if got, err := os.Readlink(link); err != nil || got != dir {
		t.Errorf("the link is now %q (%v), want a link to %s", got, err, dir)
	}
}

// TestPETScErrorShown: a PETSc error in run cg --solver petsc (an
// unknown method) shows PETSc's own message and exits 1, at 1 and 2
// ranks, instead of a panic about freeing a lent array. It needs the CLI
// built with -tags mpi,petsc in XPMPI_PETSC_BIN.
func TestPETScErrorShown(t *testing.T) {
	bin := binary(t, "XPMPI_PETSC_BIN")
	for _, np := range []int{1, 2} {
		r := launch(t, time.Minute, np, bin, "run", "cg", "--n", "16", "--solver", "petsc", "--petsc", "-cg_ksp_type no_such_method")
		if r.code != 1 || !strings.Contains(r.combined, "Unable to find requested KSP type no_such_method") || strings.Contains(r.combined, "panic") || strings.Contains(r.combined, "lent") {
			r.fail(t, "%d ranks: want exit 1 with PETSc's message", np)
		}
	}
}
