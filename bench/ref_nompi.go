//go:build !mpi && !petsc

package bench

// OpenReference fails in the default build: the reference is C + MPI, and runs in
// the same MPI job as the xpmpi side, which needs the real MPI library.
func OpenReference(path string) (Reference, error) { return nil, ErrNeedsMPI }
