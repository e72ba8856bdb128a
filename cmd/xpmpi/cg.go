package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// cgConfig is one conjugate-gradient solve of the 2-D Poisson problem.
type cgConfig struct {
	N       int     // interior points per side: N*N unknowns
	Tol     float64 // stop at ||r|| / ||b|| <= Tol
	MaxIter int     // stop after this many iterations (0: N*N)
}

// cgResult is what a solve reports, the same on every rank.
type cgResult struct {
	Iters     int     // iterations run
	Seconds   float64 // time to solution, slowest rank
	PerIter   float64 // seconds per iteration
	RelRes    float64 // final ||r|| / ||b||, from the recurrence
	Converged bool    // RelRes <= Tol
	Checksum  float64 // sum of x over the unknowns
	Ranks     int
}

// solveCG solves A x = b by unpreconditioned conjugate gradients, where A
// is the 5-point Laplacian (4u minus the four neighbours) on an n x n
// interior with zero Dirichlet boundary, b = 1 and x0 = 0, until the
// relative residual ||r|| / ||b|| is at most cfg.Tol.
//
// The grid's rows are split into blocks over the ranks (the layout of
// [n, n+2], whose columns 0 and n+1 are the zero side walls). Every vector
// is a backend.Array over a rank's block; the search direction p, the only
// one the operator reads across block edges, is a dist.Halo of width 1,
// whose ghost rows are exchanged once per iteration (and whose ghost rows
// beyond the first and last grid rows stay 0: the top and bottom walls).
// The walls are zero in every vector, so the dots over whole blocks are
// the dots over the unknowns.
func solveCG(world mpi.Comm, cfg cgConfig) (cgResult, error) {
	if err := checkCGConfig(cfg); err != nil {
		return cgResult{}, err
	}
	n := cfg.N
	cols := n + 2
	maxIter := cfg.MaxIter
	if maxIter == 0 {
		maxIter = n * n
	}
	layout := dist.NewLayout([]int{n, cols}, 0, world.Size())
	b := backend.Current()
	lo, hi := layout.Range(world.Rank())
	rows := hi - lo
	m := rows * cols

	p, err := dist.NewHalo[float64](world, layout, 1, b)
	if err != nil {
		return cgResult{}, err
	}
	// Ap has p's ghosted shape, so that Laplace5 writes its block rows.
	apFull, err := backend.NewOn[float64](b, (rows+2)*cols)
	if err != nil {
		return cgResult{}, err
	}
	x, err := backend.NewOn[float64](b, m)
	if err != nil {
		return cgResult{}, err
	}
	r, err := backend.NewOn[float64](b, m)
	if err != nil {
		return cgResult{}, err
	}
	pb := p.Local().Slice(cols, cols+m) // p's block, without ghost rows
	ap := apFull.Slice(cols, cols+m)
	// r = b - A x0 = b: 1 at the unknowns, 0 on the walls; p = r.
	if m > 0 {
		for i := 0; i < rows; i++ {
			backend.Fill(r.Slice(i*cols+1, i*cols+1+n), 1)
		}
		backend.Copy(pb, r)
	}
	dot := func(u, v *backend.Array[float64]) (float64, error) {
		return mpi.AllreduceValue(world, backend.Dot(u, v), mpi.Sum)
	}
	bnorm := float64(n) // ||b|| = sqrt(n*n)

	if err := world.Barrier(); err != nil {
		return cgResult{}, err
	}
	start := world.Wtime()
	rr, err := dot(r, r)
	if err != nil {
		return cgResult{}, err
	}
	k := 0
	for ; math.Sqrt(rr)/bnorm > cfg.Tol && k < maxIter; k++ {
		if err := p.Exchange(); err != nil {
			return cgResult{}, err
		}
		b.Laplace5(apFull.Buffer(), p.Local().Buffer(), rows+2, cols)
		pAp, err := dot(pb, ap)
		if err != nil {
			return cgResult{}, err
		}
		alpha := rr / pAp
		backend.Axpy(alpha, pb, x)
		backend.Axpy(-alpha, ap, r)
		rrNew, err := dot(r, r)
		if err != nil {
			return cgResult{}, err
		}
		backend.Axpby(1, r, rrNew/rr, pb) // p = r + beta p
		rr = rrNew
	}
	if err := backend.Synchronize(x); err != nil {
		return cgResult{}, err
	}
	elapsed := world.Wtime() - start
	if elapsed, err = mpi.AllreduceValue(world, elapsed, mpi.Max); err != nil {
		return cgResult{}, err
	}
	res := cgResult{Iters: k, Seconds: elapsed, RelRes: math.Sqrt(rr) / bnorm, Ranks: world.Size()}
	res.Converged = res.RelRes <= cfg.Tol
	if k > 0 {
		res.PerIter = elapsed / float64(k)
	}
	if res.Checksum, err = mpi.AllreduceValue(world, backend.Sum(x), mpi.Sum); err != nil {
		return cgResult{}, err
	}
	return res, nil
}

// checkCGConfig refuses a configuration before anything is allocated,
// naming the flag.
func checkCGConfig(cfg cgConfig) error {
	switch {
	case cfg.N < 1:
		return fmt.Errorf("cg: --n %d: want at least 1", cfg.N)
	case cfg.N > math.MaxInt32:
		return fmt.Errorf("cg: --n %d: too large (n*n unknowns)", cfg.N)
	case !(cfg.Tol >= 0):
		return fmt.Errorf("cg: --tol %g: want 0 or more", cfg.Tol)
	case cfg.MaxIter < 0:
		return fmt.Errorf("cg: --maxiter %d: want 0 (n*n) or more", cfg.MaxIter)
	}
	return nil
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
		cfg    cgConfig
		be     string
		asJSON bool
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
global dots.

It prints the iterations, the time to solution, the time per iteration, the
final relative residual and the checksum (the sum of x) on standard output
(rank 0); --json prints the same, and whether it converged, as one JSON
object. It exits 1 if the solve does not converge.`,
		Example: `  mpirun -np 2 xpmpi run cg --n 1024
  xpmpi run cg --n 256 --tol 1e-10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkCGConfig(cfg); err != nil {
				return err
			}
			if be != "" {
				if err := backend.SelectStrict(be); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			rep := cgReport{N: cfg.N, Unknowns: cfg.N * cfg.N, Tol: cfg.Tol, Ranks: world.Size(), Backend: backend.Current().Name()}
			if !asJSON {
				fmt.Fprintf(out, "cg: %d x %d interior (%d unknowns), tol %g, %d ranks, backend %s\n", rep.N, rep.N, rep.Unknowns, rep.Tol, rep.Ranks, rep.Backend)
			}
			res, err := solveCG(world, cfg)
			if err != nil {
				return err
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
	completeBackend(cmd)
	return cmd
}
