//go:build unix

package mpi

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// precheckOpen says, without opening anything, why this rank could not
// open path with the flags: a missing file, a directory that is not
// there, no permission, a file that exists under Exclusive. It is what
// makes an open that would fail on some ranks only (a path on a node-local
// disk, a permission on one host) fail on all of them before any rank
// holds a handle. nil does not promise that the open will succeed.
func precheckOpen(path string, flags int) error {
	fail := func(what string, err error) error {
		return fmt.Errorf("mpi: OpenFile %s: %s: %w", path, what, err)
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fail("is a directory", syscall.EISDIR)
	case err == nil && flags&Exclusive != 0 && flags&Create != 0:
		return fail("exists, and Exclusive was asked for", os.ErrExist)
	case err == nil:
		mode := uint32(4) // R_OK
		if flags&ReadOnly == 0 {
			mode = 2 // W_OK
			if flags&ReadWrite != 0 {
				mode = 6
			}
		}
		if aerr := syscall.Access(path, mode); aerr != nil {
			return fail("no permission", aerr)
		}
		return nil
	case !os.IsNotExist(err):
		return fail("cannot be examined", err)
	case flags&Create == 0:
		return fail("no such file", err)
	}
	// To be created: the directory must be there and writable.
	dir := filepath.Dir(path)
	if dst, derr := os.Stat(dir); derr != nil || !dst.IsDir() {
		if derr == nil {
			derr = syscall.ENOTDIR
		}
		return fail("its directory "+dir+" is not there", derr)
	}
	if aerr := syscall.Access(dir, 2|1); aerr != nil { // W_OK|X_OK
		return fail("cannot create a file in "+dir, aerr)
	}
	return nil
}
