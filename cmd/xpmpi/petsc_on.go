//go:build petsc

package main

import (
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/petsc"
	"github.com/xpmpi/xpmpi/solvers/cg"
)

// petscVersion returns the PETSc version the binary links.
func petscVersion() string { return petsc.Version() }

// solveCGPETSc solves run cg's problem with PETSc's KSP over a Go shell
// matrix, with options under the prefix cg_.
func solveCGPETSc(world mpi.Comm, cfg cg.Config, options []string) (cg.Result, error) {
	if err := petsc.Init(world, options...); err != nil {
		return cg.Result{}, err
	}
	defer petsc.Finalize()
	res, x, err := petsc.SolvePoisson(world, petsc.PoissonConfig{N: cfg.N, Tol: cfg.Tol, MaxIter: cfg.MaxIter, Prefix: "cg_"})
	if err != nil {
		return cg.Result{}, err
	}
	x.Free()
	return cg.Result{Iters: res.Iterations, Seconds: res.Seconds, PerIter: res.PerIter, RelRes: res.RelRes,
		Converged: res.Reason.Converged(), Checksum: res.Checksum, Ranks: world.Size()}, nil
}
