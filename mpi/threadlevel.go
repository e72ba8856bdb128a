package mpi

import (
	"fmt"
	"os"
	"strings"
)

// ThreadLevelEnv names the environment variable that chooses the thread
// level Init asks MPI for (see the package documentation, Goroutines):
// "multiple" or "serialized". Unset or empty means the default,
// defaultThreadLevel; any other value makes Init fail with an error that
// names the variable.
const ThreadLevelEnv = "XPMPI_THREAD_LEVEL"

// defaultThreadLevel is the level Init asks for when XPMPI_THREAD_LEVEL is
// unset.
const defaultThreadLevel = "multiple"

// requestedThreadLevel returns the level XPMPI_THREAD_LEVEL asks for:
// true for MPI_THREAD_MULTIPLE, false for MPI_THREAD_SERIALIZED.
func requestedThreadLevel() (multiple bool, err error) {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(ThreadLevelEnv)))
	if v == "" {
		v = defaultThreadLevel
	}
	switch v {
	case "multiple":
		return true, nil
	case "serialized":
		return false, nil
	}
	return false, fmt.Errorf("mpi: %s=%q: want multiple or serialized (the binding lets any goroutine call MPI, so it needs at least MPI_THREAD_SERIALIZED)", ThreadLevelEnv, os.Getenv(ThreadLevelEnv))
}
