package integrate

import "math"

// Dormand-Prince 5(4) coefficients, as scipy.integrate.RK45.
var (
	dpC = [6]float64{0, 1. / 5, 3. / 10, 4. / 5, 8. / 9, 1}
	dpA = [6][5]float64{
		{},
		{1. / 5},
		{3. / 40, 9. / 40},
		{44. / 45, -56. / 15, 32. / 9},
		{19372. / 6561, -25360. / 2187, 64448. / 6561, -212. / 729},
		{9017. / 3168, -355. / 33, 46732. / 5247, 49. / 176, -5103. / 18656},
	}
	dpB = [6]float64{35. / 384, 0, 500. / 1113, 125. / 192, -2187. / 6784, 11. / 84}
	dpE = [7]float64{-71. / 57600, 0, 71. / 16695, -71. / 1920, 17253. / 339200, -22. / 525, 1. / 40}
	// dpP gives the free fourth-order interpolant: y(t_old + x h) =
	// y_old + h * sum_k (K^T P)[:, k] x^(k+1).
	dpP = [7][4]float64{
		{1, -8048581381. / 2820520608, 8663915743. / 2820520608, -12715105075. / 11282082432},
		{0, 0, 0, 0},
		{0, 131558114200. / 32700410799, -68118460800. / 10900136933, 87487479700. / 32700410799},
		{0, -1754552775. / 470086768, 14199869525. / 1410260304, -10690763975. / 1880347072},
		{0, 127303824393. / 49829197408, -318862633887. / 49829197408, 701980252875. / 199316789632},
		{0, -282668133. / 205662961, 2019193451. / 616988883, -1453857185. / 822651844},
		{0, 40617522. / 29380423, -110615467. / 29380423, 69997945. / 29380423},
	}
)

const (
	safety    = 0.9
	minFactor = 0.2
	maxFactor = 10
	// Hairer's stiffness test (DOPRI5): a step whose h*|lambda| estimate
	// exceeds stiffBound counts as stiff; stiffSteps of them in a row (with
	// fewer than 6 non-stiff steps between) mean the problem is stiff.
	stiffBound = 3.25
	stiffSteps = 15
)

// vecOps is what a stepper needs of its vectors beyond elementwise
// arithmetic on local slices: the evaluation of the right-hand side and the
// RMS norm over the whole state (a collective reduction for dist arrays).
type vecOps interface {
	// eval writes f(t, y) into dy; y and dy are buffers of the stepper.
	eval(t float64, y, dy []float64) error
	// sumSq returns the sum of squares of x over the whole state.
	sumSq(x []float64) (float64, error)
	// size is the global length of the state.
	size() int
}

// rmsNorm is SciPy's norm: the 2-norm divided by sqrt(size).
func rmsNorm(v vecOps, x []float64) (float64, error) {
	n := v.size()
	if n == 0 {
		return 0, nil
	}
	s, err := v.sumSq(x)
	return math.Sqrt(s / float64(n)), err
}

// tolerances holds rtol and atol per local component.
type tolerances struct{ rtol, atol []float64 }

// selectInitialStep is Hairer's initial step choice as SciPy's
// select_initial_step; tmp, tmp2 are scratch buffers.
func selectInitialStep(v vecOps, t0 float64, y0, f0 []float64, direction float64, order int, tol tolerances, tmp, tmp2 []float64) (float64, error) {
	if v.size() == 0 {
		return math.Inf(1), nil
	}
	for i := range y0 {
		tmp[i] = y0[i] / (tol.atol[i] + math.Abs(y0[i])*tol.rtol[i])
	}
	d0, err := rmsNorm(v, tmp)
	if err != nil {
		return 0, err
	}
	for i := range y0 {
		tmp[i] = f0[i] / (tol.atol[i] + math.Abs(y0[i])*tol.rtol[i])
	}
	d1, err := rmsNorm(v, tmp)
	if err != nil {
		return 0, err
	}
	h0 := 0.01 * d0 / d1
	if d0 < 1e-5 || d1 < 1e-5 {
		h0 = 1e-6
	}
	for i := range y0 {
		tmp[i] = y0[i] + h0*direction*f0[i]
	}
	if err := v.eval(t0+h0*direction, tmp, tmp2); err != nil {
		return 0, err
	}
	for i := range y0 {
		tmp[i] = (tmp2[i] - f0[i]) / (tol.atol[i] + math.Abs(y0[i])*tol.rtol[i])
	}
	d2, err := rmsNorm(v, tmp)
	if err != nil {
		return 0, err
	}
	d2 /= h0
	return initialStepEnd(h0, d1, d2, order), nil
}

// initialStepEnd is the end of Hairer's choice of the first step: from the
// trial step h0, the norms d1 of y' and d2 of the estimated y” (both
// scaled), for a method of the given order.
func initialStepEnd(h0, d1, d2 float64, order int) float64 {
	var h1 float64
	if d1 <= 1e-15 && d2 <= 1e-15 {
		h1 = math.Max(1e-6, h0*1e-3)
	} else {
		h1 = math.Pow(0.01/math.Max(d1, d2), 1/float64(order+1))
	}
	return math.Min(100*h0, h1)
}

// rk45 is the Dormand-Prince 5(4) stepper of scipy.integrate.RK45 on
// local slices, with Hairer's stiffness detection.
type rk45 struct {
	v               vecOps
	n               int
	tol             tolerances
	t, tOld, tBound float64
	direction       float64
	hAbs, hPrev     float64
	maxStep         float64
	y, yOld, f      []float64
	k               [7][]float64
	yNew, tmp       []float64
	// stiffness detection
	iasti, nonsti   int
	stiff           bool
	stiffAt         float64
	steps, rejected int
}

// newRK45 starts the stepper at (t0, y0). next allocates its 12 buffers
// of len(y0) values (nil: plain slices).
func newRK45(v vecOps, t0, tBound float64, y0 []float64, tol tolerances, maxStep, firstStep float64, next func() []float64) (*rk45, error) {
	n := len(y0)
	s := &rk45{v: v, n: n, tol: tol, t: t0, tOld: t0, tBound: tBound, maxStep: maxStep}
	s.direction = 1
	if tBound < t0 {
		s.direction = -1
	}
	if next == nil {
		buf := make([]float64, 12*n)
		next = func() []float64 { b := buf[:n:n]; buf = buf[n:]; return b }
	}
	s.y, s.yOld, s.f = next(), next(), next()
	for i := range s.k {
		s.k[i] = next()
	}
	s.yNew, s.tmp = next(), next()
	copy(s.y, y0)
	if err := v.eval(t0, s.y, s.f); err != nil {
		return nil, err
	}
	if firstStep > 0 {
		s.hAbs = firstStep
	} else {
		h, err := selectInitialStep(v, t0, s.y, s.f, s.direction, 4, tol, s.k[0], s.k[1])
		if err != nil {
			return nil, err
		}
		s.hAbs = h
	}
	return s, nil
}

// step takes one accepted step, as RK45._step_impl.
func (s *rk45) step() error {
	t := s.t
	minStep := 10 * math.Abs(math.Nextafter(t, s.direction*math.Inf(1))-t)
	hAbs := s.hAbs
	if hAbs > s.maxStep {
		hAbs = s.maxStep
	} else if hAbs < minStep {
		hAbs = minStep
	}
	rejected := false
	var h, tNew, errNorm float64
	for {
		if hAbs < minStep {
			return ErrStepTooSmall
		}
		h = hAbs * s.direction
		tNew = t + h
		if s.direction*(tNew-s.tBound) > 0 {
			tNew = s.tBound
		}
		h = tNew - t
		hAbs = math.Abs(h)
		if err := s.rkStep(t, h); err != nil {
			return err
		}
		for i := range s.tmp {
			sc := s.tol.atol[i] + math.Max(math.Abs(s.y[i]), math.Abs(s.yNew[i]))*s.tol.rtol[i]
			var e float64
			for j := range dpE {
				e += s.k[j][i] * dpE[j]
			}
			s.tmp[i] = e * h / sc
		}
		var err error
		if errNorm, err = rmsNorm(s.v, s.tmp); err != nil {
			return err
		}
		if errNorm < 1 {
			hAbs *= acceptFactor(errNorm, rejected)
			break
		}
		if math.IsNaN(errNorm) {
			return ErrNonFiniteState
		}
		hAbs *= rejectFactor(errNorm)
		rejected = true
		s.rejected++
	}
	s.steps++
	if err := s.detectStiffness(h, tNew); err != nil {
		return err
	}
	s.hPrev = h
	copy(s.yOld, s.y)
	copy(s.y, s.yNew)
	copy(s.f, s.k[6])
	s.tOld, s.t = t, tNew
	s.hAbs = hAbs
	return nil
}

// rkStep computes the stages of a step of size h from (t, y) into k and
// yNew; ystage keeps the last stage's argument (at t + h) for the
// stiffness test.
func (s *rk45) rkStep(t, h float64) error {
	copy(s.k[0], s.f)
	for st := 1; st < 6; st++ {
		a := &dpA[st]
		for i := range s.yNew {
			var dy float64
			for j := 0; j < st; j++ {
				dy += s.k[j][i] * a[j]
			}
			s.yNew[i] = s.y[i] + dy*h
		}
		if err := s.v.eval(t+dpC[st]*h, s.yNew, s.k[st]); err != nil {
			return err
		}
	}
	// The last stage's argument (c = 1) is kept in yOld, which is free
	// until the step is accepted.
	copy(s.yOld, s.yNew)
	for i := range s.yNew {
		var dy float64
		for j := range dpB {
			dy += s.k[j][i] * dpB[j]
		}
		s.yNew[i] = s.y[i] + h*dy
	}
	return s.v.eval(t+h, s.yNew, s.k[6])
}

// detectStiffness is DOPRI5's test: h*|lambda| is estimated by
// h*|k7 - k6| / |y_new - y_stage6|, both stages at t + h.
func (s *rk45) detectStiffness(h, tNew float64) error {
	for i := range s.tmp {
		s.tmp[i] = s.k[6][i] - s.k[5][i]
	}
	num, err := s.v.sumSq(s.tmp)
	if err != nil {
		return err
	}
	for i := range s.tmp {
		s.tmp[i] = s.yNew[i] - s.yOld[i]
	}
	den, err := s.v.sumSq(s.tmp)
	if err != nil {
		return err
	}
	if den > 0 && math.Abs(h)*math.Sqrt(num/den) > stiffBound {
		s.nonsti = 0
		s.iasti++
		if s.iasti == stiffSteps && !s.stiff {
			s.stiff, s.stiffAt = true, tNew
		}
	} else {
		s.nonsti++
		if s.nonsti == 6 {
			s.iasti = 0
		}
	}
	return nil
}

// dense evaluates the step's interpolant at t into out.
func (s *rk45) dense(t float64, out []float64) {
	h := s.t - s.tOld
	x := (t - s.tOld) / h
	var p [4]float64
	p[0] = x
	for k := 1; k < 4; k++ {
		p[k] = p[k-1] * x
	}
	for i := range out {
		var q float64
		for k := 0; k < 4; k++ {
			var qk float64
			for j := 0; j < 7; j++ {
				qk += s.k[j][i] * dpP[j][k]
			}
			q += qk * p[k]
		}
		out[i] = s.yOld[i] + h*q
	}
}
