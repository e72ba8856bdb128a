//go:build hdf5 && mpi && !mpich

package h5

import "github.com/xpmpi/xpmpi/mpi"

// SetCheckpointHooks sets the checkpoint writer's test hooks (nil: none)
// and returns a function that removes them.
func SetCheckpointHooks(afterWrite func(c mpi.Comm, path string), writeError func(c mpi.Comm, name string) error) func() {
	testAfterWrite, testWriteError = afterWrite, writeError
	return func() { testAfterWrite, testWriteError = nil, nil }
}
