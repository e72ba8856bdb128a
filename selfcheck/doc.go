// Package selfcheck holds the self-checks of an MPI job: the checks that
// `xpmpi selftest` runs on every rank (collectives, point-to-point messages,
// communicator splits, the checking mode, and dist's halo exchange,
// redistribution and sort), and the faults it can inject on one rank to show
// that the job ends promptly with a clear message.
//
//	rep, err := selfcheck.Run(world, selfcheck.Options{})
//
// runs every check of Checks on every rank of world, agrees on each result
// with mpi.Agree, and returns the same Report on every rank (the times
// aside); Options.Fault injects a fault instead. Tests call it too: this
// package's own tests run every check at 1 to 4 ranks under mpirun.
//
// The package lives at the module root, not under mpi/ (as mpi/mpitest
// does), because its checks use dist: a package under mpi/ that imports
// dist would point back up the layers (dist imports mpi). It imports only
// mpi and dist, and the command imports it.
package selfcheck
