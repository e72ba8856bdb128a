package integrate

import (
	"math"
	"strconv"
)

// interval is a subinterval in the rule's variable.
type interval struct{ a, b float64 }

// qagsState is QUADPACK's qagse/qagie, and qagpe where the problem has
// breakpoints, written as a state machine, so that the rule's evaluations
// of many problems can be gathered into one call of the integrand
// (QuadBatch): want says which subintervals need the rule next, give hands
// their results back and runs the algorithm on to the next bisection. The
// three share one main loop (step); qagpe differs in its start (firstP)
// and in what counts as a small subinterval (large). The arrays are
// 1-based as in the Fortran.
type qagsState struct {
	p              problem
	epsabs, epsrel float64
	limit          int
	done           bool

	alist, blist, rlist, elist []float64
	iord                       []int
	rlist2                     [limexp + 3]float64
	res3la                     [4]float64

	result, abserr, area, errsum, errmax, errbnd float64
	defabs, dres, small, erlarg, ertest, correc  float64
	erlast                                       float64
	last, maxerr, nrmax, nres, numrl2, ktmin     int
	ier, ierro, iroff1, iroff2, iroff3, ksgn     int
	extrap, noext                                bool
	badX                                         float64
	pending                                      []interval
	started                                      bool
	evals                                        int
	// qagp: the level of bisection of each subinterval, and the largest
	// level that counts as small.
	level  []int
	levmax int
}

func newQags(p problem, epsabs, epsrel float64, limit int) *qagsState {
	s := &qagsState{p: p, epsabs: epsabs, epsrel: epsrel, limit: limit}
	n := limit + 1
	s.alist = make([]float64, n)
	s.blist = make([]float64, n)
	s.rlist = make([]float64, n)
	s.elist = make([]float64, n)
	s.iord = make([]int, n)
	s.alist[1], s.blist[1] = p.a, p.b
	s.pending = make([]interval, 0, max(2, len(p.pts)))
	if p.pts != nil {
		s.level = make([]int, n)
	}
	// QUADPACK has no rule for an empty interval at infinity.
	s.done = p.empty
	return s
}

// want returns the subintervals whose rule results give needs next.
func (s *qagsState) want() []interval {
	s.pending = s.pending[:0]
	if !s.started {
		if pts := s.p.pts; pts != nil {
			for i := 0; i+1 < len(pts); i++ {
				s.pending = append(s.pending, interval{pts[i], pts[i+1]})
			}
			return s.pending
		}
		s.pending = append(s.pending, interval{s.p.a, s.p.b})
		return s.pending
	}
	a1 := s.alist[s.maxerr]
	b1 := 0.5 * (s.alist[s.maxerr] + s.blist[s.maxerr])
	s.pending = append(s.pending, interval{a1, b1}, interval{b1, s.blist[s.maxerr]})
	return s.pending
}

// give takes the rule's results on want's subintervals.
func (s *qagsState) give(r []ruleResult) {
	s.evals += len(r) * (2*len(s.p.rule.xgk) - 1) * s.p.perPoint
	for _, x := range r {
		if x.bad {
			s.badX = x.badX
			s.ier = 7
			s.done = true
			if !s.started {
				s.last = 1
				s.result, s.abserr = x.result, x.abserr
			} else {
				s.finish115()
			}
			return
		}
	}
	if !s.started {
		s.started = true
		if s.p.pts != nil {
			s.firstP(r)
		} else {
			s.first(r[0])
		}
		return
	}
	s.step(r[0], r[1])
}

// first is qagse's start: the rule on the whole interval.
func (s *qagsState) first(r ruleResult) {
	// qagse calls qk21(f,a,b,result,abserr,defabs,resabs): its defabs is
	// the rule's resabs and its resabs the rule's resasc.
	s.result, s.abserr, s.defabs = r.result, r.abserr, r.resabs
	resabs := r.resasc
	s.dres = math.Abs(s.result)
	s.errbnd = math.Max(s.epsabs, s.epsrel*s.dres)
	s.last = 1
	s.rlist[1] = s.result
	s.elist[1] = s.abserr
	s.iord[1] = 1
	if s.abserr <= 100*epmach*s.defabs && s.abserr > s.errbnd {
		s.ier = 2
	}
	if s.limit == 1 {
		s.ier = 1
	}
	if s.ier != 0 || (s.abserr <= s.errbnd && s.abserr != resabs) || s.abserr == 0 {
		s.end()
		return
	}
	s.errsum = s.abserr
	// The table gets its second element after the first bisection (step).
	s.startLoop(2)
}

// startLoop sets up the main loop once the first rule results are in
// rlist, elist and iord: the largest error to bisect first, the sum, the
// extrapolation table holding the first result, and no estimate yet.
func (s *qagsState) startLoop(numrl2 int) {
	s.rlist2[1] = s.result
	s.maxerr = s.iord[1]
	s.errmax = s.elist[s.maxerr]
	s.area = s.result
	s.abserr = oflow
	s.nrmax = 1
	s.nres = 0
	s.numrl2 = numrl2
	s.ktmin = 0
	s.ksgn = -1
	if s.dres >= (1-50*epmach)*s.defabs {
		s.ksgn = 1
	}
}

// large reports whether a subinterval of width w at bisection level lev
// is still too large to take part in the next extrapolation: qagse
// measures its width against small, which halves with each
// extrapolation; qagpe its level against levmax, which grows by one.
func (s *qagsState) large(w float64, lev int) bool {
	if s.level != nil {
		return lev+1 <= s.levmax
	}
	return math.Abs(w) > s.small
}

// largeAt is large for subinterval i.
func (s *qagsState) largeAt(i int) bool {
	lev := 0
	if s.level != nil {
		lev = s.level[i]
	}
	return s.large(s.blist[i]-s.alist[i], lev)
}

// step is one pass of the main loop of qagse and qagpe (they differ where
// s.level, qagpe's, is tested), from the rule's results on the two halves
// of the subinterval with the largest error.
func (s *qagsState) step(r1, r2 ruleResult) {
	s.last++
	last := s.last
	qagp := s.level != nil
	levcur := 0
	if qagp {
		levcur = s.level[s.maxerr] + 1
	}
	a1, b1 := s.pending[0].a, s.pending[0].b
	a2, b2 := s.pending[1].a, s.pending[1].b
	s.erlast = s.errmax
	area1, error1, defab1 := r1.result, r1.abserr, r1.resasc
	area2, error2, defab2 := r2.result, r2.abserr, r2.resasc
	area12 := area1 + area2
	erro12 := error1 + error2
	s.errsum = s.errsum + erro12 - s.errmax
	s.area = s.area + area12 - s.rlist[s.maxerr]
	if !(defab1 == error1 || defab2 == error2) {
		if !(math.Abs(s.rlist[s.maxerr]-area12) > 1e-5*math.Abs(area12) || erro12 < 0.99*s.errmax) {
			if s.extrap {
				s.iroff2++
			} else {
				s.iroff1++
			}
		}
		if last > 10 && erro12 > s.errmax {
			s.iroff3++
		}
	}
	if qagp {
		s.level[s.maxerr] = levcur
		s.level[last] = levcur
	}
	s.rlist[s.maxerr] = area1
	s.rlist[last] = area2
	s.errbnd = math.Max(s.epsabs, s.epsrel*math.Abs(s.area))
	if s.iroff1+s.iroff2 >= 10 || s.iroff3 >= 20 {
		s.ier = 2
	}
	if s.iroff2 >= 5 {
		s.ierro = 3
	}
	if last == s.limit {
		s.ier = 1
	}
	if math.Max(math.Abs(a1), math.Abs(b2)) <= (1+100*epmach)*(math.Abs(a2)+1000*uflow) {
		s.ier = 4
	}
	if error2 > error1 {
		s.alist[s.maxerr] = a2
		s.alist[last] = a1
		s.blist[last] = b1
		s.rlist[s.maxerr] = area2
		s.rlist[last] = area1
		s.elist[s.maxerr] = error2
		s.elist[last] = error1
	} else {
		s.alist[last] = a2
		s.blist[s.maxerr] = b1
		s.blist[last] = b2
		s.elist[s.maxerr] = error1
		s.elist[last] = error2
	}
	s.qpsrt()
	if s.errsum <= s.errbnd {
		s.finish115()
		return
	}
	if s.ier != 0 {
		s.finish100()
		return
	}
	if !qagp && last == 2 {
		// qagse's table gets its second element, and small its first
		// value, after the first bisection; qagpe set up both in firstP.
		s.small = math.Abs(s.p.b-s.p.a) * 0.375
		s.erlarg = s.errsum
		s.ertest = s.errbnd
		s.rlist2[2] = s.area
		return
	}
	if s.noext {
		return
	}
	s.erlarg -= s.erlast
	if s.large(b1-a1, levcur) {
		s.erlarg += erro12
	}
	if !s.extrap {
		if s.largeAt(s.maxerr) {
			return
		}
		s.extrap = true
		s.nrmax = 2
	}
	if s.ierro != 3 && s.erlarg > s.ertest {
		id := s.nrmax
		jupbnd := last
		if last > 2+s.limit/2 {
			jupbnd = s.limit + 3 - last
		}
		for k := id; k <= jupbnd; k++ {
			s.maxerr = s.iord[s.nrmax]
			s.errmax = s.elist[s.maxerr]
			if s.largeAt(s.maxerr) {
				return
			}
			s.nrmax++
		}
	}
	// Perform extrapolation. qagpe's table starts with one element: it
	// extrapolates from the third, as qagse (whose table starts with two)
	// always does.
	s.numrl2++
	s.rlist2[s.numrl2] = s.area
	if s.numrl2 > 2 {
		reseps, abseps := s.qelg()
		s.ktmin++
		if s.ktmin > 5 && s.abserr < 1e-3*s.errsum {
			s.ier = 5
		}
		if abseps < s.abserr {
			s.ktmin = 0
			s.abserr = abseps
			s.result = reseps
			s.correc = s.erlarg
			s.ertest = math.Max(s.epsabs, s.epsrel*math.Abs(reseps))
			// qagse stops at abserr <= ertest, qagpe only below it.
			if s.abserr < s.ertest || !qagp && s.abserr == s.ertest {
				s.finish100()
				return
			}
		}
		if s.numrl2 == 1 {
			s.noext = true
		}
		if s.ier == 5 {
			s.finish100()
			return
		}
	}
	s.maxerr = s.iord[1]
	s.errmax = s.elist[s.maxerr]
	s.nrmax = 1
	s.extrap = false
	if qagp {
		s.levmax++
	} else {
		s.small *= 0.5
	}
	s.erlarg = s.errsum
}

// finish100 is qagse's label 100: choose between the extrapolated and the
// summed result.
func (s *qagsState) finish100() {
	if s.abserr == oflow {
		s.finish115()
		return
	}
	if s.ier+s.ierro != 0 {
		if s.ierro == 3 {
			s.abserr += s.correc
		}
		if s.ier == 0 {
			s.ier = 3
		}
		if s.result != 0 && s.area != 0 {
			if s.abserr/math.Abs(s.result) > s.errsum/math.Abs(s.area) {
				s.finish115()
				return
			}
		} else if s.abserr > s.errsum {
			s.finish115()
			return
		} else if s.area == 0 {
			s.end()
			return
		}
	}
	// Label 110.
	if !(s.ksgn == -1 && math.Max(math.Abs(s.result), math.Abs(s.area)) <= s.defabs*0.01) {
		if 0.01 > s.result/s.area || s.result/s.area > 100 || s.errsum > math.Abs(s.area) {
			s.ier = 6
		}
	}
	s.end()
}

// finish115 takes the sum over the subintervals.
func (s *qagsState) finish115() {
	s.result = 0
	for k := 1; k <= s.last; k++ {
		s.result += s.rlist[k]
	}
	s.abserr = s.errsum
	s.end()
}

func (s *qagsState) end() {
	if s.ier > 2 && s.ier < 7 {
		s.ier--
	}
	s.done = true
}

// qpsrt maintains the descending order of the error estimates (iord).
func (s *qagsState) qpsrt() {
	last, limit := s.last, s.limit
	elist, iord := s.elist, s.iord
	if last <= 2 {
		iord[1], iord[2] = 1, 2
	} else {
		errmax := elist[s.maxerr]
		if s.nrmax != 1 {
			ido := s.nrmax - 1
			for i := 1; i <= ido; i++ {
				isucc := iord[s.nrmax-1]
				if errmax <= elist[isucc] {
					break
				}
				iord[s.nrmax] = isucc
				s.nrmax--
			}
		}
		jupbn := last
		if last > limit/2+2 {
			jupbn = limit + 3 - last
		}
		errmin := elist[last]
		jbnd := jupbn - 1
		ibeg := s.nrmax + 1
		placed := false
		if ibeg <= jbnd {
			for i := ibeg; i <= jbnd; i++ {
				isucc := iord[i]
				if errmax >= elist[isucc] {
					// Label 60: insert errmin by traversing the list bottom-up.
					iord[i-1] = s.maxerr
					k := jbnd
					inserted := false
					for j := i; j <= jbnd; j++ {
						isucc := iord[k]
						if errmin < elist[isucc] {
							iord[k+1] = last
							inserted = true
							break
						}
						iord[k+1] = isucc
						k--
					}
					if !inserted {
						iord[i] = last
					}
					placed = true
					break
				}
				iord[i-1] = isucc
			}
		}
		if !placed {
			iord[jbnd] = s.maxerr
			iord[jupbn] = last
		}
	}
	s.maxerr = iord[s.nrmax]
	s.errmax = elist[s.maxerr]
}

// qelg is Wynn's epsilon algorithm on rlist2[1..numrl2]: it returns the
// extrapolated limit and its error estimate, and updates the table.
func (s *qagsState) qelg() (result, abserr float64) {
	e := &s.rlist2
	n := s.numrl2
	s.nres++
	abserr = oflow
	result = e[n]
	if n < 3 {
		abserr = math.Max(abserr, 5*epmach*math.Abs(result))
		return
	}
	e[n+2] = e[n]
	newelm := (n - 1) / 2
	e[n] = oflow
	num := n
	k1 := n
	for i := 1; i <= newelm; i++ {
		k2 := k1 - 1
		k3 := k1 - 2
		res := e[k1+2]
		e0, e1, e2 := e[k3], e[k2], res
		e1abs := math.Abs(e1)
		delta2 := e2 - e1
		err2 := math.Abs(delta2)
		tol2 := math.Max(math.Abs(e2), e1abs) * epmach
		delta3 := e1 - e0
		err3 := math.Abs(delta3)
		tol3 := math.Max(e1abs, math.Abs(e0)) * epmach
		if err2 <= tol2 && err3 <= tol3 {
			// e0, e1 and e2 are equal to within machine accuracy: convergence.
			result = res
			abserr = err2 + err3
			abserr = math.Max(abserr, 5*epmach*math.Abs(result))
			return
		}
		e3 := e[k1]
		e[k1] = e1
		delta1 := e1 - e3
		err1 := math.Abs(delta1)
		tol1 := math.Max(e1abs, math.Abs(e3)) * epmach
		if err1 <= tol1 || err2 <= tol2 || err3 <= tol3 {
			n = i + i - 1
			break
		}
		ss := 1/delta1 + 1/delta2 - 1/delta3
		epsinf := math.Abs(ss * e1)
		if epsinf <= 1e-4 {
			n = i + i - 1
			break
		}
		res = e1 + 1/ss
		e[k1] = res
		k1 -= 2
		errA := err2 + math.Abs(res-e2) + err3
		if errA <= abserr {
			abserr = errA
			result = res
		}
	}
	// Shift the table.
	if n == limexp {
		n = 2*(limexp/2) - 1
	}
	ib := 1
	if (num/2)*2 == num {
		ib = 2
	}
	ie := newelm + 1
	for i := 1; i <= ie; i++ {
		ib2 := ib + 2
		e[ib] = e[ib2]
		ib = ib2
	}
	if num != n {
		indx := num - n + 1
		for i := 1; i <= n; i++ {
			e[i] = e[indx]
			indx++
		}
	}
	if s.nres < 4 {
		s.res3la[s.nres] = result
		abserr = oflow
	} else {
		abserr = math.Abs(result-s.res3la[3]) + math.Abs(result-s.res3la[2]) + math.Abs(result-s.res3la[1])
		s.res3la[1], s.res3la[2], s.res3la[3] = s.res3la[2], s.res3la[3], result
	}
	abserr = math.Max(abserr, 5*epmach*math.Abs(result))
	s.numrl2 = n
	return
}

// quadResult assembles the QuadResult.
func (s *qagsState) quadResult() QuadResult {
	// Evals counts the evaluations made: QUADPACK's 42*last-21 for qags
	// and 30*last-15 (twice that on (-inf, inf)) for qagi, unless a value
	// that is not finite stopped it.
	r := QuadResult{Value: s.result, AbsErr: s.abserr, Intervals: s.last, Ier: s.ier, Evals: s.evals}
	if s.p.flip {
		r.Value = -r.Value
	}
	if err := ierErr(s.ier); err != nil {
		if s.ier == 7 {
			r.Err = &nonFiniteError{x: s.badX}
		} else {
			r.Err = err
		}
	}
	return r
}

type nonFiniteError struct{ x float64 }

func (e *nonFiniteError) Error() string {
	return ErrNonFinite.Error() + " at x = " + formatG(e.x)
}

func (e *nonFiniteError) Unwrap() error { return ErrNonFinite }

func formatG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
