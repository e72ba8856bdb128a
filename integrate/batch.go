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

// IndexedODEFunc is the right-hand side of some of the systems of a batch,
// all of the same size dim: for every k, it writes f_idx[k](t[k], y[k*dim
// : (k+1)*dim]) into dydt[k*dim : (k+1)*dim], where idx[k] is the system's
// index (into SolveIVPIndexed's y0, by systems), by which the function
// finds the system's own parameters. len(t) = len(idx), and y and dydt
// hold len(idx)*dim values. The systems come in any order, and the slices
// must not be kept after the call. It is optimize.BatchFunc's form for
// systems.
type IndexedODEFunc func(idx []int, t, y, dydt []float64)

// BatchResult is the solution of SolveIVPBatch and SolveIVPIndexed.
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
	// systems with SolveIVPBatch, for a chunk of them with
	// SolveIVPIndexed's RK45).
	Calls int
	// Systems are the systems' own results (events, switches, counters),
	// on the coroutine path; nil on the RK45 path.
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
// change, as a device kernel wants them. On the CPU, SolveIVPIndexed is
// faster: it works through the systems a cache-sized chunk at a time.
//
// There are two paths. Method RK45 without events or Dense is the lockstep
// one: one attempted step per round for every system, thirteen arrays of
// nsys*dim values and a few scalars per system, for any number of systems
// (one stage is one call of f, six per round); a system that the
// stiffness test finds stiff stops with ErrStiff unless IgnoreStiffness.
// Auto, Radau, events and Dense run SolveIVP's own code for each system as
// a coroutine (iter.Pull) whose evaluations are gathered into the one call
// per round: every feature of SolveIVP, per system (Systems holds each
// system's IVPResult), at the cost of a coroutine (a goroutine's stack,
// some kilobytes) per system and a switch to it per evaluation: 5000
// one-equation Radau systems take under a second and 40 MB here. Radau's
// Jacobian is by forward differences there (dim calls per Jacobian, each
// for all systems): opts.Jac, which is per system, panics.
//
// opts is as for SolveIVP, with RelTols and AbsTols of length dim (the
// same for every system); event functions are the same for every system.
// The returned error joins the systems' errors. It does not communicate.
func SolveIVPBatch(f BatchODEFunc, nsys, dim int, t0, tf float64, y0 []float64, opts *IVPOptions) (*BatchResult, error) {
	opts = checkBatch("SolveIVPBatch", nsys, dim, t0, tf, y0, opts)
	if opts.Method != RK45 || opts.Events != nil || opts.Dense {
		return solveCoroutines(f, nsys, dim, t0, tf, y0, opts)
	}
	call := func(idx []int, t, y, dy []float64) { f(t, y, dy) }
	return newBatch(call, nsys, nsys, dim, t0, tf, opts, false).run(t0, y0)
}

// indexedChunk is the number of slots of SolveIVPIndexed's RK45 path, in
// state values (systems times dim): thirteen arrays of it stay in the
// first-level and second-level caches (about 50 KB); chunks of 128 to
// 8192 values were alike on the Van der Pol bench (bench_test.go, a loaded
// machine), and the whole batch at once slower.
const indexedChunk = 512

// indexedSlots is the number of systems SolveIVPIndexed's RK45 path works
// on at once (a variable for the tests).
var indexedSlots = func(dim int) int { return max(1, indexedChunk/max(dim, 1)) }

// SolveIVPIndexed is SolveIVPBatch for a right-hand side that is told
// which systems it evaluates, which lets the batch work through the
// systems a chunk at a time: every system gets exactly the steps and the
// results (bit for bit) that SolveIVP with the same options gives it
// alone, as with SolveIVPBatch, and the options, the result and the
// errors are SolveIVPBatch's.
//
// Method RK45 without events or Dense runs a few hundred systems at a
// time (indexedChunk values) in lockstep in the caches: a system that
// finishes or fails gives its place to the next system not yet started
// (or, at the end, to the last slot's system), so that f is called only
// for systems still running, and the systems' initial steps are taken
// first, a chunk at a time. The calls of f are
// many and small (six per round of a chunk). Every other method runs
// SolveIVPBatch's coroutine path, with f called for all systems at once
// (idx 0, ..., nsys-1). It does not communicate.
func SolveIVPIndexed(f IndexedODEFunc, nsys, dim int, t0, tf float64, y0 []float64, opts *IVPOptions) (*BatchResult, error) {
	opts = checkBatch("SolveIVPIndexed", nsys, dim, t0, tf, y0, opts)
	if opts.Method != RK45 || opts.Events != nil || opts.Dense {
		all := make([]int, nsys)
		for i := range all {
			all[i] = i
		}
		return solveCoroutines(func(t, y, dy []float64) { f(all, t, y, dy) }, nsys, dim, t0, tf, y0, opts)
	}
	return newBatch(f, nsys, min(nsys, indexedSlots(dim)), dim, t0, tf, opts, true).run(t0, y0)
}

// checkBatch checks the arguments of the batches, which panic as name,
// and returns the options (nil: the defaults).
func checkBatch(name string, nsys, dim int, t0, tf float64, y0 []float64, opts *IVPOptions) *IVPOptions {
	if opts == nil {
		opts = &IVPOptions{}
	}
	if nsys < 0 || dim < 0 || len(y0) != nsys*dim {
		panic(fmt.Sprintf("integrate: %s with %d values for %d systems of %d equations", name, len(y0), nsys, dim))
	}
	if opts.Jac != nil {
		panic(fmt.Sprintf("integrate: %s: Jac is per system; the batch's Radau uses finite differences", name))
	}
	if opts.Method == RK45 && opts.Events == nil && !opts.Dense {
		if !isFinite(t0) || !isFinite(tf) {
			panic(fmt.Sprintf("integrate: %s from %g to %g", name, t0, tf))
		}
		checkTEval(opts.TEval, t0, tf)
	}
	return opts
}

// batch is the RK45 lockstep path: slots, each holding one system, advance
// together by one attempted step per round. With refill, a slot whose
// system stopped takes the next system not yet started, or when there is
// none the last slot's system (the slots shrink); without it every system
// has its slot for the whole run, the slot's index the system's.
type batch struct {
	f                 IndexedODEFunc
	nsys, dim         int
	tol               tolerances
	tBound, direction float64
	maxStep           float64
	opts              *IVPOptions
	refill            bool
	calls             int
	res               *BatchResult

	// The start, and the systems' first derivative and initial step (per
	// system); next is the next system to start (with refill).
	t0        float64
	y0        []float64
	f0, hAbs0 []float64
	next      int

	// Per slot: the system, and its state.
	n                                 int // slots in use
	sys                               []int
	t, hAbs, h, tNew, tStage, stiffAt []float64
	fresh, rejected, running          []bool
	iasti, nonsti, teI                []int
	// Per value of the slots (slots times dim): h, the state, the stages.
	hv, y, yOld, fv, yNew, tmp []float64
	k                          [7][]float64
	atolv, rtolv               []float64 // the tolerances of the values
}

func newBatch(f IndexedODEFunc, nsys, slots, dim int, t0, tf float64, opts *IVPOptions, refill bool) *batch {
	maxStep := opts.MaxStep
	if maxStep == 0 {
		maxStep = math.Inf(1)
	}
	b := &batch{f: f, nsys: nsys, dim: dim, tol: opts.tolerances(dim), tBound: tf, maxStep: maxStep, opts: opts, refill: refill}
	b.direction = 1
	if tf < t0 {
		b.direction = -1
	}
	nv := slots * dim
	mk := func() []float64 { return make([]float64, nv) }
	b.hv, b.y, b.yOld, b.fv, b.yNew, b.tmp = mk(), mk(), mk(), mk(), mk(), mk()
	for i := range b.k {
		b.k[i] = mk()
	}
	b.atolv, b.rtolv = mk(), mk()
	for j := range b.atolv {
		b.atolv[j], b.rtolv[j] = b.tol.atol[j%dim], b.tol.rtol[j%dim]
	}
	mks := func() []float64 { return make([]float64, slots) }
	b.t, b.hAbs, b.h, b.tNew, b.tStage, b.stiffAt = mks(), mks(), mks(), mks(), mks(), mks()
	b.fresh, b.rejected, b.running = make([]bool, slots), make([]bool, slots), make([]bool, slots)
	b.iasti, b.nonsti, b.teI = make([]int, slots), make([]int, slots), make([]int, slots)
	b.sys = make([]int, slots)
	return b
}

// eval calls f for the slots in use.
func (b *batch) eval(t, y, dy []float64) {
	b.calls++
	n, nv := b.n, b.n*b.dim
	b.f(b.sys[:n], t[:n], y[:nv], dy[:nv])
}

// slotNorm is the RMS norm of slot s's part of x (as rmsNorm).
func (b *batch) slotNorm(x []float64, s int) float64 {
	dim := b.dim
	if dim == 0 {
		return 0
	}
	var sum float64
	for _, e := range x[s*dim : (s+1)*dim] {
		sum += e * e
	}
	return math.Sqrt(sum / float64(dim))
}

// initialSteps computes f at the initial points, into f0, and the initial
// steps, into hAbs0, of the systems, len(b.sys) at a time.
func (b *batch) initialSteps(t0 float64, y0 []float64) {
	dim := b.dim
	atol, rtol := b.tol.atol, b.tol.rtol
	b.f0 = make([]float64, b.nsys*dim)
	b.hAbs0 = make([]float64, b.nsys)
	for lo := 0; lo < b.nsys; lo += len(b.sys) {
		n := min(len(b.sys), b.nsys-lo)
		b.n = n
		for s := 0; s < n; s++ {
			b.sys[s], b.t[s] = lo+s, t0
		}
		nv := n * dim
		copy(b.y[:nv], y0[lo*dim:])
		b.eval(b.t, b.y, b.fv)
		copy(b.f0[lo*dim:], b.fv[:nv])
		if b.opts.FirstStep > 0 {
			for s := 0; s < n; s++ {
				b.hAbs0[lo+s] = b.opts.FirstStep
			}
			continue
		}
		if dim == 0 {
			// selectInitialStep of an empty state.
			for s := 0; s < n; s++ {
				b.hAbs0[lo+s] = math.Inf(1)
			}
			continue
		}
		// As selectInitialStep, for each slot.
		y, fv, tmp, k1 := b.y, b.fv, b.tmp, b.k[1]
		h0, d1s := b.h, b.hAbs // scratch
		for s := 0; s < n; s++ {
			for c := 0; c < dim; c++ {
				i := s*dim + c
				tmp[i] = y[i] / (atol[c] + math.Abs(y[i])*rtol[c])
			}
			d0 := b.slotNorm(tmp, s)
			for c := 0; c < dim; c++ {
				i := s*dim + c
				tmp[i] = fv[i] / (atol[c] + math.Abs(y[i])*rtol[c])
			}
			d1 := b.slotNorm(tmp, s)
			d1s[s] = d1
			h0[s] = 0.01 * d0 / d1
			if d0 < 1e-5 || d1 < 1e-5 {
				h0[s] = 1e-6
			}
			b.tStage[s] = t0 + h0[s]*b.direction
			for c := 0; c < dim; c++ {
				i := s*dim + c
				tmp[i] = y[i] + h0[s]*b.direction*fv[i]
			}
		}
		b.eval(b.tStage, tmp, k1)
		for s := 0; s < n; s++ {
			for c := 0; c < dim; c++ {
				i := s*dim + c
				tmp[i] = (k1[i] - fv[i]) / (atol[c] + math.Abs(y[i])*rtol[c])
			}
			d2 := b.slotNorm(tmp, s) / h0[s]
			b.hAbs0[lo+s] = initialStepEnd(h0[s], d1s[s], d2, 4)
		}
	}
}

// load starts system i in slot s.
func (b *batch) load(s, i int) {
	dim, y0 := b.dim, b.y0
	b.sys[s], b.t[s], b.hAbs[s], b.stiffAt[s] = i, b.t0, b.hAbs0[i], 0
	b.fresh[s], b.rejected[s], b.running[s] = true, false, true
	b.iasti[s], b.nonsti[s], b.teI[s] = 0, 0, 0
	for c := 0; c < dim; c++ {
		b.y[s*dim+c] = y0[i*dim+c]
		b.fv[s*dim+c] = b.f0[i*dim+c]
	}
}

// replace gives slot s, whose system stopped, to the next system not yet
// started, or when there is none to the last slot's system (the slots
// shrink by one), and reports whether it started a system.
func (b *batch) replace(s int) bool {
	if b.next < b.nsys {
		b.load(s, b.next)
		b.next++
		return true
	}
	b.n--
	if s < b.n {
		b.move(b.n, s)
	}
	return false
}

// move puts the system of slot from into slot to, between rounds.
func (b *batch) move(from, to int) {
	dim := b.dim
	b.sys[to], b.t[to], b.hAbs[to], b.stiffAt[to] = b.sys[from], b.t[from], b.hAbs[from], b.stiffAt[from]
	b.fresh[to], b.rejected[to], b.running[to] = b.fresh[from], b.rejected[from], b.running[from]
	b.iasti[to], b.nonsti[to], b.teI[to] = b.iasti[from], b.nonsti[from], b.teI[from]
	for c := 0; c < dim; c++ {
		b.y[to*dim+c] = b.y[from*dim+c]
		b.fv[to*dim+c] = b.fv[from*dim+c]
	}
}

func (b *batch) run(t0 float64, y0 []float64) (*BatchResult, error) {
	ns, dim := b.nsys, b.dim
	res := &BatchResult{TFinal: make([]float64, ns), Steps: make([]int, ns), Rejected: make([]int, ns),
		Status: make([]int, ns), Stiff: make([]bool, ns), Err: make([]error, ns)}
	b.res = res
	te := b.opts.TEval
	if te == nil {
		res.T = []float64{t0, b.tBound}
		res.Y = [][]float64{append([]float64(nil), y0...), make([]float64, ns*dim)}
	} else {
		res.T = append([]float64(nil), te...)
		res.Y = make([][]float64, len(te))
		for k := range res.Y {
			res.Y[k] = make([]float64, ns*dim)
			for i := range res.Y[k] {
				res.Y[k][i] = math.NaN()
			}
		}
	}
	for s := range res.TFinal {
		res.TFinal[s] = t0
	}
	b.t0, b.y0 = t0, y0
	b.initialSteps(t0, y0)
	if t0 == b.tBound {
		// Nothing to integrate: every system is done where it starts.
		if te == nil {
			copy(res.Y[1], y0)
		}
		res.Calls = b.calls
		return res, nil
	}
	b.n = min(len(b.sys), ns)
	for s := 0; s < b.n; s++ {
		b.load(s, s)
	}
	b.next = b.n
	live := b.n // slots whose system is running
	for live > 0 {
		if live -= b.begin(); live > 0 {
			b.stages()
			live -= b.finish(te)
		}
		if !b.refill {
			continue
		}
		// Give the slots of stopped systems to the next systems, or when
		// none is left, to the last slots' systems.
		for s := 0; s < b.n; {
			if b.running[s] {
				s++
			} else if b.replace(s) {
				live++
			}
		}
	}
	var errs []error
	for s := 0; s < ns; s++ {
		if res.Err[s] != nil {
			errs = append(errs, fmt.Errorf("system %d: %w", s, res.Err[s]))
		}
	}
	res.Calls = b.calls
	return res, errors.Join(errs...)
}

// stop ends slot s's system where it is, failed with err unless nil, and
// keeps its final state.
func (b *batch) stop(s int, err error) {
	i, res := b.sys[s], b.res
	b.running[s] = false
	b.h[s], b.tNew[s] = 0, b.t[s]
	res.TFinal[i] = b.t[s]
	if err != nil {
		res.Status[i], res.Err[i] = -1, err
	}
	if b.opts.TEval == nil {
		copy(res.Y[1][i*b.dim:(i+1)*b.dim], b.y[b.dim*s:b.dim*(s+1)])
	}
}

// begin starts an attempted step in every running slot (as rk45.step)
// and expands h over the slots' values. It returns the change in the
// number of running slots: minus those whose system stopped, with too
// small a step; with refill, their slots go at once to other systems
// (replace), which begin their steps too.
func (b *batch) begin() int {
	change := 0
	dim := b.dim
	for s := 0; s < b.n; {
		if !b.running[s] {
			b.h[s], b.tNew[s] = 0, b.t[s]
		} else {
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
			// SolveIVP's evaluations so far: f0 (and Hairer's second
			// for the initial step), six per attempted step. An attempt
			// that would pass MaxFev stops where SolveIVP's does.
			i := b.sys[s]
			init := 2
			if b.opts.FirstStep > 0 {
				init = 1
			}
			nfev := init + 6*(b.res.Steps[i]+b.res.Rejected[i])
			var stopErr error
			if maxFev := b.opts.maxFev(); nfev+6 > maxFev {
				stopErr = fmt.Errorf("%w (%d)", ErrMaxFev, maxFev)
			} else if b.hAbs[s] < minStep {
				stopErr = ErrStepTooSmall
			}
			if stopErr != nil {
				b.stop(s, stopErr)
				change--
				if b.refill {
					if b.replace(s) {
						change++
					}
					continue // slot s again, if it is still in use
				}
			} else {
				h := b.hAbs[s] * b.direction
				tNew := t + h
				if b.direction*(tNew-b.tBound) > 0 {
					tNew = b.tBound
				}
				b.h[s] = tNew - t
				b.hAbs[s] = math.Abs(b.h[s])
				b.tNew[s] = tNew
			}
		}
		hs := b.h[s]
		for c := s * dim; c < (s+1)*dim; c++ {
			b.hv[c] = hs
		}
		s++
	}
	return -change
}

// stages computes the six stages of every slot's attempt, one call of f
// each, and the new state with f there (as rk45.rkStep, the same
// arithmetic).
func (b *batch) stages() {
	nv := b.n * b.dim
	y, yNew, hv := b.y[:nv], b.yNew[:nv], b.hv[:nv]
	k0, k1, k2, k3, k4, k5 := b.k[0][:nv], b.k[1][:nv], b.k[2][:nv], b.k[3][:nv], b.k[4][:nv], b.k[5][:nv]
	copy(k0, b.fv[:nv])
	stage := func(st int) {
		for s := 0; s < b.n; s++ {
			b.tStage[s] = b.t[s] + dpC[st]*b.h[s]
		}
		b.eval(b.tStage, b.yNew, b.k[st])
	}
	a := &dpA
	for i := range yNew {
		var dy float64
		dy += k0[i] * a[1][0]
		yNew[i] = y[i] + dy*hv[i]
	}
	stage(1)
	for i := range yNew {
		var dy float64
		dy += k0[i] * a[2][0]
		dy += k1[i] * a[2][1]
		yNew[i] = y[i] + dy*hv[i]
	}
	stage(2)
	for i := range yNew {
		var dy float64
		dy += k0[i] * a[3][0]
		dy += k1[i] * a[3][1]
		dy += k2[i] * a[3][2]
		yNew[i] = y[i] + dy*hv[i]
	}
	stage(3)
	for i := range yNew {
		var dy float64
		dy += k0[i] * a[4][0]
		dy += k1[i] * a[4][1]
		dy += k2[i] * a[4][2]
		dy += k3[i] * a[4][3]
		yNew[i] = y[i] + dy*hv[i]
	}
	stage(4)
	for i := range yNew {
		var dy float64
		dy += k0[i] * a[5][0]
		dy += k1[i] * a[5][1]
		dy += k2[i] * a[5][2]
		dy += k3[i] * a[5][3]
		dy += k4[i] * a[5][4]
		yNew[i] = y[i] + dy*hv[i]
	}
	stage(5)
	// The last stage's argument (c = 1) is kept in yOld for the stiffness
	// test.
	copy(b.yOld[:nv], yNew)
	bb := &dpB
	for i := range yNew {
		var dy float64
		dy += k0[i] * bb[0]
		dy += k1[i] * bb[1]
		dy += k2[i] * bb[2]
		dy += k3[i] * bb[3]
		dy += k4[i] * bb[4]
		dy += k5[i] * bb[5]
		yNew[i] = y[i] + hv[i]*dy
	}
	b.eval(b.tNew, b.yNew, b.k[6])
}

// finish tests every running slot's attempt (as rk45.step): it accepts
// or rejects it, records the output and stops the systems that are done.
// It returns the number of slots whose system stopped.
func (b *batch) finish(te []float64) int {
	res, dim := b.res, b.dim
	k := &b.k
	stopped := 0
	// The scaled error estimates of all values, as rk45.step's.
	nv := b.n * dim
	y, yNew, hv, tmp := b.y[:nv], b.yNew[:nv], b.hv[:nv], b.tmp[:nv]
	atolv, rtolv := b.atolv[:nv], b.rtolv[:nv]
	k0, k1, k2, k3, k4, k5, k6 := k[0][:nv], k[1][:nv], k[2][:nv], k[3][:nv], k[4][:nv], k[5][:nv], k[6][:nv]
	E := &dpE
	for j := range tmp {
		sc := atolv[j] + max(math.Abs(y[j]), math.Abs(yNew[j]))*rtolv[j]
		var e float64
		e += k0[j] * E[0]
		e += k1[j] * E[1]
		e += k2[j] * E[2]
		e += k3[j] * E[3]
		e += k4[j] * E[4]
		e += k5[j] * E[5]
		e += k6[j] * E[6]
		tmp[j] = e * hv[j] / sc
	}
	for s := 0; s < b.n; s++ {
		if !b.running[s] {
			continue
		}
		i := b.sys[s]
		lo, hi := s*dim, (s+1)*dim
		h := b.h[s]
		errNorm := b.slotNorm(b.tmp, s)
		if !(errNorm < 1) {
			if math.IsNaN(errNorm) {
				b.stop(s, ErrNonFiniteState)
				stopped++
				continue
			}
			b.hAbs[s] *= rejectFactor(errNorm)
			b.rejected[s] = true
			res.Rejected[i]++
			continue
		}
		b.hAbs[s] *= acceptFactor(errNorm, b.rejected[s])
		res.Steps[i]++
		// Hairer's stiffness test.
		var num, den float64
		for j := lo; j < hi; j++ {
			d := k[6][j] - k[5][j]
			num += d * d
		}
		for j := lo; j < hi; j++ {
			d := b.yNew[j] - b.yOld[j]
			den += d * d
		}
		if den > 0 && math.Abs(h)*math.Sqrt(num/den) > stiffBound {
			b.nonsti[s] = 0
			b.iasti[s]++
			if b.iasti[s] == stiffSteps && !res.Stiff[i] {
				res.Stiff[i], b.stiffAt[s] = true, b.tNew[s]
			}
		} else {
			b.nonsti[s]++
			if b.nonsti[s] == 6 {
				b.iasti[s] = 0
			}
		}
		// Accept: y_old is the state before the step, for the dense
		// output.
		for j := lo; j < hi; j++ {
			b.yOld[j] = b.y[j]
			b.y[j] = b.yNew[j]
			b.fv[j] = k[6][j]
		}
		tOld := b.t[s]
		b.t[s] = b.tNew[s]
		b.fresh[s] = true
		for te != nil && b.teI[s] < len(te) && b.direction*(te[b.teI[s]]-b.t[s]) <= 0 {
			out := res.Y[b.teI[s]][i*dim : (i+1)*dim]
			if te[b.teI[s]] == b.t[s] {
				copy(out, b.y[lo:hi])
			} else {
				b.dense(s, tOld, te[b.teI[s]], out)
			}
			b.teI[s]++
		}
		switch {
		case b.t[s] == b.tBound:
			b.stop(s, nil)
			stopped++
		case res.Stiff[i] && !b.opts.IgnoreStiffness:
			b.stop(s, fmt.Errorf("%w (stiffness detected at t = %g)", ErrStiff, b.stiffAt[s]))
			stopped++
		case b.opts.MaxSteps > 0 && res.Steps[i] >= b.opts.MaxSteps:
			b.stop(s, ErrMaxSteps)
			stopped++
		}
	}
	return stopped
}

// dense evaluates slot s's interpolant of its last step (from tOld) at t
// into out.
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
