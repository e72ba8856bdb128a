// Command xpmpi runs xpmpi's jobs and diagnostics, alone or under mpirun:
//
//	mpirun -np 4 xpmpi info
//	mpirun -np 2 xpmpi run heat2d --n 2048
//
// Build it with -tags mpi to run on several ranks; a binary built without
// MPI refuses to start when a launcher gives it more than one rank.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/xpmpi/xpmpi/mpi"
)

func main() {
	// The root's checks run before those of run's subcommands.
	cobra.EnableTraverseRunHooks = true
	os.Exit(mpi.Main(func(world mpi.Comm) error {
		return newRoot(world).Execute()
	}))
}
