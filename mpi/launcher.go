package mpi

import "github.com/xpmpi/xpmpi/launch"

// Launched reports whether the process was started by an MPI launcher,
// without starting MPI. It is launch.Launched, kept here for callers of
// package mpi; XPMPI_MPI=1 or 0 overrides the launcher variables. The
// launcher's variables themselves (local rank and size, world size) are
// package launch's.
func Launched() bool { return launch.Launched() }
