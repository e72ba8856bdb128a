package integrate

import "math"

// Step-size control raises the error norm to the power -1/5 (RK45's
// error order 4, plus one) at every attempted step. math.Pow spends about
// 150 ns on it here (a general power through Frexp, Log, Exp and Ldexp),
// more than the rest of a small system's step; powMinusFifth takes a few
// nanoseconds and agrees with the exact value to a few ulps. SolveIVP's
// RK45 and the batches use it alike, so that they give the same bits.

// fifthRootInv[r] is 2^(-r/5).
var fifthRootInv = [5]float64{1, math.Pow(2, -0.2), math.Pow(2, -0.4), math.Pow(2, -0.6), math.Pow(2, -0.8)}

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
	// numpy's Chebyshev.fit) and two Newton steps on y^-5 = m, each
	// squaring the error (times 3): 1.2e-10, then rounding.
	y := 1.4333795578200612 + m*(-0.8355689744042396+m*(0.6306800658551629+m*(-0.29677370160695377+m*(0.07656749556067803+m*-0.008290818997921164))))
	for range 2 {
		y2 := y * y
		y5 := y2 * y2 * y
		y += 0.2 * y * (1 - m*y5)
	}
	// Times 2^(-r/5) and 2^-q (q in [-201, 199]: a normal power of two).
	return y * fifthRootInv[r] * math.Float64frombits(uint64(1023-q)<<52)
}
