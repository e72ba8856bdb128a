//go:build unix

package dist

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Checkpoint directory locks: the first SaveCheckpoint of a job to a
// directory DIR takes an exclusive flock on DIR.lock (on rank 0) and holds
// it until the process ends, so that a second job writing the same
// checkpoint is refused instead of interleaving renames with this one. The
// kernel drops the lock when the process dies, however it dies; the file
// stays, and says who held it last.
var dirLocks struct {
	sync.Mutex
	held map[string]*os.File
}

// lockCheckpointDir takes the lock of the checkpoint directory dir for
// this process, or says which job holds it.
func lockCheckpointDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	dirLocks.Lock()
	defer dirLocks.Unlock()
	if dirLocks.held[abs] != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	path := abs + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := make([]byte, 256)
		n, _ := f.ReadAt(holder, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder[:n]))
			if who == "" {
				who = "unknown"
			}
			return fmt.Errorf("another job is writing the checkpoint %s (it holds the lock %s: %s); two jobs must not write one checkpoint directory: give each its own", dir, path, who)
		}
		return fmt.Errorf("locking %s: %w", path, err)
	}
	host, _ := os.Hostname()
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))), 0)
	if dirLocks.held == nil {
		dirLocks.held = map[string]*os.File{}
	}
	dirLocks.held[abs] = f
	return nil
}

// unlockCheckpointDirs releases every checkpoint lock of this process
// (for tests, which play several jobs in one process).
func unlockCheckpointDirs() {
	dirLocks.Lock()
	defer dirLocks.Unlock()
	for k, f := range dirLocks.held {
		f.Close()
		delete(dirLocks.held, k)
	}
}
