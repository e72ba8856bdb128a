package cg

import (
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers"
)

// Config is one conjugate-gradient solve of the 2-D Poisson problem.
type Config struct {
	N       int     // interior points per side, at least 1: N*N unknowns
	Tol     float64 // stop at ||r|| / ||b|| <= Tol, 0 or more
	MaxIter int     // stop after this many iterations (0: N*N)
	// Fused runs the vector work of an iteration as fused expressions
	// (package kernels/fuse): p.Ap in one pass; x += alpha p, r -= alpha
	// Ap and r.r in one; p = r + beta p in one; the stencil stays a pass
	// of its own. The dots then sum in fuse's order (4 lanes in chunks of
	// 512), so the iterates differ in the last bits from the plain
	// solve's, and the iteration count may differ by one or two.
	Fused bool
}

// Result is what a solve reports, the same on every rank.
type Result struct {
	Iters     int     // iterations run
	Seconds   float64 // time to solution, slowest rank
	PerIter   float64 // seconds per iteration
	RelRes    float64 // final ||r|| / ||b||, from the recurrence
	Converged bool    // RelRes <= Tol
	Checksum  float64 // sum of x over the unknowns
	Ranks     int     // ranks in the solve
}

// Solve solves A x = b by unpreconditioned conjugate gradients, where A
// is the 5-point Laplacian (4u minus the four neighbours) on an n x n
// interior with zero Dirichlet boundary, b = 1 and x0 = 0, until the
// relative residual ||r|| / ||b|| is at most cfg.Tol or it has run
// cfg.MaxIter iterations. The vectors live on the current backend.
//
// The grid's rows are split into blocks over the ranks (the layout of
// [n, n+2], whose columns 0 and n+1 are the zero side walls). Every vector
// is a backend.Array over a rank's block; the search direction p, the only
// one the operator reads across block edges, is a dist.Halo of width 1,
// whose ghost rows are exchanged once per iteration (and whose ghost rows
// beyond the first and last grid rows stay 0: the top and bottom walls).
// The walls are zero in every vector, so the dots over whole blocks are
// the dots over the unknowns.
//
// Solve is collective. It refuses a Config that Check refuses before
// allocating anything; every error is the same on every rank.
func Solve(comm mpi.Comm, cfg Config) (Result, error) {
	if err := cfg.Check(); err != nil {
		return Result{}, err
	}
	n := cfg.N
	cols := n + 2
	maxIter := cfg.MaxIter
	if maxIter == 0 {
		maxIter = n * n
	}
	layout := dist.NewLayout([]int{n, cols}, 0, comm.Size())
	b := backend.Current()
	lo, hi := layout.Range(comm.Rank())
	rows := hi - lo
	m := rows * cols

	p, err := dist.NewHalo[float64](comm, layout, 1, dist.OnBackend(b))
	if err != nil {
		return Result{}, err
	}
	// Ap has p's ghosted shape, so that Laplace5 writes its block rows.
	apFull, err := backend.NewOn[float64](b, (rows+2)*cols)
	if err != nil {
		return Result{}, err
	}
	x, err := backend.NewOn[float64](b, m)
	if err != nil {
		return Result{}, err
	}
	r, err := backend.NewOn[float64](b, m)
	if err != nil {
		return Result{}, err
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
		return mpi.AllreduceValue(comm, backend.Dot(u, v), mpi.Sum)
	}
	bnorm := float64(n) // ||b|| = sqrt(n*n)

	if err := comm.Barrier(); err != nil {
		return Result{}, err
	}
	start := comm.Wtime()
	rr, err := dot(r, r)
	if err != nil {
		return Result{}, err
	}
	k := 0
	if cfg.Fused {
		var alpha, beta float64
		args := fuse.Args{"x": x, "r": r, "p": pb, "ap": ap, "alpha": &alpha, "beta": &beta}
		ks := fusedKernels()
		for ; math.Sqrt(rr)/bnorm > cfg.Tol && k < maxIter; k++ {
			if err := p.Exchange(); err != nil {
				return Result{}, err
			}
			backend.Laplace5(apFull, p.Local(), rows+2, cols)
			res, err := ks.dot.Run(args)
			if err != nil {
				return Result{}, err
			}
			pAp, err := mpi.AllreduceValue(comm, res.Float64("pap"), mpi.Sum)
			if err != nil {
				return Result{}, err
			}
			alpha = rr / pAp
			if res, err = ks.update.Run(args); err != nil {
				return Result{}, err
			}
			rrNew, err := mpi.AllreduceValue(comm, res.Float64("rr"), mpi.Sum)
			if err != nil {
				return Result{}, err
			}
			beta = rrNew / rr
			if _, err := ks.direction.Run(args); err != nil {
				return Result{}, err
			}
			rr = rrNew
		}
	}
	for ; math.Sqrt(rr)/bnorm > cfg.Tol && k < maxIter; k++ {
		if err := p.Exchange(); err != nil {
			return Result{}, err
		}
		backend.Laplace5(apFull, p.Local(), rows+2, cols)
		pAp, err := dot(pb, ap)
		if err != nil {
			return Result{}, err
		}
		alpha := rr / pAp
		backend.Axpy(alpha, pb, x)
		backend.Axpy(-alpha, ap, r)
		rrNew, err := dot(r, r)
		if err != nil {
			return Result{}, err
		}
		backend.Axpby(1, r, rrNew/rr, pb) // p = r + beta p
		rr = rrNew
	}
	if err := backend.Synchronize(x); err != nil {
		return Result{}, err
	}
	elapsed := comm.Wtime() - start
	if elapsed, err = mpi.AllreduceValue(comm, elapsed, mpi.Max); err != nil {
		return Result{}, err
	}
	res := Result{Iters: k, Seconds: elapsed, RelRes: math.Sqrt(rr) / bnorm, Ranks: comm.Size()}
	res.Converged = res.RelRes <= cfg.Tol
	if k > 0 {
		res.PerIter = elapsed / float64(k)
	}
	if res.Checksum, err = mpi.AllreduceValue(comm, backend.Sum(x), mpi.Sum); err != nil {
		return Result{}, err
	}
	return res, nil
}

// Check returns a *solvers.ConfigError if cfg cannot run, naming the
// field, and nil otherwise. It needs no communication; Solve calls it
// first.
func (cfg Config) Check() error {
	bad := func(field string, value any, reason string, err error) error {
		return &solvers.ConfigError{Solver: "cg", Field: field, Value: value, Reason: reason, Err: err}
	}
	switch {
	case cfg.N < 1:
		return bad("N", cfg.N, "want at least 1", nil)
	case cfg.N > math.MaxInt32:
		return bad("N", cfg.N, "too large (n*n unknowns)", dist.ErrTooLarge)
	case !(cfg.Tol >= 0):
		return bad("Tol", cfg.Tol, "want 0 or more", nil)
	case cfg.MaxIter < 0:
		return bad("MaxIter", cfg.MaxIter, "want 0 (n*n) or more", nil)
	}
	return nil
}

// cgKernels are the fused passes of an iteration after the stencil.
type cgKernels struct{ dot, update, direction *fuse.Kernel }

// fusedKernels returns the fused passes: p.Ap; x += alpha p, r -= alpha
// Ap with r.r of the new r; p = r + beta p.
func fusedKernels() cgKernels {
	x, r, p, ap := fuse.Var[float64]("x"), fuse.Var[float64]("r"), fuse.Var[float64]("p"), fuse.Var[float64]("ap")
	alpha, beta := fuse.Param[float64]("alpha"), fuse.Param[float64]("beta")
	rn := fuse.Out("r", fuse.Sub(r, fuse.Mul(alpha, ap)))
	return cgKernels{
		dot:       fuse.MustCompile(fuse.Dot("pap", p, ap)),
		update:    fuse.MustCompile(fuse.Out("x", fuse.Add(x, fuse.Mul(alpha, p))), rn, fuse.Dot("rr", rn, rn)),
		direction: fuse.MustCompile(fuse.Out("p", fuse.Add(r, fuse.Mul(beta, p)))),
	}
}
