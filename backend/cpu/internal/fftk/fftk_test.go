package fftk

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// lengths returns the Supported lengths in [1, max].
func lengths(max int) []int {
	var ns []int
	for n := 1; n <= max; n++ {
		if Supported(n) {
			ns = append(ns, n)
		}
	}
	return ns
}

// randLine returns n complex values with parts uniform in [-1, 1).
func randLine(rnd *rand.Rand, n int) []complex128 {
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(2*rnd.Float64()-1, 2*rnd.Float64()-1)
	}
	return x
}

// dd is an unevaluated sum hi + lo of two float64 (double-double).
type dd struct{ hi, lo float64 }

// add adds a*b to d, the product exact (FMA) and the sum with the error
// of each addition kept.
func (d *dd) add(a, b float64) {
	p := a * b
	pe := math.FMA(a, b, -p)
	s := d.hi + p
	bb := s - d.hi
	se := (d.hi - (s - bb)) + (p - bb)
	d.hi = s
	d.lo += se + pe
}

// naiveDFT returns the DFT of x with exponent sign sign (-1 forward, +1
// inverse, unnormalized), the O(n^2) sum accumulated in double-double
// with twiddle factors from math.Sincos of the exactly reduced angle: an
// error of a few ulps of the result, independent of fftk's twiddles.
func naiveDFT(x []complex128, sign float64) []complex128 {
	n := len(x)
	cs := make([]float64, n)
	sn := make([]float64, n)
	for k := range cs {
		sn[k], cs[k] = math.Sincos(2 * math.Pi * float64(k) / float64(n))
	}
	out := make([]complex128, n)
	for k := range out {
		var re, im dd
		for j, v := range x {
			jk := j * k % n
			wr, wi := cs[jk], sign*sn[jk]
			re.add(real(v), wr)
			re.add(-imag(v), wi)
			im.add(real(v), wi)
			im.add(imag(v), wr)
		}
		out[k] = complex(re.hi+re.lo, im.hi+im.lo)
	}
	return out
}

// relErr is the 2-norm of got-want over the 2-norm of want.
func relErr(got, want []complex128) float64 {
	var d, m float64
	for i := range want {
		e := got[i] - want[i]
		d += real(e)*real(e) + imag(e)*imag(e)
		m += real(want[i])*real(want[i]) + imag(want[i])*imag(want[i])
	}
	if m == 0 {
		return math.Sqrt(d)
	}
	return math.Sqrt(d / m)
}

// tolerance is the relative error allowed at length n: a few ulps per
// pass.
func tolerance(n int) float64 {
	return 1e-16 * (4 + 4*math.Log2(float64(n)))
}

// TestAgainstNaive checks forward and inverse transforms, and the inverse
// scaled by 1/n after the forward, at every supported length up to 1024
// (-short: 400, and 512, 1024, 2048) against the O(n^2) DFT.
func TestAgainstNaive(t *testing.T) {
	ns := lengths(1024)
	if testing.Short() {
		ns = append(lengths(400), 512, 1024, 2048)
	} else {
		ns = append(ns, 1200, 2048, 3072, 4096)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var worst float64
	for _, n := range ns {
		p := NewPlan(n)
		x := randLine(rnd, n)
		tol := tolerance(n)
		y := append([]complex128(nil), x...)
		p.Forward(y)
		if e := relErr(y, naiveDFT(x, -1)); e > tol {
			t.Errorf("n=%d: forward: relative error %.3g > %.3g", n, e, tol)
		} else {
			worst = math.Max(worst, e/tol)
		}
		z := append([]complex128(nil), x...)
		p.Inverse(z, 1)
		if e := relErr(z, naiveDFT(x, 1)); e > tol {
			t.Errorf("n=%d: inverse: relative error %.3g > %.3g", n, e, tol)
		}
		p.Inverse(y, 1/float64(n))
		if e := relErr(y, x); e > tol {
			t.Errorf("n=%d: inverse of forward: relative error %.3g > %.3g", n, e, tol)
		}
	}
	t.Logf("%d lengths; worst forward error %.2f of the tolerance", len(ns), worst)
}

// TestAgainstGonum checks long lengths against gonum's FFTPACK transform.
func TestAgainstGonum(t *testing.T) {
	ns := []int{1 << 12, 3 * 5 * 1 << 9, 1 << 16}
	if !testing.Short() {
		ns = append(ns, 1<<17, 3*3*5*5*5*2*2*2*2*2*2*2, 1<<20)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range ns {
		x := randLine(rnd, n)
		g := fourier.NewCmplxFFT(n)
		want := g.Coefficients(nil, x)
		back := g.Sequence(nil, x)
		p := NewPlan(n)
		y := append([]complex128(nil), x...)
		p.Forward(y)
		// gonum's own error is about as large as ours: allow both.
		tol := 2 * tolerance(n)
		if e := relErr(y, want); e > tol {
			t.Errorf("n=%d: forward: relative error %.3g against gonum > %.3g", n, e, tol)
		}
		z := append([]complex128(nil), x...)
		p.Inverse(z, 1)
		if e := relErr(z, back); e > tol {
			t.Errorf("n=%d: inverse: relative error %.3g against gonum > %.3g", n, e, tol)
		}
	}
}

// TestBatch checks that ForwardBatch and InverseBatch give, bit for bit,
// what Forward and Inverse give on each line.
func TestBatch(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 4, 5, 8, 12, 30, 64, 120, 2048} {
		p := NewPlan(n)
		for _, b := range []int{1, 2, 3, 8} {
			lines := make([][]complex128, b)
			x := make([]complex128, n*b)
			for l := range lines {
				lines[l] = randLine(rnd, n)
				for j, v := range lines[l] {
					x[j*b+l] = v
				}
			}
			for _, inverse := range []bool{false, true} {
				y := append([]complex128(nil), x...)
				if inverse {
					p.InverseBatch(y, b, 0.25)
				} else {
					p.ForwardBatch(y, b)
				}
				for l, line := range lines {
					z := append([]complex128(nil), line...)
					if inverse {
						p.Inverse(z, 0.25)
					} else {
						p.Forward(z)
					}
					for j, v := range z {
						if y[j*b+l] != v {
							t.Fatalf("n=%d b=%d inverse=%v: line %d element %d: %v in the batch, %v alone", n, b, inverse, l, j, y[j*b+l], v)
						}
					}
				}
			}
		}
	}
}

// TestSpecial checks transforms of a delta and a pure tone exactly where
// they are exact, and that scale applies at length 1.
func TestSpecial(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8, 16, 30, 64} {
		p := NewPlan(n)
		x := make([]complex128, n)
		x[0] = 2 - 1i
		p.Forward(x)
		for k, v := range x {
			if v != 2-1i {
				t.Fatalf("n=%d: forward of a delta: X[%d] = %v, want 2-1i", n, k, v)
			}
		}
		p.Inverse(x, 0.5)
		if x[0] != complex(float64(n), -float64(n)/2) {
			t.Fatalf("n=%d: inverse of a constant: x[0] = %v, want %v", n, x[0], complex(float64(n), -float64(n)/2))
		}
		for k := 1; k < n; k++ {
			if math.Abs(real(x[k]))+math.Abs(imag(x[k])) > 1e-15*float64(n) {
				t.Fatalf("n=%d: inverse of a constant: x[%d] = %v, want 0", n, k, x[k])
			}
		}
	}
}

// TestSupported checks the lengths accepted and NewPlan's and the
// transforms' panics.
func TestSupported(t *testing.T) {
	for n, want := range map[int]bool{-4: false, 0: false, 1: true, 2: true, 7: false, 14: false,
		60: true, 1 << 20: true, 2048: true, 2049: false, 3 * 5 * 5 * 11: false, 243: true} {
		if got := Supported(n); got != want {
			t.Errorf("Supported(%d) = %v, want %v", n, got, want)
		}
	}
	panics := func(name string, f func()) {
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	panics("NewPlan(7)", func() { NewPlan(7) })
	panics("NewPlan(0)", func() { NewPlan(0) })
	p := NewPlan(8)
	panics("Forward of 4 with a plan of 8", func() { p.Forward(make([]complex128, 4)) })
	panics("Inverse of 9 with a plan of 8", func() { p.Inverse(make([]complex128, 9), 1) })
	panics("ForwardBatch of 3 lines in 16", func() { p.ForwardBatch(make([]complex128, 16), 3) })
	panics("InverseBatch of 0 lines", func() { p.InverseBatch(nil, 0, 1) })
}

// TestTwiddle checks twiddle against math.Sincos in every octant (of an
// angle in [-pi, pi], where math.Sincos's argument is within an ulp of
// pi of the exact angle).
func TestTwiddle(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7, 8, 12, 100, 2048, 3000} {
		for k := 0; k < n; k++ {
			kk := k
			if 2*kk > n {
				kk -= n
			}
			s, c := math.Sincos(-2 * math.Pi * float64(kk) / float64(n))
			w := twiddle(k, n)
			if d := math.Hypot(real(w)-c, imag(w)-s); d > 1e-15 {
				t.Fatalf("twiddle(%d, %d) = %v, want %v (%.3g off)", k, n, w, complex(c, s), d)
			}
		}
	}
}

var benchSizes = []int{64, 256, 1024, 2048, 4096}

// BenchmarkForward times one forward transform of a line, fftk against
// gonum's CmplxFFT (in place, as the CPU backend calls it). Each op copies
// the input in first (a few percent of the time at n = 2048, the same for
// both), so that repeated transforms do not overflow.
func BenchmarkForward(b *testing.B) {
	for _, n := range benchSizes {
		x := randLine(rand.New(rand.NewPCG(5, 6)), n)
		b.Run(fmt.Sprintf("fftk/%d", n), func(b *testing.B) {
			p := NewPlan(n)
			y := append([]complex128(nil), x...)
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				copy(y, x)
				p.Forward(y)
			}
		})
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			g := fourier.NewCmplxFFT(n)
			y := append([]complex128(nil), x...)
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				copy(y, x)
				g.Coefficients(y, y)
			}
		})
	}
}

// BenchmarkInverse times one inverse transform scaled by 1/n, after a
// copy of the input as in BenchmarkForward.
func BenchmarkInverse(b *testing.B) {
	for _, n := range benchSizes {
		x := randLine(rand.New(rand.NewPCG(5, 6)), n)
		b.Run(fmt.Sprintf("fftk/%d", n), func(b *testing.B) {
			p := NewPlan(n)
			y := append([]complex128(nil), x...)
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				copy(y, x)
				p.Inverse(y, 1/float64(n))
			}
		})
	}
}

// TestAVX2 checks that the radix-4 passes give the same bits with package
// vec's kernel as with the Go loops (useAVX2 false), forward and inverse,
// one line and batches (runs of odd length leave the kernel a remainder),
// on random values and on values with infinities, NaNs, signed zeros and
// subnormals (NaN compared as NaN: its payload is not part of the result).
func TestAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this processor, or the purego build: the Go loops are the only path")
	}
	defer func() { useAVX2 = true }()
	rnd := rand.New(rand.NewPCG(11, 12))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -2.5e-310, 1e308}
	same := func(a, b complex128) bool {
		eq := func(x, y float64) bool {
			return math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y))
		}
		return eq(real(a), real(b)) && eq(imag(a), imag(b))
	}
	for _, n := range []int{4, 8, 16, 32, 64, 128, 512, 2048, 4 * 3 * 5 * 4} {
		p := NewPlan(n)
		for _, b := range []int{1, 2, 3, 32} {
			for _, kind := range []string{"random", "special"} {
				x := randLine(rnd, n*b)
				if kind == "special" {
					for i := range x {
						if rnd.IntN(4) == 0 {
							x[i] = complex(special[rnd.IntN(len(special))], imag(x[i]))
						}
						if rnd.IntN(4) == 0 {
							x[i] = complex(real(x[i]), special[rnd.IntN(len(special))])
						}
					}
				}
				for _, inverse := range []bool{false, true} {
					var out [2][]complex128
					for k, avx := range []bool{false, true} {
						useAVX2 = avx
						y := append([]complex128(nil), x...)
						if inverse {
							p.InverseBatch(y, b, 1/float64(n))
						} else {
							p.ForwardBatch(y, b)
						}
						out[k] = y
					}
					for i := range x {
						if !same(out[0][i], out[1][i]) {
							t.Fatalf("n=%d b=%d %s inverse=%v: element %d: %v with the Go loops, %v with AVX2", n, b, kind, inverse, i, out[0][i], out[1][i])
						}
					}
				}
			}
		}
	}
}

// TestStrided checks ForwardStrided and InverseStrided against
// ForwardBatch and InverseBatch on the same lines gathered into rows of
// b: the same bits (NaNs aside, which need only be NaN), with the Go
// loops and with AVX2, for lengths that read and write the rows in their
// first and last passes (powers of two from 8) and lengths that gather
// them, row strides equal to b and larger; the elements between the rows
// are not touched.
func TestStrided(t *testing.T) {
	defer func(v bool) { useAVX2 = v }(useAVX2)
	rnd := rand.New(rand.NewPCG(21, 22))
	same := func(a, b complex128) bool {
		eq := func(x, y float64) bool {
			return math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y))
		}
		return eq(real(a), real(b)) && eq(imag(a), imag(b))
	}
	avx := []bool{false}
	if useAVX2 {
		avx = append(avx, true)
	}
	for _, n := range []int{1, 2, 3, 4, 5, 8, 12, 16, 32, 64, 128, 240, 2048} {
		p := NewPlan(n)
		for _, b := range []int{1, 2, 3, 32} {
			for _, ld := range []int{b, b + 1, 2*b + 3} {
				for _, inverse := range []bool{false, true} {
					for _, a := range avx {
						useAVX2 = a
						x := randLine(rnd, (n-1)*ld+b)
						if rnd.IntN(2) == 0 {
							x[rnd.IntN(len(x))] = complex(math.Inf(1), math.NaN())
						}
						g := make([]complex128, n*b)
						for j := range n {
							copy(g[j*b:(j+1)*b], x[j*ld:j*ld+b])
						}
						y := append([]complex128(nil), x...)
						if inverse {
							p.InverseBatch(g, b, 1/float64(n))
							p.InverseStrided(y, b, ld, 1/float64(n))
						} else {
							p.ForwardBatch(g, b)
							p.ForwardStrided(y, b, ld)
						}
						for i := range y {
							j, l := i/ld, i%ld
							want := x[i] // between the rows: untouched
							if l < b {
								want = g[j*b+l]
							}
							if !same(y[i], want) {
								t.Fatalf("n=%d b=%d ld=%d inverse=%v avx2=%v: element %d (row %d, column %d): %v, want %v", n, b, ld, inverse, a, i, j, l, y[i], want)
							}
						}
					}
				}
			}
		}
	}
}
