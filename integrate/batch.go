package integrate

import (
	"errors"
	"fmt"
	"math"
)

// BatchODEFunc is the right-hand side of a batch of independent systems of
// the same size dim: for every system s, it writes f_s(t[s], y[s*dim :
// (s+1)*dim]) into dydt[s*dim : (s+1)*dim]. One call covers all systems,
// each at its own time. y and dydt must not be kept after the call.
type BatchODEFunc func(t, y, dydt []float64)

// BatchResult is the solution of SolveIVPBatch.
type BatchResult struct {
	// T are the output times: IVPOptions.TEval, or t0 and tf without it.
	// Y[k] is the state of all systems at T[k] (nsys*dim values, system
	// after system); NaN for a system that stopped before T[k].
	T []float64
	Y [][]float64
	// TFinal[s] is where system s stopped (tf unless it failed).
	TFinal []float64
	// Steps, Rejected, Status, Stiff and Err are per system, as in
	// IVPResult.
	Steps, Rejected, Status []int
	Stiff                   []bool
	Err                     []error
	// Calls counts the calls of the right-hand side (each for all
	// systems).
	Calls int
	// Systems are the systems' own results (events, switches, counters),
	// on the coroutine path; nil on the lockstep RK45 path.
	Systems []*IVPResult
}

// SolveIVPBatch integrates nsys independent systems of dim equations each
// from t0 to tf, y0 holding their initial states one after the other
// (nsys*dim values). Every system has its own step size, error test and
// acceptance: it gets exactly the steps and the results (bit for bit) that
// SolveIVP with the same options gives it alone. The systems advance
// together, and every evaluation of the right-hand side is one call of f
// for all systems. A system that has finished (or failed) is still passed
// to f at its last point, with its results ignored: the shapes never
// change, as a device kernel wants them.
//
// There are two paths. Method RK45 without events or Dense is the lockstep
// one: one attempted step per round for every system, twelve arrays of
// nsys*dim values and a few scalars per system, for any number of systems
// (one stage is one call of f, six per round); a system that the stiffness test finds stiff stops
// with ErrStiff unless IgnoreStiffness. Auto, Radau, events and Dense run
// SolveIVP's own code for each system as a coroutine (iter.Pull) whose
// evaluations are gathered into the one call per round: every feature of
// SolveIVP, per system (Systems holds each system's IVPResult), at the
// cost of a coroutine (a goroutine's stack, some kilobytes) per system and
// a switch to it per evaluation: 5000 one-equation Radau systems take
// under a second and 40 MB here.
// Radau's Jacobian is by forward differences there (dim calls per
// Jacobian, each for all systems): opts.Jac, which is per system, panics.
//
// opts is as for SolveIVP, with RelTols and AbsTols of length dim (the
// same for every system); event functions are the same for every system.
// The returned error joins the systems' errors.
func SolveIVPBatch(f BatchODEFunc, nsys, dim int, t0, tf float64, y0 []float64, opts *IVPOptions) (*BatchResult, error) {
	if opts == nil {
		opts = &IVPOptions{}
	}
	if nsys < 0 || dim < 0 || len(y0) != nsys*dim {
		panic(fmt.Sprintf("integrate: SolveIVPBatch with %d values for %d systems of %d equations", len(y0), nsys, dim))
	}
	if opts.Jac != nil {
		panic("integrate: SolveIVPBatch: Jac is per system; the batch's Radau uses finite differences")
	}
	if opts.Method != RK45 || opts.Events != nil || opts.Dense {
		return solveCoroutines(f, nsys, dim, t0, tf, y0, opts)
	}
	if !isFinite(t0) || !isFinite(tf) {
		panic(fmt.Sprintf("integrate: SolveIVPBatch from %g to %g", t0, tf))
	}
	checkTEval(opts.TEval, t0, tf)
	tol := opts.tolerances(dim)
	maxStep := opts.MaxStep
	if maxStep == 0 {
		maxStep = math.Inf(1)
	}
	b := &batch{f: f, nsys: nsys, dim: dim, tol: tol, tBound: tf, maxStep: maxStep, opts: opts}
	b.direction = 1
	if tf < t0 {
		b.direction = -1
	}
	return b.run(t0, y0)
}

type batch struct {
	f                 BatchODEFunc
	nsys, dim         int
	tol               tolerances
	tBound, direction float64
	maxStep           float64
	opts              *IVPOptions
	calls             int

	t, hAbs, h, tNew, tStage, stiffAt []float64
	fresh, rejected                   []bool
	iasti, nonsti                     []int
	y, yOld, fv, yNew, tmp            []float64
	k                                 [7][]float64
}

func (b *batch) eval(t, y, dy []float64) {
	b.calls++
	b.f(t, y, dy)
}

// sysNorm is the RMS norm of system s's part of x.
func (b *batch) sysNorm(x []float64, s int) float64 {
	if b.dim == 0 {
		return 0
	}
	var sum float64
	for _, e := range x[s*b.dim : (s+1)*b.dim] {
		sum += e * e
	}
	return math.Sqrt(sum / float64(b.dim))
}

func (b *batch) run(t0 float64, y0 []float64) (*BatchResult, error) {
	ns, dim, n := b.nsys, b.dim, b.nsys*b.dim
	mk := func() []float64 { return make([]float64, n) }
	b.y, b.yOld, b.fv, b.yNew, b.tmp = mk(), mk(), mk(), mk(), mk()
	for i := range b.k {
		b.k[i] = mk()
	}
	mks := func() []float64 { return make([]float64, ns) }
	b.t, b.hAbs, b.h, b.tNew, b.tStage, b.stiffAt = mks(), mks(), mks(), mks(), mks(), mks()
	b.fresh, b.rejected = make([]bool, ns), make([]bool, ns)
	b.iasti, b.nonsti = make([]int, ns), make([]int, ns)
	res := &BatchResult{TFinal: make([]float64, ns), Steps: make([]int, ns), Rejected: make([]int, ns),
		Status: make([]int, ns), Stiff: make([]bool, ns), Err: make([]error, ns)}
	copy(b.y, y0)
	for s := range b.t {
		b.t[s] = t0
	}
	atol := func(i int) float64 { return b.tol.atol[i%dim] }
	rtol := func(i int) float64 { return b.tol.rtol[i%dim] }
	b.eval(b.t, b.y, b.fv)
	// Initial steps, as selectInitialStep for each system.
	h0 := mks()
	d1s := mks()
	if b.opts.FirstStep > 0 {
		for s := range b.hAbs {
			b.hAbs[s] = b.opts.FirstStep
		}
	} else if dim > 0 && ns > 0 {
		for i := 0; i < n; i++ {
			b.tmp[i] = b.y[i] / (atol(i) + math.Abs(b.y[i])*rtol(i))
		}
		d0s := mks()
		for s := range d0s {
			d0s[s] = b.sysNorm(b.tmp, s)
		}
		for i := 0; i < n; i++ {
			b.tmp[i] = b.fv[i] / (atol(i) + math.Abs(b.y[i])*rtol(i))
		}
		for s := range d1s {
			d1s[s] = b.sysNorm(b.tmp, s)
			h0[s] = 0.01 * d0s[s] / d1s[s]
			if d0s[s] < 1e-5 || d1s[s] < 1e-5 {
				h0[s] = 1e-6
			}
			b.tStage[s] = t0 + h0[s]*b.direction
		}
		for i := 0; i < n; i++ {
			b.tmp[i] = b.y[i] + h0[i/dim]*b.direction*b.fv[i]
		}
		b.eval(b.tStage, b.tmp, b.k[1])
		for i := 0; i < n; i++ {
			b.tmp[i] = (b.k[1][i] - b.fv[i]) / (atol(i) + math.Abs(b.y[i])*rtol(i))
		}
		for s := range b.hAbs {
			d2 := b.sysNorm(b.tmp, s) / h0[s]
			var h1 float64
			if d1s[s] <= 1e-15 && d2 <= 1e-15 {
				h1 = math.Max(1e-6, h0[s]*1e-3)
			} else {
				h1 = math.Pow(0.01/math.Max(d1s[s], d2), 1./5)
			}
			b.hAbs[s] = math.Min(100*h0[s], h1)
		}
	}
	// Output.
	te := b.opts.TEval
	teI := make([]int, ns)
	if te == nil {
		res.T = []float64{t0, b.tBound}
		res.Y = [][]float64{append([]float64(nil), y0...), make([]float64, n)}
	} else {
		res.T = append([]float64(nil), te...)
		res.Y = make([][]float64, len(te))
		for k := range res.Y {
			res.Y[k] = make([]float64, n)
			for i := range res.Y[k] {
				res.Y[k][i] = math.NaN()
			}
		}
	}
	running := 0
	for s := range b.fresh {
		b.fresh[s] = true
		if t0 != b.tBound {
			running++
		} else {
			res.Status[s] = 0
		}
	}
	active := func(s int) bool { return res.Status[s] == 0 && b.t[s] != b.tBound && res.Err[s] == nil }
	fail := func(s int, err error) {
		res.Status[s], res.Err[s] = -1, err
		b.h[s] = 0
		running--
	}
	for running > 0 {
		// Begin an attempt for every running system.
		for s := 0; s < ns; s++ {
			if !active(s) {
				b.h[s], b.tNew[s] = 0, b.t[s]
				continue
			}
			t := b.t[s]
			minStep := 10 * math.Abs(math.Nextafter(t, b.direction*math.Inf(1))-t)
			if b.fresh[s] {
				if b.hAbs[s] > b.maxStep {
					b.hAbs[s] = b.maxStep
				} else if b.hAbs[s] < minStep {
					b.hAbs[s] = minStep
				}
				b.fresh[s], b.rejected[s] = false, false
			}
			if b.hAbs[s] < minStep {
				fail(s, ErrStepTooSmall)
				b.tNew[s] = t
				continue
			}
			h := b.hAbs[s] * b.direction
			tNew := t + h
			if b.direction*(tNew-b.tBound) > 0 {
				tNew = b.tBound
			}
			b.h[s] = tNew - t
			b.hAbs[s] = math.Abs(b.h[s])
			b.tNew[s] = tNew
		}
		if running == 0 {
			break
		}
		// The stages, one call each for all systems.
		copy(b.k[0], b.fv)
		for st := 1; st < 6; st++ {
			a := &dpA[st]
			for i := 0; i < n; i++ {
				var dy float64
				for j := 0; j < st; j++ {
					dy += b.k[j][i] * a[j]
				}
				b.yNew[i] = b.y[i] + dy*b.h[i/dim]
			}
			for s := range b.tStage {
				b.tStage[s] = b.t[s] + dpC[st]*b.h[s]
			}
			b.eval(b.tStage, b.yNew, b.k[st])
		}
		copy(b.yOld, b.yNew)
		for i := 0; i < n; i++ {
			var dy float64
			for j := range dpB {
				dy += b.k[j][i] * dpB[j]
			}
			b.yNew[i] = b.y[i] + b.h[i/dim]*dy
		}
		b.eval(b.tNew, b.yNew, b.k[6])
		// Error test, per system.
		for s := 0; s < ns; s++ {
			if !active(s) {
				continue
			}
			lo, hi := s*dim, (s+1)*dim
			h := b.h[s]
			for i := lo; i < hi; i++ {
				sc := atol(i) + math.Max(math.Abs(b.y[i]), math.Abs(b.yNew[i]))*rtol(i)
				var e float64
				for j := range dpE {
					e += b.k[j][i] * dpE[j]
				}
				b.tmp[i] = e * h / sc
			}
			errNorm := b.sysNorm(b.tmp, s)
			if !(errNorm < 1) {
				if math.IsNaN(errNorm) {
					fail(s, ErrNonFiniteState)
					continue
				}
				b.hAbs[s] *= math.Max(minFactor, safety*math.Pow(errNorm, -0.2))
				b.rejected[s] = true
				res.Rejected[s]++
				continue
			}
			factor := float64(maxFactor)
			if errNorm != 0 {
				factor = math.Min(maxFactor, safety*math.Pow(errNorm, -0.2))
			}
			if b.rejected[s] {
				factor = math.Min(1, factor)
			}
			b.hAbs[s] *= factor
			res.Steps[s]++
			// Hairer's stiffness test.
			var num, den float64
			for i := lo; i < hi; i++ {
				d := b.k[6][i] - b.k[5][i]
				num += d * d
			}
			for i := lo; i < hi; i++ {
				d := b.yNew[i] - b.yOld[i]
				den += d * d
			}
			if den > 0 && math.Abs(h)*math.Sqrt(num/den) > stiffBound {
				b.nonsti[s] = 0
				b.iasti[s]++
				if b.iasti[s] == stiffSteps && !res.Stiff[s] {
					res.Stiff[s], b.stiffAt[s] = true, b.tNew[s]
				}
			} else {
				b.nonsti[s]++
				if b.nonsti[s] == 6 {
					b.iasti[s] = 0
				}
			}
			// Accept: y_old is the state before the step, for the dense
			// output.
			copy(b.yOld[lo:hi], b.y[lo:hi])
			copy(b.y[lo:hi], b.yNew[lo:hi])
			copy(b.fv[lo:hi], b.k[6][lo:hi])
			tOld := b.t[s]
			b.t[s] = b.tNew[s]
			b.fresh[s] = true
			for te != nil && teI[s] < len(te) && b.direction*(te[teI[s]]-b.t[s]) <= 0 {
				out := res.Y[teI[s]][lo:hi]
				if te[teI[s]] == b.t[s] {
					copy(out, b.y[lo:hi])
				} else {
					b.dense(s, tOld, te[teI[s]], out)
				}
				teI[s]++
			}
			switch {
			case b.t[s] == b.tBound:
				running--
			case res.Stiff[s] && !b.opts.IgnoreStiffness:
				fail(s, fmt.Errorf("%w (stiffness detected at t = %g)", ErrStiff, b.stiffAt[s]))
			case b.opts.MaxSteps > 0 && res.Steps[s] >= b.opts.MaxSteps:
				fail(s, ErrMaxSteps)
			}
		}
	}
	var errs []error
	for s := 0; s < ns; s++ {
		res.TFinal[s] = b.t[s]
		if res.Err[s] != nil {
			errs = append(errs, fmt.Errorf("system %d: %w", s, res.Err[s]))
		}
	}
	if te == nil {
		copy(res.Y[1], b.y)
		res.T[1] = b.tBound
	}
	res.Calls = b.calls
	return res, errors.Join(errs...)
}

// dense evaluates system s's interpolant of its last step (from tOld) at
// t into out.
func (b *batch) dense(s int, tOld, t float64, out []float64) {
	lo := s * b.dim
	h := b.t[s] - tOld
	x := (t - tOld) / h
	var p [4]float64
	p[0] = x
	for k := 1; k < 4; k++ {
		p[k] = p[k-1] * x
	}
	for c := range out {
		i := lo + c
		var q float64
		for k := 0; k < 4; k++ {
			var qk float64
			for j := 0; j < 7; j++ {
				qk += b.k[j][i] * dpP[j][k]
			}
			q += qk * p[k]
		}
		out[c] = b.yOld[i] + h*q
	}
}
