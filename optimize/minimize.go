package optimize

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Method is a method of Minimize.
type Method int

// The methods of Minimize: SciPy's 'BFGS', 'L-BFGS-B' (here without
// bounds; MinimizeDist takes bounds) and 'Nelder-Mead'.
const (
	BFGS Method = iota
	LBFGS
	NelderMead
)

// String returns SciPy's name of the method.
func (m Method) String() string {
	switch m {
	case BFGS:
		return "BFGS"
	case LBFGS:
		return "L-BFGS"
	case NelderMead:
		return "Nelder-Mead"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// The reasons Minimize and MinimizeDist stop short of a minimum (test with
// errors.Is; the result is still returned).
var (
	// ErrMaxIter: the iteration limit was reached.
	ErrMaxIter = errors.New("optimize: maximum number of iterations has been exceeded")
	// ErrMaxFun: the limit on function evaluations was reached.
	ErrMaxFun = errors.New("optimize: maximum number of function evaluations has been exceeded")
	// ErrLineSearch: the line search found no acceptable step (SciPy's
	// "Desired error not necessarily achieved due to precision loss" and
	// L-BFGS-B's ABNORMAL_TERMINATION_IN_LNSRCH).
	ErrLineSearch = errors.New("optimize: the line search failed: desired error not necessarily achieved due to precision loss")
	// ErrNaN: the function, its gradient or Root's Jacobian gave NaN or
	// an infinity (SciPy's status 3, "NaN result encountered"): the result
	// is not finite, and Success is false.
	ErrNaN = errors.New("optimize: NaN result encountered")
)

// MinimizeOptions are the settings of Minimize, by SciPy's names. The zero
// value (or nil) gives SciPy's defaults.
type MinimizeOptions struct {
	// Method is BFGS (the default), LBFGS or NelderMead.
	Method Method
	// Grad writes the gradient at x (SciPy's jac). Without it, BFGS and
	// L-BFGS use SciPy's forward differences (step sqrt(eps)*max(1,|x_i|)
	// with the sign of x_i), whose evaluations count in NFev.
	Grad func(grad, x []float64)
	// GTol: BFGS stops when the largest |gradient component| is at most
	// GTol, L-BFGS when the projected gradient's is. Default 1e-5.
	GTol float64
	// FTol is L-BFGS's relative reduction test (SciPy's ftol); default
	// 2.220446049250313e-09, negative to disable.
	FTol float64
	// MaxIter is the most iterations: default 200*n for BFGS and
	// Nelder-Mead, 15000 for L-BFGS (SciPy's).
	MaxIter int
	// MaxFev is the most function evaluations: default 200*n for
	// Nelder-Mead, 15000 for L-BFGS (SciPy's); for BFGS (SciPy has none)
	// 0 means MaxIter*(20+1) line-search evaluations and the first, the
	// most the iteration limit allows. Without Grad, a difference gradient
	// counts n evaluations more, and BFGS and L-BFGS may pass MaxFev by
	// the n of the last one.
	MaxFev int
	// M is L-BFGS's number of correction pairs (maxcor); default 10.
	M int
	// XATol and FATol are Nelder-Mead's tolerances on the simplex and its
	// values; default 1e-4 each.
	XATol, FATol float64
}

// MinimizeResult is the outcome of Minimize, SciPy's OptimizeResult.
type MinimizeResult struct {
	// X is the best point found, Fun f there, Jac the gradient there
	// (nil for Nelder-Mead).
	X   []float64
	Fun float64
	Jac []float64
	// NIt counts the iterations, NFev the evaluations of f (forward
	// differences included), NJev those of the gradient.
	NIt, NFev, NJev int
	// Success, Status and Message are SciPy's for the method: for BFGS
	// Status 1 is a limit, 2 a line search failure, 3 NaN; for Nelder-Mead
	// 1 the evaluation limit, 2 the iteration limit, 3 a best value that
	// is not finite; for L-BFGS 1 either limit, 2 a line search failure or
	// NaN (L-BFGS-B's ABNORMAL_TERMINATION_IN_LNSRCH). A starting point
	// that is not finite is Status 3 for every method, with no evaluation.
	// Success is never true where Fun or Jac is not finite.
	Success bool
	Status  int
	Message string
}

// Minimize minimizes a function of a few variables:
// scipy.optimize.minimize with the methods 'BFGS', 'L-BFGS-B' (without
// bounds) and 'Nelder-Mead'. f must not modify x; x0 is not modified.
//
// Nelder-Mead is a port of SciPy's (its initial simplex, coefficients and
// tests), so it takes SciPy's steps. BFGS is SciPy's update of the dense
// inverse Hessian and its first-step guess, with the strong-Wolfe line
// search of MinimizeDist (SciPy's line search is MINPACK-2's, so the
// counts differ, not the minimum). L-BFGS is MinimizeDist's iteration on
// a slice.
//
// It does not communicate. The error is nil on success and otherwise
// ErrMaxIter, ErrMaxFun, ErrLineSearch or ErrNaN, with the result.
func Minimize(f func(x []float64) float64, x0 []float64, opts *MinimizeOptions) (*MinimizeResult, error) {
	n := len(x0)
	if f == nil || n == 0 {
		panic("optimize: Minimize needs a function and at least one variable")
	}
	var o MinimizeOptions
	if opts != nil {
		o = *opts
	}
	if o.GTol < 0 || o.MaxIter < 0 || o.MaxFev < 0 || o.M < 0 || o.XATol < 0 || o.FATol < 0 || math.IsNaN(o.GTol) {
		panic(fmt.Sprintf("optimize: Minimize with options %+v", o))
	}
	if o.GTol == 0 {
		o.GTol = 1e-5
	}
	for _, v := range x0 {
		if !isFiniteF(v) {
			return &MinimizeResult{X: append([]float64(nil), x0...), Fun: math.NaN(), Status: 3, Message: "NaN result encountered."}, ErrNaN
		}
	}
	nfev := 0
	fc := func(x []float64) float64 { nfev++; return f(x) }
	njev := 0
	grad := func(g, x []float64) {
		njev++
		if o.Grad != nil {
			o.Grad(g, x)
			return
		}
		forwardGrad(fc, x, g, make([]float64, n))
	}
	var res *MinimizeResult
	var err error
	switch o.Method {
	case BFGS:
		if o.MaxIter == 0 {
			o.MaxIter = 200 * n
		}
		if o.MaxFev == 0 {
			o.MaxFev = 1 + 21*o.MaxIter
			if o.Grad == nil {
				o.MaxFev *= n + 1
			}
		}
		res, err = bfgs(fc, grad, x0, &o, func() int { return nfev })
	case LBFGS:
		s := &lbfgs{
			o:     &DistMinimizeOptions{M: o.M, GTol: o.GTol, FTol: o.FTol, MaxIter: o.MaxIter, MaxFun: o.MaxFev},
			alloc: func() ([]float64, error) { return make([]float64, n), nil },
			eval: func(x, g []float64) (float64, error) {
				v := fc(x)
				grad(g, x)
				return v, nil
			},
		}
		s.o.defaults()
		r, x, e := s.run(x0)
		res, err = &MinimizeResult{X: x, Fun: r.Fun, NIt: r.NIt, Success: r.Success, Status: r.Status, Message: r.Message}, e
		res.Jac = make([]float64, n)
		grad(res.Jac, x)
		njev-- // that one was not the method's
	case NelderMead:
		res, err = nelderMead(fc, x0, &o)
	default:
		panic(fmt.Sprintf("optimize: Minimize with unknown %v", o.Method))
	}
	res.NFev, res.NJev = nfev, njev
	if o.Method == NelderMead {
		res.NJev = 0
	}
	return res, err
}

// bfgs is SciPy's _minimize_bfgs with the strong-Wolfe line search.
// nfev reports the evaluations of f so far, for MaxFev.
func bfgs(f func([]float64) float64, grad func(g, x []float64), x0 []float64, o *MinimizeOptions, nfev func() int) (*MinimizeResult, error) {
	n := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, n)
	fx := f(x)
	grad(g, x)
	// finite reports whether f and the gradient are finite: SciPy's
	// status 3 where not (its test is for NaN; an infinite f makes its
	// difference gradient NaN, and an infinite value is no minimum).
	finite := func(fx float64, g []float64) bool {
		if !isFiniteF(fx) {
			return false
		}
		for _, v := range g {
			if !isFiniteF(v) {
				return false
			}
		}
		return true
	}
	h := make([]float64, n*n) // the inverse Hessian, row-major
	for i := 0; i < n; i++ {
		h[i*n+i] = 1
	}
	ls := &lbfgs{
		o:     &DistMinimizeOptions{},
		alloc: func() ([]float64, error) { return make([]float64, n), nil },
		eval: func(x, g []float64) (float64, error) {
			if nfev() >= o.MaxFev {
				return 0, ErrMaxFun
			}
			v := f(x)
			grad(g, x)
			return v, nil
		},
	}
	ls.o.defaults()
	xn, gn := make([]float64, n), make([]float64, n)
	d, sv, yv, hy := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	dot := func(a, b []float64) float64 { v, _ := dotLocal(nil, false, a, b); return v }
	oldOld := fx + math.Sqrt(dot(g, g))/2
	res := &MinimizeResult{Message: "Optimization terminated successfully."}
	var err error
	k := 0
	if !finite(fx, g) {
		res.Status, res.Message, err = 3, "NaN result encountered.", ErrNaN
	}
	for err == nil && infNorm(g) > o.GTol {
		if k >= o.MaxIter {
			res.Status, res.Message, err = 1, "Maximum number of iterations has been exceeded.", ErrMaxIter
			break
		}
		for i := 0; i < n; i++ {
			s := 0.0
			for j := 0; j < n; j++ {
				s += h[i*n+j] * g[j]
			}
			d[i] = -s
		}
		gd := dot(g, d)
		a := 1.0
		if gd != 0 {
			a = math.Min(1, 1.01*2*(fx-oldOld)/gd)
			if a < 0 {
				a = 1
			}
		}
		fn, ok, lsErr := ls.wolfeSearch(xn, gn, x, d, fx, gd, a)
		if lsErr != nil {
			res.Status, res.Message, err = 1, "Maximum number of function evaluations has been exceeded.", ErrMaxFun
			break
		}
		if !ok || !(gd < 0) {
			res.Status, res.Message, err = 2, "Desired error not necessarily achieved due to precision loss.", ErrLineSearch
			break
		}
		for i := range sv {
			sv[i], yv[i] = xn[i]-x[i], gn[i]-g[i]
		}
		x, xn, g, gn = xn, x, gn, g
		oldOld, fx = fx, fn
		k++
		if !finite(fx, g) {
			res.Status, res.Message, err = 3, "NaN result encountered.", ErrNaN
			break
		}
		if infNorm(g) <= o.GTol {
			break
		}
		// H = (I - rho s y') H (I - rho y s') + rho s s'.
		rho := 1000.0
		if sy := dot(yv, sv); sy != 0 {
			rho = 1 / sy
		}
		for i := 0; i < n; i++ {
			s := 0.0
			for j := 0; j < n; j++ {
				s += h[i*n+j] * yv[j]
			}
			hy[i] = s
		}
		yhy := dot(yv, hy)
		c := rho*rho*yhy + rho
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				h[i*n+j] += -rho*(sv[i]*hy[j]+hy[i]*sv[j]) + c*sv[i]*sv[j]
			}
		}
	}
	res.X, res.Fun, res.Jac, res.NIt = x, fx, g, k
	res.Success = res.Status == 0
	return res, err
}

// nelderMead is a port of SciPy 1.10's _minimize_neldermead (without
// bounds, adaptive False).
func nelderMead(f func([]float64) float64, x0 []float64, o *MinimizeOptions) (*MinimizeResult, error) {
	const rho, chi, psi, sigma = 1.0, 2.0, 0.5, 0.5
	const nonzdelt, zdelt = 0.05, 0.00025
	n := len(x0)
	maxiter, maxfun := o.MaxIter, o.MaxFev
	switch {
	case maxiter == 0 && maxfun == 0:
		maxiter, maxfun = 200*n, 200*n
	case maxiter == 0:
		maxiter = math.MaxInt
	case maxfun == 0:
		maxfun = math.MaxInt
	}
	xatol, fatol := o.XATol, o.FATol
	if xatol == 0 {
		xatol = 1e-4
	}
	if fatol == 0 {
		fatol = 1e-4
	}
	sim := make([][]float64, n+1)
	sim[0] = append([]float64(nil), x0...)
	for k := 0; k < n; k++ {
		y := append([]float64(nil), x0...)
		if y[k] != 0 {
			y[k] = (1 + nonzdelt) * y[k]
		} else {
			y[k] = zdelt
		}
		sim[k+1] = y
	}
	fsim := make([]float64, n+1)
	for i := range fsim {
		fsim[i] = math.Inf(1)
	}
	fcalls := 0
	// call is SciPy's wrapper: it refuses (false) past maxfun.
	call := func(x []float64) (float64, bool) {
		if fcalls >= maxfun {
			return 0, false
		}
		fcalls++
		return f(x), true
	}
	order := func() {
		idx := make([]int, n+1)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return fsim[idx[a]] < fsim[idx[b]] })
		s2, f2 := make([][]float64, n+1), make([]float64, n+1)
		for i, j := range idx {
			s2[i], f2[i] = sim[j], fsim[j]
		}
		sim, fsim = s2, f2
	}
	for k := range sim {
		v, ok := call(sim[k])
		if !ok {
			break
		}
		fsim[k] = v
	}
	order()
	iterations := 1
	xbar, xr, xe, xc := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	combine := func(dst []float64, a, b float64) { // a*xbar - b*sim[n]
		for j := range dst {
			dst[j] = a*xbar[j] - b*sim[n][j]
		}
	}
	for fcalls < maxfun && iterations < maxiter {
		xmax, fmax := 0.0, 0.0
		for i := 1; i <= n; i++ {
			for j := range sim[i] {
				xmax = math.Max(xmax, math.Abs(sim[i][j]-sim[0][j]))
			}
			fmax = math.Max(fmax, math.Abs(fsim[0]-fsim[i]))
		}
		if xmax <= xatol && fmax <= fatol {
			break
		}
		for j := range xbar {
			s := 0.0
			for i := 0; i < n; i++ {
				s += sim[i][j]
			}
			xbar[j] = s / float64(n)
		}
		combine(xr, 1+rho, rho)
		fxr, ok := call(xr)
		if !ok {
			break
		}
		replace := func(x []float64, v float64) {
			sim[n] = append([]float64(nil), x...)
			fsim[n] = v
		}
		shrink := false
		if fxr < fsim[0] {
			combine(xe, 1+rho*chi, rho*chi)
			fxe, ok := call(xe)
			if !ok {
				break
			}
			if fxe < fxr {
				replace(xe, fxe)
			} else {
				replace(xr, fxr)
			}
		} else if fxr < fsim[n-1] {
			replace(xr, fxr)
		} else if fxr < fsim[n] {
			combine(xc, 1+psi*rho, psi*rho)
			fxc, ok := call(xc)
			if !ok {
				break
			}
			if fxc <= fxr {
				replace(xc, fxc)
			} else {
				shrink = true
			}
		} else {
			for j := range xc {
				xc[j] = (1-psi)*xbar[j] + psi*sim[n][j]
			}
			fxcc, ok := call(xc)
			if !ok {
				break
			}
			if fxcc < fsim[n] {
				replace(xc, fxcc)
			} else {
				shrink = true
			}
		}
		if shrink {
			stopped := false
			for j := 1; j <= n; j++ {
				for i := range sim[j] {
					sim[j][i] = sim[0][i] + sigma*(sim[j][i]-sim[0][i])
				}
				v, ok := call(sim[j])
				if !ok {
					stopped = true
					break
				}
				fsim[j] = v
			}
			if stopped {
				break
			}
		}
		iterations++
		order()
	}
	res := &MinimizeResult{X: sim[0], Fun: fsim[0], NIt: iterations}
	for _, v := range fsim {
		res.Fun = math.Min(res.Fun, v)
	}
	var err error
	switch {
	case fcalls >= maxfun:
		res.Status, res.Message, err = 1, "Maximum number of function evaluations has been exceeded.", ErrMaxFun
	case iterations >= maxiter:
		res.Status, res.Message, err = 2, "Maximum number of iterations has been exceeded.", ErrMaxIter
	default:
		res.Message = "Optimization terminated successfully."
	}
	if !isFiniteF(res.Fun) {
		res.Status, res.Message, err = 3, "NaN result encountered.", ErrNaN
	}
	res.Success = res.Status == 0
	return res, err
}

// forwardGrad is SciPy's two-point gradient (approx_derivative with
// rel_step sqrt(eps)): h_i = sqrt(eps)*sign(x_i)*max(1, |x_i|), sign(0) = 1,
// rounded to a representable step. xp is scratch of len(x).
func forwardGrad(f func([]float64) float64, x, g, xp []float64) {
	const relStep = 1.4901161193847656e-08 // sqrt(2^-52)
	copy(xp, x)
	f0 := f(x)
	for i, xi := range x {
		sign := 1.0
		if xi < 0 {
			sign = -1
		}
		h := relStep * sign * math.Max(1, math.Abs(xi))
		h = (xi + h) - xi
		xp[i] = xi + h
		g[i] = (f(xp) - f0) / h
		xp[i] = xi
	}
}

func isFiniteF(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// infNorm is the largest |x_i|.
func infNorm(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
