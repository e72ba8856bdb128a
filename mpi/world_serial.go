//go:build !mpi && !petsc

package mpi

import "github.com/xpmpi/xpmpi/launch"

// Built reports whether this binary was built with real MPI (-tags mpi).
const Built = false

func initWorld() (Comm, error) {
	if d := launch.Detect(); d.Launched && d.Size > 1 {
		return nil, ErrNeedMPIBuild
	}
	return NewSerial(), nil
}

func finalize() error { return nil }

func libraryInfo() (impl, version, level string) {
	return "serial stand-in", "none (built without -tags mpi)", "n/a"
}

func libraryCUDAAware() (aware, known bool) { return false, false }

func libraryWaitMode() string { return "n/a" }

// Self returns a communicator of the calling rank alone.
func Self() Comm { return NewSerial() }

func openFile(c Comm, path string, flags int) (File, error) { return openOSFile(path, flags) }
