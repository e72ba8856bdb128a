package optimize

import (
	"errors"
	"fmt"
	"math"
)

// BatchFunc evaluates one scalar function per element for a batch of
// elements at once: for every k, out[k] is the function of element idx[k]
// at x[k]. The three slices have the same length. idx says which element
// (an index into x0) each x[k] belongs to, so that the function can look up
// the element's own parameters (the eccentricity and mean anomaly of one
// orbit, the coefficients of one cell).
//
// One call evaluates the active elements of a chunk (Newton solves the
// elements up to 1024 at a time, each chunk to the end), on the host; the
// device form is ArrayFunc, which NewtonArray calls with device arrays. The function must not keep the
// slices after it returns, and must compute each element independently of
// the others (for the results to be the same whatever the batch holds).
type BatchFunc func(idx []int, x, out []float64)

// BatchFDF evaluates one scalar function and its first derivative per
// element for a batch of elements at once: for every k, f[k] and df[k] are
// the function and its derivative of element idx[k] at x[k]. It is
// BatchFunc's form for NewtonFDF, GSL's fdf and SciPy's
// root_scalar(fprime=True) (whose f returns the value and the
// derivative): where the two share work, one call computes it once.
// Kepler's equation is the example: E - e sin E - M and 1 - e cos E take
// the sine and cosine of the same E, which math.Sincos gives together for
// about the cost of one of them (a C compiler makes the same fusion of
// sin and cos on its own). The four slices have the same length; the
// rules of BatchFunc hold.
type BatchFDF func(idx []int, x, f, df []float64)

// funcs are the callbacks of one solve: f and fprime (fprime nil for the
// secant method), or fdf in their place.
type funcs struct {
	f, fprime BatchFunc
	fdf       BatchFDF
}

// newton reports whether the solve uses a derivative (Newton's or
// Halley's method, not the secant).
func (fs funcs) newton() bool { return fs.fprime != nil || fs.fdf != nil }

// NewtonOptions are the settings of Newton and NewtonDist. The zero value
// (or nil) gives SciPy's defaults.
type NewtonOptions struct {
	// Tol is the absolute step tolerance and RTol the relative one: an
	// element has converged when its step dx satisfies
	// |dx| < Tol + RTol*|x|, x the new iterate. Defaults 1.48e-8 and 0
	// (SciPy's tol and rtol).
	Tol, RTol float64
	// MaxIter is the most iterations (steps) of any element; default 50.
	MaxIter int
	// FPrime2, with a derivative, makes it Halley's method (SciPy's
	// fprime2).
	FPrime2 BatchFunc
	// Lockstep evaluates every element at every iteration, as SciPy does
	// with an array x0 (the steps of converged elements are computed and
	// thrown away), instead of compacting the active set. The results are
	// the same, bit for bit; only the cost differs. On 10^6 Kepler
	// equations (bench_test.go, medians on a shared 2-core machine, before
	// the chunks) the compacted batch took 166 ms, lockstep 193 ms, a plain
	// per-element loop 160 ms; with a costly function 1.76 s against
	// lockstep's 1.96 s.
	Lockstep bool
}

// NewtonResult is the outcome of Newton: per element, the root, whether it
// converged, whether it stopped on a zero derivative, its number of steps
// and the residual f(root).
type NewtonResult struct {
	// Root are the roots (the last iterate where an element did not
	// converge).
	Root []float64
	// Converged and ZeroDer are SciPy's full_output masks: converged,
	// and stopped on a zero derivative (or, for the secant method, on two
	// equal function values) without converging. An element that is
	// neither ran out of iterations.
	Converged, ZeroDer []bool
	// Iterations is the number of steps each element took.
	Iterations []int
	// Residual is f at Root, from one last call of f (of fdf, for
	// NewtonFDF) for each chunk.
	Residual []float64
	// NumConverged, NumZeroDer and NumFailed count the elements that
	// converged, that stopped on a zero derivative, and that did neither.
	NumConverged, NumZeroDer, NumFailed int
	// Calls counts the calls of f, fprime and fprime2 (of fdf and
	// fprime2, for NewtonFDF; each call evaluates a batch); Evals counts
	// the element evaluations of f (the residuals' included) and
	// DerivEvals those of fprime and fprime2 together (with fdf, its
	// derivatives, the residual call's included): the work that
	// compaction saves. Each element has at most MaxIter+2 evaluations of
	// f and MaxIter of each derivative (MaxIter+1 of fdf's), whatever its
	// values (NaN and infinite ones included): MaxIter is the evaluation
	// budget.
	Calls, Evals, DerivEvals int
	// Method is "newton", "halley" or "secant".
	Method string

	// work is the chunk's working space, kept for NewtonInto.
	work *batch
}

// ErrNoConvergence is wrapped by the error of Newton and NewtonDist when
// some elements ran out of iterations, ErrZeroDerivative when some stopped
// on a zero derivative. The results are still returned.
var (
	ErrNoConvergence  = errors.New("optimize: failed to converge")
	ErrZeroDerivative = errors.New("optimize: derivative was zero")
)

// newtonDefaults fills in SciPy's defaults.
func (o *NewtonOptions) defaults() NewtonOptions {
	var r NewtonOptions
	if o != nil {
		r = *o
	}
	if r.Tol == 0 {
		r.Tol = 1.48e-8
	}
	if r.MaxIter == 0 {
		r.MaxIter = 50
	}
	if r.Tol < 0 || r.RTol < 0 || r.MaxIter < 0 || math.IsNaN(r.Tol) || math.IsNaN(r.RTol) {
		panic(fmt.Sprintf("optimize: Newton with Tol %g, RTol %g, MaxIter %d", r.Tol, r.RTol, r.MaxIter))
	}
	return r
}

// secantDelta is the relative offset of the secant method's second point,
// np.finfo(float).eps**0.33 as in SciPy's array newton.
var secantDelta = math.Pow(0x1p-52, 0.33)

// Newton finds a root of one scalar equation per element of x0 at once:
// scipy.optimize.newton with an array x0. With fprime it is Newton's
// method (Halley's with opts.FPrime2), without it the secant method, whose
// second point is x0*(1+d) + sign(x0)*d with d = eps^0.33, as SciPy's
// array form. The steps are SciPy's array formulas, with fp and fpp the
// first and second derivatives: Newton dx = f/fp, Halley
// dx = (f/fp) / (1 - 0.5*(f/fp)*fpp/fp), secant dx = q1*(p1-p0)/(q1-q0).
// Halley's correction has no safeguard, as in SciPy's array form (its
// scalar form skips it where |0.5*dx*fpp/fp| >= 1).
//
// Unlike SciPy, each element stops on its own: when its step is below the
// tolerance (converged), when f is exactly 0 there (converged, without a
// step), when fp is 0 (or the secant's two values are equal: ZeroDer; the
// secant's root is then the midpoint of its two points, as SciPy's), or
// after MaxIter steps. The elements are solved in chunks of up to 1024,
// each chunk to the end before the next, so that its iterates stay in the
// cache: one iteration is a call of f (and fprime) for the chunk's active
// elements. A stopped element costs (almost) nothing more: it is skipped,
// and the chunk's active set is compacted once an eighth of it has
// finished, so the calls evaluate the unfinished elements and a few
// finished ones (opts.Lockstep evaluates all of the chunk, as SciPy all
// elements). The result of each element is the same, bit for bit, as
// Newton gives it alone, whatever the other elements are.
//
// It does not communicate. x0 is not modified. The error is nil when every
// element converged, and
// otherwise wraps ErrZeroDerivative (if any stopped so) or
// ErrNoConvergence, with the counts: SciPy's RuntimeWarning (SciPy raises
// when no element converges; here the result is always returned).
func Newton(f, fprime BatchFunc, x0 []float64, opts *NewtonOptions) (*NewtonResult, error) {
	if f == nil {
		panic("optimize: Newton without a function")
	}
	o := opts.defaults()
	if o.FPrime2 != nil && fprime == nil {
		panic("optimize: Newton with FPrime2 but no fprime")
	}
	res := new(NewtonResult)
	solveBatch(res, funcs{f: f, fprime: fprime}, x0, &o)
	return res, res.err(o.MaxIter)
}

// NewtonFDF is Newton's method (Halley's with opts.FPrime2) with the
// function and its derivative from one callback, fdf: each iteration
// makes one call of fdf for the active elements of a chunk where Newton
// makes one of f and one of fprime, and the residuals at the roots come
// from a last call of fdf (whose derivatives are computed and thrown
// away: NewtonResult.DerivEvals counts them). Where fdf gives the values
// f and fprime give, the result is Newton's, bit for bit (steps, masks,
// iterations, residuals); only Calls and DerivEvals differ. Everything
// else is as Newton's, the error included. It does not communicate.
func NewtonFDF(fdf BatchFDF, x0 []float64, opts *NewtonOptions) (*NewtonResult, error) {
	res := new(NewtonResult)
	err := NewtonFDFInto(res, fdf, x0, opts)
	return res, err
}

// NewtonFDFInto is NewtonFDF with the result written into res, reusing
// its slices as NewtonInto does. res must not be nil.
func NewtonFDFInto(res *NewtonResult, fdf BatchFDF, x0 []float64, opts *NewtonOptions) error {
	if res == nil {
		panic("optimize: NewtonFDFInto a nil result")
	}
	if fdf == nil {
		panic("optimize: NewtonFDF without a function")
	}
	o := opts.defaults()
	solveBatch(res, funcs{fdf: fdf}, x0, &o)
	return res.err(o.MaxIter)
}

// NewtonInto is Newton with the result written into res: res's slices are
// reused where they have room for len(x0) elements (resliced to that
// length) and allocated where they do not, and every field is set, so
// that nothing of a previous solve remains. A loop of solves into one
// result allocates nothing after the first that needs as much room: the
// chunk's working space is kept in res too. It returns Newton's error;
// res must not be nil, and must not be in use by another solve at the same
// time. It does not communicate.
func NewtonInto(res *NewtonResult, f, fprime BatchFunc, x0 []float64, opts *NewtonOptions) error {
	if res == nil {
		panic("optimize: NewtonInto a nil result")
	}
	if f == nil {
		panic("optimize: Newton without a function")
	}
	o := opts.defaults()
	if o.FPrime2 != nil && fprime == nil {
		panic("optimize: Newton with FPrime2 but no fprime")
	}
	solveBatch(res, funcs{f: f, fprime: fprime}, x0, &o)
	return res.err(o.MaxIter)
}

// resize returns s with length n: s itself if it has the capacity, a new
// slice otherwise. The elements are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// err is the warning of a batch: nil if all converged.
func (r *NewtonResult) err(maxIter int) error {
	return newtonErr(r.NumConverged, r.NumZeroDer, r.NumFailed, maxIter)
}

func newtonErr(conv, zero, failed, maxIter int) error {
	n := conv + zero + failed
	switch {
	case zero > 0:
		return fmt.Errorf("%w for %d of %d elements (%d did not converge in %d iterations)", ErrZeroDerivative, zero, n, failed, maxIter)
	case failed > 0:
		return fmt.Errorf("%w after %d iterations for %d of %d elements", ErrNoConvergence, maxIter, failed, n)
	}
	return nil
}

// batch is the state of the active elements, compacted: act[k] is the
// element whose iterate is x[k] (and, for the secant, whose other point is
// x1[k] with values q0[k], q1[k]).
type batch struct {
	act                []int
	x, x1, q0, q1      []float64
	fv, dv, d2         []float64
	done               []bool    // finished elements of the active set
	idx                []int     // scratch
	sx1, sq0, sq1      []float64 // the secant's buffers, kept when x1, q0, q1 are nil
	calls, evals       int
	derivEvals         int
	converged, zeroDer []bool
	iters              []int
	root               []float64
}

// compact removes the finished elements (done[k]) from the active set,
// keeping the order; done is cleared for the ones that stay.
func (b *batch) compact(done []bool) {
	j := 0
	for j < len(b.act) && !done[j] {
		j++ // the prefix stays where it is
	}
	for k := j; k < len(b.act); k++ {
		if done[k] {
			continue
		}
		b.act[j] = b.act[k]
		b.x[j] = b.x[k]
		if b.x1 != nil {
			b.x1[j], b.q0[j], b.q1[j] = b.x1[k], b.q0[k], b.q1[k]
		}
		j++
	}
	clear(done[:j])
	b.act, b.x = b.act[:j], b.x[:j]
	if b.x1 != nil {
		b.x1, b.q0, b.q1 = b.x1[:j], b.q0[:j], b.q1[:j]
	}
}

// compactFraction: the active set is compacted when at least
// 1/compactFraction of its elements have finished (until then they are
// skipped, and still evaluated), so that the copies are paid for by the
// evaluations they save. On 10^5 Kepler equations this evaluates 0.5% to
// 2% more elements than compacting at every iteration, with far fewer
// copies.
const compactFraction = 8

// shouldCompact reports whether to compact an active set of m elements of
// which left are unfinished.
func shouldCompact(m, left int, o *NewtonOptions) bool {
	return !o.Lockstep && left < m && (m-left)*compactFraction >= m
}

// call calls f (deriv false) or a derivative.
func (b *batch) call(g BatchFunc, idx []int, x, out []float64, deriv bool) {
	b.calls++
	if deriv {
		b.derivEvals += len(idx)
	} else {
		b.evals += len(idx)
	}
	g(idx, x, out[:len(idx)])
}

// callFDF calls fdf, counting an evaluation of f and one of the
// derivative per element.
func (b *batch) callFDF(fdf BatchFDF, idx []int, x, fv, dv []float64) {
	b.calls++
	b.evals += len(idx)
	b.derivEvals += len(idx)
	fdf(idx, x, fv[:len(idx)], dv[:len(idx)])
}

// eval sets fv and dv (dv only with a derivative) at the active set's
// iterates.
func (b *batch) eval(fs funcs) {
	if fs.fdf != nil {
		b.callFDF(fs.fdf, b.act, b.x, b.fv, b.dv)
		return
	}
	b.call(fs.f, b.act, b.x, b.fv, false)
	b.call(fs.fprime, b.act, b.x, b.dv, true)
}

// residual sets out to f at x for the elements idx.
func (b *batch) residual(fs funcs, idx []int, x, out []float64) {
	if fs.fdf != nil {
		b.callFDF(fs.fdf, idx, x, out, b.dv)
		return
	}
	b.call(fs.f, idx, x, out, false)
}

// stop records element k of the active set as finished with root x.
func (b *batch) stop(k int, x float64, iters int, conv, zero bool) {
	i := b.act[k]
	b.root[i], b.iters[i], b.converged[i], b.zeroDer[i] = x, iters, conv, zero
}

// newtonChunk is the number of elements Newton runs to the end at a time:
// the iterates, values and indices of a chunk stay in the first-level
// cache between iterations, where the whole batch would stream through
// memory at every one. On 10^6 Kepler equations (bench_test.go, on a
// loaded 2-core machine) chunks of 256 to 4096 were alike, 0.9 to 1.3 s of
// CPU for five solves against 1.1 to 1.7 s for one chunk of all.
const newtonChunk = 1024

// chunkSize is newtonChunk (a variable for the tests).
var chunkSize = newtonChunk

// solveBatch solves the equations of x0 into res, reusing its slices
// where they have the room (see NewtonInto).
func solveBatch(res *NewtonResult, fs funcs, x0 []float64, o *NewtonOptions) {
	n := len(x0)
	res.Root = resize(res.Root, n)
	res.Converged = resize(res.Converged, n)
	res.ZeroDer = resize(res.ZeroDer, n)
	res.Iterations = resize(res.Iterations, n)
	res.Residual = resize(res.Residual, n)
	res.NumConverged, res.NumZeroDer, res.NumFailed = 0, 0, 0
	res.Method = "secant"
	if fs.newton() {
		res.Method = "newton"
		if o.FPrime2 != nil {
			res.Method = "halley"
		}
	}
	c := min(n, chunkSize)
	if res.work == nil {
		res.work = new(batch)
	}
	b := res.work
	b.idx, b.act = resize(b.idx, c), resize(b.act, c)
	b.x, b.fv, b.done = resize(b.x, c), resize(b.fv, c), resize(b.done, c)
	b.converged, b.zeroDer, b.iters, b.root = res.Converged, res.ZeroDer, res.Iterations, res.Root
	b.calls, b.evals, b.derivEvals = 0, 0, 0
	// The secant's slices are nil for Newton's method (which tests them).
	b.x1, b.q0, b.q1 = nil, nil, nil
	if fs.newton() {
		b.dv = resize(b.dv, c)
		if o.FPrime2 != nil {
			b.d2 = resize(b.d2, c)
		}
	} else {
		b.sx1, b.sq0, b.sq1 = resize(b.sx1, c), resize(b.sq0, c), resize(b.sq1, c)
		b.x1, b.q0, b.q1 = b.sx1, b.sq0, b.sq1
	}
	for lo := 0; lo < n; lo += c {
		hi := min(lo+c, n)
		m := hi - lo
		b.act, b.x = b.act[:m], b.x[:m]
		for k := range b.act {
			b.act[k] = lo + k
		}
		copy(b.x, x0[lo:hi])
		clear(b.done[:m])
		if fs.newton() {
			b.newton(fs, o)
		} else {
			b.x1, b.q0, b.q1 = b.x1[:m], b.q0[:m], b.q1[:m]
			b.secant(fs.f, o)
		}
		// The residuals at the chunk's roots: one call.
		idx := b.idx[:m]
		for k := range idx {
			idx[k] = lo + k
		}
		b.residual(fs, idx, res.Root[lo:hi], res.Residual[lo:hi])
	}
	for i := range res.Converged {
		switch {
		case res.Converged[i]:
			res.NumConverged++
		case res.ZeroDer[i]:
			res.NumZeroDer++
		default:
			res.NumFailed++
		}
	}
	res.Calls, res.Evals, res.DerivEvals = b.calls, b.evals, b.derivEvals
}

// newtonStep is one Newton (or Halley, when halley) step of one element:
// the step dx from f, fp and fpp at x (SciPy's array formulas). It is the
// one place where the arithmetic of a step is written, so that the batch,
// the lockstep form and a single element give the same bits.
func newtonStep(fv, dv, d2 float64, halley bool) float64 {
	dp := fv / dv
	if halley {
		dp = dp / (1.0 - 0.5*dp*d2/dv)
	}
	return dp
}

// secantStep is the secant step from (p0, q0) and (p1, q1).
func secantStep(p0, p1, q0, q1 float64) float64 {
	return q1 * (p1 - p0) / (q1 - q0)
}

// converged is the test |dx| < tol + rtol*|x|, x the new iterate.
func stepConverged(dp, x float64, o *NewtonOptions) bool {
	return math.Abs(dp) < o.Tol+o.RTol*math.Abs(x)
}

func (b *batch) newton(fs funcs, o *NewtonOptions) {
	halley := o.FPrime2 != nil
	n := len(b.x)
	// done[k] marks the finished elements of the active set: skipped
	// until the set is compacted (never in lockstep, where their values
	// are computed and ignored).
	done := b.done[:n]
	left := n
	for it := 0; it < o.MaxIter && left > 0; it++ {
		m := len(b.act)
		b.eval(fs)
		if halley {
			b.call(o.FPrime2, b.act, b.x, b.d2, true)
		}
		for k := 0; k < m; k++ {
			if done[k] {
				continue
			}
			x, fv, dv := b.x[k], b.fv[k], b.dv[k]
			switch {
			case fv == 0:
				b.stop(k, x, it, true, false)
			case dv == 0:
				b.stop(k, x, it, false, true)
			default:
				d2 := 0.0
				if halley {
					d2 = b.d2[k]
				}
				dp := newtonStep(fv, dv, d2, halley)
				x -= dp
				b.x[k] = x
				if stepConverged(dp, x, o) {
					b.stop(k, x, it+1, true, false)
				} else {
					continue
				}
			}
			left--
			done[k] = true
		}
		if shouldCompact(m, left, o) {
			b.compact(done[:m])
		}
	}
	b.unfinished(b.x, done, o.MaxIter)
}

// unfinished records the elements still active after MaxIter steps, with
// their last iterates x.
func (b *batch) unfinished(x []float64, done []bool, maxIter int) {
	for k := range b.act {
		if !done[k] {
			b.stop(k, x[k], maxIter, false, false)
		}
	}
}

func (b *batch) secant(f BatchFunc, o *NewtonOptions) {
	n := len(b.x)
	d := secantDelta
	for k, p := range b.x {
		if p >= 0 {
			b.x1[k] = p*(1+d) + d
		} else {
			b.x1[k] = p*(1+d) - d
		}
	}
	if n == 0 {
		return
	}
	b.call(f, b.act, b.x, b.q0, false)
	b.call(f, b.act, b.x1, b.q1, false)
	done := b.done[:n]
	left := n
	for it := 0; it < o.MaxIter && left > 0; it++ {
		m := len(b.act)
		for k := 0; k < m; k++ {
			if done[k] {
				continue
			}
			p0, p1, q0, q1 := b.x[k], b.x1[k], b.q0[k], b.q1[k]
			if q1 == q0 {
				b.stop(k, (p1+p0)/2.0, it, false, true)
			} else {
				dp := secantStep(p0, p1, q0, q1)
				p := p1 - dp
				if stepConverged(dp, p, o) {
					b.stop(k, p, it+1, true, false)
				} else {
					// The next pair: (p1, q1) and (p, f(p)).
					b.x[k], b.x1[k], b.q0[k] = p1, p, q1
					continue
				}
			}
			left--
			done[k] = true
		}
		if shouldCompact(m, left, o) {
			b.compact(done[:m])
		}
		if left > 0 && it+1 < o.MaxIter {
			b.call(f, b.act, b.x1, b.q1, false)
		}
	}
	b.unfinished(b.x1, done, o.MaxIter)
}
