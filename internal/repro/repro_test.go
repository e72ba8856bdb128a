package repro

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/repro/internal/rvec"
)

// exactOf returns the exact sum of xs (finite).
func exactOf(xs []float64) *big.Float {
	var s big.Float
	s.SetPrec(2200)
	for _, x := range xs {
		var b big.Float
		b.SetPrec(2200).SetFloat64(x)
		s.Add(&s, &b)
	}
	return &s
}

// withinBound reports whether got is within n*2^-50*max|x| + ulp(got)/2
// of the exact sum of xs, the package's stated bound.
func withinBound(got float64, xs []float64) (bool, string) {
	ex := exactOf(xs)
	m := 0.0
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	var diff, g big.Float
	diff.SetPrec(2200)
	g.SetPrec(2200).SetFloat64(got)
	diff.Sub(&g, ex)
	diff.Abs(&diff)
	var bound, b2 big.Float
	bound.SetPrec(2200).SetFloat64(m)
	bound.SetMantExp(&bound, -50)
	bound.Mul(&bound, new(big.Float).SetInt64(int64(len(xs))))
	ulp := math.Nextafter(math.Abs(got), math.Inf(1)) - math.Abs(got)
	if math.IsInf(ulp, 0) {
		ulp = math.Ldexp(1, 971)
	}
	b2.SetPrec(2200).SetFloat64(ulp / 2)
	bound.Add(&bound, &b2)
	ef, _ := ex.Float64()
	return diff.Cmp(&bound) <= 0, fmt.Sprintf("got %.17g, exact %.17g, |diff| %.3g, bound %.3g", got, ef, diffF(&diff), diffF(&bound))
}

func diffF(f *big.Float) float64 { v, _ := f.Float64(); return v }

func sumOf(xs []float64) float64 {
	var s Sum
	s.Add(xs)
	return s.Value()
}

// genCase returns n values of kind: 0 moderate range, 1 wide range with
// cancellation, 2 huge (near MaxFloat64), 3 tiny (subnormal), 4 every
// exponent, 5 integers with exact sum, 6 pairs near MaxFloat64 that
// nearly cancel.
func genCase(r *rand.Rand, n, kind int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		var v float64
		switch kind {
		case 0:
			v = r.Float64()*2 - 1
		case 1:
			v = math.Ldexp(r.Float64()+0.5, r.IntN(120)-60)
		case 2:
			v = math.Ldexp(r.Float64()+0.5, 1023-16-r.IntN(60))
		case 3:
			v = math.Ldexp(r.Float64(), -1074+r.IntN(60))
		case 4:
			v = math.Ldexp(r.Float64()+0.5, r.IntN(2090)-1074)
		case 5:
			v = float64(r.IntN(2001) - 1000)
		case 6:
			if i%2 == 0 {
				v = math.Ldexp(r.Float64()+0.5, 1017+r.IntN(6))
			} else {
				v = -xs[i-1] * (1 - math.Ldexp(r.Float64(), -20))
				xs[i] = v
				continue
			}
		}
		if r.IntN(2) == 0 {
			v = -v
		}
		xs[i] = v
	}
	return xs
}

// TestSumBound: the result is within the stated bound of the exact sum,
// and equal to it where the exact sum is a float64 that the folds hold
// (integers); on the vector and the Go paths, the same bits.
func TestSumBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 15, 16, 17, 1000, 4096, 4097, 20000} {
		for kind := 0; kind < 7; kind++ {
			xs := genCase(r, n, kind)
			got := sumOf(xs)
			if ok, msg := withinBound(got, xs); !ok {
				t.Errorf("n=%d kind=%d: %s", n, kind, msg)
			}
			if kind == 5 {
				if want, _ := exactOf(xs).Float64(); got != want {
					t.Errorf("n=%d integers: %v, want %v", n, got, want)
				}
			}
			prev := SetVector(false)
			goPath := sumOf(xs)
			SetVector(prev)
			if math.Float64bits(goPath) != math.Float64bits(got) {
				t.Errorf("n=%d kind=%d: Go path %v, vector path %v", n, kind, goPath, got)
			}
			prev = setAVX512(false)
			avx2 := sumOf(xs)
			setAVX512(prev)
			if math.Float64bits(avx2) != math.Float64bits(got) {
				t.Errorf("n=%d kind=%d: AVX2 path %v, default path %v", n, kind, avx2, got)
			}
		}
	}
}

// TestReproducible: the same terms in another order, cut into parts in
// other places, on other thread counts, give the same bits.
func TestReproducible(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{3, 100, 5000, 70000, 140001} {
		for kind := 0; kind < 7; kind++ {
			if testing.Short() && n > 100000 {
				continue
			}
			xs := genCase(r, n, kind)
			// A few large values in one place, so that chunks choose
			// different bins.
			for i := 0; i < min(n, 3); i++ {
				xs[r.IntN(n)] *= 1 << 30
			}
			want := math.Float64bits(sumOf(xs))
			for trial := 0; trial < 4; trial++ {
				ys := append([]float64(nil), xs...)
				r.Shuffle(len(ys), func(i, j int) { ys[i], ys[j] = ys[j], ys[i] })
				var s Sum
				lo := 0
				for lo < n {
					hi := min(n, lo+1+r.IntN(n/2+1))
					var p Sum
					p.Add(ys[lo:hi])
					s.Merge(&p)
					lo = hi
				}
				if got := math.Float64bits(s.Value()); got != want {
					t.Fatalf("n=%d kind=%d trial %d: %v, want %v", n, kind, trial, math.Float64frombits(got), math.Float64frombits(want))
				}
			}
			for _, th := range []int{1, 2, 3} {
				prev := backend.SetThreads(th)
				got := math.Float64bits(sumOf(xs))
				backend.SetThreads(prev)
				if got != want {
					t.Fatalf("n=%d kind=%d threads=%d: %v, want %v", n, kind, th, math.Float64frombits(got), math.Float64frombits(want))
				}
			}
		}
	}
}

// TestSpecial: NaN, infinities, signed zeros, overflow, empty.
func TestSpecial(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	big := make([]float64, 5000)
	for i := range big {
		big[i] = float64(i)
	}
	with := func(i int, v float64) []float64 {
		ys := append([]float64(nil), big...)
		ys[i] = v
		return ys
	}
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"-0", []float64{math.Copysign(0, -1), math.Copysign(0, -1)}, 0},
		{"zeros", make([]float64, 5000), 0},
		{"+inf", []float64{1, inf}, inf},
		{"-inf", []float64{-inf, 1}, -inf},
		{"inf-inf", []float64{inf, -inf}, nan},
		{"nan", []float64{1, nan}, nan},
		{"nan in chunk", with(4000, nan), nan},
		{"nan after inf", append(with(10, inf), nan), nan},
		{"inf in chunk", with(17, inf), inf},
		{"-inf in chunk", with(17, -inf), -inf},
		{"overflow", []float64{math.MaxFloat64, math.MaxFloat64}, inf},
		{"-overflow", []float64{-math.MaxFloat64, -math.MaxFloat64 / 2}, -inf},
		{"max cancel", []float64{math.MaxFloat64, 0x1p980, -math.MaxFloat64}, 0x1p980},
		{"cancel", []float64{1e12, 1, -1e12}, 1},
		// 1 is below 2^-50 of the largest term: dropped, as the bound allows.
		{"cancel beyond 50 bits", []float64{1e300, 1, -1e300}, 0},
		{"subnormal", []float64{5e-324, 5e-324, -5e-324}, 5e-324},
		{"min normal", []float64{0x1p-1022, -5e-324}, 0x1p-1022 - 5e-324},
	}
	for _, tc := range tests {
		for _, vec := range []bool{true, false} {
			prev := SetVector(vec)
			got := sumOf(tc.in)
			SetVector(prev)
			if math.Float64bits(got) != math.Float64bits(tc.want) && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("%s (vector %v): %v, want %v", tc.name, vec, got, tc.want)
			}
		}
	}
}

// TestDot: AddDot adds the rounded products, Add32 and AddDot32 the
// float32 values and exact products.
func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 5, 33, 5000, 70001} {
		x, y := genCase(r, n, 1), genCase(r, n, 0)
		p := make([]float64, n)
		for i := range p {
			p[i] = x[i] * y[i]
		}
		var a, b Sum
		a.AddDot(x, y)
		b.Add(p)
		if math.Float64bits(a.Value()) != math.Float64bits(b.Value()) {
			t.Errorf("n=%d: AddDot %v, Add of products %v", n, a.Value(), b.Value())
		}
		x32, y32 := make([]float32, n), make([]float32, n)
		x64, p32 := make([]float64, n), make([]float64, n)
		for i := range x32 {
			x32[i], y32[i] = float32(x[i]), float32(y[i])
			x64[i] = float64(x32[i])
			p32[i] = float64(x32[i]) * float64(y32[i])
		}
		var c, d Sum
		c.Add32(x32)
		d.AddDot32(x32, y32)
		if c.Value() != sumOf(x64) || d.Value() != sumOf(p32) {
			t.Errorf("n=%d: Add32 %v (want %v), AddDot32 %v (want %v)", n, c.Value(), sumOf(x64), d.Value(), sumOf(p32))
		}
	}
}

// TestKernels: the AVX2 kernels compute the Go loops' results.
func TestKernels(t *testing.T) {
	if !useVector {
		t.Skip("no AVX2 kernels on this build or machine")
	}
	defer SetVector(true)
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{16, 47, 4096} {
		for kind := 0; kind < 5; kind++ {
			xs, ys := genCase(r, n, kind), genCase(r, n, 0)
			if kind == 4 {
				xs[n/2] = math.NaN()
				xs[n/3] = math.Inf(-1)
			}
			var got, want [4]int64
			var gotH, wantH [2]uint32
			pv, pg := make([]float64, n), make([]float64, n)
			for i, vec := range []bool{true, false} {
				SetVector(vec)
				h := maxHi(xs)
				k := min(topBin(h), fastHi)
				a1, a2 := deposit(xs, anchor(k, 0), anchor(k-1, 0))
				p := pv
				if !vec {
					p = pg
				}
				hp := mulMaxHi(p, xs, ys)
				if vec {
					got, gotH = [4]int64{a1, a2, int64(i)}, [2]uint32{h, hp}
				} else {
					want, wantH = [4]int64{a1, a2, int64(i - 1)}, [2]uint32{h, hp}
				}
			}
			if got != want || gotH != wantH {
				t.Errorf("n=%d kind=%d: vector %v %v, Go %v %v", n, kind, got, gotH, want, wantH)
			}
			for i := range pv {
				if math.Float64bits(pv[i]) != math.Float64bits(pg[i]) {
					t.Fatalf("n=%d: product %d: %v / %v", n, i, pv[i], pg[i])
				}
			}
		}
	}
}

// TestDepositMax: the fused kernel gives the sums of the deposit kernel
// and the maximum of the maximum kernel.
func TestDepositMax(t *testing.T) {
	if !useVector {
		t.Skip("no AVX2 kernels on this build or machine")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{16, 100, 4096} {
		for kind := 0; kind < 5; kind++ {
			xs, ys := genCase(r, n, 0), genCase(r, n, kind)
			k := topBin(maxHi(xs))
			c1, c2 := anchor(k, 0), anchor(k-1, 0)
			a1, a2, h, done := rvec.DepositMaxAVX2(&xs[0], &ys[0], n, c1, c2)
			b1, b2, d1 := rvec.DepositAVX2(&xs[0], n, c1, c2)
			hb, d2 := rvec.MaxHiAVX2(&ys[0], n)
			if a1 != b1 || a2 != b2 || h != hb || done != d1 || done != d2 {
				t.Errorf("n=%d kind=%d: fused %d %d %x %d, separate %d %d %x %d %d", n, kind, a1, a2, h, done, b1, b2, hb, d1, d2)
			}
			if rvec.HasAVX512 {
				a1, a2, h, done = rvec.DepositMaxAVX512(&xs[0], &ys[0], n, c1, c2)
				if a1 != b1 || a2 != b2 || h != hb || done != d1 {
					t.Errorf("n=%d kind=%d: AVX-512 %d %d %x %d, separate %d %d %x %d", n, kind, a1, a2, h, done, b1, b2, hb, d1)
				}
			}
		}
	}
}

// BenchmarkSum compares the reproducible sum with a plain loop's.
func BenchmarkSum(b *testing.B) {
	for _, n := range []int{1 << 12, 1 << 20} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Sin(float64(i))
		}
		b.Run(fmt.Sprintf("repro/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				sumOf(xs)
			}
		})
	}
}
