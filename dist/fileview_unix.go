//go:build unix

package dist

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only and shared, so that the
// read-back of a save compares the page cache's bytes in place instead of
// copying them out first; it returns nil where the file cannot be mapped
// (an empty file, a file system without mmap), and the caller reads with
// ReadAt instead.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// unmapFile undoes mapFile.
func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	return syscall.Munmap(b)
}
