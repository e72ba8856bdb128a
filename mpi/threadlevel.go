package mpi

import (
	"fmt"
	"os"
	"strings"
)

// ThreadLevelEnv names the environment variable that chooses the thread
// level Init asks MPI for (see the package documentation, Goroutines):
// "multiple", "serialized" or "single". Unset or empty means the default,
// defaultThreadLevel; any other value makes Init fail with an error that
// names the variable.
const ThreadLevelEnv = "XPMPI_THREAD_LEVEL"

// defaultThreadLevel is the level Init asks for when XPMPI_THREAD_LEVEL is
// unset.
const defaultThreadLevel = "multiple"

// threadRequest is the level Init asks MPI for. Its values are the codes
// of xp_init.
type threadRequest int

const (
	askSingle     threadRequest = 0 // MPI_THREAD_SINGLE, the calls serialized by the binding's lock
	askSerialized threadRequest = 1 // MPI_THREAD_SERIALIZED, the calls serialized by the binding's lock
	askMultiple   threadRequest = 2 // MPI_THREAD_MULTIPLE, no lock of the binding's
)

// requestedThreadLevel returns the level XPMPI_THREAD_LEVEL asks for.
func requestedThreadLevel() (threadRequest, error) {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(ThreadLevelEnv)))
	if v == "" {
		v = defaultThreadLevel
	}
	switch v {
	case "multiple":
		return askMultiple, nil
	case "serialized":
		return askSerialized, nil
	case "single":
		return askSingle, nil
	}
	return askMultiple, fmt.Errorf("mpi: %s=%q: want multiple, serialized or single (the binding lets any goroutine call MPI: multiple calls side by side, serialized and single one at a time under the binding's lock)", ThreadLevelEnv, os.Getenv(ThreadLevelEnv))
}

// WaitModeEnv names the environment variable that chooses how the binding
// waits for MPI (see the package documentation, Waiting): "auto", "sleep" or
// "block". Unset or empty means "auto"; any other value makes Init fail with
// an error that names the variable.
const WaitModeEnv = "XPMPI_MPI_WAIT"

// requestedWaitMode returns what XPMPI_MPI_WAIT asks for: -1 for auto, 1
// for sleep, 0 for block (the codes of xp_wait_mode).
func requestedWaitMode() (int, error) {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(WaitModeEnv))) {
	case "", "auto":
		return -1, nil
	case "sleep":
		return 1, nil
	case "block":
		return 0, nil
	}
	return 0, fmt.Errorf("mpi: %s=%q: want auto, sleep or block", WaitModeEnv, os.Getenv(WaitModeEnv))
}
