package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// sumTol is the error allowed in float sums and dots, relative to the sum
// of the absolute values of the terms.
const sumTol = 1e-12

// positive returns n random floats in (0, 1] or random integers: a sum
// without cancellation, where the relative error of the result counts.
func (s *suite[T]) positive(r *rand.Rand, n int) []T {
	if !s.isFloat() {
		return s.random(r, n)
	}
	x := make([]T, n)
	for i := range x {
		x[i] = T(1 - r.Float64())
	}
	return x
}

func (s *suite[T]) sum(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		for _, x := range [][]T{s.random(r, n), s.positive(r, n), s.small(r, n)} {
			b := s.upload(t, x)
			s.checkSum(t, sizeName(n)+": Sum", s.b.Sum(b), x)
			s.b.Free(b)
		}
	}
	if s.isFloat() {
		inf, nan := T(math.Inf(1)), T(math.NaN())
		for _, x := range [][]T{{1, inf, 2}, {inf, -inf}, {1, nan}, {-inf, 3}} {
			b := s.upload(t, x)
			s.checkSum(t, fmt.Sprintf("Sum of %v", x), s.b.Sum(b), x)
			s.b.Free(b)
		}
	}
}

// checkSum checks got against the sum of x: for floats a Float64 scalar
// within sumTol*sum|x| of the exact sum (or the same Inf or NaN), for
// integers the exact wrapping sum as an Int64 or Uint64 scalar.
func (s *suite[T]) checkSum(t *testing.T, what string, got driver.Scalar, x []T) {
	t.Helper()
	s.checkReduction(t, what, got, len(x),
		func(i int) float64 { return float64(x[i]) },
		func(i int) uint64 { return uint64(x[i]) })
}

func (s *suite[T]) dot(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		for k, x := range [][]T{s.random(r, n), s.positive(r, n), s.small(r, n)} {
			y := [][]T{s.random(r, n), s.positive(r, n), s.small(r, n)}[k]
			bx, by := s.upload(t, x), s.upload(t, y)
			s.checkDot(t, sizeName(n)+": Dot", s.b.Dot(bx, by), x, y)
			// Dot(x, x), the square of the norm, with the same buffer twice.
			s.checkDot(t, sizeName(n)+": Dot(x, x)", s.b.Dot(bx, bx), x, x)
			s.b.Free(bx)
			s.b.Free(by)
		}
	}
}

// checkDot checks got against the sum of x[i]*y[i], as checkSum does.
// Integer products wrap as int64 (signed) or uint64 (unsigned) products of
// the sign- or zero-extended elements.
func (s *suite[T]) checkDot(t *testing.T, what string, got driver.Scalar, x, y []T) {
	t.Helper()
	s.checkReduction(t, what, got, len(x),
		func(i int) float64 { return float64(x[i]) * float64(y[i]) },
		func(i int) uint64 { return uint64(x[i]) * uint64(y[i]) })
}

// checkReduction checks got against the sum of n terms: ft(i) for floats,
// it(i) modulo 2^64 for integers (signed elements sign-extended, so that
// the sum read as an int64 is the wrapping int64 sum).
func (s *suite[T]) checkReduction(t *testing.T, what string, got driver.Scalar, n int, ft func(int) float64, it func(int) uint64) {
	t.Helper()
	dt := s.dtype()
	switch {
	case dt.IsFloat():
		if got.DType() != backend.Float64 {
			t.Errorf("%s: result of type %v, want float64", what, got.DType())
		}
		plain := 0.0
		for i := 0; i < n; i++ {
			plain += ft(i)
		}
		g := got.Float64()
		if math.IsInf(plain, 0) || math.IsNaN(plain) {
			if !same(g, plain) {
				t.Errorf("%s = %v, want %v", what, g, plain)
			}
			return
		}
		want, abs := neumaier(n, ft)
		if err := math.Abs(g - want); !(err <= sumTol*abs) {
			t.Errorf("%s = %v, want %v (error %.3g, %.3g of the sum of |terms| %v)", what, g, want, err, err/abs, abs)
		}
	case dt.IsSigned():
		var want int64
		for i := 0; i < n; i++ {
			want += int64(it(i))
		}
		if got.DType() != backend.Int64 || got.Int64() != want {
			t.Errorf("%s = %v (%v), want %v (int64)", what, got, got.DType(), want)
		}
	default:
		var want uint64
		for i := 0; i < n; i++ {
			want += it(i)
		}
		if got.DType() != backend.Uint64 || got.Uint64() != want {
			t.Errorf("%s = %v (%v), want %v (uint64)", what, got, got.DType(), want)
		}
	}
}

func (s *suite[T]) argmin(t *testing.T) { s.arg(t, false) }

func (s *suite[T]) argmax(t *testing.T) { s.arg(t, true) }

// arg tests Argmin (max false) or Argmax (max true) on random inputs, on
// inputs full of ties, and on floats with NaNs, infinities and signed
// zeros.
func (s *suite[T]) arg(t *testing.T, max bool) {
	name := "Argmin"
	if max {
		name = "Argmax"
	}
	run := func(what string, x []T) {
		t.Helper()
		b := s.upload(t, x)
		var i int
		var v driver.Scalar
		if max {
			i, v = s.b.Argmax(b)
		} else {
			i, v = s.b.Argmin(b)
		}
		s.checkArg(t, fmt.Sprintf("n=%d: %s of %s", len(x), name, what), i, v, x, max)
		s.b.Free(b)
	}
	for _, n := range s.sizes() {
		r := rng(t, n)
		run("random elements", s.random(r, n))
		run("elements with ties", s.small(r, n))
		run("equal elements", make([]T, n))
		if n == 0 {
			continue
		}
		// The extreme at the end only, then twice far apart.
		x := s.small(r, n)
		ext := T(20)
		if !max {
			ext = 0
			if s.dtype().IsSigned() || s.isFloat() {
				ext = ext - 20
			}
		}
		x[n-1] = ext
		run("the extreme last", x)
		x[n/2] = ext
		run("the extreme twice", x)
		if !s.isFloat() {
			continue
		}
		nan, inf := T(math.NaN()), T(math.Inf(1))
		x = s.random(r, n)
		x[r.IntN(n)] = inf
		x[r.IntN(n)] = -inf
		run("infinities", x)
		p := r.IntN(n)
		x[p] = nan
		run("a NaN", x)
		x[p+(n-p)/2] = nan
		run("two NaNs", x)
		x = s.random(r, n)
		x[n-1] = nan
		run("a NaN last", x)
		x[0] = nan
		run("a NaN first", x)
		negZero := T(math.Copysign(0, -1))
		x = make([]T, n)
		for i := range x {
			if i%3 == 1 {
				x[i] = negZero
			}
		}
		run("+0 and -0", x)
		x[0] = negZero
		run("-0 and +0", x)
	}
}

// argRef returns the index of the first smallest (or largest) element of
// x, a NaN counting as smaller (larger) than every number, or -1.
func argRef[T backend.Element](x []T, max bool) int {
	if len(x) == 0 {
		return -1
	}
	best := 0
	for i := 1; i < len(x); i++ {
		b, v := x[best], x[i]
		if b != b {
			break
		}
		if v != v || (!max && v < b) || (max && v > b) {
			best = i
		}
	}
	return best
}

// checkArg checks the index and value that Argmin or Argmax returned.
func (s *suite[T]) checkArg(t *testing.T, what string, i int, v driver.Scalar, x []T, max bool) {
	t.Helper()
	want := argRef(x, max)
	if i != want {
		var got any = "out of range"
		if i >= 0 && i < len(x) {
			got = x[i]
		}
		var wv any = "none"
		if want >= 0 {
			wv = x[want]
		}
		t.Errorf("%s: index %d (element %v), want %d (element %v)", what, i, got, want, wv)
		return
	}
	if want < 0 {
		if v.Float64() != 0 {
			t.Errorf("%s of nothing: value %v, want 0", what, v)
		}
		return
	}
	if v.DType() != s.dtype() || !same(driver.ValueOf[T](v), x[want]) {
		t.Errorf("%s: value %v of type %v, want %v of type %v", what, v, v.DType(), x[want], s.dtype())
	}
}

// threadIndependence checks that reductions of large inputs give bitwise
// the same result for several thread budgets.
func threadIndependence(t *testing.T, b driver.Backend, quick bool) {
	prev := backend.SetThreads(1)
	defer backend.SetThreads(prev)
	n := 1<<20 + 7
	if quick {
		n = 1<<18 + 5
	}
	r := rand.New(rand.NewPCG(1, 2))
	x64, y64 := make([]float64, n), make([]float64, n)
	x32 := make([]float32, n)
	for i := range x64 {
		x64[i] = (2*r.Float64() - 1) * math.Ldexp(1, r.IntN(21)-10)
		y64[i] = 2*r.Float64() - 1
		x32[i] = float32(x64[i])
	}
	s64, s32 := &suite[float64]{b: b}, &suite[float32]{b: b}
	bx, by, b32 := s64.upload(t, x64), s64.upload(t, y64), s32.upload(t, x32)
	defer func() { b.Free(bx); b.Free(by); b.Free(b32) }()
	type result struct {
		sum, dot, sum32, dot32 uint64
		argmin, argmax         int
	}
	measure := func() result {
		i, _ := b.Argmin(bx)
		j, _ := b.Argmax(bx)
		return result{
			sum: b.Sum(bx).Bits(), dot: b.Dot(bx, by).Bits(),
			sum32: b.Sum(b32).Bits(), dot32: b.Dot(b32, b32).Bits(),
			argmin: i, argmax: j,
		}
	}
	ref := measure()
	for _, threads := range []int{2, 3, 4, 7} {
		backend.SetThreads(threads)
		if got := measure(); got != ref {
			t.Errorf("with %d threads: %+v, with 1 thread: %+v", threads, got, ref)
		}
	}
}
