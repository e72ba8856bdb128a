//go:build !unix

package dist

// Without flock, checkpoint directories are not locked.
func lockCheckpointDir(dir string) error { return nil }

func unlockCheckpointDirs() {}
