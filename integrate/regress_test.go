package integrate

import (
	"math"
	"testing"
)

// TestQuadLogOverSqrtMatchesSciPy: log(x)/sqrt(x) on [0, 1] at
// epsabs = epsrel = 1e-12, where the extrapolation amplifies the rounding
// of the subintervals' sums. SciPy 1.10.1's quad (full_output) gives these
// bits, with 315 evaluations on 8 subintervals; summing qk21's nodes in
// index order instead of the Fortran's order gave -3.9999999999999414 with
// an error estimate of 1.39e-12.
func TestQuadLogOverSqrtMatchesSciPy(t *testing.T) {
	f := func(x float64) float64 { return math.Log(x) / math.Sqrt(x) }
	cases := []struct {
		limit         int
		value, abserr float64
		evals, last   int
	}{
		// SciPy 1.10.1: quad(f, 0, 1, epsabs=1e-12, epsrel=1e-12, limit=L, full_output=1).
		{50, -4.0000000000000853, 1.354472090042691e-13, 315, 8},
		{7, -4.000000000000075, 0.019526557540360034, 273, 7},
		{8, -4.000000000000047, 0.007681895708084863, 315, 8},
	}
	for _, c := range cases {
		r, _ := Quad(f, 0, 1, &QuadOptions{AbsTol: 1e-12, RelTol: 1e-12, Limit: c.limit})
		if r.Value != c.value || r.AbsErr != c.abserr || r.Evals != c.evals || r.Intervals != c.last {
			t.Errorf("limit %d: %.17g ± %.17g in %d evaluations on %d subintervals; SciPy 1.10.1 %.17g ± %.17g in %d on %d",
				c.limit, r.Value, r.AbsErr, r.Evals, r.Intervals, c.value, c.abserr, c.evals, c.last)
		}
	}
}
