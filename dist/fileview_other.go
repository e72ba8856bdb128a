//go:build !unix

package dist

import "os"

// Without mmap, the read-back of a save reads with ReadAt.
func mapFile(f *os.File, size int64) []byte { return nil }

func unmapFile(b []byte) error { return nil }
