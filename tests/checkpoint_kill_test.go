//go:build mpi

package tests

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointKilledMidWrite aborts a heat2d job at 3 ranks while it
// writes a checkpoint at every iteration (the watchdog kills every rank at
// once), then restarts from the directory at 2 ranks: the last complete
// checkpoint must load, and the restarted run must give the checksum of an
// uninterrupted one.
func TestCheckpointKilledMidWrite(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	dir := filepath.Join(t.TempDir(), "ck")
	args := []string{"run", "heat2d", "--n", "1200", "--quiet"}
	// A first checkpoint, so that there is an old one to keep.
	first := launch(t, 2*time.Minute, 3, bin, append(args, "--iters", "2", "--checkpoint", dir)...)
	if first.code != 0 {
		first.fail(t, "the first checkpoint")
		return
	}
	killed := launch(t, 2*time.Minute, 3, bin, append([]string{"run", "--timeout", "3s", "heat2d", "--n", "1200", "--quiet"},
		"--iters", "100000", "--checkpoint", dir, "--every", "1")...)
	if killed.code == 0 || killed.elapsed >= 10*time.Second {
		killed.fail(t, "the job writing checkpoints was not stopped by the watchdog within 10s")
		return
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	t.Logf("after the kill: %v", names)
	// The surviving checkpoint is at some step below 1000 (a checkpoint
	// takes longer than 3 ms): finish the run to 1000 from it.
	r := launch(t, 2*time.Minute, 2, bin, append(args, "--iters", "1000", "--restart", dir)...)
	if r.code != 0 {
		r.fail(t, "restarting from the checkpoint left by a killed job failed")
		return
	}
	full := launch(t, 2*time.Minute, 2, bin, append(args, "--iters", "1000")...)
	if got, want := checksum(t, r, "restarted"), checksum(t, full, "uninterrupted"); got != want {
		r.fail(t, "restarted after a kill: checksum %s, uninterrupted %s", got, want)
	}
}
