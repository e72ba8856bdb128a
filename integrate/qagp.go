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
	if s.last == s.limit {
		// No breakpoint inside the interval and Limit 1: no room to
		// bisect, where qagpe would go on to read past its lists.
		s.ier = 1
		s.end()
		return
	}
	s.defabs = resabs
	s.erlarg = s.errsum
	s.ertest = s.errbnd
	s.levmax = 1
	// The table's second element comes from the first extrapolation step.
	s.startLoop(1)
}
