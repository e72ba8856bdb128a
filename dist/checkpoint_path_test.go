//go:build unix

package dist

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveCheckpointDirWhileMoved: a checkpoint directory that another
// job's save moves aside between resolvePath's Lstat and its resolution
// of the links (DIR renamed to DIR.old before the new DIR comes in) still
// resolves, by its real path and through a link, to where it is written:
// the save goes on to the lock, which refuses it, instead of failing on
// the vanished path (TestCheckpointLockedThroughLink met it once).
func TestResolveCheckpointDirWhileMoved(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, link := filepath.Join(tmp, "ck"), filepath.Join(tmp, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { evalSymlinks = filepath.EvalSymlinks })
	for _, name := range []string{dir, link} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		moved := 0
		evalSymlinks = func(p string) (string, error) {
			if p == dir {
				// The other job's save, between the Lstat and here.
				if err := os.Rename(dir, dir+".old"); err != nil {
					t.Fatal(err)
				}
				moved++
			}
			return filepath.EvalSymlinks(p)
		}
		got, err := resolveCheckpointDir(name)
		if err != nil || got != dir {
			t.Errorf("resolveCheckpointDir(%s) with the directory moved aside = %q, %v; want %s", name, got, err, dir)
		}
		if moved != 1 {
			t.Errorf("resolveCheckpointDir(%s): the directory was moved %d times; want once (the test's hook did not run where it plays the race)", name, moved)
		}
		if err := os.RemoveAll(dir + ".old"); err != nil {
			t.Fatal(err)
		}
	}
}
