package optimize

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The reasons Root stops short of a solution, MINPACK's info codes 2 to 5
// (test with errors.Is; RootResult.Info holds the code itself).
var (
	// ErrMaxFev: the number of calls to the function has reached MaxFev
	// (info 2).
	ErrMaxFev = errors.New("optimize: the number of calls to the function has reached maxfev")
	// ErrXTolTooSmall: XTol is too small, no further improvement in the
	// approximate solution is possible (info 3).
	ErrXTolTooSmall = errors.New("optimize: xtol is too small, no further improvement in the approximate solution is possible")
	// ErrNoProgressJacobian: the iteration is not making good progress,
	// as measured by the improvement from the last five Jacobian
	// evaluations (info 4).
	ErrNoProgressJacobian = errors.New("optimize: the iteration is not making good progress, as measured by the improvement from the last five Jacobian evaluations")
	// ErrNoProgress: the iteration is not making good progress, as
	// measured by the improvement from the last ten iterations (info 5).
	ErrNoProgress = errors.New("optimize: the iteration is not making good progress, as measured by the improvement from the last ten iterations")
)

// RootOptions are the settings of Root, SciPy's root(method='hybr')
// options (fsolve's arguments). The zero value (or nil) gives SciPy's
// defaults.
type RootOptions struct {
	// Jac writes the Jacobian at x into jac (n by n, jac[i][j] the
	// derivative of f_i by x_j: SciPy's fprime without col_deriv); Root
	// then runs hybrj. Without it, hybrd's forward differences. jac is
	// filled with NaN before each call, so that an element Jac does not
	// write stops Root with ErrNaN; a jac of other dimensions than n by n
	// after the call panics.
	Jac func(x []float64, jac *mat.Dense)
	// XTol: stop when the relative error between two consecutive
	// iterates is at most XTol. Default 1.49012e-8.
	XTol float64
	// MaxFev is the most calls of f: default 200*(n+1) without Jac,
	// 100*(n+1) with it.
	MaxFev int
	// EpsFcn is the relative error of f that sets the forward-difference
	// step (sqrt(max(EpsFcn, machine precision)) relative). Default the
	// machine precision.
	EpsFcn float64
	// Factor sets the initial step bound: Factor times |Diag*x0|, or
	// Factor if that is 0. Default 100.
	Factor float64
	// Diag are positive scale factors of the variables (MINPACK's mode 2);
	// nil scales by the norms of the Jacobian's columns (mode 1).
	Diag []float64
}

// RootResult is the outcome of Root, SciPy's OptimizeResult of
// root(method='hybr') and fsolve's infodict.
type RootResult struct {
	// X is the solution (the last iterate), Fun f at X.
	X, Fun []float64
	// NFev counts the calls of f (forward differences included), NJev
	// the calls of Jac (hybrj) or the forward-difference Jacobians
	// (hybrd: SciPy reports none).
	NFev, NJev int
	// Info is MINPACK's code (SciPy's ier and status): 1 converged, 2 to
	// 5 as ErrMaxFev, ErrXTolTooSmall, ErrNoProgressJacobian and
	// ErrNoProgress; and 6 (not MINPACK's: it does not check) ErrNaN, f
	// at x0, x0 or a Jacobian not finite. Success is Info == 1; Message
	// is SciPy's.
	Info    int
	Success bool
	Message string
	// R is the upper triangle of the final Jacobian's QR factorization,
	// packed by rows, QTF is Q transposed times Fun (SciPy's r and qtf).
	R, QTF []float64
}

// Root finds a zero of n functions of n variables by MINPACK's
// modification of Powell's hybrid method: hybrj with opts.Jac, hybrd
// (forward differences, dense) without; what scipy.optimize.fsolve and
// root(method='hybr') run. f writes f(x) into fx (both of length n) and
// must not keep them. It is a port of the Fortran with SciPy's defaults,
// so it takes SciPy's steps (and makes its number of calls) when f gives
// the same values.
//
// It does not communicate. x0 is not modified. The error is nil when it
// converged (Info 1), and
// otherwise one of ErrMaxFev, ErrXTolTooSmall, ErrNoProgressJacobian and
// ErrNoProgress, with the result; SciPy warns in these cases. A value of f
// at a trial point that is not finite is a failed step (the step bound
// shrinks); x0, f(x0) or a Jacobian that is not finite stops it at once
// with ErrNaN (Info 6). Improper options (negative tolerances, a
// non-positive Diag) and a Jac that writes a matrix of the wrong
// dimensions panic.
func Root(f func(x, fx []float64), x0 []float64, opts *RootOptions) (*RootResult, error) {
	n := len(x0)
	if f == nil || n == 0 {
		panic("optimize: Root needs a function and at least one variable")
	}
	var o RootOptions
	if opts != nil {
		o = *opts
	}
	if o.XTol == 0 {
		o.XTol = 1.49012e-8
	}
	if o.MaxFev == 0 {
		o.MaxFev = 200 * (n + 1)
		if o.Jac != nil {
			o.MaxFev = 100 * (n + 1)
		}
	}
	if o.EpsFcn == 0 {
		o.EpsFcn = 0x1p-52
	}
	if o.Factor == 0 {
		o.Factor = 100
	}
	if o.XTol < 0 || o.MaxFev < 0 || o.Factor < 0 || math.IsNaN(o.XTol) || math.IsNaN(o.Factor) {
		panic(fmt.Sprintf("optimize: Root with XTol %g, MaxFev %d, Factor %g", o.XTol, o.MaxFev, o.Factor))
	}
	if o.Diag != nil {
		if len(o.Diag) != n {
			panic(fmt.Sprintf("optimize: Root with %d Diag values for %d variables", len(o.Diag), n))
		}
		for _, d := range o.Diag {
			if !(d > 0) {
				panic(fmt.Sprintf("optimize: Root with Diag value %g (they must be positive)", d))
			}
		}
	}
	h := &hybr{n: n, f: f, o: &o}
	return h.run(x0)
}

type hybr struct {
	n    int
	f    func(x, fx []float64)
	o    *RootOptions
	nfev int
	njev int
	jac  *mat.Dense
}

// jacobian fills fjac (column-major) at x: the user's Jac, or fdjac1's
// dense forward differences from fvec = f(x). It reports whether every
// element is finite.
func (h *hybr) jacobian(x, fvec, fjac, wa1 []float64) bool {
	n := h.n
	h.njev++
	if h.o.Jac != nil {
		if h.jac == nil || h.jac.IsEmpty() {
			h.jac = mat.NewDense(n, n, nil)
		} else if r, c := h.jac.Dims(); r != n || c != n {
			h.jac = mat.NewDense(n, n, nil)
		}
		nan := math.NaN()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				h.jac.Set(i, j, nan)
			}
		}
		h.o.Jac(x, h.jac)
		if r, c := h.jac.Dims(); r != n || c != n {
			panic(fmt.Sprintf("optimize: Root: Jac wrote a %dx%d matrix for %d variables", r, c, n))
		}
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				fjac[i+j*n] = h.jac.At(i, j)
			}
		}
		return allFinite(fjac)
	}
	eps := math.Sqrt(math.Max(h.o.EpsFcn, dpmpar1))
	for j := 0; j < n; j++ {
		temp := x[j]
		step := eps * math.Abs(temp)
		if step == 0 {
			step = eps
		}
		x[j] = temp + step
		h.f(x, wa1)
		x[j] = temp
		for i := 0; i < n; i++ {
			fjac[i+j*n] = (wa1[i] - fvec[i]) / step
		}
	}
	h.nfev += n
	return allFinite(fjac)
}

func allFinite(v []float64) bool {
	for _, e := range v {
		if !isFiniteF(e) {
			return false
		}
	}
	return true
}

func (h *hybr) run(x0 []float64) (*RootResult, error) {
	const p1, p5, p001, p0001 = 1e-1, 5e-1, 1e-3, 1e-4
	n, o := h.n, h.o
	x := append([]float64(nil), x0...)
	fvec := make([]float64, n)
	fjac := make([]float64, n*n)
	r := make([]float64, n*(n+1)/2)
	qtf := make([]float64, n)
	wa1, wa2, wa3, wa4 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	diag := make([]float64, n)
	mode2 := o.Diag != nil
	if mode2 {
		copy(diag, o.Diag)
	}

	h.f(x, fvec)
	h.nfev = 1
	if !allFinite(x) || !allFinite(fvec) {
		return h.nanResult(x, fvec, r, qtf)
	}
	fnorm := enorm(fvec)
	iter := 1
	ncsuc, ncfail, nslow1, nslow2 := 0, 0, 0, 0
	var delta, xnorm float64
	info := 0
outer:
	for {
		jeval := true
		if !h.jacobian(x, fvec, fjac, wa1) {
			return h.nanResult(x, fvec, r, qtf)
		}
		qrfac(n, fjac, wa1, wa2)
		// On the first iteration, scale by the column norms (mode 1)
		// and set the step bound.
		if iter == 1 {
			if !mode2 {
				for j := 0; j < n; j++ {
					diag[j] = wa2[j]
					if wa2[j] == 0 {
						diag[j] = 1
					}
				}
			}
			for j := 0; j < n; j++ {
				wa3[j] = diag[j] * x[j]
			}
			xnorm = enorm(wa3)
			delta = o.Factor * xnorm
			if delta == 0 {
				delta = o.Factor
			}
		}
		// qtf = Q^T fvec.
		copy(qtf, fvec)
		for j := 0; j < n; j++ {
			if fjac[j+j*n] == 0 {
				continue
			}
			sum := 0.0
			for i := j; i < n; i++ {
				sum = sum + fjac[i+j*n]*qtf[i]
			}
			temp := -sum / fjac[j+j*n]
			for i := j; i < n; i++ {
				qtf[i] = qtf[i] + fjac[i+j*n]*temp
			}
		}
		// Copy R into r (packed by rows).
		for j := 0; j < n; j++ {
			l := j
			for i := 0; i < j; i++ {
				r[l] = fjac[i+j*n]
				l += n - i - 1
			}
			r[l] = wa1[j]
		}
		qform(n, fjac, wa1)
		if !mode2 {
			for j := 0; j < n; j++ {
				diag[j] = math.Max(diag[j], wa2[j])
			}
		}
		// The inner loop.
		for {
			dogleg(n, r, diag, qtf, delta, wa1, wa2, wa3)
			for j := 0; j < n; j++ {
				wa1[j] = -wa1[j]
				wa2[j] = x[j] + wa1[j]
				wa3[j] = diag[j] * wa1[j]
			}
			pnorm := enorm(wa3)
			if iter == 1 {
				delta = math.Min(delta, pnorm)
			}
			h.f(wa2, wa4)
			h.nfev++
			fnorm1 := enorm(wa4)
			actred := -1.0
			if fnorm1 < fnorm {
				t := fnorm1 / fnorm
				actred = 1 - t*t
			}
			// The predicted reduction.
			l := 0
			for i := 0; i < n; i++ {
				sum := 0.0
				for j := i; j < n; j++ {
					sum = sum + r[l]*wa1[j]
					l++
				}
				wa3[i] = qtf[i] + sum
			}
			temp := enorm(wa3)
			prered := 0.0
			if temp < fnorm {
				t := temp / fnorm
				prered = 1 - t*t
			}
			ratio := 0.0
			if prered > 0 {
				ratio = actred / prered
			}
			// Update the step bound.
			if ratio < p1 {
				ncsuc = 0
				ncfail++
				delta = p5 * delta
			} else {
				ncfail = 0
				ncsuc++
				if ratio >= p5 || ncsuc > 1 {
					delta = math.Max(delta, pnorm/p5)
				}
				if math.Abs(ratio-1) <= p1 {
					delta = pnorm / p5
				}
			}
			// A successful iteration.
			if ratio >= p0001 {
				for j := 0; j < n; j++ {
					x[j] = wa2[j]
					wa2[j] = diag[j] * x[j]
					fvec[j] = wa4[j]
				}
				xnorm = enorm(wa2)
				fnorm = fnorm1
				iter++
			}
			nslow1++
			if actred >= p001 {
				nslow1 = 0
			}
			if jeval {
				nslow2++
			}
			if actred >= p1 {
				nslow2 = 0
			}
			if delta <= o.XTol*xnorm || fnorm == 0 {
				info = 1
				break outer
			}
			if h.nfev >= o.MaxFev {
				info = 2
			}
			if p1*math.Max(p1*delta, pnorm) <= dpmpar1*xnorm {
				info = 3
			}
			if nslow2 == 5 {
				info = 4
			}
			if nslow1 == 10 {
				info = 5
			}
			if info != 0 {
				break outer
			}
			if ncfail == 2 {
				continue outer // recompute the Jacobian
			}
			// Broyden's rank-one update of the Jacobian.
			for j := 0; j < n; j++ {
				sum := 0.0
				for i := 0; i < n; i++ {
					sum = sum + fjac[i+j*n]*wa4[i]
				}
				wa2[j] = (sum - wa3[j]) / pnorm
				wa1[j] = diag[j] * ((diag[j] * wa1[j]) / pnorm)
				if ratio >= p0001 {
					qtf[j] = sum
				}
			}
			r1updt(n, r, wa1, wa2, wa3)
			r1mpyq(n, n, fjac, n, wa2, wa3)
			r1mpyq(1, n, qtf, 1, wa2, wa3)
			jeval = false
		}
	}
	res := &RootResult{X: x, Fun: fvec, NFev: h.nfev, NJev: h.njev, Info: info, Success: info == 1, R: r, QTF: qtf}
	if info == 1 && !allFinite(fvec) {
		return h.nanResult(x, fvec, r, qtf)
	}
	var err error
	switch info {
	case 1:
		res.Message = "The solution converged."
	case 2:
		err = ErrMaxFev
		res.Message = fmt.Sprintf("The number of calls to function has reached maxfev = %d.", o.MaxFev)
	case 3:
		err = ErrXTolTooSmall
		res.Message = fmt.Sprintf("xtol=%f is too small, no further improvement in the approximate\n  solution is possible.", o.XTol)
	case 4:
		err = ErrNoProgressJacobian
		res.Message = "The iteration is not making good progress, as measured by the \n  improvement from the last five Jacobian evaluations."
	case 5:
		err = ErrNoProgress
		res.Message = "The iteration is not making good progress, as measured by the \n  improvement from the last ten iterations."
	}
	return res, err
}

// nanResult is the result where x0, f or a Jacobian is not finite.
func (h *hybr) nanResult(x, fvec, r, qtf []float64) (*RootResult, error) {
	return &RootResult{X: x, Fun: fvec, NFev: h.nfev, NJev: h.njev, Info: 6, R: r, QTF: qtf,
		Message: "NaN result encountered."}, ErrNaN
}
