// Command xpmpi runs xpmpi's jobs and diagnostics, alone or under mpirun:
//
//	mpirun -np 4 xpmpi info
//	mpirun -np 2 xpmpi run heat2d --n 2048
//
// Build it with -tags mpi to run on several ranks; a binary built without
// MPI refuses to start when a launcher gives it more than one rank.
package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	_ "github.com/xpmpi/xpmpi/algorithms/algkern"    // the algorithms' kernels in the catalog
	_ "github.com/xpmpi/xpmpi/backend/all"           // every backend selectable
	_ "github.com/xpmpi/xpmpi/kernels/fuse/fusecuda" // fused kernels on CUDA arrays
	"github.com/xpmpi/xpmpi/mpi"
)

func main() {
	// The root's checks run before those of run's subcommands.
	cobra.EnableTraverseRunHooks = true
	code := 0
	status := mpi.Main(func(world mpi.Comm) error {
		err := newRoot(world).Execute()
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		return err
	})
	if status == 1 && code > 1 {
		// mpi.Main printed the error and returns 1 for every error.
		status = code
	}
	os.Exit(status)
}

// exitError is an error with the exit code it asks for; other errors exit
// with 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func (e *exitError) Unwrap() error { return e.err }
