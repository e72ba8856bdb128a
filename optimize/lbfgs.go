package optimize

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// DistObjective is a function of a distributed array: it returns f(x) and
// writes the gradient into grad (an array with x's layout). It is
// collective: every rank calls it, so it may exchange halos and reduce,
// and it must return the same value on every rank. For the iterates to be
// the same at every rank count, f must not depend on the division among
// ranks: sum the terms with ExactSum, not a local loop and an allreduce.
// An error on any rank is returned on every rank.
type DistObjective func(x, grad *dist.Array[float64]) (float64, error)

// DistMinimizeOptions are the settings of MinimizeDist, SciPy's L-BFGS-B
// options by their names. The zero value (or nil) gives SciPy's defaults.
type DistMinimizeOptions struct {
	// M is the number of correction pairs kept (maxcor); default 10.
	M int
	// GTol stops when the largest component of the projected gradient is
	// at most GTol (gtol); default 1e-5.
	GTol float64
	// FTol stops when (f_k - f_k+1)/max(|f_k|, |f_k+1|, 1) <= FTol
	// (ftol, factr times the machine precision); default
	// 2.220446049250313e-09. A negative FTol disables the test, so that
	// only GTol and the limits stop it.
	FTol float64
	// MaxIter and MaxFun limit the iterations and the evaluations of f
	// (maxiter, maxfun); default 15000 each.
	MaxIter, MaxFun int
	// MaxLS is the most evaluations in one line search (maxls); default 20.
	MaxLS int
	// Lower and Upper are bounds with x0's layout (either may be nil for
	// none; elements may be infinite).
	Lower, Upper *dist.Array[float64]
	// C1 and C2 are the line search's sufficient decrease and curvature
	// constants; defaults 1e-4 and 0.9.
	C1, C2 float64
}

// DistMinimizeResult is the outcome of MinimizeDist, the same on every rank.
type DistMinimizeResult struct {
	// X is the minimizer found, a new array with x0's layout that the
	// caller frees; Fun is f there.
	X   *dist.Array[float64]
	Fun float64
	// PGNorm is the largest component of the projected gradient at X.
	PGNorm float64
	// NIt counts the iterations, NFev the evaluations of f.
	NIt, NFev int
	// Success, Status and Message are as SciPy's L-BFGS-B: Status 0
	// converged (by GTol or FTol), 1 a limit, 2 the line search failed.
	Success bool
	Status  int
	Message string
}

// MinimizeDist minimizes a function of a large distributed array by
// limited-memory BFGS: the two-loop recursion over the last M correction
// pairs, with every dot product a collective reduction that is exact (so
// every rank count takes the same steps and gets the same bits, if f is
// computed so), and a line search that satisfies the strong Wolfe
// conditions (Nocedal and Wright's algorithm 3.5 with cubic interpolation).
// The first step is 1/|d|, as SciPy's L-BFGS-B takes, then 1.
//
// With bounds (opts.Lower, opts.Upper) it is a projected L-BFGS, not
// L-BFGS-B's algorithm: variables at a bound whose gradient points out of
// the box are held fixed for the iteration, the two-loop direction is
// computed on the free ones, and the step follows the projected path
// P(x + a d) with a backtracking (Armijo) search. It converges where the
// projected gradient (SciPy's pgtol test) is small; it does not compute
// L-BFGS-B's generalized Cauchy point, and may take more iterations.
//
// It is collective. x0 (on the host) is not modified; it is projected onto
// the bounds first. The error is nil on success, ErrMaxIter, ErrMaxFun,
// ErrLineSearch or ErrNaN (f or the projected gradient not finite) with
// the result, or f's or a reduction's error. Bounds that make an empty
// box (a lower bound above its upper bound, a NaN, a lower bound of +Inf
// or an upper bound of -Inf) panic on every rank, as SciPy raises.
func MinimizeDist(f DistObjective, x0 *dist.Array[float64], opts *DistMinimizeOptions) (*DistMinimizeResult, error) {
	var o DistMinimizeOptions
	if opts != nil {
		o = *opts
	}
	if o.M < 0 || o.GTol < 0 || o.MaxIter < 0 || o.MaxFun < 0 || o.MaxLS < 0 || o.C1 < 0 || o.C2 < 0 || math.IsNaN(o.GTol) {
		panic(fmt.Sprintf("optimize: MinimizeDist with options %+v", o))
	}
	o.defaults()
	if !(o.C1 < o.C2 && o.C2 < 1) {
		panic(fmt.Sprintf("optimize: MinimizeDist with C1 %g and C2 %g (0 < C1 < C2 < 1)", o.C1, o.C2))
	}
	for _, b := range []*dist.Array[float64]{o.Lower, o.Upper} {
		if b != nil && !b.Layout().Equal(x0.Layout()) {
			panic("optimize: MinimizeDist with bounds of another layout than x0's")
		}
	}
	s := &lbfgs{o: &o, comm: x0.Comm(), reduce: distributed(x0)}
	arrays := map[*float64]*dist.Array[float64]{}
	array := func(v []float64) *dist.Array[float64] {
		a, ok := arrays[unsafe.SliceData(v)]
		if !ok {
			panic("optimize: internal error: a buffer that is no array")
		}
		return a
	}
	defer func() {
		for _, a := range arrays {
			a.Free()
		}
	}()
	s.alloc = func() ([]float64, error) {
		a, err := dist.ZerosLike(x0)
		if err != nil {
			return nil, err
		}
		v := a.LocalData()
		if len(v) == 0 {
			v = make([]float64, 0, 1) // an address of its own
		}
		arrays[unsafe.SliceData(v)] = a
		return v, nil
	}
	s.eval = func(x, g []float64) (float64, error) {
		v, err := f(array(x), array(g))
		if err = mpi.Agree(s.comm, err); err != nil {
			return 0, err
		}
		return v, nil
	}
	if o.Lower != nil {
		s.lo = o.Lower.LocalData()
	}
	if o.Upper != nil {
		s.hi = o.Upper.LocalData()
	}
	if err := s.checkBounds(o.Lower != nil || o.Upper != nil); err != nil {
		return nil, err
	}
	r, x, err := s.run(x0.LocalData())
	if r == nil {
		return nil, err
	}
	res := &DistMinimizeResult{X: array(x), Fun: r.Fun, PGNorm: r.PGNorm, NIt: r.NIt, NFev: r.NFev, Success: r.Success, Status: r.Status, Message: r.Message}
	delete(arrays, unsafe.SliceData(x))
	return res, err
}

// defaults fills in SciPy's defaults.
func (o *DistMinimizeOptions) defaults() {
	if o.M == 0 {
		o.M = 10
	}
	if o.GTol == 0 {
		o.GTol = 1e-5
	}
	if o.FTol == 0 {
		o.FTol = 2.220446049250313e-09
	}
	if o.MaxIter == 0 {
		o.MaxIter = 15000
	}
	if o.MaxFun == 0 {
		o.MaxFun = 15000
	}
	if o.MaxLS == 0 {
		o.MaxLS = 20
	}
	if o.C1 == 0 {
		o.C1 = 1e-4
	}
	if o.C2 == 0 {
		o.C2 = 0.9
	}
}

// lbfgs is the L-BFGS iteration over the local blocks of vectors: dot
// products reduce over comm when reduce (exactly), eval evaluates f and
// its gradient, alloc makes a vector (the local block of a new array).
type lbfgs struct {
	o      *DistMinimizeOptions
	comm   mpi.Comm
	reduce bool
	eval   func(x, g []float64) (float64, error)
	alloc  func() ([]float64, error)
	nfev   int
	lo, hi []float64
}

// lbfgsResult is the outcome of run, without the point.
type lbfgsResult struct {
	Fun, PGNorm float64
	NIt, NFev   int
	Success     bool
	Status      int
	Message     string
}

func (s *lbfgs) dot(x, y []float64) (float64, error) {
	return dotLocal(s.comm, s.reduce, x, y)
}

// evalCounted evaluates f at x into g, counted.
func (s *lbfgs) evalCounted(x, g []float64) (float64, error) {
	s.nfev++
	return s.eval(x, g)
}

// maxReduce is the largest m over the ranks.
func (s *lbfgs) maxReduce(m float64) (float64, error) {
	if s.reduce {
		return mpi.AllreduceValue(s.comm, m, mpi.Max)
	}
	return m, nil
}

func (s *lbfgs) bounded() bool { return s.lo != nil || s.hi != nil }

// checkBounds panics on every rank, with SciPy's message, where a lower
// bound is above its upper bound on any rank (2 in the reduction), and
// where a bound is NaN, a lower bound +Inf or an upper bound -Inf (1):
// an empty box. It is collective (one reduction) when distributed.
// bounded is whether the options have bounds (the same on every rank,
// where a rank's block may be empty).
func (s *lbfgs) checkBounds(bounded bool) error {
	if !bounded {
		return nil
	}
	bad := 0.0
	n := max(len(s.lo), len(s.hi))
	for i := 0; i < n; i++ {
		lo, hi := s.lower(i), s.upper(i)
		switch {
		case lo > hi:
			bad = 2
		case math.IsNaN(lo) || math.IsNaN(hi) || lo == math.Inf(1) || hi == math.Inf(-1):
			bad = max(bad, 1)
		}
	}
	bad, err := s.maxReduce(bad)
	if err != nil {
		return err
	}
	switch bad {
	case 2:
		panic("optimize: MinimizeDist: one of the lower bounds is greater than an upper bound")
	case 1:
		panic("optimize: MinimizeDist: a bound is NaN, a lower bound +Inf or an upper bound -Inf")
	}
	return nil
}

func (s *lbfgs) lower(i int) float64 {
	if s.lo == nil {
		return math.Inf(-1)
	}
	return s.lo[i]
}

func (s *lbfgs) upper(i int) float64 {
	if s.hi == nil {
		return math.Inf(1)
	}
	return s.hi[i]
}

// project clips x onto the box.
func (s *lbfgs) project(x []float64) {
	if !s.bounded() {
		return
	}
	for i, v := range x {
		x[i] = math.Min(math.Max(v, s.lower(i)), s.upper(i))
	}
}

// pgNorm is the largest component of the projected gradient
// P(x - g) - x, SciPy's pgtol measure.
func (s *lbfgs) pgNorm(x, g []float64) (float64, error) {
	m := 0.0
	for i, gi := range g {
		v := gi
		if s.bounded() {
			if gi < 0 {
				v = math.Max(x[i]-s.upper(i), gi)
			} else {
				v = math.Min(x[i]-s.lower(i), gi)
			}
		}
		m = math.Max(m, math.Abs(v))
	}
	return s.maxReduce(m)
}

// run minimizes from x0 (not modified); it returns the result and the
// vector (from alloc) that holds the point.
func (s *lbfgs) run(x0 []float64) (*lbfgsResult, []float64, error) {
	o := s.o
	fail := func(err error) (*lbfgsResult, []float64, error) { return nil, nil, err }
	var bufs [4][]float64
	for i := range bufs {
		v, err := s.alloc()
		if err != nil {
			return fail(err)
		}
		bufs[i] = v
	}
	x, g, xn, gn := bufs[0], bufs[1], bufs[2], bufs[3]
	copy(x, x0)
	s.project(x)
	n := len(x)
	d := make([]float64, n)
	free := make([]bool, n)
	sMem, yMem := make([][]float64, 0, o.M), make([][]float64, 0, o.M)
	rho := make([]float64, 0, o.M)
	alpha := make([]float64, o.M)

	res := &lbfgsResult{}
	fx, err := s.evalCounted(x, g)
	if err != nil {
		return fail(err)
	}
	pg, err := s.pgNorm(x, g)
	if err != nil {
		return fail(err)
	}
	var stopErr error
	for {
		if !isFiniteF(fx) || !isFiniteF(pg) {
			res.Status, res.Message, stopErr = 2, "ABNORMAL_TERMINATION_IN_LNSRCH", ErrNaN
			break
		}
		if pg <= o.GTol {
			res.Message = "CONVERGENCE: NORM_OF_PROJECTED_GRADIENT_<=_PGTOL"
			break
		}
		if res.NIt >= o.MaxIter {
			res.Status, res.Message, stopErr = 1, "STOP: TOTAL NO. of ITERATIONS REACHED LIMIT", ErrMaxIter
			break
		}
		if s.nfev >= o.MaxFun {
			res.Status, res.Message, stopErr = 1, "STOP: TOTAL NO. of f AND g EVALUATIONS EXCEEDS LIMIT", ErrMaxFun
			break
		}
		// The free variables: not at a bound that the gradient pushes
		// against.
		for i := range free {
			free[i] = true
			if s.bounded() {
				free[i] = !(x[i] <= s.lower(i) && g[i] > 0 || x[i] >= s.upper(i) && g[i] < 0)
			}
		}
		// The two-loop recursion on the free variables.
		for i := range d {
			d[i] = 0
			if free[i] {
				d[i] = -g[i]
			}
		}
		k := len(sMem)
		for j := k - 1; j >= 0; j-- {
			a, err := s.dot(sMem[j], d)
			if err != nil {
				return fail(err)
			}
			alpha[j] = rho[j] * a
			for i := range d {
				if free[i] {
					d[i] -= alpha[j] * yMem[j][i]
				}
			}
		}
		if k > 0 {
			// H0 = (s'y)/(y'y) of the newest pair.
			yy, err := s.dot(yMem[k-1], yMem[k-1])
			if err != nil {
				return fail(err)
			}
			gamma := 1 / (rho[k-1] * yy)
			for i := range d {
				d[i] *= gamma
			}
		}
		for j := 0; j < k; j++ {
			b, err := s.dot(yMem[j], d)
			if err != nil {
				return fail(err)
			}
			b *= rho[j]
			for i := range d {
				if free[i] {
					d[i] += sMem[j][i] * (alpha[j] - b)
				}
			}
		}
		gd, err := s.dot(g, d)
		if err != nil {
			return fail(err)
		}
		if !(gd < 0) {
			// Not a descent direction: forget the pairs, steepest descent.
			sMem, yMem, rho = sMem[:0], yMem[:0], rho[:0]
			for i := range d {
				d[i] = 0
				if free[i] {
					d[i] = -g[i]
				}
			}
			if gd, err = s.dot(g, d); err != nil {
				return fail(err)
			}
		}
		step := 1.0
		if res.NIt == 0 && len(sMem) == 0 {
			dn, err := s.dot(d, d)
			if err != nil {
				return fail(err)
			}
			step = math.Min(1, 1/math.Sqrt(dn))
		}
		var fn float64
		var ok bool
		if s.bounded() {
			fn, ok, err = s.projectedSearch(xn, gn, x, d, g, fx, step)
		} else {
			fn, ok, err = s.wolfeSearch(xn, gn, x, d, fx, gd, step)
		}
		if err != nil {
			return fail(err)
		}
		if !ok {
			res.Status, res.Message, stopErr = 2, "ABNORMAL_TERMINATION_IN_LNSRCH", ErrLineSearch
			break
		}
		res.NIt++
		// The new correction pair.
		var sv, yv []float64
		if len(sMem) == o.M {
			sv, yv = sMem[0], yMem[0]
			sMem, yMem, rho = append(sMem[:0], sMem[1:]...), append(yMem[:0], yMem[1:]...), append(rho[:0], rho[1:]...)
		} else {
			sv, yv = make([]float64, n), make([]float64, n)
		}
		for i := range sv {
			sv[i] = xn[i] - x[i]
			yv[i] = gn[i] - g[i]
		}
		sy, err := s.dot(sv, yv)
		if err != nil {
			return fail(err)
		}
		yy, err := s.dot(yv, yv)
		if err != nil {
			return fail(err)
		}
		if sy > 0x1p-52*yy {
			sMem, yMem, rho = append(sMem, sv), append(yMem, yv), append(rho, 1/sy)
		}
		x, xn, g, gn = xn, x, gn, g
		fold := fx
		fx = fn
		if pg, err = s.pgNorm(x, g); err != nil {
			return fail(err)
		}
		if o.FTol > 0 && (fold-fx)/math.Max(math.Max(math.Abs(fold), math.Abs(fx)), 1) <= o.FTol {
			if pg > o.GTol {
				res.Message = "CONVERGENCE: REL_REDUCTION_OF_F_<=_FACTR*EPSMCH"
				break
			}
		}
	}
	res.Fun, res.PGNorm, res.NFev = fx, pg, s.nfev
	res.Success = res.Status == 0
	return res, x, stopErr
}

// trial sets xn = P(x + a d) and evaluates f and its gradient gn there.
func (s *lbfgs) trial(xn, gn, x, d []float64, a float64) (float64, error) {
	for i := range xn {
		xn[i] = x[i] + a*d[i]
	}
	s.project(xn)
	return s.evalCounted(xn, gn)
}

// wolfeSearch finds a step a along d from x satisfying the strong Wolfe
// conditions, leaving x + a d in xn and the gradient there in gn
// (Nocedal and Wright, algorithms 3.5 and 3.6).
func (s *lbfgs) wolfeSearch(xn, gn, x, d []float64, f0, g0, a float64) (float64, bool, error) {
	c1, c2 := s.o.C1, s.o.C2
	eval := func(a float64) (phi, dphi float64, err error) {
		if phi, err = s.trial(xn, gn, x, d, a); err != nil {
			return 0, 0, err
		}
		dphi, err = s.dot(gn, d)
		return phi, dphi, err
	}
	aPrev, fPrev, gPrev := 0.0, f0, g0
	for i := 0; i < s.o.MaxLS; i++ {
		fa, ga, err := eval(a)
		if err != nil {
			return 0, false, err
		}
		if fa > f0+c1*a*g0 || i > 0 && fa >= fPrev {
			return s.zoom(eval, f0, g0, aPrev, fPrev, gPrev, a, fa, ga, s.o.MaxLS-i-1)
		}
		if math.Abs(ga) <= -c2*g0 {
			return fa, true, nil
		}
		if ga >= 0 {
			return s.zoom(eval, f0, g0, a, fa, ga, aPrev, fPrev, gPrev, s.o.MaxLS-i-1)
		}
		aPrev, fPrev, gPrev = a, fa, ga
		a *= 2
	}
	return 0, false, nil
}

// zoom narrows [lo, hi] (lo the end with the lower value that satisfies
// sufficient decrease) to a step satisfying the strong Wolfe conditions.
func (s *lbfgs) zoom(eval func(float64) (float64, float64, error), f0, g0, lo, flo, glo, hi, fhi, ghi float64, tries int) (float64, bool, error) {
	c1, c2 := s.o.C1, s.o.C2
	for ; tries > 0; tries-- {
		a := cubicMin(lo, flo, glo, hi, fhi, ghi)
		w := hi - lo
		if math.IsNaN(a) || (a-lo)/w < 0.1 || (hi-a)/w < 0.1 {
			a = lo + 0.5*w
		}
		if a == lo || a == hi {
			break
		}
		fa, ga, err := eval(a)
		if err != nil {
			return 0, false, err
		}
		if fa > f0+c1*a*g0 || fa >= flo {
			hi, fhi, ghi = a, fa, ga
			continue
		}
		if math.Abs(ga) <= -c2*g0 {
			return fa, true, nil
		}
		if ga*(hi-lo) >= 0 {
			hi, fhi, ghi = lo, flo, glo
		}
		lo, flo, glo = a, fa, ga
	}
	// The last point evaluated is not lo: evaluate lo again if it is a
	// decrease, so that xn and gn hold it.
	if lo > 0 && flo < f0 {
		fa, _, err := eval(lo)
		return fa, err == nil, err
	}
	return 0, false, nil
}

// cubicMin is the minimizer of the cubic that interpolates the values and
// slopes at a and b (NaN when it has none).
func cubicMin(a, fa, ga, b, fb, gb float64) float64 {
	d1 := ga + gb - 3*(fa-fb)/(a-b)
	r := d1*d1 - ga*gb
	if r < 0 {
		return math.NaN()
	}
	d2 := math.Copysign(math.Sqrt(r), b-a)
	return b - (b-a)*(gb+d2-d1)/(gb-ga+2*d2)
}

// projectedSearch backtracks along the projected path P(x + a d) until
// f decreases sufficiently: f(xa) <= f0 + C1 g.(xa - x).
func (s *lbfgs) projectedSearch(xn, gn, x, d, g []float64, f0, a float64) (float64, bool, error) {
	step := make([]float64, len(x))
	for i := 0; i < s.o.MaxLS; i++ {
		fa, err := s.trial(xn, gn, x, d, a)
		if err != nil {
			return 0, false, err
		}
		for j := range step {
			step[j] = xn[j] - x[j]
		}
		gs, err := s.dot(g, step)
		if err != nil {
			return 0, false, err
		}
		if gs < 0 && fa <= f0+s.o.C1*gs {
			return fa, true, nil
		}
		if gs >= 0 {
			return 0, false, nil
		}
		a *= 0.5
	}
	return 0, false, nil
}
