package dist_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestCheckpointWriteFaults makes the writes of one rank fail (an error)
// or vanish (reported as done, written nowhere: what Open MPI's MPI-IO does
// with a failed pwrite), on each rank position and through both write
// paths, with runs written in place and through the axis-0 copy: the save
// must fail on every rank naming that rank, and the previous checkpoint
// must load as it was.
func TestCheckpointWriteFaults(t *testing.T) {
	c := mpitest.World(t)
	base := mpitest.TempDir(t, c)
	meta := map[string]string{"k": "v"}
	for _, path := range []string{"posix", "mpiio"} {
		for _, kind := range []struct {
			name string
			id   int
			want []string // one of these in the error
		}{
			{"lie", dist.FaultLie, []string{"differ from the data written", "ends at byte", "bytes after the write"}},
			{"error", dist.FaultError, []string{"input/output error"}},
		} {
			for _, minRun := range []int{0, 8} {
				for r := 0; r < c.Size(); r++ {
					name := fmt.Sprintf("%s/%s/run%d/rank%d", path, kind.name, minRun, r)
					t.Run(name, func(t *testing.T) {
						defer dist.SetWritePath(path)()
						if minRun > 0 {
							defer dist.SetMinRunBytes(minRun)()
						}
						dir := filepath.Join(base, strings.ReplaceAll(name, "/", "-"))
						arrays := ckptEntries(t, c, ckptArrays)
						if err := dist.SaveCheckpoint(c, dir, 1, meta, arrays...); err != nil {
							t.Fatal(err)
						}
						restore := dist.InjectWriteFault(c, r, kind.id)
						err := dist.SaveCheckpoint(c, dir, 2, nil, ckptEntries(t, c, ckptArrays[:3])...)
						restore()
						msg := "<nil>"
						if err != nil {
							msg = err.Error()
						}
						cause := false
						for _, w := range kind.want {
							cause = cause || strings.Contains(msg, w)
						}
						mpitest.Check(t, c, err != nil && strings.Contains(msg, fmt.Sprintf("rank %d", r)) && cause,
							"save with %s writes on rank %d: %s; want a failure on rank %d with one of %q", kind.name, r, msg, r, kind.want)
						// The previous checkpoint, whole.
						got := ckptVerify(c, dir, 1, meta, ckptArrays)
						mpitest.Check(t, c, got == "", "after the failed save: %s", got)

						// A plain Save fails the same way.
						x := npyArray[float64](t, c, []int{5, 3}, 0)
						defer x.Free()
						restore = dist.InjectWriteFault(c, r, kind.id)
						err = dist.Save(x, filepath.Join(dir+"-plain.npy"))
						restore()
						mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), fmt.Sprintf("rank %d", r)),
							"Save with %s writes on rank %d: %v", kind.name, r, err)
					})
				}
			}
		}
	}
}

// TestCheckpointDirLock: a checkpoint directory that another job holds is
// refused, naming the holder; the lock goes with the holder.
func TestCheckpointDirLock(t *testing.T) {
	c := mpitest.World(t)
	dir := filepath.Join(mpitest.TempDir(t, c), "locked")
	arrays := ckptEntries(t, c, ckptArrays[:2])
	if err := dist.SaveCheckpoint(c, dir, 1, nil, arrays...); err != nil {
		t.Fatal(err)
	}
	npyOnRank0(t, c, func() error {
		b, err := os.ReadFile(dir + ".lock")
		if err != nil || !strings.HasPrefix(string(b), fmt.Sprintf("pid %d on ", os.Getpid())) {
			return fmt.Errorf("lock file after a save: %q, %v", b, err)
		}
		return nil
	})
	// Another job: this process's lock dropped and taken by another
	// open file, as a second process would.
	var other *os.File
	if c.Rank() == 0 {
		dist.UnlockCheckpointDirs()
		var err error
		other, err = lockAsOtherJob(dir + ".lock")
		if err != nil {
			t.Error(err)
		}
	}
	err := dist.SaveCheckpoint(c, dir, 2, nil, arrays...)
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "another job is writing the checkpoint") && strings.Contains(err.Error(), "pid 4242"),
		"save while another job holds the lock: %v", err)
	got := ckptVerify(c, dir, 1, nil, ckptArrays[:2])
	mpitest.Check(t, c, got == "", "after the refused save: %s", got)
	if other != nil {
		other.Close()
	}
	if err := dist.SaveCheckpoint(c, dir, 3, nil, arrays...); err != nil {
		t.Fatal(err)
	}
	got = ckptVerify(c, dir, 3, nil, ckptArrays[:2])
	mpitest.Check(t, c, got == "", "after the lock was released: %s", got)
}
