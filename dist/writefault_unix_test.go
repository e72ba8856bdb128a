//go:build unix

package dist_test

import (
	"os"
	"syscall"
)

// lockAsOtherJob takes the flock of path on a new open file, with another
// job's description in it.
func lockAsOtherJob(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	f.Truncate(0)
	f.WriteAt([]byte("pid 4242 on elsewhere since 2026-01-01T00:00:00Z\n"), 0)
	return f, nil
}
