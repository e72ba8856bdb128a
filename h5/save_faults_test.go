//go:build hdf5 && mpi && !mpich

package h5_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// watchdog ends the process (and with it the MPI job) if stop is not
// called within d: a save that hangs fails the test instead of hanging it.
func watchdog(t *testing.T, d time.Duration) (stop func()) {
	name := t.Name()
	tm := time.AfterFunc(d, func() {
		fmt.Fprintf(os.Stderr, "%s: no result after %v: a rank is waiting forever (hang)\n", name, d)
		os.Exit(3)
	})
	return func() { tm.Stop() }
}

// TestSaveWriteFaults is TestCheckpointWriteFaults for Save: the write of
// one rank fails (EIO, ENOSPC, as HDF5's or pwrite would return them), or
// the file loses what was written after the write was reported as done,
// on each rank position, for a contiguous, a chunked and a gzip dataset
// (in a new file and over a dataset already there): Save fails on every
// rank, within the watchdog's time, naming the failed rank, the step, the
// file and the dataset, and the next Save of the file succeeds.
func TestSaveWriteFaults(t *testing.T) {
	c := mpitest.World(t)
	base := mpitest.TempDir(t, c)
	storages := []struct {
		name string
		opts []h5.Option
	}{
		{"contiguous", nil},
		{"chunked", []h5.Option{h5.Chunks(3, 4)}},
		{"gzip", []h5.Option{h5.Gzip(1)}},
	}
	kinds := []struct {
		name  string
		errno error
		want  []string
	}{
		{"EIO", syscall.EIO, []string{": write: failed on rank", "dataset /g/f: ", "input/output error"}},
		{"ENOSPC", syscall.ENOSPC, []string{": write: failed on rank", "dataset /g/f: ", "no space left on device"}},
		{"lost", nil, []string{": verify: failed on rank"}},
	}
	for _, st := range storages {
		for _, kind := range kinds {
			for r := 0; r < c.Size(); r++ {
				for _, over := range []bool{false, true} {
					if over && kind.errno == nil {
						continue
					}
					sub := fmt.Sprintf("%s/%s/rank%d/new", st.name, kind.name, r)
					if over {
						sub = fmt.Sprintf("%s/%s/rank%d/over", st.name, kind.name, r)
					}
					t.Run(sub, func(t *testing.T) {
						path := filepath.Join(base, strings.ReplaceAll(sub, "/", "-")+".h5")
						saveFault(t, c, path, st.opts, kind.errno, kind.want, r, over)
					})
				}
			}
		}
	}
}

// saveFault saves an array into path with one rank's write failing (errno
// nil: the file truncated after the write), into a new file or (over)
// over the dataset of a first save, and checks the error on every rank.
func saveFault(t *testing.T, c mpi.Comm, path string, opts []h5.Option, errno error, want []string, r int, over bool) {
	defer watchdog(t, time.Minute)()
	x := refArray[float64](t, c, []int{7, 6}, dist.ProcessGrid(0, 0))
	defer x.Free()
	if over {
		if err := h5.Save(x, path, "g/f", opts...); err != nil {
			t.Fatal(err)
		}
	}
	var restore func()
	if errno != nil {
		restore = h5.SetWriteHooks(nil, func(c mpi.Comm, name string) error {
			if c.Rank() == r && name == "/g/f" {
				return errno
			}
			return nil
		})
	} else {
		restore = h5.SetWriteHooks(func(c mpi.Comm, path string) {
			if c.Rank() == r {
				// The data never reached the file: all but its first KiB
				// is gone.
				os.Truncate(path, 1024)
			}
		}, nil)
	}
	err := h5.Save(x, path, "g/f", opts...)
	restore()
	msg := fmt.Sprint(err)
	ok := err != nil && strings.HasPrefix(msg, "h5: Save "+path+":/g/f: ")
	for _, w := range want {
		ok = ok && strings.Contains(msg, w)
	}
	if errno != nil {
		ok = ok && strings.Contains(msg, fmt.Sprintf("failed on rank %d: ", r)) && !strings.Contains(msg, "ranks")
	}
	t.Logf("the failed save: %s", msg)
	mpitest.Check(t, c, ok, "Save with %v on rank %d: %s; want a failure with %q", errno, r, msg, want)
	// Nothing stays behind: the next save of the file succeeds.
	if err := h5.Save(x, path, "g/f", append(opts, h5.Truncate())...); err != nil {
		t.Fatalf("the save after the failed one: %v", err)
	}
	y, err := h5.Load[float64](c, path, "g/f", dist.SplitAxis(1))
	if err != nil {
		t.Fatal(err)
	}
	checkRef(t, y)
	y.Free()
}

// TestAttrWriteFaults: CreateGroup and SetAttrs write on rank 0 alone; an
// error there (a file that is not HDF5) is every rank's, naming rank 0.
func TestAttrWriteFaults(t *testing.T) {
	c := mpitest.World(t)
	defer watchdog(t, time.Minute)()
	path := filepath.Join(mpitest.TempDir(t, c), "not.h5")
	if c.Rank() == 0 {
		if err := os.WriteFile(path, []byte("not an HDF5 file"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.Barrier()
	err := h5.CreateGroup(c, path, "g", map[string]any{"a": 1})
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "h5: CreateGroup "+path+":/g: failed on rank 0: ") && strings.Contains(err.Error(), "H5Fopen"), "CreateGroup: %v", err)
	err = h5.SetAttrs(c, path, "/", map[string]any{"a": 1})
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "h5: SetAttrs "+path+":/: failed on rank 0: ") && strings.Contains(err.Error(), "H5Fopen"), "SetAttrs: %v", err)
}

// TestSaveRealWriteFailure runs only under the fault suite's write-failure
// library (tests/testdata/failwrite), which makes every C-library write of
// one rank to files ending in .h5 fail, HDF5's own included, and the
// package's pwrite path with it:
//
//	gcc -shared -fPIC -o /tmp/failwrite.so tests/testdata/failwrite/failwrite.c -ldl
//	cd h5 && mpirun -np 3 -x LD_PRELOAD=/tmp/failwrite.so -x XPMPI_FAILWRITE_RANK=1 \
//		-x XPMPI_FAILWRITE_MATCH=.h5 /tmp/h5.test -test.run TestSaveRealWriteFailure
//
// Save of a contiguous, a chunked and a gzip dataset fails on every rank
// within the watchdog's time, naming the failed rank and the file.
func TestSaveRealWriteFailure(t *testing.T) {
	rank := os.Getenv("XPMPI_FAILWRITE_RANK")
	if rank == "" || os.Getenv("XPMPI_FAILWRITE_MATCH") != ".h5" {
		t.Skip("runs under LD_PRELOAD=failwrite.so with XPMPI_FAILWRITE_RANK and XPMPI_FAILWRITE_MATCH=.h5 (see the comment)")
	}
	c := mpitest.World(t)
	base := mpitest.TempDir(t, c)
	for _, st := range []struct {
		name string
		opts []h5.Option
	}{{"contiguous", nil}, {"chunked", []h5.Option{h5.Chunks(3, 4)}}, {"gzip", []h5.Option{h5.Gzip(1)}}} {
		t.Run(st.name, func(t *testing.T) {
			defer watchdog(t, time.Minute)()
			x := refArray[float64](t, c, []int{7, 6}, dist.ProcessGrid(0, 0))
			defer x.Free()
			path := filepath.Join(base, st.name+".h5")
			err := h5.Save(x, path, "g/f", st.opts...)
			msg := fmt.Sprint(err)
			t.Logf("the failed save: %s", msg)
			mpitest.Check(t, c, err != nil && strings.Contains(msg, "h5: Save "+path+":/g/f: ") && strings.Contains(msg, "failed on rank "+rank+": "),
				"Save with the writes of rank %s failing: %s", rank, msg)
		})
	}
}

// TestLoadReadFaults: a read that fails on one rank (EIO, as HDF5 returns
// it), on each rank position, for contiguous and gzip datasets, into Load
// and LoadInto, fails on every rank within the watchdog's time naming the
// rank, the file and the dataset; a truncated file fails on every rank.
func TestLoadReadFaults(t *testing.T) {
	c := mpitest.World(t)
	base := mpitest.TempDir(t, c)
	for _, st := range []struct {
		name string
		opts []h5.Option
	}{{"contiguous", nil}, {"gzip", []h5.Option{h5.Gzip(1)}}} {
		path := filepath.Join(base, st.name+".h5")
		x := refArray[float64](t, c, []int{7, 6}, dist.ProcessGrid(0, 0))
		defer x.Free()
		if err := h5.Save(x, path, "g/f", st.opts...); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < c.Size(); r++ {
			t.Run(fmt.Sprintf("%s/rank%d", st.name, r), func(t *testing.T) {
				defer watchdog(t, time.Minute)()
				restore := h5.SetReadHook(func(c mpi.Comm, name string) error {
					if c.Rank() == r && name == "/g/f" {
						return syscall.EIO
					}
					return nil
				})
				y, err := h5.Load[float64](c, path, "g/f", dist.SplitAxis(1))
				err2 := h5.LoadInto(x, path, "g/f")
				restore()
				if y != nil {
					y.Free()
				}
				for i, e := range []error{err, err2} {
					op := []string{"Load", "LoadInto"}[i]
					msg := fmt.Sprint(e)
					want := fmt.Sprintf("h5: %s %s:/g/f: failed on rank %d: dataset /g/f: input/output error", op, path, r)
					mpitest.Check(t, c, msg == want, "%s with a read failing on rank %d: %s; want %s", op, r, msg, want)
				}
			})
		}
		t.Run(st.name+"/truncated", func(t *testing.T) {
			defer watchdog(t, time.Minute)()
			if c.Rank() == 0 {
				os.Truncate(path, 1500)
			}
			c.Barrier()
			_, err := h5.Load[float64](c, path, "g/f")
			mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "h5: Load "+path+":/g/f: ") && strings.Contains(err.Error(), "truncated file"), "a truncated file: %v", err)
		})
	}
}
