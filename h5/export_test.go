//go:build hdf5 && mpi && !mpich

package h5

import "github.com/xpmpi/xpmpi/mpi"

// SetWriteHooks sets the writers' test hooks (nil: none), which Save and
// SaveCheckpoint share, and returns a function that removes them.
func SetWriteHooks(afterWrite func(c mpi.Comm, path string), writeError func(c mpi.Comm, name string) error) func() {
	testAfterWrite, testWriteError = afterWrite, writeError
	return func() { testAfterWrite, testWriteError = nil, nil }
}

// SetReadHook sets the readers' test hook (nil: none) and returns a
// function that removes it.
func SetReadHook(readError func(c mpi.Comm, name string) error) func() {
	testReadError = readError
	return func() { testReadError = nil }
}
