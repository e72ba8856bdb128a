package cg

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers"
)

// Operator applies a linear operator: dst = A src, for arrays of the
// layout of the solve's right-hand side. It is called on every rank
// (collectively: it may exchange ghosts or reduce) and must not change
// src's elements. A matrix-free stencil operator exchanges src's ghosts
// and applies a dist stencil:
//
//	func(dst, src *dist.Array[float64]) error {
//		if err := src.Exchange(); err != nil {
//			return err
//		}
//		dist.Laplace5(dst, src)
//		return nil
//	}
type Operator func(dst, src *dist.Array[float64]) error

// OperatorDot applies a linear operator as an Operator does, dst = A src,
// and returns this rank's part of the dot of src and dst: the sum of
// src[i]*dst[i] over the rank's block (0 for an empty block), which CG
// sums over the ranks. It is called on every rank (collectively, as an
// Operator is) and must not change src's elements. A stencil operator
// computes the dot in the same pass over memory as the stencil
// (dist.Laplace5Dot), so that a fused CG iteration (Options.Fused,
// Options.OperatorDot) makes three passes over memory, as a hand-fused C
// loop does:
//
//	func(dst, src *dist.Array[float64]) (float64, error) {
//		if err := src.Exchange(); err != nil {
//			return 0, err
//		}
//		return dist.Laplace5Dot(dst, src), nil
//	}
type OperatorDot func(dst, src *dist.Array[float64]) (float64, error)

// Options are the stopping rule and variants of a CG solve.
type Options struct {
	Tol     float64 // stop at ||r|| / ||b|| <= Tol, 0 or more
	MaxIter int     // stop after this many iterations (0: the number of elements of b)
	// Precond, if set, applies the preconditioner: dst = M^-1 src, for a
	// symmetric positive definite M. Nil: none.
	Precond Operator
	// Fused runs the vector work of an iteration as fused expressions
	// (package kernels/fuse): p.Ap in one pass (or in the operator's pass,
	// with OperatorDot); x += alpha p, r -= alpha Ap and r.r in one;
	// p = r + beta p in one. The dots then sum in fuse's order (16 lanes
	// in chunks of 512; p.Ap in OperatorDot's order with it), so the
	// iterates differ in the last bits from the plain solve's. It does
	// not go with Precond.
	Fused bool
	// OperatorDot, if set, is the solve's operator with the dot of its
	// input and output (it must apply the same operator as CG's a): the
	// fused iterations (Fused) call it for A p and p.Ap in one call, one
	// pass over memory less than a followed by a fused pass for p.Ap. The
	// plain iterations, and the residual before the first iteration, use
	// a. Nil: an operator without the dot keeps its fused pass.
	OperatorDot OperatorDot
	// Reproducible computes every norm and dot of the solve (||b||, r.r,
	// p.Ap and, with a preconditioner, r.z) with dist's reproducible
	// reductions (DotRepro, NormRepro: binned sums, the same bits at any
	// rank count, block layout and thread count), so that, with an
	// operator (and preconditioner) whose output does not depend on the
	// layout either (a stencil: elementwise), every iterate, the
	// iteration count and the residual history are the same bits at any
	// rank count and XPMPI_THREADS. On the CPU an iteration takes about
	// 1.1 times the plain one's time and 1.4 times the fused one's
	// (BenchmarkCG). Fused is ignored with it: what the fused passes save
	// is their dots, which the reproducible dots replace (the fused x and
	// r update moves the bytes two Axpy calls do), and fused updates with
	// separate reproducible dots measured slower than the plain
	// iterations; the solve gives the same bits either way. A block on a
	// device is copied to the host for each dot (recorded), as DotRepro
	// does.
	Reproducible bool
}

// Stats is what a CG solve reports, the same on every rank.
type Stats struct {
	Iters     int       // iterations run
	RelRes    float64   // final ||r|| / ||b||, from the recurrence
	Converged bool      // RelRes <= Tol
	History   []float64 // ||r|| / ||b|| before the first iteration and after each: Iters+1 values
}

// CG solves A x = b by conjugate gradients, for a symmetric positive
// definite operator a, preconditioned if o.Precond is set, from the
// initial guess in x, until the relative residual ||r|| / ||b|| is at most
// o.Tol or it has run o.MaxIter iterations. x receives the solution.
//
// The work vectors (the residual r, the search direction p, A p and, with
// a preconditioner, z = M^-1 r) are made with dist.ZerosLike(b): they have
// b's layout, backend and ghost layers. An operator that reads across
// block edges (a stencil) needs b made with dist.Ghosts; the ghosts that lie
// outside the array are 0 in every work vector (zero Dirichlet
// boundary). Every vector operation is a dist one: each iteration makes
// one operator call (and one preconditioner call), two global dots (three
// with a preconditioner) and three vector updates, and no copy.
//
// For b = 0 the solution is x = 0, with no iteration. CG is collective;
// a failure of the operator, of the preconditioner or of a reduction is
// returned, the same on every rank where they fail alike. It panics if x
// and b differ in layout, or for Fused with Precond.
func CG(a Operator, b, x *dist.Array[float64], o Options) (Stats, error) {
	if !x.Layout().Equal(b.Layout()) {
		panic(fmt.Sprintf("cg: CG with b of %v and x of %v", b.Layout(), x.Layout()))
	}
	if o.Fused && o.Precond != nil {
		panic("cg: CG with Fused and a preconditioner: the fused passes are those of plain CG")
	}
	if !(o.Tol >= 0) || o.MaxIter < 0 {
		panic(fmt.Sprintf("cg: CG with Tol %g and MaxIter %d", o.Tol, o.MaxIter))
	}
	w, err := newWork(b, o.Precond != nil, false)
	if err != nil {
		return Stats{}, err
	}
	defer w.free()
	return solve(a, b, x, o, w)
}

// work is the work vectors of a solve: the residual r, the search
// direction p, A p and, with a preconditioner, z = M^-1 r.
type work struct{ r, p, ap, z *dist.Array[float64] }

// newWork makes the work vectors of a solve with right-hand side b
// (dist.ZerosLike(b)), z only for a preconditioned one. With touch, it
// writes every element (zeros) once, so that the memory is mapped before
// the solve's first passes: Solve makes them before its timer starts, as
// the C reference allocates and initializes its vectors before its own.
// It is collective, as dist.ZerosLike is.
func newWork(b *dist.Array[float64], precond, touch bool) (*work, error) {
	w := &work{}
	vs := []**dist.Array[float64]{&w.r, &w.p, &w.ap}
	if precond {
		vs = append(vs, &w.z)
	}
	for _, v := range vs {
		a, err := dist.ZerosLike(b)
		if err != nil {
			w.free()
			return nil, err
		}
		if touch {
			dist.Fill(a, 0)
		}
		*v = a
	}
	return w, nil
}

// free releases the vectors made.
func (w *work) free() {
	for _, v := range []*dist.Array[float64]{w.r, w.p, w.ap, w.z} {
		if v != nil {
			v.Free()
		}
	}
}

// solve is CG with its work vectors made (newWork(b, o.Precond != nil, ...)).
func solve(a Operator, b, x *dist.Array[float64], o Options, w *work) (Stats, error) {
	maxIter := o.MaxIter
	if maxIter == 0 {
		maxIter = b.Len()
	}
	r, p, ap := w.r, w.p, w.ap
	dot, norm := dist.Dot[float64], dist.Norm[float64]
	if o.Reproducible {
		dot, norm = dist.DotRepro[float64], dist.NormRepro[float64]
	}
	bnorm, err := norm(b)
	if err != nil {
		return Stats{}, err
	}
	if bnorm == 0 {
		dist.Fill(x, 0)
		return Stats{Converged: true, History: []float64{0}}, nil
	}
	// r = b - A x; p = z = M^-1 r (z = r without a preconditioner).
	dist.Copy(p, x)
	if err := a(ap, p); err != nil {
		return Stats{}, err
	}
	dist.Sub(r, b, ap)
	z := r
	if o.Precond != nil {
		z = w.z
		if err := o.Precond(z, r); err != nil {
			return Stats{}, err
		}
	}
	dist.Copy(p, z)
	rr, err := dot(r, r)
	if err != nil {
		return Stats{}, err
	}
	rz := rr
	if o.Precond != nil {
		if rz, err = dot(r, z); err != nil {
			return Stats{}, err
		}
	}
	st := Stats{History: []float64{math.Sqrt(rr) / bnorm}}
	k := 0
	if o.Fused && !o.Reproducible {
		if k, rr, err = fused(a, o.OperatorDot, x, r, p, ap, rr, bnorm, o.Tol, maxIter, &st); err != nil {
			return Stats{}, err
		}
	}
	for ; math.Sqrt(rr)/bnorm > o.Tol && k < maxIter; k++ {
		if err := a(ap, p); err != nil {
			return Stats{}, err
		}
		pAp, err := dot(p, ap)
		if err != nil {
			return Stats{}, err
		}
		alpha := rz / pAp
		dist.Axpy(alpha, p, x)
		dist.Axpy(-alpha, ap, r)
		rrNew, err := dot(r, r)
		if err != nil {
			return Stats{}, err
		}
		rzNew := rrNew
		if o.Precond != nil {
			if err := o.Precond(z, r); err != nil {
				return Stats{}, err
			}
			if rzNew, err = dot(r, z); err != nil {
				return Stats{}, err
			}
		}
		dist.Axpby(1, z, rzNew/rz, p) // p = z + beta p
		rr, rz = rrNew, rzNew
		st.History = append(st.History, math.Sqrt(rr)/bnorm)
	}
	st.Iters, st.RelRes = k, math.Sqrt(rr)/bnorm
	st.Converged = st.RelRes <= o.Tol
	return st, nil
}

// fused runs the iterations of plain CG with the vector work in fused
// passes (Options.Fused), A p and p.Ap in one call of ad where it is not
// nil, and returns the iterations run and the last r.r.
func fused(a Operator, ad OperatorDot, x, r, p, ap *dist.Array[float64], rr, bnorm, tol float64, maxIter int, st *Stats) (int, float64, error) {
	comm := x.Comm()
	var alpha, beta float64
	args := fuse.Args{"x": x.Local(), "r": r.Local(), "p": p.Local(), "ap": ap.Local(), "alpha": &alpha, "beta": &beta}
	ks := fusedKernels()
	// pap returns this rank's p.Ap after A p.
	pap := func() (float64, error) {
		if ad != nil {
			return ad(ap, p)
		}
		if err := a(ap, p); err != nil {
			return 0, err
		}
		res, err := ks.dot.Run(args)
		if err != nil {
			return 0, err
		}
		return res.Float64("pap"), nil
	}
	k := 0
	for ; math.Sqrt(rr)/bnorm > tol && k < maxIter; k++ {
		local, err := pap()
		if err != nil {
			return 0, 0, err
		}
		pAp, err := mpi.AllreduceValue(comm, local, mpi.Sum)
		if err != nil {
			return 0, 0, err
		}
		alpha = rr / pAp
		res, err := ks.update.Run(args)
		if err != nil {
			return 0, 0, err
		}
		rrNew, err := mpi.AllreduceValue(comm, res.Float64("rr"), mpi.Sum)
		if err != nil {
			return 0, 0, err
		}
		beta = rrNew / rr
		if _, err := ks.direction.Run(args); err != nil {
			return 0, 0, err
		}
		rr = rrNew
		st.History = append(st.History, math.Sqrt(rr)/bnorm)
	}
	return k, rr, nil
}

// Config is one conjugate-gradient solve of the 2-D Poisson problem.
type Config struct {
	N       int     // interior points per side, at least 1: N*N unknowns
	Tol     float64 // stop at ||r|| / ||b|| <= Tol, 0 or more
	MaxIter int     // stop after this many iterations (0: N*N)
	// Fused runs the vector work of an iteration as fused expressions
	// (Options.Fused), the stencil with p.Ap (Options.OperatorDot with
	// PoissonDot): three passes over memory per iteration. The iteration
	// count may differ from the plain solve's by one or two.
	Fused bool
	// Reproducible computes the solve's dots and norms reproducibly
	// (Options.Reproducible): the iteration count, the residual and the
	// checksum are the same bits at any rank count and XPMPI_THREADS. It
	// overrides Fused: the iterations are the plain ones.
	Reproducible bool
}

// Result is what a solve reports, the same on every rank.
type Result struct {
	Iters     int     // iterations run
	Seconds   float64 // time to solution, slowest rank
	PerIter   float64 // seconds per iteration
	RelRes    float64 // final ||r|| / ||b||, from the recurrence
	Converged bool    // RelRes <= Tol
	Checksum  float64 // sum of x over the unknowns (dist.SumRepro)
	Ranks     int     // ranks in the solve
}

// Poisson returns the operator of the 2-D Poisson problem of Solve: the
// 5-point Laplacian, 4u minus the four neighbours, for arrays of shape
// [n, n+2] split along axis 0 with ghost layers (dist.Ghosts(1)), whose
// columns 0 and n+1 and whose ghosts beyond the first and last row are
// zero walls. It exchanges src's ghosts, then applies dist.Laplace5.
func Poisson() Operator {
	return func(dst, src *dist.Array[float64]) error {
		if err := src.Exchange(); err != nil {
			return err
		}
		dist.Laplace5(dst, src)
		return nil
	}
}

// PoissonDot returns Poisson's operator with the dot of its input and
// output (an OperatorDot): it exchanges src's ghosts, then applies
// dist.Laplace5Dot, the stencil and this rank's src.dst in one pass over
// memory on the CPU backend. dst gets the same bits as from Poisson.
func PoissonDot() OperatorDot {
	return func(dst, src *dist.Array[float64]) (float64, error) {
		if err := src.Exchange(); err != nil {
			return 0, err
		}
		return dist.Laplace5Dot(dst, src), nil
	}
}

// Solve solves A x = b by unpreconditioned conjugate gradients (CG with
// the Poisson operator), where A is the 5-point Laplacian (4u minus the
// four neighbours) on an n x n interior with zero Dirichlet boundary,
// b = 1 and x0 = 0, until the relative residual ||r|| / ||b|| is at most
// cfg.Tol or it has run cfg.MaxIter iterations. The vectors live on the
// current backend.
//
// The grid's rows are split into blocks over the ranks: every vector is
// a dist array of shape [n, n+2] with ghost rows (dist.Ghosts(1)), whose
// columns 0 and n+1 are the zero side walls and whose ghost rows beyond
// the first and last grid row stay 0 (the top and bottom walls). The
// search direction's ghost rows are exchanged once per iteration. The
// walls are zero in every vector, so the dots over whole blocks are the
// dots over the unknowns.
//
// The time to solution (Result.Seconds) runs from after the vectors are
// made (b, x and CG's work vectors, whose memory is written once before,
// so that the solve does not pay for the first touch of fresh pages) to
// the end of the last iteration on the slowest rank: it includes the
// initial residual and ||b||, not the allocations.
//
// The checksum is dist.SumRepro of x. With cfg.Reproducible, x itself,
// and so the iteration count, the residual and the checksum, are the same
// bits at every rank count and thread count: the stencil and the vector
// updates are elementwise, and every dot and norm is reproducible.
// Without it, the dots' partial sums depend on the blocks, and x differs
// in the last bits between rank counts.
//
// Solve is collective. It refuses a Config that Check refuses, and a grid
// that CheckMemory refuses, before allocating anything; every error is the
// same on every rank.
func Solve(comm mpi.Comm, cfg Config) (Result, error) {
	if err := cfg.Check(); err != nil {
		return Result{}, err
	}
	if err := CheckMemory(comm, cfg.N); err != nil {
		return Result{}, err
	}
	n := cfg.N
	maxIter := cfg.MaxIter
	if maxIter == 0 {
		maxIter = n * n
	}
	// b = 1 at the unknowns, 0 on the walls.
	b, err := dist.FromFunc(comm, []int{n, n + 2}, func(idx []int) float64 {
		if idx[1] == 0 || idx[1] == n+1 {
			return 0
		}
		return 1
	}, dist.Ghosts(1))
	if err != nil {
		return Result{}, err
	}
	defer b.Free()
	x, err := dist.ZerosLike(b)
	if err != nil {
		return Result{}, err
	}
	defer x.Free()
	// x and the work vectors are made, and their memory written once,
	// before the timer starts: the time to solution is the solve's, not
	// the first touch of fresh pages (the C reference's timed region
	// starts after it allocates and fills its vectors, too).
	dist.Fill(x, 0)
	w, err := newWork(b, false, true)
	if err != nil {
		return Result{}, err
	}
	defer w.free()
	t, err := solvers.StartTimer(comm)
	if err != nil {
		return Result{}, err
	}
	o := Options{Tol: cfg.Tol, MaxIter: maxIter, Fused: cfg.Fused, Reproducible: cfg.Reproducible}
	if cfg.Fused {
		o.OperatorDot = PoissonDot()
	}
	st, err := solve(Poisson(), b, x, o, w)
	if err != nil {
		return Result{}, err
	}
	if err := x.Synchronize(); err != nil {
		return Result{}, err
	}
	elapsed, err := t.Stop()
	if err != nil {
		return Result{}, err
	}
	res := Result{Iters: st.Iters, Seconds: elapsed, RelRes: st.RelRes, Converged: st.Converged, Ranks: comm.Size()}
	if st.Iters > 0 {
		res.PerIter = elapsed / float64(st.Iters)
	}
	if res.Checksum, err = dist.SumRepro(x); err != nil {
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
