package exactsum

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestExactSum: the sum of values of either sign is the correctly rounded
// exact sum, whatever the order of the additions or their split into
// parts; infinities and NaN as IEEE addition gives them.
func TestExactSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 60; trial++ {
		n := 1 + r.IntN(300)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Ldexp(r.Float64(), r.IntN(200)-100)
			if trial%10 == 0 {
				xs[i] = math.Ldexp(r.Float64(), r.IntN(2000)-1070)
			}
			if r.IntN(2) == 0 {
				xs[i] = -xs[i]
			}
		}
		var exact big.Float
		exact.SetPrec(4000)
		for _, x := range xs {
			var bx big.Float
			bx.SetPrec(4000).SetFloat64(x)
			exact.Add(&exact, &bx)
		}
		want, _ := exact.Float64()
		var a, b, c Sum
		for i, x := range xs {
			if i < n/3 {
				a.Add(x)
			} else {
				b.Add(x)
			}
		}
		a.Merge(&b)
		for i := n - 1; i >= 0; i-- {
			c.Add(xs[i])
		}
		if got := a.Value(); got != want {
			t.Fatalf("trial %d: %.17g, exact %.17g", trial, got, want)
		}
		if got := c.Value(); got != want {
			t.Fatalf("trial %d reversed: %.17g, exact %.17g", trial, got, want)
		}
	}
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"cancel", []float64{1e300, 1, -1e300}, 1},
		{"+inf", []float64{1, math.Inf(1)}, math.Inf(1)},
		{"-inf", []float64{math.Inf(-1), 1}, math.Inf(-1)},
		{"inf-inf", []float64{math.Inf(1), math.Inf(-1)}, math.NaN()},
		{"nan", []float64{1, math.NaN()}, math.NaN()},
		{"subnormal", []float64{5e-324, 5e-324, -5e-324}, 5e-324},
	}
	for _, tc := range tests {
		var s Sum
		for _, v := range tc.in {
			s.Add(v)
		}
		got := s.Value()
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestExactSumDist: ExactSum and the dot products over a distributed
