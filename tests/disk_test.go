//go:build mpi && linux

package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// smallDisk mounts a tmpfs of size bytes on a new directory and returns
// it, unmounting at the end; it skips where the test may not mount.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "xpmpi-test", dir).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestCheckpointRealDiskFullAndReadOnly saves a checkpoint on a small
// tmpfs, then fills the file system (a real ENOSPC, not an injected one),
// then remounts it read-only (EROFS), at 2, 3 and 4 ranks through both
// write paths: each later save must fail (on every rank, agreed) with the cause,
// exit non-zero, and leave the first checkpoint to restart to the
// uninterrupted checksum.
func TestCheckpointRealDiskFullAndReadOnly(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	args := []string{"run", "heat2d", "--n", "100", "--quiet"}
	for _, np := range []int{2, 3, 4} {
		full := launch(t, 2*time.Minute, np, bin, append(args, "--iters", "60")...)
		want := checksum(t, full, "uninterrupted")
		for _, io := range []string{"posix", "mpiio"} {
			t.Run(fmt.Sprintf("np%d/%s", np, io), func(t *testing.T) {
				t.Parallel()
				disk := smallDisk(t, "1m")
				dir := filepath.Join(disk, "ck")
				env := []string{"XPMPI_IO=" + io}
				if r := launchEnv(t, time.Minute, np, env, bin, append(args, "--iters", "30", "--checkpoint", dir)...); r.code != 0 {
					r.fail(t, "the first checkpoint")
					return
				}
				// Fill what is left; the writer stops at ENOSPC.
				exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(disk, "filler"), "bs=64k").Run()
				for _, c := range []struct{ name, cause string }{
					{"full", "no space left on device"},
					{"read-only", "read-only file system"},
				} {
					if c.name == "read-only" {
						os.Remove(filepath.Join(disk, "filler"))
						if out, err := exec.Command("mount", "-o", "remount,ro", disk).CombinedOutput(); err != nil {
							t.Fatalf("remount ro: %v: %s", err, out)
						}
					}
					r := launchEnv(t, time.Minute, np, env, bin,
						append(args, "--iters", "60", "--restart", dir, "--checkpoint", dir, "--every", "10", "--timeout", "40s")...)
					if r.code == 0 || r.timedOut || !strings.Contains(strings.ToLower(r.combined), c.cause) {
						r.fail(t, "%s disk: want a failed save saying %q", c.name, c.cause)
						return
					}
					// The save's error is agreed on every rank; the first
					// rank to end the job may stop the others before they
					// print it.
					if !strings.Contains(r.combined, "SaveCheckpoint") {
						r.fail(t, "%s disk: no rank printed the save's error", c.name)
					}
					if got := manifestStep(t, dir); got != "30" {
						t.Errorf("%s disk: the checkpoint is of step %s, want 30", c.name, got)
					}
					re := launch(t, time.Minute, np, bin, append(args, "--iters", "60", "--restart", dir)...)
					if got := checksum(t, re, "restarted"); got != want {
						re.fail(t, "%s disk: restarted from the kept checkpoint: checksum %v, uninterrupted %v", c.name, got, want)
					}
				}
			})
		}
	}
}
