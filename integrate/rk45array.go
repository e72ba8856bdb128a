package integrate

import (
	"errors"
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// ArrayODEFunc is the right-hand side of a batch of independent systems of
// the same size dim on a device: for every system s, it writes f_s(t[s],
// y[s*dim : (s+1)*dim]) into dydt[s*dim : (s+1)*dim]. t holds one time per
// system; y and dydt hold nsys*dim values; all three are on the device of
// SolveIVPBatchArray's y0. The function computes there (a kernels.Kernel
// launched on them, with its per-system parameters in arrays it holds, a
// fused expression of package kernels/fuse, package backend's
// operations), must compute each system independently of the others, must
// not modify t or y, and must not keep the arrays. An error (a device's)
// stops SolveIVPBatchArray, which returns it.
type ArrayODEFunc func(t, y, dydt *backend.Array[float64]) error

// ArrayBatchResult is the solution of SolveIVPBatchArray.
type ArrayBatchResult struct {
	// Y is the state of every system where it stopped (nsys*dim values,
	// system after system, at tf unless it failed): a new array on y0's
	// device, which the caller frees.
	Y *backend.Array[float64]
	// TFinal, Steps, Rejected, Status, Stiff and Err are per system, as in
	// BatchResult.
	TFinal                  []float64
	Steps, Rejected, Status []int
	Stiff                   []bool
	Err                     []error
	// Calls counts the calls of the right-hand side (each for all
	// systems), Rounds the attempted steps of the batch (one launch of
	// the step control and one count read back each).
	Calls, Rounds int
	// ToDevice and ToHost count the copies between the host and the
	// device (or host memory where y0 is on the host): the tolerances and
	// the initial steps to the device (3), the initial-step norms (1), one
	// count of the running systems per round, and the per-system results
	// (3) to the host.
	ToDevice, ToHost int
}

// Free frees the result's array.
func (r *ArrayBatchResult) Free() {
	if r != nil && r.Y != nil {
		r.Y.Free()
		r.Y = nil
	}
}

// SolveIVPBatchArray is SolveIVPBatch's RK45 with the state on a device:
// nsys independent systems of dim equations each, their initial states in
// y0 (nsys*dim values on any backend: the host, the fake device of
// backend/fakedev, CUDA), integrated from t0 to tf with every system's own
// step size, error test and acceptance, and the right-hand side f called
// on the device for all systems at once (six calls per attempted step).
//
// The steps are three kernels of the kernels catalog (rk45_init,
// rk45_stage and rk45_control), with one thread per system: the stages'
// arguments, and the error test, acceptance or rejection, new step size,
// stiffness test and stop of every system. The loop is driven from the
// host, which reads back one number per attempted step: the count of
// systems still running. The state, the stages and the per-system
// bookkeeping stay on the device; the other copies are few and of fixed
// size (ArrayBatchResult.ToDevice and ToHost): the tolerances, the
// initial steps (Hairer's choice ends in math.Pow on the host, so that it
// is the host's bits) and the per-system results.
//
// The arithmetic is SolveIVPBatch's, in the same order (the CUDA code is
// compiled with --fmad=false, the step-size control's x^(-1/5) is
// powMinusFifth in both): where f gives the bits of SolveIVPBatch's f,
// every system gets the steps and the results, bit for bit, that
// SolveIVPBatch and SolveIVP give it (tested on the CPU backend and the
// fake device; no GPU has run it). A stopped system stays in the batch,
// passed to f at its last point with its results ignored, as in
// SolveIVPBatch.
//
// opts is as for SolveIVPBatch with Method RK45 (nil: RK45 with SolveIVP's
// defaults); Auto (the zero Method), Radau, Events, Dense and TEval panic:
// they are not done on the device. RelTols
// and AbsTols have length dim. A system fails as in SolveIVPBatch (a step
// under the minimum, a non-finite error estimate, stiffness unless
// IgnoreStiffness, MaxSteps), reported in its Status and Err. It does not
// communicate (see SolveIVPBatchDist). y0 is not modified. On the CPU
// backend it runs the kernels' host implementations, one thread, slower
// than SolveIVPBatch (10^4 damped oscillators: 1.8 s against 1.2 s, and
// 0.5 s for SolveIVPIndexed, on a loaded machine): there SolveIVPIndexed
// is the fast form. The error joins
// the systems' errors, with the result; an error of f or the device is
// returned with a nil result.
func SolveIVPBatchArray(f ArrayODEFunc, nsys, dim int, t0, tf float64, y0 *backend.Array[float64], opts *IVPOptions) (*ArrayBatchResult, error) {
	o := checkBatchArray("SolveIVPBatchArray", f, nsys, dim, t0, tf, y0, opts)
	res, err := solveBatchArray(f, nsys, dim, t0, tf, y0, o)
	if err != nil {
		return nil, err
	}
	var errs []error
	for s, e := range res.Err {
		if e != nil {
			errs = append(errs, fmt.Errorf("system %d: %w", s, e))
		}
	}
	return res, errors.Join(errs...)
}

// checkBatchArray checks the arguments of the device batches, which panic
// as name, and returns the options.
func checkBatchArray(name string, f ArrayODEFunc, nsys, dim int, t0, tf float64, y0 *backend.Array[float64], opts *IVPOptions) *IVPOptions {
	if f == nil || y0 == nil {
		panic(fmt.Sprintf("integrate: %s without a function or a state", name))
	}
	if opts == nil {
		opts = &IVPOptions{Method: RK45}
	}
	if nsys < 0 || dim < 0 || y0.Len() != nsys*dim {
		panic(fmt.Sprintf("integrate: %s with %d values for %d systems of %d equations", name, y0.Len(), nsys, dim))
	}
	if opts.Method != RK45 || opts.Events != nil || opts.Dense || opts.TEval != nil || opts.Jac != nil {
		panic(fmt.Sprintf("integrate: %s does RK45 without events, Dense, TEval or Jac (set Method: RK45)", name))
	}
	if !isFinite(t0) || !isFinite(tf) {
		panic(fmt.Sprintf("integrate: %s from %g to %g", name, t0, tf))
	}
	return opts
}

// solveBatchArray runs the device batch; the error is f's or the device's.
func solveBatchArray(f ArrayODEFunc, nsys, dim int, t0, tf float64, y0 *backend.Array[float64], opts *IVPOptions) (res *ArrayBatchResult, err error) {
	n, d := nsys, dim
	nv := n * d
	tol := opts.tolerances(d)
	maxStep := opts.MaxStep
	if maxStep == 0 {
		maxStep = math.Inf(1)
	}
	direction := 1.0
	if tf < t0 {
		direction = -1
	}
	b := y0.Backend()
	var temps []interface{ Free() }
	newF := func(m int) *backend.Array[float64] {
		if err != nil {
			return nil
		}
		var a *backend.Array[float64]
		if a, err = backend.NewOn[float64](b, m); err == nil {
			temps = append(temps, a)
		}
		return a
	}
	newI := func(m int) *backend.Array[int64] {
		if err != nil {
			return nil
		}
		var a *backend.Array[int64]
		if a, err = backend.NewOn[int64](b, m); err == nil {
			temps = append(temps, a)
		}
		return a
	}
	res = &ArrayBatchResult{TFinal: make([]float64, n), Steps: make([]int, n), Rejected: make([]int, n),
		Status: make([]int, n), Stiff: make([]bool, n), Err: make([]error, n)}
	y := newF(nv)
	if err != nil {
		return nil, err
	}
	res.Y, temps = y, nil
	defer func() {
		for _, a := range temps {
			a.Free()
		}
		if err != nil {
			y.Free()
			res = nil
		}
	}()
	backend.Copy(y, y0)
	for s := range res.TFinal {
		res.TFinal[s] = t0
	}
	if n == 0 {
		return res, nil
	}
	yNew, yOld, k := newF(nv), newF(nv), newF(7*nv)
	t, hAbs, h, tNew, ts, stiffAt := newF(n), newF(n), newF(n), newF(n), newF(n), newF(n)
	atol, rtol, sc := newF(d), newF(d), newF(3*n)
	st, left := newI(n*rk45Fields), newI(1)
	if err != nil {
		return nil, err
	}
	toDevice := func(dst *backend.Array[float64], src []float64) error {
		res.ToDevice++
		return backend.CopyFromHostSlice(dst, src)
	}
	if err = toDevice(atol, tol.atol); err != nil {
		return nil, err
	}
	if err = toDevice(rtol, tol.rtol); err != nil {
		return nil, err
	}
	stage := func(j int) *backend.Array[float64] { return k.Slice(j*nv, (j+1)*nv) }
	call := func(tv, yv, dy *backend.Array[float64]) error {
		res.Calls++
		return f(tv, yv, dy)
	}
	cfg := kernels.Config{N: n}
	A, I := kernels.Array[float64], kernels.Int
	backend.Fill(t, t0)
	// The initial steps: f at the start, and Hairer's choice (the end, a
	// power, on the host as in initialSteps).
	if err = call(t, y, stage(0)); err != nil {
		return nil, err
	}
	h0 := make([]float64, n)
	switch {
	case opts.FirstStep > 0:
		for s := range h0 {
			h0[s] = opts.FirstStep
		}
	case d == 0:
		for s := range h0 {
			h0[s] = math.Inf(1)
		}
	default:
		initArgs := func(mode int32) []kernels.Arg {
			return []kernels.Arg{I(n), I(d), kernels.Scalar(mode), kernels.Float(t0), kernels.Float(direction),
				A(atol), A(rtol), A(y), A(stage(0)), A(stage(1)), A(sc), A(ts), A(yNew)}
		}
		if err = rk45InitKernel.Launch(cfg, initArgs(0)...); err != nil {
			return nil, err
		}
		if err = call(ts, yNew, stage(1)); err != nil {
			return nil, err
		}
		if err = rk45InitKernel.Launch(cfg, initArgs(1)...); err != nil {
			return nil, err
		}
		host := make([]float64, 3*n)
		res.ToHost++
		if err = backend.CopyToHostSlice(host, sc); err != nil {
			return nil, err
		}
		for s := range h0 {
			h0[s] = initialStepEnd(host[s], host[n+s], host[2*n+s], 4)
		}
	}
	if t0 == tf {
		// Nothing to integrate: every system is done where it starts.
		return res, nil
	}
	if err = toDevice(hAbs, h0); err != nil {
		return nil, err
	}
	cnt := make([]int64, 1)
	// control launches rk45_control (mode 0: every system starts; 1: the
	// end of an attempt) and returns the count of running systems.
	control := func(mode int32) (int64, error) {
		backend.Fill(left, 0)
		err := rk45ControlKernel.Launch(cfg, I(n), I(d), kernels.Scalar(mode), kernels.Float(tf), kernels.Float(direction),
			kernels.Float(maxStep), I(opts.MaxSteps), kernels.Scalar(boolInt32(opts.IgnoreStiffness)), A(atol), A(rtol),
			A(t), A(hAbs), A(h), A(tNew), A(stiffAt), A(y), A(yNew), A(yOld), A(k), kernels.Array(st), kernels.Array(left))
		if err != nil {
			return 0, err
		}
		res.ToHost++
		err = backend.CopyToHostSlice(cnt, left)
		return cnt[0], err
	}
	var running int64
	if running, err = control(0); err != nil {
		return nil, err
	}
	for running > 0 {
		res.Rounds++
		for j := 1; j <= 6; j++ {
			if err = rk45StageKernel.Launch(cfg, I(n), I(d), kernels.Scalar(int32(j)), A(t), A(h), A(y), A(k), A(yNew), A(yOld), A(ts)); err != nil {
				return nil, err
			}
			tj := ts
			if j == 6 {
				tj = tNew
			}
			if err = call(tj, yNew, stage(j)); err != nil {
				return nil, err
			}
		}
		if running, err = control(1); err != nil {
			return nil, err
		}
	}
	// The per-system results.
	sa := make([]float64, n)
	stv := make([]int64, n*rk45Fields)
	res.ToHost += 3
	if err = backend.CopyToHostSlice(res.TFinal, t); err != nil {
		return nil, err
	}
	if err = backend.CopyToHostSlice(sa, stiffAt); err != nil {
		return nil, err
	}
	if err = backend.CopyToHostSlice(stv, st); err != nil {
		return nil, err
	}
	for s := 0; s < n; s++ {
		r := stv[s*rk45Fields : (s+1)*rk45Fields]
		res.Steps[s], res.Rejected[s], res.Stiff[s] = int(r[rk45StSteps]), int(r[rk45StRejects]), r[rk45StStiff] != 0
		var e error
		switch r[rk45StStatus] {
		case rk45TooSmall:
			e = ErrStepTooSmall
		case rk45NonFinite:
			e = ErrNonFiniteState
		case rk45Stiff:
			e = fmt.Errorf("%w (stiffness detected at t = %g)", ErrStiff, sa[s])
		case rk45MaxSteps:
			e = ErrMaxSteps
		}
		if e != nil {
			res.Status[s], res.Err[s] = -1, e
		}
	}
	return res, nil
}

func boolInt32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
