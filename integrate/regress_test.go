package integrate

import (
	"errors"
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

// TestRadauNaNStateStops: Radau from a NaN state called f more than 4e8
// times in 30 s (every step size NaN, which neither the step floor nor
// MaxSteps refused); it must stop at once with ErrNonFiniteState, as RK45
// and Auto do.
func TestRadauNaNStateStops(t *testing.T) {
	for _, m := range []Method{Radau, RK45, Auto} {
		calls := 0
		f := func(_ float64, y, dy []float64) {
			calls++
			if calls > 10000 {
				panic("runaway")
			}
			dy[0], dy[1] = y[1], -y[0]
		}
		res, err := SolveIVP(f, 0, 10, []float64{math.NaN(), 0}, &IVPOptions{Method: m})
		if !errors.Is(err, ErrNonFiniteState) || res.Status != -1 || calls > 10 {
			t.Errorf("%v: %v, status %d after %d calls; want ErrNonFiniteState at once", m, err, res.Status, calls)
		}
	}
}

// TestSolveIVPMaxFev: the evaluation budget stops an integration, counting
// rejected steps and difference Jacobians too.
func TestSolveIVPMaxFev(t *testing.T) {
	for _, m := range []Method{Radau, RK45, Auto} {
		calls := 0
		f := func(_ float64, y, dy []float64) { calls++; dy[0] = -1000 * (y[0] - math.Cos(float64(calls))) }
		res, err := SolveIVP(f, 0, 100, []float64{1}, &IVPOptions{Method: m, MaxFev: 50, IgnoreStiffness: true})
		if !errors.Is(err, ErrMaxFev) || res.Status != -1 || calls != 50 || res.NFev != 50 {
			t.Errorf("%v: %v, status %d, %d calls, NFev %d; want ErrMaxFev after 50", m, err, res.Status, calls, res.NFev)
		}
	}
}

// TestBatchMaxFevAsSolveIVP: the batches stop each system where SolveIVP
// stops it on MaxFev (the lockstep RK45 counts SolveIVP's evaluations
// per system), with the same state, steps and error.
func TestBatchMaxFevAsSolveIVP(t *testing.T) {
	const nsys, dim = 4, 2
	y0 := make([]float64, nsys*dim)
	for i := range y0 {
		y0[i] = float64(i%5) + 0.5
	}
	rhs := func(s int, tt float64, y, dy []float64) {
		k := float64(s + 1)
		dy[0], dy[1] = y[1], -k*k*y[0]+math.Sin(tt)
	}
	for _, maxFev := range []int{1, 2, 7, 20, 45, 200} {
		for _, first := range []float64{0, 0.01} {
			o := &IVPOptions{Method: RK45, MaxFev: maxFev, RelTol: 1e-8, FirstStep: first}
			batch, _ := SolveIVPBatch(func(tv, y, dy []float64) {
				for s := range tv {
					rhs(s, tv[s], y[s*dim:(s+1)*dim], dy[s*dim:(s+1)*dim])
				}
			}, nsys, dim, 0, 10, y0, o)
			idx, _ := SolveIVPIndexed(func(ix []int, tv, y, dy []float64) {
				for k := range tv {
					rhs(ix[k], tv[k], y[k*dim:(k+1)*dim], dy[k*dim:(k+1)*dim])
				}
			}, nsys, dim, 0, 10, y0, o)
			for s := 0; s < nsys; s++ {
				one, err := SolveIVP(func(tt float64, y, dy []float64) { rhs(s, tt, y, dy) }, 0, 10, y0[s*dim:(s+1)*dim], o)
				last := one.Y[len(one.Y)-1]
				for name, b := range inKeyOrder(map[string]*BatchResult{"SolveIVPBatch": batch, "SolveIVPIndexed": idx}) {
					got := b.Y[1][s*dim : (s+1)*dim]
					if b.Steps[s] != one.Steps || b.Rejected[s] != one.Rejected || b.Status[s] != one.Status ||
						errors.Is(b.Err[s], ErrMaxFev) != errors.Is(err, ErrMaxFev) || got[0] != last[0] || got[1] != last[1] {
						t.Errorf("MaxFev %d, FirstStep %g, system %d: %s %d steps, %d rejected, status %d, %v, %v; SolveIVP %d, %d, %d, %v, %v",
							maxFev, first, s, name, b.Steps[s], b.Rejected[s], b.Status[s], b.Err[s], got, one.Steps, one.Rejected, one.Status, err, last)
					}
				}
			}
		}
	}
}
