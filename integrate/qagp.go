package integrate

import "math"

// firstP is qagpe's start: the rule on each subinterval of the partition
// the breakpoints make.
func (s *qagsState) firstP(r []ruleResult) {
	nint := len(r)
	npts := nint - 1
	var resabs float64
	ndin := make([]bool, nint+1)
	for i := 1; i <= nint; i++ {
		x := r[i-1]
		area1, error1, defabs, resa := x.result, x.abserr, x.resabs, x.resasc
		s.abserr += error1
		s.result += area1
		ndin[i] = error1 == resa && error1 != 0
		resabs += defabs
		s.level[i] = 0
		s.elist[i] = error1
		s.alist[i] = s.pending[i-1].a
		s.blist[i] = s.pending[i-1].b
		s.rlist[i] = area1
		s.iord[i] = i
	}
	s.errsum = 0
	for i := 1; i <= nint; i++ {
		if ndin[i] {
			s.elist[i] = s.abserr
		}
		s.errsum += s.elist[i]
	}
	s.last = nint
	s.dres = math.Abs(s.result)
	s.errbnd = math.Max(s.epsabs, s.epsrel*s.dres)
	if s.abserr <= 100*epmach*resabs && s.abserr > s.errbnd {
		s.ier = 2
	}
	if nint > 1 {
		for i := 1; i <= npts; i++ {
			ind1 := s.iord[i]
			k := 0
			for j := i + 1; j <= nint; j++ {
				ind2 := s.iord[j]
				if s.elist[ind1] > s.elist[ind2] {
					continue
				}
				ind1 = ind2
				k = j
			}
			if ind1 != s.iord[i] {
				s.iord[k] = s.iord[i]
				s.iord[i] = ind1
			}
		}
		if s.limit < npts+2 {
			s.ier = 1
		}
	}
	if s.ier != 0 || s.abserr <= s.errbnd {
		s.end()
		return
	}
	s.defabs = resabs
	s.rlist2[1] = s.result
	s.maxerr = s.iord[1]
	s.errmax = s.elist[s.maxerr]
	s.area = s.result
	s.nrmax = 1
	s.nres = 0
	s.numrl2 = 1
	s.ktmin = 0
	s.erlarg = s.errsum
	s.ertest = s.errbnd
	s.levmax = 1
	s.abserr = oflow
	s.ksgn = -1
	if s.dres >= (1-50*epmach)*resabs {
		s.ksgn = 1
	}
}

// stepP is one pass of qagpe's main loop.
func (s *qagsState) stepP(r1, r2 ruleResult) {
	s.last++
	last := s.last
	levcur := s.level[s.maxerr] + 1
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
	s.level[s.maxerr] = levcur
	s.level[last] = levcur
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
	if s.noext {
		return
	}
	s.erlarg -= s.erlast
	if levcur+1 <= s.levmax {
		s.erlarg += erro12
	}
	if !s.extrap {
		if s.level[s.maxerr]+1 <= s.levmax {
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
			if s.level[s.maxerr]+1 <= s.levmax {
				return
			}
			s.nrmax++
		}
	}
	// Perform extrapolation.
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
			if s.abserr < s.ertest {
				s.finish100()
				return
			}
		}
		if s.numrl2 == 1 {
			s.noext = true
		}
		if s.ier >= 5 {
			s.finish100()
			return
		}
	}
	s.maxerr = s.iord[1]
	s.errmax = s.elist[s.maxerr]
	s.nrmax = 1
	s.extrap = false
	s.levmax++
	s.erlarg = s.errsum
}
