//go:build petsc

// Package petsc hands xpmpi's distributed arrays to PETSc without copying,
// and lets PETSc's solvers call Go: a PETSc Vec over a dist.Array's memory,
// shell matrices and preconditioners whose operations are Go functions over
// dist.Arrays, assembled sparse matrices from a Go row function (NewAIJ),
// KSP linear solvers chosen by PETSc options, SNES nonlinear solvers with a
// Go residual and Jacobian, and the W4 Poisson problem through PETSc
// (SolvePoisson).
//
// The package builds only with the build tag petsc (which implies package
// mpi's real MPI binding), against Debian's petsc-dev (PETSc 3.18, real
// double scalars, 32-bit PetscInt, built with Open MPI, without CUDA):
//
//	go build -tags mpi,petsc ./...
//	mpirun -np 4 ./program -ksp_type cg -pc_type jacobi -ksp_monitor
//
// # Starting
//
// PETSc starts after MPI and ends before it:
//
//	func main() {
//		os.Exit(petsc.Main(os.Args[1:], func(world mpi.Comm) error {
//			... // NewVec, NewShell, NewKSP, Solve
//			return nil
//		}))
//	}
//
// or, inside mpi.Main, petsc.Init(world, options...) and a deferred
// petsc.Finalize(). Init always adds -no_signal_handler (so that a Go
// panic, a nil dereference included, ends the job with Go's message and
// stack) and installs an error handler that returns: every PETSc error
// comes back as an *Error (matching ErrPETSc) with PETSc's message, never
// as an abort.
//
// # Zero copy
//
// NewVec makes a Vec whose local part is the array's block: PETSc reads and
// writes the array's memory (VecCreateMPIWithArray), and the memory stays
// pinned and reachable while the Vec lives. The other way, a Vec whose
// memory PETSc allocated (CreateVec, Vec.Duplicate, Mat.CreateVecs) has an
// Array over that memory, also without a copy. The operators that PETSc
// calls (OperatorFunc) get dist.Arrays over PETSc's own vectors. Nothing
// is copied anywhere, except what an operator does itself (a halo
// exchange's ghost rows); an array on a device is an error (ErrNoCUDA),
// never a silent copy to the host.
//
// Lifetimes: destroy a Vec before freeing its array. A Vec whose array was
// freed first refuses any further use with a panic, and its memory is
// never freed under it.
//
// # Threads and MPI
//
// Package mpi starts MPI at MPI_THREAD_MULTIPLE where the library grants
// it (else SERIALIZED); every call of this package into PETSc holds package
// mpi's LockLibrary lock, which serializes PETSc's calls and, at
// SERIALIZED, keeps them apart from package mpi's own; a callback releases
// it while its Go code runs, so a callback may itself communicate (a halo
// exchange, a dist reduction) on the arrays' communicator: PETSc works on
// its own duplicate of the communicator.
//
// Everything that calls PETSc is collective over the object's communicator
// unless its documentation says otherwise. docs/PETSC.md is the guide for
// PETSc and petsc4py users.
package petsc
