//go:build mpi

package tests

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestH5CheckpointWriteFailure is TestCheckpointWriteFailure on the HDF5
// checkpoint path (heat2d --checkpoint-format h5, the CLI built with -tags
// mpi,hdf5 in XPMPI_H5_BIN): every write of one rank to checkpoint.h5
// fails with EIO or ENOSPC in the C library (LD_PRELOAD
// tests/testdata/failwrite, XPMPI_FAILWRITE_MATCH=.h5: HDF5's own writes
// of the file's metadata on rank 0, and MPI-IO's writes, which Open MPI
// reports as done) and in the package's own pwrite path, on each rank at
// 2 and 3 ranks: the save fails on every rank, naming the rank, the
// operation and the file, with the cause (or, through MPI-IO, the lost
// write that the read-back found), the job exits non-zero without hanging,
// the previous checkpoint (step 30, HDF5) stays, and a restart from it
// reaches the checksum of an uninterrupted run.
func TestH5CheckpointWriteFailure(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_H5_BIN")
	lib := failWriteLib(t)
	args := []string{"run", "heat2d", "--n", "25", "--quiet"}
	for _, np := range []int{2, 3} {
		full := launch(t, 2*time.Minute, np, bin, append(args, "--iters", "60")...)
		want := checksum(t, full, "uninterrupted")
		good := filepath.Join(t.TempDir(), "good")
		if r := launch(t, 2*time.Minute, np, bin, append(args, "--iters", "30", "--checkpoint", good, "--checkpoint-format", "h5")...); r.code != 0 {
			r.fail(t, "the first HDF5 checkpoint at %d ranks", np)
			continue
		}
		for pi, path := range []string{"posix", "mpiio"} {
			for rank := 0; rank < np; rank++ {
				errno, text := "EIO", "input/output error"
				if (rank+pi)%2 == 1 {
					errno, text = "ENOSPC", "no space left on device"
				}
				t.Run(fmt.Sprintf("np%d/%s/rank%d/%s", np, path, rank, errno), func(t *testing.T) {
					t.Parallel()
					dir := filepath.Join(t.TempDir(), "ck")
					copyDir(t, good, dir)
					env := []string{"LD_PRELOAD=" + lib, "XPMPI_FAILWRITE_RANK=" + strconv.Itoa(rank),
						"XPMPI_FAILWRITE_ERRNO=" + errno, "XPMPI_FAILWRITE_MATCH=.h5", "XPMPI_IO=" + path}
					r := launchEnv(t, time.Minute, np, env, bin, append(args, "--iters", "60", "--restart", dir,
						"--checkpoint", dir, "--checkpoint-format", "h5", "--every", "10", "--timeout", "40s")...)
					if r.code == 0 || r.timedOut || strings.Contains(r.combined, "exceeded its time limit") {
						r.fail(t, "a save with failing writes on rank %d must fail, not exit 0 or hang", rank)
						return
					}
					low := strings.ToLower(r.combined)
					lost := strings.Contains(r.combined, "reported as done")
					for q := 0; q < np; q++ {
						// Every rank says it, with the rank that failed.
						if !strings.Contains(r.combined, fmt.Sprintf("xpmpi: rank %d: dist: SaveCheckpoint %s: h5: ", q, dir)) {
							r.fail(t, "rank %d does not report the failed HDF5 save", q)
							return
						}
					}
					if !strings.Contains(r.combined, fmt.Sprintf("failed on rank %d", rank)) || !strings.Contains(r.combined, "checkpoint.h5") ||
						!(strings.Contains(low, text) || path == "mpiio" && lost) {
						r.fail(t, "want the save's failure on rank %d naming checkpoint.h5 and its cause (%s)", rank, text)
						return
					}
					if got := manifestStep(t, dir); got != "30" {
						t.Errorf("after the failed save, the checkpoint is of step %s, want 30", got)
					}
					re := launch(t, time.Minute, np, bin, append(args, "--iters", "60", "--restart", dir)...)
					if got := checksum(t, re, "restarted"); got != want {
						re.fail(t, "restarted from the kept HDF5 checkpoint: checksum %v, uninterrupted %v", got, want)
					}
				})
			}
		}
	}
}
