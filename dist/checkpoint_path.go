package dist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds the symbolic links resolveCheckpointDir follows, as the
// kernel's ELOOP does.
const maxLinks = 40

// resolveCheckpointDir returns the path of the checkpoint directory dir
// with every symbolic link in it resolved, also where dir, or the target
// of a link that is its last component, does not exist yet: the
// directory that a save writes, whose parent holds the temporary
// directory, the previous checkpoint (.old) and the lock, so that the
// rename stays on the target's file system and two jobs that name one
// directory by different paths take one lock. A link whose target does
// not exist resolves to that target (which the save creates).
func resolveCheckpointDir(dir string) (string, error) {
	return resolvePath(filepath.Clean(dir), 0)
}

// evalSymlinks is filepath.EvalSymlinks, a variable for the tests, which
// play a path removed between resolvePath's Lstat and its own.
var evalSymlinks = filepath.EvalSymlinks

func resolvePath(p string, links int) (string, error) {
	if links > maxLinks {
		return "", fmt.Errorf("resolving %s: more than %d symbolic links", p, maxLinks)
	}
	st, err := os.Lstat(p)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink == 0:
		r, err := evalSymlinks(p)
		if !errors.Is(err, fs.ErrNotExist) {
			return r, err
		}
		// p went away since the Lstat: another job's save moved it aside
		// (DIR to DIR.old, then its new DIR in). Resolved as a path that
		// does not exist, as below, so that the save goes on to the lock,
		// which refuses it while that job holds it.
		return resolveMissing(p, links)
	case err == nil:
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			// The link's directory, resolved first, so that a ".." in t
			// is taken from the real directory, as the kernel takes it.
			d, err := resolvePath(filepath.Dir(p), links+1)
			if err != nil {
				return "", err
			}
			t = filepath.Join(d, t)
		}
		return resolvePath(filepath.Clean(t), links+1)
	case errors.Is(err, fs.ErrNotExist):
		return resolveMissing(p, links)
	}
	return "", err
}

// resolveMissing resolves p, which does not exist: its parent resolved,
// joined with its last component.
func resolveMissing(p string, links int) (string, error) {
	parent, base := filepath.Split(p)
	if parent == "" {
		return p, nil // relative to the working directory, which exists
	}
	d, err := resolvePath(filepath.Clean(parent), links)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, base), nil
}
