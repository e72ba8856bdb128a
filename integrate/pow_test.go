package integrate

import (
	"math"
	"math/big"
	"testing"
)

// exactPowMinusFifth is x^(-1/5) rounded to float64, from Newton steps in
// 256-bit arithmetic started at math.Pow's value (itself off by up to
// about 250 ulps for large x).
func exactPowMinusFifth(x float64) float64 {
	const prec = 256
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	r := new(big.Float).SetPrec(prec).SetFloat64(math.Pow(x, -0.2))
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	fifth := new(big.Float).SetPrec(prec).Quo(one, new(big.Float).SetPrec(prec).SetInt64(5))
	for range 6 {
		r5 := new(big.Float).SetPrec(prec).Mul(r, r)
		r5.Mul(r5, r5).Mul(r5, r)
		d := new(big.Float).SetPrec(prec).Sub(one, r5.Mul(r5, bx))
		r.Add(r, d.Mul(d, r).Mul(d, fifth))
	}
	v, _ := r.Float64()
	return v
}

// TestPowMinusFifth: x^(-1/5) within 2 ulps of the exact value over the
// whole range (every exponent residue and mantissa region), and math.Pow's
// special values at the ends.
func TestPowMinusFifth(t *testing.T) {
	worst := 0.0
	for e := -1100; e <= 1100; e++ {
		for _, m := range []float64{1, 1.0000001, 1.1, 1.25, 1.5, 1.7320508, 1.9, 1.9999999} {
			x := math.Ldexp(m, e)
			got, want := powMinusFifth(x), math.Pow(x, -0.2)
			if x >= 0x1p-1000 && x <= 0x1p1000 {
				want = exactPowMinusFifth(x)
			}
			if math.IsInf(want, 0) || want == 0 || math.IsNaN(want) {
				if got != want {
					t.Errorf("powMinusFifth(%g) = %g, want %g", x, got, want)
				}
				continue
			}
			ulps := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want)
			worst = math.Max(worst, ulps)
			if ulps > 2 {
				t.Errorf("powMinusFifth(%g) = %.17g, want %.17g (%g ulps)", x, got, want, ulps)
			}
		}
	}
	// And 20000 random mantissas and exponents (a fixed sequence).
	u := uint64(12345)
	for range 20000 {
		u = u*6364136223846793005 + 1442695040888963407
		x := math.Ldexp(1+float64(u>>12)/(1<<52), int(u>>1%1990)-995)
		got, want := powMinusFifth(x), exactPowMinusFifth(x)
		ulps := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want)
		worst = math.Max(worst, ulps)
		if ulps > 2 {
			t.Errorf("powMinusFifth(%g) = %.17g, want %.17g (%g ulps)", x, got, want, ulps)
		}
	}
	t.Logf("worst %g ulps", worst)
	for _, x := range []float64{0, -1, math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64} {
		got, want := powMinusFifth(x), math.Pow(x, -0.2)
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("powMinusFifth(%g) = %g, want %g", x, got, want)
		}
	}
	// Exact values: 32^(-1/5) = 1/2, 2^-50 -> 2^10.
	if got := powMinusFifth(32); got != 0.5 {
		t.Errorf("powMinusFifth(32) = %.17g", got)
	}
	if got := powMinusFifth(0x1p-50); got != 1024 {
		t.Errorf("powMinusFifth(2^-50) = %.17g", got)
	}
}

func BenchmarkPowMinusFifth(b *testing.B) {
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = math.Exp(float64(i%200)/10 - 15)
	}
	var s float64
	for b.Loop() {
		for _, x := range xs {
			s += powMinusFifth(x)
		}
	}
	_ = s
}
