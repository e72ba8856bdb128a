package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers"
	"github.com/xpmpi/xpmpi/solvers/cg"
)

// cgFlags names cg.Config's fields after `xpmpi run cg`'s flags.
var cgFlags = map[string]string{
	"N":       "--n",
	"Tol":     "--tol",
	"MaxIter": "--maxiter",
}

// cgReport is what `xpmpi run cg` prints on rank 0, as text or, with
// --json, as one JSON object.
type cgReport struct {
	N         int     `json:"n"`
	Unknowns  int     `json:"unknowns"`
	Tol       float64 `json:"tol"`
	Ranks     int     `json:"ranks"`
	Backend   string  `json:"backend"`
	Iters     int     `json:"iterations"`
	Seconds   float64 `json:"time_to_solution_s"`
	PerIter   float64 `json:"time_per_iteration_ms"`
	RelRes    float64 `json:"relative_residual"`
	Sum       float64 `json:"checksum"`
	Converged bool    `json:"converged"`
}

// newCGCmd is `xpmpi run cg`.
func newCGCmd(world mpi.Comm) *cobra.Command {
	var (
		cfg    cg.Config
		be     string
		asJSON bool
		solver string
		popts  string
	)
	cmd := &cobra.Command{
		Use:   "cg",
		Short: "Conjugate gradients for the 2-D Poisson equation on a row-block distributed grid",
		Long: `cg solves the 2-D Poisson equation A x = b on an n x n interior grid by
conjugate gradients without a preconditioner: A is the matrix-free 5-point
Laplacian (4 x[i][j] minus its four neighbours) with zero Dirichlet
boundary, b = 1, x0 = 0, and the solve stops when ||r|| / ||b|| <= tol.
The rows are split into blocks over the ranks; every iteration exchanges
one ghost row of the search direction with each neighbour and makes two
global dots. With --reproducible every dot and norm is a binned,
reproducible sum (dist.DotRepro), so the iterations and the checksum are
the same bits at any rank count and XPMPI_THREADS (the plain iterations:
--fused is ignored with it).

It prints the iterations, the time to solution, the time per iteration, the
final relative residual and the checksum (the sum of x) on standard output
(rank 0); --json prints the same, and whether it converged, as one JSON
object. It exits 1 if the solve does not converge.`,
		Example: `  mpirun -np 2 xpmpi run cg --n 1024
  xpmpi run cg --n 256 --tol 1e-10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cfg.Check(); err != nil {
				return solverError("cg", cgFlags, err)
			}
			switch {
			case solver != "xpmpi" && solver != "petsc":
				return fmt.Errorf("cg: --solver %q: want xpmpi or petsc", solver)
			case solver == "petsc" && cfg.Reproducible:
				return errors.New("cg: --reproducible with --solver petsc: PETSc's dots are its own")
			case solver == "petsc" && petscVersion() == "":
				_, err := solveCGPETSc(world, cfg, nil) // says how to rebuild
				return err
			case solver == "xpmpi" && popts != "":
				return errors.New("cg: --petsc without --solver petsc")
			}
			if err := cg.CheckMemory(world, cfg.N); err != nil {
				return solverError("cg", cgFlags, err)
			}
			be, err := solvers.SelectBackend(be)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			rep := cgReport{N: cfg.N, Unknowns: cfg.N * cfg.N, Tol: cfg.Tol, Ranks: world.Size(), Backend: be}
			if !asJSON {
				fmt.Fprintf(out, "cg: %d x %d interior (%d unknowns), tol %g, %d ranks, backend %s\n", rep.N, rep.N, rep.Unknowns, rep.Tol, rep.Ranks, rep.Backend)
			}
			var res cg.Result
			if solver == "petsc" {
				res, err = solveCGPETSc(world, cfg, strings.Fields(popts))
			} else {
				res, err = cg.Solve(world, cfg)
			}
			if err != nil {
				return solverError("cg", cgFlags, err)
			}
			rep.Iters, rep.Seconds, rep.PerIter, rep.RelRes = res.Iters, res.Seconds, res.PerIter*1e3, res.RelRes
			rep.Sum, rep.Converged, rep.Ranks = res.Checksum, res.Converged, res.Ranks
			if asJSON {
				if err := writeJSON(out, rep); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "iterations %d\n", rep.Iters)
				fmt.Fprintf(out, "time to solution %.6g s\n", rep.Seconds)
				fmt.Fprintf(out, "time per iteration %.6g ms\n", rep.PerIter)
				fmt.Fprintf(out, "relative residual %.6g\n", rep.RelRes)
				fmt.Fprintf(out, "checksum %.16g\n", rep.Sum)
				fmt.Fprintf(out, "ranks %d\n", rep.Ranks)
			}
			if !res.Converged {
				return fmt.Errorf("cg: no convergence to %g in %d iterations (relative residual %g)", cfg.Tol, res.Iters, res.RelRes)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.N, "n", 1024, "interior points per side")
	f.Float64Var(&cfg.Tol, "tol", 1e-8, "relative residual ||r||/||b|| to stop at")
	f.IntVar(&cfg.MaxIter, "maxiter", 0, "most iterations (0: n*n)")
	f.StringVar(&be, "backend", "", "backend for the vectors: cpu or cuda (default: XPMPI_BACKEND, else cpu)")
	f.BoolVar(&asJSON, "json", false, "print the result as one JSON object (rank 0)")
	f.BoolVar(&cfg.Fused, "fused", false, "fuse each iteration's vector updates and dots (package kernels/fuse)")
	f.BoolVar(&cfg.Reproducible, "reproducible", false, "reproducible dots and norms: the same iterations and checksum, to the bit, at any rank and thread count (plain iterations: overrides --fused)")
	f.StringVar(&solver, "solver", "xpmpi", "xpmpi (solvers/cg) or petsc (PETSc's KSP over a Go shell matrix; needs a binary built with -tags mpi,petsc)")
	f.StringVar(&popts, "petsc", "", "PETSc options for --solver petsc, under the prefix cg_ (e.g. \"-cg_ksp_type gmres -cg_ksp_monitor\")")
	completeBackend(cmd)
	return cmd
}
