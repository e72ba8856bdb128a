// Package solvers holds xpmpi's distributed solvers as library code, one
// package per solver, and what they share.
//
//	solvers/heat  the 2-D heat equation by Jacobi iteration, with checkpoints and restarts
//	solvers/cg    conjugate gradients with a user operator (CG), and the 2-D Poisson equation by it
//
// Each solver package has a Config, a Result and a collective
// Solve(comm, cfg) (Result, error) that runs unchanged on the default
// build's one-rank stand-in and under mpirun (-tags mpi). `xpmpi run heat2d`
// and `xpmpi run cg` are thin command-line fronts to them: they parse flags,
// call Solve and print the Result. What a front needs besides
// (SelectBackend, OnRoot) is here too, so that the fronts make no backend
// or MPI calls of their own.
//
// The solvers are written with package dist alone (arrays with ghost
// layers, their exchange, stencils, dots and AXPYs) and package kernels:
// a solver of one's own is written the same way.
//
// A solver is a package of its own, not a program under examples/, so that
// a Go program can import it, call it at any rank count and read its Result,
// and so that its tests and Examples run under mpirun like every other
// package's. One package per solver keeps each one's Config, Result and Solve
// free of prefixes (heat.Config, cg.Config).
//
// A solver refuses a Config it cannot run with a *ConfigError that names
// the Config field; a program that exposes the fields under other names,
// such as command-line flags, renames them with ConfigError.Message.
package solvers
