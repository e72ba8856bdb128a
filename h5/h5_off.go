//go:build !(hdf5 && mpi && !mpich)

package h5

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Available reports whether this build has HDF5: false here, a build
// without the tags hdf5 and mpi (or with mpich: Debian's parallel HDF5 is
// built on Open MPI).
func Available() bool { return false }

// Version returns the version of the HDF5 library: "" without HDF5.
func Version() string { return "" }

// Save writes x as dataset name of the HDF5 file at path: without HDF5 it
// returns ErrUnavailable.
func Save[T backend.Numeric](x *dist.Array[T], path, name string, opts ...Option) error {
	checkName("Save", name)
	saveOptions(opts)
	return fmt.Errorf("h5: Save %s:%s: %w", path, name, ErrUnavailable)
}

// Load reads dataset name of the HDF5 file at path: without HDF5 it
// returns ErrUnavailable.
func Load[T backend.Numeric](c mpi.Comm, path, name string, opts ...dist.Option) (*dist.Array[T], error) {
	checkName("Load", name)
	return nil, fmt.Errorf("h5: Load %s:%s: %w", path, name, ErrUnavailable)
}

// LoadInto reads dataset name of the HDF5 file at path into x: without
// HDF5 it returns ErrUnavailable.
func LoadInto[T backend.Numeric](x *dist.Array[T], path, name string) error {
	checkName("LoadInto", name)
	return fmt.Errorf("h5: LoadInto %s:%s: %w", path, name, ErrUnavailable)
}

// CreateGroup makes group name in the HDF5 file at path: without HDF5 it
// returns ErrUnavailable.
func CreateGroup(c mpi.Comm, path, name string, attrs map[string]any) error {
	checkName("CreateGroup", name)
	checkAttrs("CreateGroup", attrs)
	return fmt.Errorf("h5: CreateGroup %s:%s: %w", path, name, ErrUnavailable)
}

// SetAttrs writes attributes of object name of the HDF5 file at path:
// without HDF5 it returns ErrUnavailable.
func SetAttrs(c mpi.Comm, path, name string, attrs map[string]any) error {
	checkName("SetAttrs", name)
	checkAttrs("SetAttrs", attrs)
	return fmt.Errorf("h5: SetAttrs %s:%s: %w", path, name, ErrUnavailable)
}

// ReadAttrs reads the attributes of object name of the HDF5 file at path:
// without HDF5 it returns ErrUnavailable.
func ReadAttrs(c mpi.Comm, path, name string) (map[string]any, error) {
	checkName("ReadAttrs", name)
	return nil, fmt.Errorf("h5: ReadAttrs %s:%s: %w", path, name, ErrUnavailable)
}

func writeCheckpoint(c mpi.Comm, path string, arrays []Entry) (map[string]string, error) {
	return nil, ErrUnavailable
}

func loadCheckpoint[T backend.Numeric](c mpi.Comm, path, name string, want arrayInfo, opts []dist.Option) (*dist.Array[T], error) {
	return nil, ErrUnavailable
}
