//go:build !mpi && !petsc

package main

// openRef fails in the default build: the reference is C + MPI, and runs in
// the same MPI job as the xpmpi side, which needs the real MPI library.
func openRef(path string) (refLib, error) { return nil, errBenchNeedsMPI }
