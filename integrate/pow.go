package integrate

import "math"

// Step-size control raises the error norm to the power -1/5 (RK45's
// error order 4, plus one) at every attempted step. math.Pow spends about
// 150 ns on it here (a general power through Frexp, Log, Exp and Ldexp),
// more than the rest of a small system's step; powMinusFifth, a fit and a
// correction, takes about a fifth of that and is within an ulp or two of
// the exact value (math.Pow is off by up to 250 ulps for large x). SolveIVP's
// RK45 and the batches use it alike, so that they give the same bits.

// fifthRootInv[r] is 2^(-r/5).
var fifthRootInv = [5]float64{1, math.Pow(2, -0.2), math.Pow(2, -0.4), math.Pow(2, -0.6), math.Pow(2, -0.8)}

// acceptFactor returns the factor of the next step size after a step whose
// error norm errNorm is below 1 (maxFactor for 0), at most 1 where the step
// was taken after a rejection: SciPy's RK45. The host's solvers and the
// batch kernel's host side share it, so that they give the same bits.
func acceptFactor(errNorm float64, rejected bool) float64 {
	factor := float64(maxFactor)
	if errNorm != 0 {
		factor = min(maxFactor, safety*powMinusFifth(errNorm))
	}
	if rejected {
		factor = min(1, factor)
	}
	return factor
}

// rejectFactor returns the factor of the step size after a rejected step
// whose error norm errNorm is 1 or more: at least minFactor.
func rejectFactor(errNorm float64) float64 {
	return max(minFactor, safety*powMinusFifth(errNorm))
}

// powMinusFifth returns x^(-1/5): math.Pow(x, -0.2) within a few ulps for
// positive normal x away from the ends of the range (where it is
// math.Pow itself, as for 0, NaN, infinities and negative x).
func powMinusFifth(x float64) float64 {
	if !(x >= 0x1p-1000 && x <= 0x1p1000) {
		return math.Pow(x, -0.2)
	}
	b := math.Float64bits(x)
	// x = m * 2^e with m in [1, 2), e = 5q + r, r in [0, 5).
	e := int(b>>52) - 1023 + 1005 // 1005 = 5*201 keeps it positive
	q, r := e/5-201, e%5
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	// m^(-1/5) by a degree-5 fit on [1, 2) (relative error 6.4e-6, from
	// numpy's Chebyshev.fit), evaluated by Estrin's scheme (a short
	// dependency chain), and one third-order correction: with
	// c = 1 - m y^5, m^(-1/5) = y (1-c)^(-1/5) = y (1 + c/5 + 3c^2/25 +
	// 11c^3/125 + O(c^4)), |c| < 3.2e-5 (so the rest is below 1e-18).
	m2 := m * m
	y := (1.4333795578200612 - 0.8355689744042396*m) +
		m2*((0.6306800658551629-0.29677370160695377*m)+m2*(0.07656749556067803-0.008290818997921164*m))
	y2 := y * y
	c := 1 - m*(y2*y2*y)
	y += y * (c * (0.2 + c*(0.12+c*0.088)))
	// Times 2^(-r/5) and 2^-q (q in [-201, 199]: a normal power of two).
	return y * fifthRootInv[r] * math.Float64frombits(uint64(1023-q)<<52)
}
