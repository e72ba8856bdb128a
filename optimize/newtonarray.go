package optimize

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
)

// ArrayFunc evaluates one scalar function per element of a local array, on
// the array's device: out[i] is the function of element i at x[i]. x and
// out have the same length and device (the x0 of NewtonArray); the
// function reads per-element parameters from arrays of that length that it
// holds (a closure), and computes with operations that run where the
// arrays are: a fused kernel (FuseFunc), a kernels.Kernel, or package
// backend's operations. It must not keep x or out, must not modify x, and
// must compute each element independently of the others. An error (a
// device's) stops NewtonArray, which returns it.
type ArrayFunc func(x, out *backend.Array[float64]) error

// FuseFunc returns the ArrayFunc that evaluates the fused expression e
// (package kernels/fuse) of the float64 array argument "x", the iterate,
// and of the arrays and parameters in args (per-element parameter arrays
// of x's length and device, scalars): out = e at every element, as one
// fused kernel on x's device (the CPU evaluator on the host and the fake
// device, the CUDA launcher on CUDA arrays). The names "x" and "out" are
// reserved. It panics with the compiler's message if e does not compile or
// is not of float64. The function is not safe for concurrent use.
func FuseFunc(e *fuse.Expr, args fuse.Args) ArrayFunc {
	k, err := fuse.Compile(fuse.Out("out", e))
	if err != nil {
		panic(fmt.Sprintf("optimize: FuseFunc: %v", err))
	}
	a := fuse.Args{}
	for _, name := range slices.Sorted(maps.Keys(args)) { // the same name in the panic every time
		v := args[name]
		if name == "x" || name == "out" {
			panic(fmt.Sprintf("optimize: FuseFunc with an argument called %q (reserved)", name))
		}
		a[name] = v
	}
	return func(x, out *backend.Array[float64]) error {
		a["x"], a["out"] = x, out
		_, err := k.Run(a)
		a["x"], a["out"] = nil, nil
		return err
	}
}

// ArrayNewtonOptions are the settings of NewtonArray and NewtonArrayDist.
// The zero value (or nil) gives SciPy's defaults, as NewtonOptions.
type ArrayNewtonOptions struct {
	// Tol, RTol and MaxIter are as in NewtonOptions (defaults 1.48e-8, 0
	// and 50).
	Tol, RTol float64
	MaxIter   int
	// FPrime2, with a derivative, makes it Halley's method.
	FPrime2 ArrayFunc
}

// ArrayNewtonResult is the outcome of NewtonArray: the results per element
// as new arrays on x0's device, which the caller frees (Free), and the
// counts on the host.
type ArrayNewtonResult struct {
	// Root and Residual are as in NewtonResult.
	Root, Residual *backend.Array[float64]
	// Converged and ZeroDer are NewtonResult's masks as 1 (true) and 0;
	// Iterations the steps of each element.
	Converged, ZeroDer, Iterations *backend.Array[int32]
	// NumConverged, NumZeroDer and NumFailed count the elements as in
	// NewtonResult; MaxIterations is the most steps of any element.
	NumConverged, NumZeroDer, NumFailed int
	MaxIterations                       int
	// Calls counts the calls of f, fprime and fprime2 (each evaluates every
	// element). Readbacks counts the scalar results read back from the
	// device: one count of the unfinished elements per iteration, and
	// one set of counts at the end (recorded as profiling.ToHost events of
	// their size where x0 is not on the host).
	Calls, Readbacks int
	// Method is "newton", "halley" or "secant".
	Method string
}

// Free frees the result's arrays.
func (r *ArrayNewtonResult) Free() {
	for _, a := range []*backend.Array[float64]{r.Root, r.Residual} {
		if a != nil {
			a.Free()
		}
	}
	for _, a := range []*backend.Array[int32]{r.Converged, r.ZeroDer, r.Iterations} {
		if a != nil {
			a.Free()
		}
	}
}

func (o *ArrayNewtonOptions) defaults() ArrayNewtonOptions {
	var r ArrayNewtonOptions
	if o != nil {
		r = *o
	}
	n := (&NewtonOptions{Tol: r.Tol, RTol: r.RTol, MaxIter: r.MaxIter}).defaults()
	r.Tol, r.RTol, r.MaxIter = n.Tol, n.RTol, n.MaxIter
	if r.MaxIter > math.MaxInt32 {
		panic(fmt.Sprintf("optimize: NewtonArray with MaxIter %d", r.MaxIter))
	}
	return r
}

// The status of an element in the device bookkeeping.
const (
	stActive    int32 = 0
	stConverged int32 = 1
	stZeroDer   int32 = 2
)

// The fused kernels of the bookkeeping, compiled once.
var (
	newtonStepKernel = stepKernel(false)
	halleyStepKernel = stepKernel(true)
	secantStepKernel = secantKernel()
	secantInitKernel = fuse.MustCompile(fuse.Out("x1", fuse.Where(
		fuse.Ge(fuse.Var[float64]("x"), fuse.Const(0.0)),
		fuse.Add(fuse.Mul(fuse.Var[float64]("x"), fuse.Param[float64]("opd")), fuse.Param[float64]("d")),
		fuse.Sub(fuse.Mul(fuse.Var[float64]("x"), fuse.Param[float64]("opd")), fuse.Param[float64]("d")))))
	finalKernel = func() *fuse.Kernel {
		st, it := fuse.Var[int32]("st"), fuse.Var[int32]("it")
		one, zero := fuse.Const[int32](1), fuse.Const[int32](0)
		conv := fuse.Out("conv", fuse.Where(fuse.Eq(st, fuse.Const(stConverged)), one, zero))
		zd := fuse.Out("zd", fuse.Where(fuse.Eq(st, fuse.Const(stZeroDer)), one, zero))
		return fuse.MustCompile(
			fuse.Sum("nconv", fuse.Cast[int64](conv)),
			fuse.Sum("nzero", fuse.Cast[int64](zd)),
			fuse.ReduceMax("maxit", it))
	}()
)

// countActive is the reduction of the unfinished elements of status st.
func countActive(st *fuse.Expr) *fuse.Expr {
	return fuse.Sum("left", fuse.Where(fuse.Eq(st, fuse.Const(stActive)), fuse.Const[int64](1), fuse.Const[int64](0)))
}

// stepKernel is one Newton (Halley) iteration of every element: newtonStep
// and stepConverged written as a fused expression, the same operations in
// the same order, so that the bits are the host's.
func stepKernel(halley bool) *fuse.Kernel {
	x, fv, dv := fuse.Var[float64]("x"), fuse.Var[float64]("fv"), fuse.Var[float64]("dv")
	st, it := fuse.Var[int32]("st"), fuse.Var[int32]("it")
	tol, rtol := fuse.Param[float64]("tol"), fuse.Param[float64]("rtol")
	zero := fuse.Const(0.0)
	dp := fuse.Div(fv, dv)
	if halley {
		d2 := fuse.Var[float64]("d2")
		// dp / (1.0 - 0.5*dp*d2/dv)
		dp = fuse.Div(dp, fuse.Sub(fuse.Const(1.0), fuse.Div(fuse.Mul(fuse.Mul(fuse.Const(0.5), dp), d2), dv)))
	}
	xn := fuse.Sub(x, dp)
	active := fuse.Eq(st, fuse.Const(stActive))
	fz, dz := fuse.Eq(fv, zero), fuse.Eq(dv, zero)
	steps := fuse.And(active, fuse.Not(fuse.Or(fz, dz)))
	conv := fuse.Lt(fuse.Abs(dp), fuse.Add(tol, fuse.Mul(rtol, fuse.Abs(xn))))
	newSt := fuse.Where(active,
		fuse.Where(fz, fuse.Const(stConverged),
			fuse.Where(dz, fuse.Const(stZeroDer),
				fuse.Where(conv, fuse.Const(stConverged), fuse.Const(stActive)))),
		st)
	stOut := fuse.Out("st", newSt)
	return fuse.MustCompile(
		fuse.Out("x", fuse.Where(steps, xn, x)),
		fuse.Out("it", fuse.Where(steps, fuse.Add(it, fuse.Const[int32](1)), it)),
		stOut,
		countActive(stOut))
}

// secantKernel is one secant iteration of every element (the host's
// secant loop body): x, x1 are the two points p0, p1 with values q0, q1;
// a stopped element's root is left in x1.
func secantKernel() *fuse.Kernel {
	p0, p1 := fuse.Var[float64]("x"), fuse.Var[float64]("x1")
	q0, q1 := fuse.Var[float64]("q0"), fuse.Var[float64]("q1")
	st, it := fuse.Var[int32]("st"), fuse.Var[int32]("it")
	tol, rtol := fuse.Param[float64]("tol"), fuse.Param[float64]("rtol")
	active := fuse.Eq(st, fuse.Const(stActive))
	eq := fuse.Eq(q1, q0)
	dp := fuse.Div(fuse.Mul(q1, fuse.Sub(p1, p0)), fuse.Sub(q1, q0))
	p := fuse.Sub(p1, dp)
	conv := fuse.Lt(fuse.Abs(dp), fuse.Add(tol, fuse.Mul(rtol, fuse.Abs(p))))
	steps := fuse.And(active, fuse.Not(eq))
	cont := fuse.And(steps, fuse.Not(conv))
	mid := fuse.Div(fuse.Add(p1, p0), fuse.Const(2.0))
	stOut := fuse.Out("st", fuse.Where(active,
		fuse.Where(eq, fuse.Const(stZeroDer),
			fuse.Where(conv, fuse.Const(stConverged), fuse.Const(stActive))),
		st))
	return fuse.MustCompile(
		fuse.Out("x1", fuse.Where(active, fuse.Where(eq, mid, p), p1)),
		fuse.Out("x", fuse.Where(cont, p1, p0)),
		fuse.Out("q0", fuse.Where(cont, q1, q0)),
		fuse.Out("it", fuse.Where(steps, fuse.Add(it, fuse.Const[int32](1)), it)),
		stOut,
		countActive(stOut))
}

// NewtonArray is Newton for an array x0 on any backend (the host, the fake
// device, CUDA), with the function and its derivatives evaluated on the
// array's device (ArrayFunc) and the iterates and the per-element
// bookkeeping kept there: each iteration calls f and fprime (and
// opts.FPrime2) once for all elements and runs one fused kernel (package
// kernels/fuse) that takes the steps, tests convergence and counts the
// unfinished elements, the one value read back per iteration. Nothing else
// moves between host and device.
//
// The methods, steps, tests and stopping rules are Newton's (Newton's
// method with fprime, Halley's with FPrime2, the secant method without
// fprime), computed with the same operations in the same order, so that
// where f and its derivatives give the same bits as Newton's BatchFuncs
// the roots, masks, iterations and residuals are the same, bit for bit
// (as Newton's are with NewtonOptions.Lockstep: every element is evaluated
// at every iteration until all have stopped, and a stopped element keeps
// its values). On CUDA the fused steps run through the launcher set with
// fuse.SetCUDALauncher (the program sets one: package kernels/fuse ships
// none, and without one NewtonArray returns fuse's error); their CUDA code
// is compiled with --fmad=false, which makes the steps the host's bits. No
// GPU has run it.
//
// It does not communicate. x0 is not modified. The error is Newton's
// warning (wrapping ErrNoConvergence or ErrZeroDerivative, with the
// result), or, with a nil result, the first error of f, fprime, FPrime2 or
// the device.
func NewtonArray(f, fprime ArrayFunc, x0 *backend.Array[float64], opts *ArrayNewtonOptions) (*ArrayNewtonResult, error) {
	if f == nil {
		panic("optimize: NewtonArray without a function")
	}
	if x0 == nil {
		panic("optimize: NewtonArray with a nil x0")
	}
	o := opts.defaults()
	if o.FPrime2 != nil && fprime == nil {
		panic("optimize: NewtonArray with FPrime2 but no fprime")
	}
	res, err := solveArray(f, fprime, x0, &o)
	if err != nil {
		return nil, err
	}
	return res, newtonErr(res.NumConverged, res.NumZeroDer, res.NumFailed, o.MaxIter)
}

// solveArray runs NewtonArray and returns the result, or an error of the
// callbacks or the device (and no result).
func solveArray(f, fprime ArrayFunc, x0 *backend.Array[float64], o *ArrayNewtonOptions) (res *ArrayNewtonResult, err error) {
	b, n := x0.Backend(), x0.Len()
	onHost := x0.Device().Kind == backend.CPU
	var f64s []*backend.Array[float64] // the result's two, then temporaries freed at the end
	newF := func() *backend.Array[float64] {
		if err != nil {
			return nil
		}
		var a *backend.Array[float64]
		if a, err = backend.NewOn[float64](b, n); err == nil {
			f64s = append(f64s, a)
		}
		return a
	}
	newI := func() *backend.Array[int32] {
		if err != nil {
			return nil
		}
		var a *backend.Array[int32]
		if a, err = backend.NewOn[int32](b, n); err == nil {
			backend.Fill(a, 0)
		}
		return a
	}
	res = &ArrayNewtonResult{Method: "secant"}
	if fprime != nil {
		res.Method = "newton"
		if o.FPrime2 != nil {
			res.Method = "halley"
		}
	}
	// The result's arrays, then the temporaries.
	res.Root, res.Residual = newF(), newF()
	res.Converged, res.ZeroDer, res.Iterations = newI(), newI(), newI()
	kept := len(f64s)
	st := newI()
	defer func() {
		for _, a := range f64s[min(kept, len(f64s)):] {
			a.Free()
		}
		if st != nil {
			st.Free()
		}
		if err != nil {
			res.Free()
			res = nil
		}
	}()
	if err != nil {
		return
	}
	readback := func(k int) {
		res.Readbacks++
		if !onHost {
			profiling.RecordTransfer(profiling.ToHost, "optimize.NewtonArray counts", int64(8*k), true, false)
		}
	}
	call := func(g ArrayFunc, x, out *backend.Array[float64]) error {
		res.Calls++
		return g(x, out)
	}
	it := res.Iterations
	args := fuse.Args{"st": st, "it": it, "tol": o.Tol, "rtol": o.RTol}
	if n > 0 {
		backend.Copy(res.Root, x0)
		x := res.Root
		if fprime != nil {
			fv, dv := newF(), newF()
			var d2 *backend.Array[float64]
			k := newtonStepKernel
			if o.FPrime2 != nil {
				d2, k = newF(), halleyStepKernel
				args["d2"] = d2
			}
			if err != nil {
				return
			}
			args["x"], args["fv"], args["dv"] = x, fv, dv
			for i, left := 0, int64(n); i < o.MaxIter && left > 0; i++ {
				if err = call(f, x, fv); err != nil {
					return
				}
				if err = call(fprime, x, dv); err != nil {
					return
				}
				if d2 != nil {
					if err = call(o.FPrime2, x, d2); err != nil {
						return
					}
				}
				var r fuse.Result
				if r, err = k.Run(args); err != nil {
					return
				}
				left = r.Scalar("left").Int64()
				readback(1)
			}
		} else {
			// x holds p0 and Root p1 (the root of a stopped element).
			x0c, q0, q1 := newF(), newF(), newF()
			if err != nil {
				return
			}
			backend.Copy(x0c, x0)
			d := secantDelta
			if _, err = secantInitKernel.Run(fuse.Args{"x": x0c, "x1": x, "opd": 1 + d, "d": d}); err != nil {
				return
			}
			if err = call(f, x0c, q0); err != nil {
				return
			}
			if err = call(f, x, q1); err != nil {
				return
			}
			args["x"], args["x1"], args["q0"], args["q1"] = x0c, x, q0, q1
			for i, left := 0, int64(n); i < o.MaxIter && left > 0; i++ {
				var r fuse.Result
				if r, err = secantStepKernel.Run(args); err != nil {
					return
				}
				left = r.Scalar("left").Int64()
				readback(1)
				if left > 0 && i+1 < o.MaxIter {
					if err = call(f, x, q1); err != nil {
						return
					}
				}
			}
		}
		if err = call(f, res.Root, res.Residual); err != nil {
			return
		}
	}
	var r fuse.Result
	if r, err = finalKernel.Run(fuse.Args{"st": st, "it": it, "conv": res.Converged, "zd": res.ZeroDer}); err != nil {
		return
	}
	readback(3)
	res.NumConverged = int(r.Scalar("nconv").Int64())
	res.NumZeroDer = int(r.Scalar("nzero").Int64())
	res.NumFailed = n - res.NumConverged - res.NumZeroDer
	res.MaxIterations = max(0, int(r.Scalar("maxit").Int64()))
	// Elements that ran out of iterations took MaxIter steps: the kernels
	// counted each step, so nothing is left to record.
	return
}

// DistArrayNewtonResult is the outcome of NewtonArrayDist. Root and
// Residual have x0's layout and backend; the masks and iterations are this
// rank's block (element k is element lo+k of the array, lo from
// x0.Range()), on x0's device; the counts are over all ranks, the same on
// every rank.
type DistArrayNewtonResult struct {
	// Root and Residual are as in NewtonResult, new arrays that the caller
	// frees.
	Root, Residual *dist.Array[float64]
	// Converged, ZeroDer and Iterations are this rank's block of
	// ArrayNewtonResult's, which the caller frees.
	Converged, ZeroDer, Iterations *backend.Array[int32]
	// NumConverged, NumZeroDer and NumFailed count over all ranks;
	// MaxIterations is the most steps of any element.
	NumConverged, NumZeroDer, NumFailed int
	MaxIterations                       int
	// Calls and Readbacks count this rank's, as in ArrayNewtonResult.
	Calls, Readbacks int
	// Method is "newton", "halley" or "secant".
	Method string
}

// Free frees the result's arrays. It is collective only in the sense that
// dist.Array.Free is: every rank frees its blocks.
func (r *DistArrayNewtonResult) Free() {
	for _, a := range []*dist.Array[float64]{r.Root, r.Residual} {
		if a != nil {
			a.Free()
		}
	}
	for _, a := range []*backend.Array[int32]{r.Converged, r.ZeroDer, r.Iterations} {
		if a != nil {
			a.Free()
		}
	}
}

// NewtonArrayDist is NewtonArray over a distributed array on any backend:
// every rank solves the equations of its own block (x0.Local()) on the
// block's device, calling f, fprime and FPrime2 on its own (they are not
// collective; they get this rank's block and hold this rank's blocks of
// the parameter arrays). There is no communication until the end, where
// one allreduce counts the converged, zero-derivative and failed elements
// and the most iterations. Each element's result is the one Newton gives
// it alone, so the roots are the same bits at every rank count.
//
// It is collective (for the final reduction and for agreeing on errors:
// an error of a callback or a device on one rank is returned on every
// rank, with a nil result). x0 is not modified. The warning, the same on
// every rank, is as Newton's from the global counts.
func NewtonArrayDist(f, fprime ArrayFunc, x0 *dist.Array[float64], opts *ArrayNewtonOptions) (*DistArrayNewtonResult, error) {
	if f == nil {
		panic("optimize: NewtonArrayDist without a function")
	}
	o := opts.defaults()
	if o.FPrime2 != nil && fprime == nil {
		panic("optimize: NewtonArrayDist with FPrime2 but no fprime")
	}
	r, err := solveArray(f, fprime, x0.Local(), &o)
	c := x0.Comm()
	var counts []int64
	maxIt := int64(0)
	if err == nil {
		counts = []int64{int64(r.NumConverged), int64(r.NumZeroDer), int64(r.NumFailed)}
		maxIt = int64(r.MaxIterations)
	}
	if err = mpi.Agree(c, err); err != nil {
		if r != nil {
			r.Free()
		}
		return nil, err
	}
	if x0.Layout().Axis() != dist.Replicated && c.Size() > 1 {
		err = mpi.AllreduceInPlace(c, counts, mpi.Sum)
		if err == nil {
			maxIt, err = mpi.AllreduceValue(c, maxIt, mpi.Max)
		}
		if err = mpi.Agree(c, err); err != nil {
			r.Free()
			return nil, err
		}
	}
	res := &DistArrayNewtonResult{
		Root:      dist.FromLocal(c, x0.Layout(), r.Root),
		Residual:  dist.FromLocal(c, x0.Layout(), r.Residual),
		Converged: r.Converged, ZeroDer: r.ZeroDer, Iterations: r.Iterations,
		NumConverged: int(counts[0]), NumZeroDer: int(counts[1]), NumFailed: int(counts[2]),
		MaxIterations: int(maxIt), Calls: r.Calls, Readbacks: r.Readbacks, Method: r.Method,
	}
	return res, newtonErr(res.NumConverged, res.NumZeroDer, res.NumFailed, o.MaxIter)
}
