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

	"github.com/xpmpi/xpmpi/mpi"
)

func main() {
	os.Exit(mpi.Main(func(world mpi.Comm) error {
		return newRoot(world).Execute()
	}))
}
