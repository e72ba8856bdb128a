package integrate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Func is the right-hand side of dy/dt = f(t, y): it writes f(t, y) into
// dydt. y and dydt must not be kept after the call.
type Func func(t float64, y, dydt []float64)

// JacFunc writes the Jacobian of f at (t, y) into jac, row-major n×n:
// jac[i*n+j] = ∂f_i/∂y_j.
type JacFunc func(t float64, y, jac []float64)

// Method chooses the integration method of SolveIVP.
type Method int

const (
	// Auto starts with RK45, switches to Radau when RK45's stiffness test
	// fires and back to RK45 when Radau's steps fall within RK45's
	// stability bound, as LSODA switches between Adams and BDF.
	Auto Method = iota
	// RK45 is the explicit Dormand-Prince 5(4) pair with its free
	// fourth-order interpolant (SciPy's RK45). On a stiff problem it stops
	// with ErrStiff (see IVPOptions.IgnoreStiffness).
	RK45
	// Radau is the implicit Radau IIA method of order 5 (SciPy's Radau),
	// for stiff problems.
	Radau
)

// String returns the method's name.
func (m Method) String() string {
	switch m {
	case Auto:
		return "Auto"
	case RK45:
		return "RK45"
	case Radau:
		return "Radau"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ODE sentinels; the Err of an IVPResult wraps one of them.
var (
	// ErrStepTooSmall: the step size fell below ten times the spacing of
	// floating-point numbers at t (SciPy's "Required step size is less than
	// spacing between numbers.").
	ErrStepTooSmall = errors.New("integrate: required step size is less than spacing between numbers")
	// ErrStiff: the explicit method detected that the problem is stiff and
	// stopped (DOPRI5's idid = -4); use Radau or Auto.
	ErrStiff = errors.New("integrate: the problem is stiff: the explicit method is unsuitable")
	// ErrMaxSteps: IVPOptions.MaxSteps accepted steps were taken.
	ErrMaxSteps = errors.New("integrate: the maximum number of steps was reached")
	// ErrNonFiniteState: the error estimate became NaN (the right-hand side
	// returned NaN or the solution overflowed).
	ErrNonFiniteState = errors.New("integrate: the solution or its derivative is not finite")
	// ErrMaxFev: IVPOptions.MaxFev evaluations of the right-hand side were
	// made (accepted and rejected steps, Jacobian differences included).
	ErrMaxFev = errors.New("integrate: the maximum number of right-hand side evaluations was reached")
)

// DefaultMaxFev is the evaluation budget of SolveIVP, SolveIVPDist and
// each system of SolveIVPBatch's general path when IVPOptions.MaxFev is 0:
// it bounds the work of any integration (a second or so of a cheap scalar
// right-hand side), whatever its steps and rejections; a long integration
// raises it.
const DefaultMaxFev = 10_000_000

// Event is a function of the solution whose zeros SolveIVP locates, as
// solve_ivp's events.
type Event struct {
	// F is the event function; an event is a zero of F(t, y(t)).
	F func(t float64, y []float64) float64
	// Terminal stops the integration at the first such zero.
	Terminal bool
	// Direction: 0 records every zero; +1 only those where F goes from
	// negative to positive; -1 from positive to negative.
	Direction int
}

// IVPOptions are the options of SolveIVP; the zero value (or nil) means
// SciPy's defaults: Auto method, RelTol 1e-3, AbsTol 1e-6.
type IVPOptions struct {
	Method Method
	// RelTol and AbsTol are the tolerances of every component: the local
	// error estimate of component i is kept below AbsTol + RelTol*|y_i|.
	// RelTols and AbsTols, when given, have one value per component and
	// override them.
	RelTol, AbsTol   float64
	RelTols, AbsTols []float64
	// MaxStep bounds the step size (default +Inf); FirstStep is the first
	// step size (default: Hairer's choice).
	MaxStep, FirstStep float64
	// TEval: the output times (sorted in the direction of integration,
	// within the interval). Without them, the solution is returned at every
	// step.
	TEval []float64
	// Events are located on the dense output of every step.
	Events []Event
	// Jac is the Jacobian of f for Radau; without it, Radau uses forward
	// differences. jac is filled with NaN before each call: an element
	// that Jac does not write, like one that is not finite, stops the
	// integration with ErrNonFiniteState.
	Jac JacFunc
	// MaxSteps stops the integration with ErrMaxSteps after that many
	// accepted steps (0: no limit).
	MaxSteps int
	// MaxFev stops the integration with ErrMaxFev when that many
	// evaluations of f were made, in accepted and rejected steps, initial
	// step selection and difference Jacobians alike (SciPy's solve_ivp has
	// none); 0 means DefaultMaxFev. The batches stop each system where
	// SolveIVP stops it; SolveIVPBatchArray and SolveIVPBatchDist do
	// not count evaluations (their rejected steps are bounded by the
	// step-size floor, a NaN stops a system at once).
	MaxFev int
	// IgnoreStiffness lets RK45 go on after its stiffness test fires (the
	// result still reports it).
	IgnoreStiffness bool
	// Dense keeps every step's interpolant: the result's Sol evaluates the
	// solution anywhere in the interval (solve_ivp's dense_output=True).
	Dense bool
}

// IVPResult is the solution of SolveIVP (solve_ivp's OdeResult). Y[k] is
// the state at T[k]: SciPy's y transposed.
type IVPResult struct {
	T []float64
	Y [][]float64
	// TEvents[i] are the times of event i, YEvents[i] the states there.
	TEvents [][]float64
	YEvents [][][]float64
	// NFev, NJev and NLU count right-hand side evaluations (Jacobian
	// differences included), Jacobian evaluations and LU factorizations
	// (a real and a complex one per Radau factorization).
	NFev, NJev, NLU int
	// Steps and Rejected count accepted and rejected steps of all methods.
	Steps, Rejected int
	// Status is 0 when the end of the interval was reached, 1 when a
	// terminal event stopped the integration, -1 on failure (Err says why).
	Status int
	// Stiff reports that RK45's stiffness test fired, first at StiffAt.
	Stiff   bool
	StiffAt float64
	// Switches are Auto's changes of method, in order.
	Switches []Switch
	// Sol is the continuous solution when IVPOptions.Dense was set.
	Sol *DenseSolution
	// Method is the method that finished the integration.
	Method Method
	// Err is nil unless Status is -1.
	Err error

	tEnd float64 // where the integration stopped
}

// Switch is a change of method by Auto: from time T on, method To
// integrates.
type Switch struct {
	T  float64
	To Method
}

// serialVec is vecOps on a plain slice.
type serialVec struct {
	f      Func
	n      int
	nfev   int
	maxFev int
}

func (v *serialVec) eval(t float64, y, dy []float64) error {
	if v.nfev >= v.maxFev {
		return fmt.Errorf("%w (%d)", ErrMaxFev, v.maxFev)
	}
	v.nfev++
	v.f(t, y, dy)
	return nil
}

// maxFev is the evaluation budget of opts.
func (o *IVPOptions) maxFev() int {
	if o.MaxFev < 0 {
		panic(fmt.Sprintf("integrate: MaxFev %d", o.MaxFev))
	}
	if o.MaxFev == 0 {
		return DefaultMaxFev
	}
	return o.MaxFev
}

func (v *serialVec) sumSq(x []float64) (float64, error) {
	var s float64
	for _, e := range x {
		s += e * e
	}
	return s, nil
}

func (v *serialVec) size() int { return v.n }

// stepper is what the driver needs of a method.
type stepper interface {
	step() error
	dense(t float64, out []float64)
	state() (t, tOld float64, y []float64)
}

func (s *rk45) state() (float64, float64, []float64)  { return s.t, s.tOld, s.y }
func (s *radau) state() (float64, float64, []float64) { return s.t, s.tOld, s.y }

func (o *IVPOptions) tolerances(n int) tolerances {
	rtol, atol := 1e-3, 1e-6
	var rtols, atols []float64
	if o != nil {
		if o.RelTol != 0 {
			rtol = o.RelTol
		}
		if o.AbsTol != 0 {
			atol = o.AbsTol
		}
		rtols, atols = o.RelTols, o.AbsTols
	}
	tol := tolerances{rtol: make([]float64, n), atol: make([]float64, n)}
	if rtols != nil && len(rtols) != n || atols != nil && len(atols) != n {
		panic(fmt.Sprintf("integrate: %d relative and %d absolute tolerances for %d components", len(rtols), len(atols), n))
	}
	for i := 0; i < n; i++ {
		tol.rtol[i], tol.atol[i] = rtol, atol
		if rtols != nil {
			tol.rtol[i] = rtols[i]
		}
		if atols != nil {
			tol.atol[i] = atols[i]
		}
		if tol.atol[i] < 0 || !(tol.rtol[i] >= 0) {
			panic(fmt.Sprintf("integrate: tolerances rtol %g atol %g of component %d", tol.rtol[i], tol.atol[i], i))
		}
		// SciPy raises rtol to 100*eps.
		tol.rtol[i] = math.Max(tol.rtol[i], 100*eps)
	}
	return tol
}

// SolveIVP integrates dy/dt = f(t, y) from t0 to tf, starting at y0, as
// scipy.integrate.solve_ivp does (the name is SciPy's modern interface:
// an interval, a method, tolerances, t_eval, events and a result with
// status and counters; odeint's LSODA behavior is Method Auto).
//
// The methods are SciPy's RK45 and Radau, with SciPy's step-size control;
// Auto (the default) starts with RK45 and switches to Radau when Hairer's
// stiffness test says so. A failure (step size too small, a stiff problem
// for RK45, MaxSteps) returns the solution up to where it stopped, Status
// -1, and the error (also in Err).
//
// Bad arguments panic: tf or t0 not finite, tolerance lengths, TEval out of
// the interval or unsorted, an unknown method.
func SolveIVP(f Func, t0, tf float64, y0 []float64, opts *IVPOptions) (*IVPResult, error) {
	if opts == nil {
		opts = &IVPOptions{}
	}
	if !isFinite(t0) || !isFinite(tf) {
		panic(fmt.Sprintf("integrate: SolveIVP from %g to %g", t0, tf))
	}
	n := len(y0)
	tol := opts.tolerances(n)
	checkTEval(opts.TEval, t0, tf)
	maxStep := opts.MaxStep
	if maxStep == 0 {
		maxStep = math.Inf(1)
	}
	if maxStep < 0 || opts.FirstStep < 0 || opts.MaxSteps < 0 {
		panic(fmt.Sprintf("integrate: MaxStep %g, FirstStep %g, MaxSteps %d", opts.MaxStep, opts.FirstStep, opts.MaxSteps))
	}
	v := &serialVec{f: f, n: n, maxFev: opts.maxFev()}
	res := &IVPResult{Method: opts.Method, StiffAt: math.NaN()}
	var st stepper
	var err error
	switch opts.Method {
	case Auto, RK45:
		var s *rk45
		s, err = newRK45(v, t0, tf, y0, tol, maxStep, opts.FirstStep, nil)
		st = s
		res.Method = RK45
	case Radau:
		st, err = newRadau(v, f, opts.Jac, t0, tf, y0, tol, maxStep, opts.FirstStep)
	default:
		panic(fmt.Sprintf("integrate: unknown method %v", opts.Method))
	}
	if err != nil {
		// It stopped where it started: the output is the initial point,
		// as when the first step fails.
		res.Status, res.Err, res.tEnd, res.NFev = -1, err, t0, v.nfev
		if opts.TEval == nil {
			res.T, res.Y = []float64{t0}, [][]float64{slices.Clone(y0)}
		}
		return res, err
	}
	d := newDriver(opts, t0, tf, y0)
	for {
		t, _, _ := st.state()
		if t == tf {
			break
		}
		if opts.MaxSteps > 0 && res.Steps >= opts.MaxSteps {
			err = ErrMaxSteps
			break
		}
		if err = st.step(); err != nil {
			break
		}
		res.Steps++
		if opts.Dense {
			if res.Sol == nil {
				res.Sol = &DenseSolution{}
			}
			res.Sol.add(st)
		}
		if rk, ok := st.(*rk45); ok && rk.stiff && !res.Stiff {
			res.Stiff, res.StiffAt = true, rk.stiffAt
		}
		if stop := d.afterStep(st, res); stop {
			break
		}
		switch s := st.(type) {
		case *rk45:
			if !s.stiff || s.t == tf {
				break
			}
			if opts.Method == Auto {
				t, _, y := st.state()
				var r *radau
				r, err = newRadau(v, f, opts.Jac, t, tf, y, tol, maxStep, s.hAbs)
				if err != nil {
					break
				}
				addCounts(res, st)
				st = r
				res.Method = Radau
				res.Switches = append(res.Switches, Switch{t, Radau})
			} else if !opts.IgnoreStiffness {
				err = fmt.Errorf("%w (stiffness detected at t = %g)", ErrStiff, s.stiffAt)
			}
		case *radau:
			if opts.Method != Auto || !s.nonStiff() {
				break
			}
			t, _, y := st.state()
			var r *rk45
			r, err = newRK45(v, t, tf, y, tol, maxStep, s.hAbs, nil)
			if err != nil {
				break
			}
			addCounts(res, st)
			st = r
			res.Method = RK45
			res.Switches = append(res.Switches, Switch{t, RK45})
		}
		if err != nil {
			break
		}
	}
	addCounts(res, st)
	res.tEnd, _, _ = st.state()
	if d.status == 1 {
		res.tEnd = d.tStop
	}
	res.NFev = v.nfev
	res.T, res.Y = d.ts, d.ys
	res.TEvents, res.YEvents = d.tev, d.yev
	if err != nil {
		res.Status, res.Err = -1, err
		return res, err
	}
	res.Status = d.status
	return res, nil
}

// addCounts adds a stepper's counters to the result.
func addCounts(res *IVPResult, st stepper) {
	switch s := st.(type) {
	case *rk45:
		res.Rejected += s.rejected
	case *radau:
		res.Rejected += s.rejected
		res.NJev += s.njev
		res.NLU += s.nlu
	}
}

func checkTEval(te []float64, t0, tf float64) {
	lo, hi := math.Min(t0, tf), math.Max(t0, tf)
	for i, t := range te {
		if !(t >= lo && t <= hi) {
			panic(fmt.Sprintf("integrate: TEval[%d] = %g is outside [%g, %g]", i, t, lo, hi))
		}
		if i > 0 && (tf >= t0 && t < te[i-1] || tf < t0 && t > te[i-1]) {
			panic("integrate: TEval is not sorted in the direction of integration")
		}
	}
}

// driver collects output and handles events after each step, as the loop
// of solve_ivp.
type driver struct {
	opts      *IVPOptions
	tf        float64
	direction float64
	tEvalI    int
	ts        []float64
	ys        [][]float64
	g         []float64
	tev       [][]float64
	yev       [][][]float64
	status    int
	tStop     float64
	buf       []float64
}

func newDriver(opts *IVPOptions, t0, tf float64, y0 []float64) *driver {
	d := &driver{opts: opts, tf: tf, direction: 1}
	if tf < t0 {
		d.direction = -1
	}
	if opts.TEval == nil {
		d.ts = append(d.ts, t0)
		d.ys = append(d.ys, slices.Clone(y0))
	}
	if len(opts.Events) > 0 {
		d.g = make([]float64, len(opts.Events))
		for i, e := range opts.Events {
			d.g[i] = e.F(t0, y0)
		}
		d.tev = make([][]float64, len(opts.Events))
		d.yev = make([][][]float64, len(opts.Events))
	}
	d.buf = make([]float64, len(y0))
	return d
}

// afterStep records events and output of the step just taken; it reports
// whether a terminal event stopped the integration.
func (d *driver) afterStep(st stepper, res *IVPResult) bool {
	t, tOld, y := st.state()
	tEnd := t
	yEnd := y
	terminate := false
	if len(d.opts.Events) > 0 {
		gNew := make([]float64, len(d.g))
		for i, e := range d.opts.Events {
			gNew[i] = e.F(t, y)
		}
		type root struct {
			t float64
			i int
		}
		var roots []root
		for i, e := range d.opts.Events {
			g0, g1 := d.g[i], gNew[i]
			up := g0 <= 0 && g1 >= 0
			down := g0 >= 0 && g1 <= 0
			if e.Direction > 0 && up || e.Direction < 0 && down || e.Direction == 0 && (up || down) {
				rt := brentq(func(s float64) float64 {
					st.dense(s, d.buf)
					return e.F(s, d.buf)
				}, tOld, t, g0, g1, 4*eps, 4*eps)
				roots = append(roots, root{rt, i})
			}
		}
		sort.SliceStable(roots, func(a, b int) bool { return d.direction*roots[a].t < d.direction*roots[b].t })
		for _, r := range roots {
			yr := make([]float64, len(y))
			st.dense(r.t, yr)
			d.tev[r.i] = append(d.tev[r.i], r.t)
			d.yev[r.i] = append(d.yev[r.i], yr)
			if d.opts.Events[r.i].Terminal {
				terminate = true
				tEnd, yEnd = r.t, yr
				d.status, d.tStop = 1, r.t
				break
			}
		}
		d.g = gNew
	}
	if d.opts.TEval == nil {
		d.ts = append(d.ts, tEnd)
		d.ys = append(d.ys, slices.Clone(yEnd))
	} else {
		te := d.opts.TEval
		for d.tEvalI < len(te) && d.direction*(te[d.tEvalI]-tEnd) <= 0 {
			out := make([]float64, len(y))
			if te[d.tEvalI] == t {
				copy(out, y)
			} else {
				st.dense(te[d.tEvalI], out)
			}
			d.ts = append(d.ts, te[d.tEvalI])
			d.ys = append(d.ys, out)
			d.tEvalI++
		}
	}
	return terminate
}

// brentq finds a zero of f in [a, b] where f(a) = fa and f(b) = fb have
// opposite signs (or one is zero), as SciPy's brentq.
func brentq(f func(float64) float64, xa, xb, fa, fb, xtol, rtol float64) float64 {
	xpre, xcur := xa, xb
	fpre, fcur := fa, fb
	var xblk, fblk, spre, scur float64
	if fpre == 0 {
		return xpre
	}
	if fcur == 0 {
		return xcur
	}
	for i := 0; i < 100; i++ {
		if fpre != 0 && fcur != 0 && math.Signbit(fpre) != math.Signbit(fcur) {
			xblk, fblk = xpre, fpre
			spre = xcur - xpre
			scur = spre
		}
		if math.Abs(fblk) < math.Abs(fcur) {
			xpre, xcur, xblk = xcur, xblk, xcur
			fpre, fcur, fblk = fcur, fblk, fcur
		}
		delta := (xtol + rtol*math.Abs(xcur)) / 2
		sbis := (xblk - xcur) / 2
		if fcur == 0 || math.Abs(sbis) < delta {
			return xcur
		}
		if math.Abs(spre) > delta && math.Abs(fcur) < math.Abs(fpre) {
			var stry float64
			if xpre == xblk {
				stry = -fcur * (xcur - xpre) / (fcur - fpre)
			} else {
				dpre := (fpre - fcur) / (xpre - xcur)
				dblk := (fblk - fcur) / (xblk - xcur)
				stry = -fcur * (fblk*dblk - fpre*dpre) / (dblk * dpre * (fblk - fpre))
			}
			if 2*math.Abs(stry) < math.Min(math.Abs(spre), 3*math.Abs(sbis)-delta) {
				spre, scur = scur, stry
			} else {
				spre, scur = sbis, sbis
			}
		} else {
			spre, scur = sbis, sbis
		}
		xpre, fpre = xcur, fcur
		if math.Abs(scur) > delta {
			xcur += scur
		} else if sbis > 0 {
			xcur += delta
		} else {
			xcur -= delta
		}
		fcur = f(xcur)
	}
	return xcur
}
