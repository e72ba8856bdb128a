//go:build unix

package dist_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// bcastString returns rank 0's s on every rank.
func bcastString(t *testing.T, c mpi.Comm, s string) string {
	t.Helper()
	n := []int64{int64(len(s))}
	if err := mpi.Bcast(c, n, 0); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, n[0])
	copy(b, s)
	if err := mpi.BcastBytes(c, b, 0); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// otherFSDir returns a directory (removed at the end of the test) on
// another file system than near where there is one (/dev/shm or
// /var/tmp), the same on every rank.
func otherFSDir(t *testing.T, c mpi.Comm, near string) string {
	var dir string
	if c.Rank() == 0 {
		var st0 syscall.Stat_t
		syscall.Stat(near, &st0)
		parent := "/dev/shm"
		for _, p := range []string{"/dev/shm", "/var/tmp"} {
			var st syscall.Stat_t
			if syscall.Stat(p, &st) == nil && st.Dev != st0.Dev {
				parent = p
				break
			}
		}
		var err error
		if dir, err = os.MkdirTemp(parent, "xpmpi-ckpt-link-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		var st syscall.Stat_t
		syscall.Stat(dir, &st)
		if st.Dev == st0.Dev {
			t.Logf("no other file system than %s's here: the links stay on one", near)
		}
	}
	return bcastString(t, c, dir)
}

// ckptStep returns the step of the checkpoint at dir, or -100 and the
// error.
func ckptStep(c mpi.Comm, dir string) (int64, error) {
	r, err := dist.OpenCheckpoint(c, dir)
	if err != nil {
		return -100, err
	}
	return r.Manifest().Step, nil
}

// SaveCheckpoint through a symbolic link writes the link's target, on
// the target's file system, and keeps the link: a link to a checkpoint
// directory, a link to one that does not exist yet (the save creates it),
// a relative link; the lock is the target's, so another job holding it
// refuses a save through the link; a crash that left the target moved
// aside is recovered through the link.
func TestCheckpointThroughSymlink(t *testing.T) {
	c := mpitest.World(t)
	here := mpitest.TempDir(t, c)   // the links
	there := otherFSDir(t, c, here) // their targets
	u, err := dist.Full(c, []int{5, 3}, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	save := func(dir string, step int64) error {
		return dist.SaveCheckpoint(c, dir, step, nil, dist.Entry("u", u))
	}
	rel, err := filepath.Rel(here, filepath.Join(there, "rel"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, target string // the link's name in here, and its target
		exists       bool
	}{
		{"link", filepath.Join(there, "ck"), true},
		{"dangling", filepath.Join(there, "new", "ck"), false},
		{"relative", rel, true},
	} {
		link := filepath.Join(here, tc.name)
		real := tc.target
		if !filepath.IsAbs(real) {
			real = filepath.Join(here, real)
		}
		if tc.exists {
			if err := save(real, 1); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		npyOnRank0(t, c, func() error { return os.Symlink(tc.target, link) })
		if err := save(link, 2); err != nil {
			t.Fatalf("%s: save through the link: %v", tc.name, err)
		}
		npyOnRank0(t, c, func() error {
			if got, err := os.Readlink(link); err != nil || got != tc.target {
				return fmt.Errorf("%s: after the save the link is %q (%v), want a link to %s", tc.name, got, err, tc.target)
			}
			return nil
		})
		if step, err := ckptStep(c, real); step != 2 {
			t.Errorf("%s: the target holds step %d (%v), want 2", tc.name, step, err)
		}
		if step, err := ckptStep(c, link); step != 2 {
			t.Errorf("%s: through the link: step %d (%v), want 2", tc.name, step, err)
		}
	}
	npyOnRank0(t, c, func() error {
		ents, _ := os.ReadDir(here)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if want := []string{"dangling", "link", "relative"}; !slices.Equal(names, want) {
			return fmt.Errorf("beside the links: %v, want only %v (temporary directories, .old and locks go beside the targets)", names, want)
		}
		return nil
	})

	// Another job holds the target's lock: a save through the link is
	// refused.
	link, real := filepath.Join(here, "link"), filepath.Join(there, "ck")
	var other *os.File
	if c.Rank() == 0 {
		dist.UnlockCheckpointDirs()
		if other, err = lockAsOtherJob(real + ".lock"); err != nil {
			t.Error(err)
		}
	}
	err = save(link, 3)
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "another job is writing the checkpoint") && strings.Contains(err.Error(), "pid 4242"),
		"a save through a link while another job holds the target's lock: %v", err)
	if other != nil {
		other.Close()
	}

	// A crash between the renames of a save through the link: the target
	// is at its .old, the link dangles; opening through the link recovers.
	npyOnRank0(t, c, func() error { return os.Rename(real, real+".old") })
	if step, err := ckptStep(c, link); step != 2 {
		t.Errorf("after a crash between the renames: step %d (%v) through the link, want 2", step, err)
	}
}
