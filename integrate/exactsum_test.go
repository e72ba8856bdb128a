package integrate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestExactSum: the sum is the correctly rounded exact sum, whatever the
// order of the additions or their split into parts.
func TestExactSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		n := 1 + r.IntN(300)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Ldexp(r.Float64(), r.IntN(200)-100)
			if trial%10 == 0 {
				xs[i] = math.Ldexp(r.Float64(), r.IntN(2000)-1070)
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
		var a, b exactSum
		for i, x := range xs {
			if i < n/3 {
				a.add(x)
			} else {
				b.add(x)
			}
		}
		for i := range a.bins {
			a.bins[i] += b.bins[i]
		}
		var c exactSum
		for i := n - 1; i >= 0; i-- {
			c.add(xs[i])
		}
		if got := a.value(); got != want {
			t.Fatalf("trial %d: %.17g, exact %.17g", trial, got, want)
		}
		if got := c.value(); got != want {
			t.Fatalf("trial %d reversed: %.17g, exact %.17g", trial, got, want)
		}
	}
	var s exactSum
	s.add(math.Inf(1))
	if !math.IsInf(s.value(), 1) {
		t.Error("Inf")
	}
	s.add(math.NaN())
	if !math.IsNaN(s.value()) {
		t.Error("NaN")
	}
}
