package integrate

import "math"

// Radau IIA order 5 constants, as scipy.integrate.Radau.
var (
	s6      = math.Sqrt(6)
	radauC  = [3]float64{(4 - s6) / 10, (4 + s6) / 10, 1}
	radauE  = [3]float64{(-13 - 7*s6) / 3, (-13 + 7*s6) / 3, -1. / 3}
	muReal  = 3 + math.Pow(3, 2./3) - math.Pow(3, 1./3)
	muCmplx = complex(3+0.5*(math.Pow(3, 1./3)-math.Pow(3, 2./3)), -0.5*(math.Pow(3, 5./6)+math.Pow(3, 7./6)))
	radauT  = [3][3]float64{
		{0.09443876248897524, -0.14125529502095421, 0.03002919410514742},
		{0.25021312296533332, 0.20412935229379994, -0.38294211275726192},
		{1, 1, 0},
	}
	radauTI = [3][3]float64{
		{4.17871859155190428, 0.32768282076106237, 0.52337644549944951},
		{-4.17871859155190428, -0.32768282076106237, 0.47662355450055044},
		{0.50287263494578682, -2.57192694985560522, 0.59603920482822492},
	}
	radauP = [3][3]float64{
		{13./3 + 7*s6/3, -23./3 - 22*s6/3, 10./3 + 5*s6},
		{13./3 - 7*s6/3, -23./3 + 22*s6/3, 10./3 - 5*s6},
		{1. / 3, -8. / 3, 10. / 3},
	}
)

const newtonMaxIter = 6

// radau is the implicit Radau IIA (order 5) stepper of
// scipy.integrate.Radau, with dense matrices: a simplified Newton iteration
// on the collocation system, split by the eigendecomposition of the
// method's matrix into one real and one complex linear system per
// iteration, the Jacobian reused across steps while the iteration converges
// fast, and a third-order embedded error estimate.
type radau struct {
	v               vecOps
	fun             Func
	jac             JacFunc
	n               int
	tol             tolerances
	t, tOld, tBound float64
	direction       float64
	hAbs, maxStep   float64
	hAbsOld         float64 // NaN: none
	errNormOld      float64 // NaN: none
	newtonTol       float64
	y, yOld, f      []float64
	J               []float64
	luR             luReal
	luC             luComplex
	aR              []float64
	aC              []complex128
	haveLU          bool
	currentJac      bool
	Z, Zt, W, F, dW [3][]float64
	hasSol          bool
	solH            float64
	Q               [3][]float64
	tmp, tmp2, yNew []float64
	rhsR            []float64
	rhsC            []complex128
	njev, nlu       int
	steps, rejected int
	// normJ is the infinity norm of J, a bound on its spectral radius;
	// calm counts the steps in a row with h*normJ within RK45's stability
	// bound (Auto switches back to RK45 after stiffSteps of them).
	normJ float64
	calm  int
}

// nonStiff reports whether the last stiffSteps steps were within RK45's
// stability bound.
func (s *radau) nonStiff() bool { return s.calm >= stiffSteps }

func newRadau(v vecOps, fun Func, jac JacFunc, t0, tBound float64, y0 []float64, tol tolerances, maxStep, firstStep float64) (*radau, error) {
	n := len(y0)
	s := &radau{v: v, fun: fun, jac: jac, n: n, tol: tol, t: t0, tOld: t0, tBound: tBound, maxStep: maxStep}
	s.direction = 1
	if tBound < t0 {
		s.direction = -1
	}
	mk := func() []float64 { return make([]float64, n) }
	s.y, s.yOld, s.f, s.tmp, s.tmp2, s.yNew, s.rhsR = mk(), mk(), mk(), mk(), mk(), mk(), mk()
	for i := 0; i < 3; i++ {
		s.Z[i], s.Zt[i], s.W[i], s.F[i], s.dW[i], s.Q[i] = mk(), mk(), mk(), mk(), mk(), mk()
	}
	s.rhsC = make([]complex128, n)
	s.J = make([]float64, n*n)
	s.aR = make([]float64, n*n)
	s.aC = make([]complex128, n*n)
	copy(s.y, y0)
	if err := v.eval(t0, s.y, s.f); err != nil {
		return nil, err
	}
	// A state or derivative that is not finite would make every step
	// size NaN, which no test of the step loop refuses.
	for i := range s.y {
		if !isFinite(s.y[i]) || !isFinite(s.f[i]) {
			return nil, ErrNonFiniteState
		}
	}
	if firstStep > 0 {
		s.hAbs = firstStep
	} else {
		h, err := selectInitialStep(v, t0, s.y, s.f, s.direction, 3, tol, s.tmp, s.tmp2)
		if err != nil {
			return nil, err
		}
		s.hAbs = h
	}
	s.hAbsOld, s.errNormOld = math.NaN(), math.NaN()
	rtol := math.Inf(1)
	for _, r := range tol.rtol {
		rtol = math.Min(rtol, r)
	}
	if n == 0 {
		rtol = 1e-3
	}
	s.newtonTol = math.Max(10*eps/rtol, math.Min(0.03, math.Sqrt(rtol)))
	if err := s.jacobian(t0, s.y, s.f); err != nil {
		return nil, err
	}
	s.currentJac = true
	return s, nil
}

const eps = 0x1p-52

// jacobian computes J at (t, y) where f = f(t, y): the given function, or
// forward differences with steps as SciPy's num_jac first tries them.
func (s *radau) jacobian(t float64, y, f []float64) error {
	s.njev++
	defer s.updateNormJ()
	if s.jac != nil {
		// NaN first: an element that Jac does not write stops the
		// integration instead of a stale or zero Jacobian's use.
		for i := range s.J {
			s.J[i] = math.NaN()
		}
		s.jac(t, y, s.J)
		return s.finiteJ()
	}
	n := s.n
	yp, fp := s.tmp, s.tmp2
	copy(yp, y)
	for j := 0; j < n; j++ {
		sign := 1.0
		if f[j] < 0 {
			sign = -1
		}
		yScale := sign * math.Max(s.tol.atol[j], math.Abs(y[j]))
		factor := math.Sqrt(eps)
		h := (y[j] + factor*yScale) - y[j]
		for h == 0 {
			factor *= 10
			h = (y[j] + factor*yScale) - y[j]
		}
		yp[j] = y[j] + h
		if err := s.v.eval(t, yp, fp); err != nil {
			return err
		}
		yp[j] = y[j]
		for i := 0; i < n; i++ {
			s.J[i*n+j] = (fp[i] - f[i]) / h
		}
	}
	return s.finiteJ()
}

// finiteJ is ErrNonFiniteState where an element of J is not finite.
func (s *radau) finiteJ() error {
	for _, v := range s.J {
		if !isFinite(v) {
			return ErrNonFiniteState
		}
	}
	return nil
}

func (s *radau) updateNormJ() {
	n := s.n
	s.normJ = 0
	for i := 0; i < n; i++ {
		var r float64
		for _, v := range s.J[i*n : (i+1)*n] {
			r += math.Abs(v)
		}
		s.normJ = math.Max(s.normJ, r)
	}
	if math.IsNaN(s.normJ) {
		s.normJ = math.Inf(1)
	}
}

func (s *radau) factorize(h float64) {
	n := s.n
	mr := muReal / h
	mc := muCmplx / complex(h, 0)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -s.J[i*n+j]
			s.aR[i*n+j] = v
			s.aC[i*n+j] = complex(v, 0)
		}
		s.aR[i*n+i] += mr
		s.aC[i*n+i] += mc
	}
	s.luR.factor(n, s.aR)
	s.luC.factor(n, s.aC)
	s.nlu += 2
	s.haveLU = true
}

// collocation solves the collocation system by the simplified Newton
// iteration (SciPy's solve_collocation_system). Z holds the initial guess
// and receives the solution.
func (s *radau) collocation(t float64, h float64, scale []float64) (converged bool, nIter int, rate float64, err error) {
	n := s.n
	mr := muReal / h
	mc := muCmplx / complex(h, 0)
	for i := 0; i < 3; i++ {
		for c := 0; c < n; c++ {
			s.W[i][c] = radauTI[i][0]*s.Z[0][c] + radauTI[i][1]*s.Z[1][c] + radauTI[i][2]*s.Z[2][c]
		}
	}
	dWNormOld := math.NaN()
	rate = math.NaN()
	var k int
	for k = 0; k < newtonMaxIter; k++ {
		for i := 0; i < 3; i++ {
			for c := 0; c < n; c++ {
				s.tmp[c] = s.y[c] + s.Z[i][c]
			}
			if err := s.v.eval(t+h*radauC[i], s.tmp, s.F[i]); err != nil {
				return false, k + 1, rate, err
			}
		}
		finite := true
		for i := 0; i < 3 && finite; i++ {
			for _, v := range s.F[i] {
				if !isFinite(v) {
					finite = false
					break
				}
			}
		}
		if !finite {
			break
		}
		for c := 0; c < n; c++ {
			fr := s.F[0][c]*radauTI[0][0] + s.F[1][c]*radauTI[0][1] + s.F[2][c]*radauTI[0][2]
			s.rhsR[c] = fr - mr*s.W[0][c]
			fc := complex(s.F[0][c]*radauTI[1][0]+s.F[1][c]*radauTI[1][1]+s.F[2][c]*radauTI[1][2],
				s.F[0][c]*radauTI[2][0]+s.F[1][c]*radauTI[2][1]+s.F[2][c]*radauTI[2][2])
			s.rhsC[c] = fc - mc*complex(s.W[1][c], s.W[2][c])
		}
		s.luR.solve(s.rhsR)
		s.luC.solve(s.rhsC)
		var sum float64
		for c := 0; c < n; c++ {
			s.dW[0][c] = s.rhsR[c]
			s.dW[1][c] = real(s.rhsC[c])
			s.dW[2][c] = imag(s.rhsC[c])
			for i := 0; i < 3; i++ {
				q := s.dW[i][c] / scale[c]
				sum += q * q
			}
		}
		// The norm of the 3×n array; for n = 0 it is 0.
		dWNorm := 0.0
		if n > 0 {
			dWNorm = math.Sqrt(sum / float64(3*n))
		}
		if !math.IsNaN(dWNormOld) {
			rate = dWNorm / dWNormOld
		}
		if !math.IsNaN(rate) && (rate >= 1 || math.Pow(rate, float64(newtonMaxIter-k))/(1-rate)*dWNorm > s.newtonTol) {
			break
		}
		for i := 0; i < 3; i++ {
			for c := 0; c < n; c++ {
				s.W[i][c] += s.dW[i][c]
			}
		}
		for i := 0; i < 3; i++ {
			for c := 0; c < n; c++ {
				s.Z[i][c] = radauT[i][0]*s.W[0][c] + radauT[i][1]*s.W[1][c] + radauT[i][2]*s.W[2][c]
			}
		}
		if dWNorm == 0 || (!math.IsNaN(rate) && rate/(1-rate)*dWNorm < s.newtonTol) {
			converged = true
			break
		}
		dWNormOld = dWNorm
	}
	if k == newtonMaxIter {
		k--
	}
	return converged, k + 1, rate, nil
}

func predictFactor(hAbs, hAbsOld, errNorm, errNormOld float64) float64 {
	multiplier := 1.0
	if !math.IsNaN(errNormOld) && !math.IsNaN(hAbsOld) && errNorm != 0 {
		multiplier = hAbs / hAbsOld * math.Pow(errNormOld/errNorm, 0.25)
	}
	return math.Min(1, multiplier) * math.Pow(errNorm, -0.25)
}

// step takes one accepted step, as Radau._step_impl.
func (s *radau) step() error {
	t := s.t
	n := s.n
	minStep := 10 * math.Abs(math.Nextafter(t, s.direction*math.Inf(1))-t)
	hAbs, hAbsOld, errNormOld := s.hAbs, s.hAbsOld, s.errNormOld
	if s.hAbs > s.maxStep {
		hAbs, hAbsOld, errNormOld = s.maxStep, math.NaN(), math.NaN()
	} else if s.hAbs < minStep {
		hAbs, hAbsOld, errNormOld = minStep, math.NaN(), math.NaN()
	}
	rejected := false
	var (
		h, tNew, errNorm, rate, sfty float64
		nIter                        int
	)
	for {
		if math.IsNaN(hAbs) {
			return ErrNonFiniteState
		}
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
		scale := s.tmp2
		converged := false
		for !converged {
			if !s.haveLU {
				s.factorize(h)
			}
			// The initial guess, from the last step's dense output.
			for i := 0; i < 3; i++ {
				if s.hasSol {
					s.denseInto(t+h*radauC[i], s.Z[i])
					for c := 0; c < n; c++ {
						s.Z[i][c] -= s.y[c]
					}
				} else {
					clear(s.Z[i])
				}
			}
			for c := 0; c < n; c++ {
				scale[c] = s.tol.atol[c] + math.Abs(s.y[c])*s.tol.rtol[c]
			}
			var err error
			converged, nIter, rate, err = s.collocation(t, h, scale)
			if err != nil {
				return err
			}
			if !converged {
				if s.currentJac {
					break
				}
				if err := s.jacobian(t, s.y, s.f); err != nil {
					return err
				}
				s.currentJac = true
				s.haveLU = false
			}
		}
		if !converged {
			hAbs *= 0.5
			s.haveLU = false
			s.rejected++
			continue
		}
		for c := 0; c < n; c++ {
			s.yNew[c] = s.y[c] + s.Z[2][c]
		}
		ze := s.rhsR // reuse: ZE = Z^T E / h
		for c := 0; c < n; c++ {
			ze[c] = (s.Z[0][c]*radauE[0] + s.Z[1][c]*radauE[1] + s.Z[2][c]*radauE[2]) / h
		}
		errv := s.tmp
		for c := 0; c < n; c++ {
			errv[c] = s.f[c] + ze[c]
		}
		s.luR.solve(errv)
		var err error
		if errNorm, err = s.scaledNorm(errv); err != nil {
			return err
		}
		sfty = 0.9 * (2*newtonMaxIter + 1) / float64(2*newtonMaxIter+nIter)
		if rejected && errNorm > 1 {
			yp := s.Zt[0]
			for c := 0; c < n; c++ {
				yp[c] = s.y[c] + errv[c]
			}
			fp := s.Zt[1]
			if err := s.v.eval(t, yp, fp); err != nil {
				return err
			}
			for c := 0; c < n; c++ {
				errv[c] = fp[c] + ze[c]
			}
			s.luR.solve(errv)
			if errNorm, err = s.scaledNorm(errv); err != nil {
				return err
			}
		}
		if errNorm > 1 || math.IsNaN(errNorm) {
			if math.IsNaN(errNorm) {
				return ErrNonFiniteState
			}
			factor := predictFactor(hAbs, hAbsOld, errNorm, errNormOld)
			hAbs *= math.Max(minFactor, sfty*factor)
			s.haveLU = false
			rejected = true
			s.rejected++
			continue
		}
		break
	}
	s.steps++
	if hAbs*s.normJ <= stiffBound {
		s.calm++
	} else {
		s.calm = 0
	}
	recomputeJac := nIter > 2 && rate > 1e-3
	factor := predictFactor(hAbs, hAbsOld, errNorm, errNormOld)
	factor = math.Min(maxFactor, sfty*factor)
	if !recomputeJac && factor < 1.2 {
		factor = 1
	} else {
		s.haveLU = false
	}
	copy(s.yOld, s.y)
	copy(s.y, s.yNew)
	if err := s.v.eval(tNew, s.y, s.f); err != nil {
		return err
	}
	if recomputeJac {
		if err := s.jacobian(tNew, s.y, s.f); err != nil {
			return err
		}
		s.currentJac = true
	} else {
		s.currentJac = false
	}
	s.hAbsOld = s.hAbs
	s.errNormOld = errNorm
	s.hAbs = hAbs * factor
	s.tOld, s.t = t, tNew
	// The dense output: Q = Z^T P.
	for k := 0; k < 3; k++ {
		for c := 0; c < n; c++ {
			s.Q[k][c] = s.Z[0][c]*radauP[0][k] + s.Z[1][c]*radauP[1][k] + s.Z[2][c]*radauP[2][k]
		}
	}
	s.solH = tNew - t
	s.hasSol = true
	return nil
}

func (s *radau) scaledNorm(e []float64) (float64, error) {
	q := s.Zt[2]
	for c := range e {
		sc := s.tol.atol[c] + math.Max(math.Abs(s.y[c]), math.Abs(s.yNew[c]))*s.tol.rtol[c]
		q[c] = e[c] / sc
	}
	return rmsNorm(s.v, q)
}

// denseInto evaluates the last step's collocation polynomial at t.
func (s *radau) denseInto(t float64, out []float64) {
	x := (t - s.tOld) / s.solH
	p1 := x
	p2 := p1 * x
	p3 := p2 * x
	for c := range out {
		out[c] = s.Q[0][c]*p1 + s.Q[1][c]*p2 + s.Q[2][c]*p3 + s.yOld[c]
	}
}

func (s *radau) dense(t float64, out []float64) { s.denseInto(t, out) }
