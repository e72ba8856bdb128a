package solvers

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// SelectBackend makes the backend named name ("cpu", "cuda") the one the
// solvers' arrays live on, refusing a name it does not know or a backend
// that cannot run here (backend.SelectStrict); "" keeps the selected one
// (XPMPI_BACKEND, else cpu). It returns the name of the backend selected.
// It is not collective; every rank calls it with the same name.
func SelectBackend(name string) (string, error) {
	if name != "" {
		if err := backend.SelectStrict(name); err != nil {
			return "", err
		}
	}
	return backend.Current().Name(), nil
}

// OnRoot runs f on rank 0 of comm (a check that only one rank makes, such
// as whether a file rank 0 writes can be written) and returns its error on
// every rank. It is collective.
func OnRoot(comm mpi.Comm, f func() error) error {
	var err error
	if comm.Rank() == 0 {
		err = f()
	}
	return mpi.Agree(comm, err)
}
