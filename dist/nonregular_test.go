//go:build unix

package dist_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// notBlocked runs f and fails the test if it has not returned within 20
// seconds; it then opens the FIFO at fifo for writing, which lets an open
// for reading that blocks there return, so that the test ends instead of
// hanging.
func notBlocked(t *testing.T, fifo string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Errorf("still blocked after 20 s on the FIFO %s", fifo)
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		return <-done
	}
}

// A FIFO, a directory or a device where a .npy file is expected is
// refused on every rank with an error that says what it is, instead of an
// open() that waits forever for a writer; so is a checkpoint that holds a
// FIFO as an array's file, or as its manifest.
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	fifo := filepath.Join(dir, "x.npy")
	if c.Rank() == 0 {
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, "d.npy"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mpitest.Check(t, c, true, "")
	for _, tc := range []struct{ path, want string }{
		{fifo, "FIFO"},
		{filepath.Join(dir, "d.npy"), "directory"},
		{"/dev/null", "device"},
	} {
		err := notBlocked(t, fifo, func() error {
			a, err := dist.Load[float64](c, tc.path)
			if err == nil {
				a.Free()
			}
			return err
		})
		mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), tc.want) && strings.Contains(err.Error(), "not a regular file"),
			"Load of %s: %v, want an error saying it is a %s, not a regular file", tc.path, err, tc.want)
	}

	// A checkpoint whose u.npy, then whose manifest, is a FIFO.
	for _, name := range []string{"u.npy", "manifest.json"} {
		ck := filepath.Join(dir, "ckpt-"+strings.TrimSuffix(name, filepath.Ext(name)))
		u, err := dist.Full(c, []int{5, 3}, 2.0)
		if err != nil {
			t.Fatal(err)
		}
		err = dist.SaveCheckpoint(c, ck, 1, nil, dist.Entry("u", u))
		u.Free()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(ck, name)
		if c.Rank() == 0 {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mpitest.Check(t, c, true, "")
		err = notBlocked(t, p, func() error {
			r, err := dist.OpenCheckpoint(c, ck)
			if err != nil {
				return err
			}
			a, err := dist.LoadArray[float64](r, "u")
			if err == nil {
				a.Free()
			}
			return err
		})
		mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "FIFO") && strings.Contains(err.Error(), name),
			"a checkpoint with a FIFO as %s: %v, want an error naming it and saying it is a FIFO", name, err)
	}
}
