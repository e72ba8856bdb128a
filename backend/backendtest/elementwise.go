package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

func (s *suite[T]) fill(t *testing.T) {
	r := rng(t, 0)
	values := []T{0, 1, s.one(r), s.one(r)}
	if s.isFloat() {
		negZero := T(math.Copysign(0, -1))
		values = append(values, negZero, T(math.Inf(-1)), T(math.NaN()))
	}
	for _, n := range s.sizes() {
		for _, v := range values {
			x := s.upload(t, s.random(r, n))
			s.b.Fill(x, driver.ScalarOf(v))
			want := make([]T, n)
			for i := range want {
				want[i] = v
			}
			checkSame(t, fmt.Sprintf("n=%d: Fill(%v)", n, v), s.download(t, x), want)
			s.b.Free(x)
		}
	}
}

func (s *suite[T]) copy(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		src, dst := s.random(r, n), s.random(r, n)
		d, x := s.upload(t, dst), s.upload(t, src)
		s.b.Copy(d, x)
		checkSame(t, sizeName(n)+": Copy", s.download(t, d), src)
		checkSame(t, sizeName(n)+": Copy source", s.download(t, x), src)
		s.b.Free(d)
		s.b.Free(x)
	}
}

func (s *suite[T]) scale(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		for _, a := range []T{0, 1, 2, s.one(r)} {
			xh := s.random(r, n)
			x := s.upload(t, xh)
			s.b.Scale(x, driver.ScalarOf(a))
			want := make([]T, n)
			for i := range want {
				want[i] = xh[i] * a
			}
			checkSame(t, fmt.Sprintf("n=%d: Scale by %v", n, a), s.download(t, x), want)
			s.b.Free(x)
		}
	}
}

func (s *suite[T]) axpy(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		for _, a := range []T{0, 1, s.one(r), s.one(r)} {
			xh, yh := s.random(r, n), s.random(r, n)
			x, y := s.upload(t, xh), s.upload(t, yh)
			s.b.Axpy(driver.ScalarOf(a), x, y)
			got := s.download(t, y)
			what := fmt.Sprintf("n=%d: Axpy with a=%v", n, a)
			if s.isFloat() {
				checkAxpy(t, what, a, xh, yh, got)
			} else {
				want := make([]T, n)
				for i := range want {
					want[i] = a*xh[i] + yh[i]
				}
				checkSame(t, what, got, want)
			}
			checkSame(t, what+": x", s.download(t, x), xh)
			s.b.Free(x)
			s.b.Free(y)
		}
	}
	if s.isFloat() {
		// IEEE special values, and no shortcut for a == 0: 0*Inf is NaN.
		inf, nan := T(math.Inf(1)), T(math.NaN())
		xh := []T{inf, nan, 1, -inf, 3, 0}
		yh := []T{1, 1, inf, 2, nan, -(T(1) / 2)}
		for _, a := range []T{0, 2, inf} {
			x, y := s.upload(t, xh), s.upload(t, yh)
			s.b.Axpy(driver.ScalarOf(a), x, y)
			want := make([]T, len(xh))
			for i := range want {
				want[i] = T(a*xh[i]) + yh[i]
			}
			checkSame(t, fmt.Sprintf("Axpy with a=%v and special values", a), s.download(t, y), want)
			s.b.Free(x)
			s.b.Free(y)
		}
	}
}

// checkAxpy checks got = a*x + y for floats, allowing a fused multiply-add:
// within eps*(|a*x| + |a*x+y|) of the twice-rounded result.
func checkAxpy[T backend.Element](t *testing.T, what string, a T, x, y, got []T) {
	t.Helper()
	bad := 0
	for i := range got {
		p := T(a * x[i]) // rounded: no fused multiply-add in the reference
		want := p + y[i]
		if same(got[i], want) {
			continue
		}
		diff := math.Abs(float64(got[i]) - float64(want))
		if tol := eps[T]() * (math.Abs(float64(p)) + math.Abs(float64(want))); diff <= tol {
			continue
		}
		if bad < 5 {
			t.Errorf("%s: element %d = %v, want %v (a=%v, x=%v, y=%v)", what, i, got[i], want, a, x[i], y[i])
		}
		bad++
	}
	if bad > 5 {
		t.Errorf("%s: %d elements wrong in all", what, bad)
	}
}

func (s *suite[T]) axpby(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		coefs := [][2]T{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {s.one(r), s.one(r)}, {s.one(r), 1}}
		xh, yh := s.random(r, n), s.random(r, n)
		for _, c := range coefs {
			a, b := c[0], c[1]
			what := fmt.Sprintf("n=%d: Axpby with a=%v, b=%v", n, a, b)
			x, y := s.upload(t, xh), s.upload(t, yh)
			s.b.Axpby(driver.ScalarOf(a), x, driver.ScalarOf(b), y)
			checkAxpby(t, what, a, xh, b, yh, s.download(t, y))
			checkSame(t, what+": x", s.download(t, x), xh)
			// x and y the same buffer: y = (a*y) + (b*y).
			s.b.Axpby(driver.ScalarOf(a), x, driver.ScalarOf(b), x)
			checkAxpby(t, what+", x = y", a, xh, b, xh, s.download(t, x))
			s.b.Free(x)
			s.b.Free(y)
		}
	}
	if s.isFloat() {
		inf, nan := T(math.Inf(1)), T(math.NaN())
		xh := []T{inf, nan, 1, -inf, 3, 0}
		yh := []T{1, 1, inf, 2, nan, -(T(1) / 2)}
		for _, c := range [][2]T{{0, 0}, {0, 1}, {1, 0}, {2, inf}} {
			x, y := s.upload(t, xh), s.upload(t, yh)
			s.b.Axpby(driver.ScalarOf(c[0]), x, driver.ScalarOf(c[1]), y)
			checkAxpby(t, fmt.Sprintf("Axpby with a=%v, b=%v and special values", c[0], c[1]), c[0], xh, c[1], yh, s.download(t, y))
			s.b.Free(x)
			s.b.Free(y)
		}
	}
}

// checkAxpby checks got = a*x + b*y: bitwise for integers; for floats the
// twice-rounded products added, or within eps*(|a*x| + |b*y| + |result|)
// of it, so that a backend may fuse a multiply-add.
func checkAxpby[T backend.Element](t *testing.T, what string, a T, x []T, b T, y, got []T) {
	t.Helper()
	bad := 0
	for i := range got {
		p, q := T(a*x[i]), T(b*y[i]) // rounded: no fused multiply-add in the reference
		want := p + q
		if same(got[i], want) {
			continue
		}
		diff := math.Abs(float64(got[i]) - float64(want))
		if tol := eps[T]() * (abs(p) + abs(q) + abs(want)); diff <= tol {
			continue
		}
		if bad < 5 {
			t.Errorf("%s: element %d = %v, want %v (x=%v, y=%v)", what, i, got[i], want, x[i], y[i])
		}
		bad++
	}
	if bad > 5 {
		t.Errorf("%s: %d elements wrong in all", what, bad)
	}
}

var ops = []driver.BinaryOp{driver.Add, driver.Sub, driver.Mul, driver.Div}

// apply sets dst = x op y with Go's arithmetic in T: the reference of
// Binary.
func apply[T backend.Element](op driver.BinaryOp, dst, x, y []T) {
	for i := range dst {
		switch op {
		case driver.Add:
			dst[i] = x[i] + y[i]
		case driver.Sub:
			dst[i] = x[i] - y[i]
		case driver.Mul:
			dst[i] = x[i] * y[i]
		default:
			dst[i] = x[i] / y[i]
		}
	}
}

// applyScalar sets dst = x op c: the reference of BinaryScalar.
func applyScalar[T backend.Element](op driver.BinaryOp, dst, x []T, c T) {
	for i := range dst {
		switch op {
		case driver.Add:
			dst[i] = x[i] + c
		case driver.Sub:
			dst[i] = x[i] - c
		case driver.Mul:
			dst[i] = x[i] * c
		default:
			dst[i] = x[i] / c
		}
	}
}

// divisors returns random divisors: no zeros for integers (small ones half
// of the time, and -1), zeros, infinities and NaNs among them for floats.
func (s *suite[T]) divisors(r *rand.Rand, n int) []T {
	y := s.random(r, n)
	for i := range y {
		switch k := r.IntN(16); {
		case !s.isFloat() && y[i] == 0, !s.isFloat() && k < 8:
			y[i] = T(r.IntN(7) + 1)
		case k == 8 && s.dtype().IsSigned():
			y[i] = T(0) - 1
		case k == 9 && s.isFloat():
			y[i] = 0
		case k == 10 && s.isFloat():
			y[i] = T(math.Inf(1))
		case k == 11 && s.isFloat():
			y[i] = T(math.NaN())
		}
	}
	return y
}

// edge returns x with the type's extreme values in its first elements
// (the most negative signed integer, so that it meets a -1 divisor).
func (s *suite[T]) edge(x []T) []T {
	var ext []T
	// Variables, not constants: a constant converted to T must fit every
	// element type.
	var (
		min32, max32 int64  = math.MinInt32, math.MaxInt32
		min64, max64 int64  = math.MinInt64, math.MaxInt64
		maxU32       uint64 = math.MaxUint32
		maxU64       uint64 = math.MaxUint64
		min8, max8   int64  = math.MinInt8, math.MaxInt8
		min16, max16 int64  = math.MinInt16, math.MaxInt16
		maxU8        uint64 = math.MaxUint8
		maxU16       uint64 = math.MaxUint16
	)
	switch s.dtype() {
	case backend.Int32:
		ext = []T{T(min32), T(max32)}
	case backend.Int64:
		ext = []T{T(min64), T(max64)}
	case backend.Uint32:
		ext = []T{T(maxU32)}
	case backend.Uint64:
		ext = []T{T(maxU64)}
	case backend.Int8:
		ext = []T{T(min8), T(max8)}
	case backend.Int16:
		ext = []T{T(min16), T(max16)}
	case backend.Uint8:
		ext = []T{T(maxU8)}
	case backend.Uint16:
		ext = []T{T(maxU16)}
	default:
		ext = []T{T(math.Inf(1)), T(math.Inf(-1)), T(math.NaN()), T(math.Copysign(0, -1))}
	}
	copy(x, ext)
	return x
}

func (s *suite[T]) binary(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		xh, dh := s.edge(s.random(r, n)), s.random(r, n)
		yAny, yDiv := s.random(r, n), s.divisors(r, n)
		for _, op := range ops {
			yh := yAny
			if op == driver.Div {
				yh = yDiv
			}
			if n > 2 && s.dtype().IsSigned() {
				yh[0] = T(0) - 1 // MinInt / -1 wraps to MinInt
			}
			want := make([]T, n)
			apply(op, want, xh, yh)
			what := fmt.Sprintf("n=%d: %v", n, op)
			// dst distinct from x and y, dst == x, dst == y.
			for _, alias := range []string{"", " into x", " into y"} {
				x, y := s.upload(t, xh), s.upload(t, yh)
				var d driver.Buffer
				switch alias {
				case "":
					d = s.upload(t, dh)
				case " into x":
					d = x
				default:
					d = y
				}
				s.b.Binary(op, d, x, y)
				checkSame(t, what+alias, s.download(t, d), want)
				if alias == "" {
					checkSame(t, what+": x", s.download(t, x), xh)
					checkSame(t, what+": y", s.download(t, y), yh)
					s.b.Free(d)
				}
				s.b.Free(x)
				s.b.Free(y)
			}
		}
	}
}

func (s *suite[T]) binaryScalar(t *testing.T) {
	for _, n := range s.sizes() {
		r := rng(t, n)
		xh, dh := s.edge(s.random(r, n)), s.random(r, n)
		for _, op := range ops {
			scalars := []T{1, 3, s.one(r)}
			if s.dtype().IsSigned() {
				scalars = append(scalars, T(0)-1)
			}
			if s.isFloat() {
				scalars = append(scalars, 0, T(math.Inf(-1)), T(math.NaN()))
			}
			for _, c := range scalars {
				if !s.isFloat() && op == driver.Div && c == 0 {
					continue
				}
				want := make([]T, n)
				applyScalar(op, want, xh, c)
				what := fmt.Sprintf("n=%d: %v %v", n, op, c)
				for _, inPlace := range []bool{false, true} {
					x := s.upload(t, xh)
					d := x
					if !inPlace {
						d = s.upload(t, dh)
					}
					s.b.BinaryScalar(op, d, x, driver.ScalarOf(c))
					if inPlace {
						checkSame(t, what+" in place", s.download(t, d), want)
					} else {
						checkSame(t, what, s.download(t, d), want)
						checkSame(t, what+": x", s.download(t, x), xh)
						s.b.Free(d)
					}
					s.b.Free(x)
				}
			}
		}
	}
}
