package backendtest

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// mathUlps is the bound of Math's results in units of the last place of
// the element type, against Go's math in float64 rounded to the type: what
// the implementations state (the CPU backend is within 1 ulp; CUDA's libm
// within 2 for float64 and 4 for float32; powf within 8).
const mathUlps = 4

// unaryRef is the reference of each UnaryOp on float64 arguments. An op
// without a reference fails the suite: a new UnaryOp needs one here.
var unaryRef = map[string]func(float64) float64{
	"exp": refExp, "log": math.Log, "sqrt": math.Sqrt, "sin": math.Sin,
	"cos": math.Cos, "tanh": math.Tanh, "floor": math.Floor, "abs": math.Abs,
	// Go's Log2 is 13 ulps off near 1: log(x)/ln 2 is within two.
	"log10": math.Log10, "log2": func(x float64) float64 { return math.Log(x) / math.Ln2 }, "tan": math.Tan, "arctan": math.Atan,
	"arcsinh": math.Asinh, "arccosh": math.Acosh, "arctanh": math.Atanh,
	// Go's Asin and Acos are 10 ulps off near 1, and its Sinh and Cosh
	// overflow below sinh's threshold (710.47): these forms are within an
	// ulp or two.
	"arcsin": func(x float64) float64 { return math.Atan2(x, math.Sqrt((1-x)*(1+x))) },
	"arccos": func(x float64) float64 { return 2 * math.Atan(math.Sqrt((1-x)/(1+x))) },
	"sinh":   func(x float64) float64 { return bigHyp(x, math.Sinh, -1) },
	"cosh":   func(x float64) float64 { return bigHyp(x, math.Cosh, 1) },
	"sign": func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x * 0 // 0, or NaN
	},
}

// bigHyp is sinh (odd = -1) or cosh (+1) of x: f for |x| <= 20, else
// exp(|x|)/2 (the other exponential is below an ulp), computed above 709
// as (exp(|x|/2)/2)*exp(|x|/2), finite up to the true overflow.
func bigHyp(x float64, f func(float64) float64, odd float64) float64 {
	a := math.Abs(x)
	if a <= 20 || a != a {
		return f(x)
	}
	v := math.Exp(a) / 2
	if a > 709 {
		h := math.Exp(a / 2)
		v = h / 2 * h
	}
	if x < 0 && odd < 0 {
		v = -v
	}
	return v
}

// refExp is math.Exp, except just below the overflow threshold (709.78),
// where Go's amd64 math.Exp returns +Inf for finite results (exp(709.7) =
// 1.6549840276802644e+308, NumPy's and the CPU backend's): there the square
// of exp(x/2), within an ulp.
func refExp(x float64) float64 {
	if x > 709 && x < 709.79 {
		h := math.Exp(x / 2)
		return h * h
	}
	return math.Exp(x)
}

// exactUnary are the ops whose results must be bitwise Go's.
var exactUnary = map[string]bool{"floor": true, "abs": true, "sign": true}

func testMath(t *testing.T, b driver.Backend) {
	m := b.(driver.Math)
	t.Run("Unary/float64", func(t *testing.T) { unaryFloat[float64](t, b, m) })
	t.Run("Unary/float32", func(t *testing.T) { unaryFloat[float32](t, b, m) })
	t.Run("Abs/int32", func(t *testing.T) { absInt[int32](t, b, m) })
	t.Run("Abs/int8", func(t *testing.T) { absInt[int8](t, b, m) })
	t.Run("Abs/uint16", func(t *testing.T) { absInt[uint16](t, b, m) })
	t.Run("Abs/int64", func(t *testing.T) { absInt[int64](t, b, m) })
	t.Run("Pow/float64", func(t *testing.T) { powFloat[float64](t, b, m, mathUlps) })
	t.Run("Pow/float32", func(t *testing.T) { powFloat[float32](t, b, m, 2*mathUlps) })
	t.Run("BinaryMath/float64", func(t *testing.T) { binaryMath[float64](t, b, m) })
	t.Run("BinaryMath/float32", func(t *testing.T) { binaryMath[float32](t, b, m) })
	t.Run("BinaryMath/int32", func(t *testing.T) { binaryMath[int32](t, b, m) })
	t.Run("BinaryMath/uint8", func(t *testing.T) { binaryMath[uint8](t, b, m) })
	t.Run("BinaryMath/int64", func(t *testing.T) { binaryMath[int64](t, b, m) })
	t.Run("Clip/float64", func(t *testing.T) { clip[float64](t, b, m) })
	t.Run("Clip/float32", func(t *testing.T) { clip[float32](t, b, m) })
	t.Run("Clip/int32", func(t *testing.T) { clip[int32](t, b, m) })
	t.Run("Clip/uint8", func(t *testing.T) { clip[uint8](t, b, m) })
}

// specials are the special arguments every float function meets.
func specials[T backend.Float]() []T {
	inf := math.Inf(1)
	return []T{0, T(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, T(inf), T(-inf), T(math.NaN()), 1000, -1000, 1e-30, 3.75, -2.25, 88.5, 710}
}

func unaryFloat[T backend.Float](t *testing.T, b driver.Backend, m driver.Math) {
	for op := driver.UnaryOp(0); op.Valid(); op++ {
		ref, ok := unaryRef[op.String()]
		if !ok {
			t.Errorf("UnaryOp %v has no reference in backendtest: add one to unaryRef", op)
			continue
		}
		bound := float64(mathUlps)
		if exactUnary[op.String()] {
			bound = 0
		}
		for _, n := range capSizesOf[T]() {
			r := rng(t, n)
			var x []T
			if n > 0 {
				x = append(specials[T](), randFloats[T](r, n)...)
			}
			want := make([]T, len(x))
			for i, v := range x {
				want[i] = T(ref(float64(v)))
			}
			bx := up(t, b, x)
			bd := zeros[T](t, b, len(x))
			m.Unary(op, bd, bx)
			checkUlps(t, fmt.Sprintf("%v of %d elements", op, len(x)), down[T](t, b, bd), want, bound)
			// In place: dst is x.
			m.Unary(op, bx, bx)
			checkUlps(t, fmt.Sprintf("%v in place of %d elements", op, len(x)), down[T](t, b, bx), want, bound)
			freeAll(b, bx, bd)
		}
	}
}

// integer is the set of integer element types.
type integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

func absInt[T integer](t *testing.T, b driver.Backend, m driver.Math) {
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x := make([]T, n)
		for i := range x {
			x[i] = T(r.Uint64())
		}
		if n > 2 {
			// The most negative value wraps to itself; the largest stays.
			var z T
			x[0] = z - 1                            // -1, or the largest unsigned value
			x[1] = T(1) << (8*unsafe.Sizeof(z) - 1) // the most negative, or the top bit
		}
		want := make([]T, n)
		for i, v := range x {
			want[i] = v
			if v < 0 {
				want[i] = -v
			}
		}
		bx, bd := up(t, b, x), zeros[T](t, b, n)
		m.Unary(driver.Abs, bd, bx)
		checkSame(t, fmt.Sprintf("abs of %d elements", n), down[T](t, b, bd), want)
		freeAll(b, bx, bd)
	}
}

func powFloat[T backend.Float](t *testing.T, b driver.Backend, m driver.Math, bound float64) {
	nan, inf := T(math.NaN()), T(math.Inf(1))
	// NumPy's special cases: pow(x, 0) = 1 and pow(1, y) = 1 even for NaN,
	// pow(0, y < 0) = +Inf, pow(x < 0, non-integer y) = NaN.
	sx := []T{nan, 1, 0, 0, -2, -2, 2, inf, -inf, 0.5, T(math.Copysign(0, -1))}
	sy := []T{0, nan, -1, 2, 0.5, 3, -inf, -1, 3, inf, -3}
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x, y := slices.Clone(sx), slices.Clone(sy)
		for i := 0; i < n; i++ {
			x = append(x, T(0.5+1.5*r.Float64()))
			y = append(y, T(6*r.Float64()-3))
		}
		want := make([]T, len(x))
		for i := range x {
			want[i] = T(math.Pow(float64(x[i]), float64(y[i])))
		}
		bx, by, bd := up(t, b, x), up(t, b, y), zeros[T](t, b, len(x))
		m.Pow(bd, bx, by)
		checkUlps(t, fmt.Sprintf("Pow of %d elements", len(x)), down[T](t, b, bd), want, bound)
		for _, s := range []T{2, -1.5, 0, nan} {
			for i := range x {
				want[i] = T(math.Pow(float64(x[i]), float64(s)))
			}
			m.PowScalar(bd, bx, driver.ScalarOf(s))
			checkUlps(t, fmt.Sprintf("PowScalar(%v) of %d elements", s, len(x)), down[T](t, b, bd), want, bound)
		}
		freeAll(b, bx, by, bd)
	}
}

func clip[T backend.Element](t *testing.T, b driver.Backend, m driver.Math) {
	float := backend.DTypeOf[T]().IsFloat()
	type bounds struct{ lo, hi T }
	cases := []bounds{{2, 9}, {5, 5}, {9, 2}} // lo > hi: hi everywhere
	if float {
		nan := T(math.NaN())
		m1 := -1.0
		cases = append(cases, bounds{nan, 3}, bounds{T(m1), nan}, bounds{T(math.Inf(-1)), T(math.Inf(1))})
	}
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x := randSmall[T](r, n, 0, 12)
		if float && n > 3 {
			x[1], x[2] = T(math.NaN()), T(math.Inf(-1))
		}
		bx, bd := up(t, b, x), zeros[T](t, b, n)
		for _, c := range cases {
			want := make([]T, n)
			for i, v := range x {
				switch {
				case v != v || c.lo != c.lo || c.hi != c.hi:
					want[i] = T(math.NaN())
				default:
					want[i] = min(max(v, c.lo), c.hi)
				}
			}
			m.Clip(bd, bx, driver.ScalarOf(c.lo), driver.ScalarOf(c.hi))
			checkSame(t, fmt.Sprintf("Clip(%v, %v) of %d elements", c.lo, c.hi, n), down[T](t, b, bd), want)
		}
		freeAll(b, bx, bd)
	}
}

// binaryMathRef is NumPy's function of each BinaryMathOp: maximum and
// minimum propagate NaN and give the second argument for equal ones
// (maximum(+0, -0) is -0), mod and floor_divide follow npy_divmod for
// floats and Python's floor rule for integers (0 for a zero divisor,
// the most negative integer divided by -1 is itself).
func binaryMathRef[T backend.Element](op driver.BinaryMathOp, a, b T) T {
	float := backend.DTypeOf[T]().IsFloat()
	switch op.String() {
	case "maximum", "minimum":
		if a != a {
			return a
		}
		if b != b || a == b {
			return b
		}
		if (a > b) == (op.String() == "maximum") {
			return a
		}
		return b
	case "arctan2":
		return T(math.Atan2(float64(a), float64(b)))
	}
	mod := op.String() == "mod"
	if float {
		fa, fb := float64(a), float64(b)
		if fb == 0 {
			if mod {
				return T(math.Mod(fa, fb))
			}
			return T(fa / fb)
		}
		m := math.Mod(fa, fb)
		div := (fa - m) / fb
		if m != 0 {
			if (fb < 0) != (m < 0) {
				m += fb
				div -= 1
			}
		} else {
			m = math.Copysign(0, fb)
		}
		var fd float64
		if div != 0 {
			fd = math.Floor(div)
			if div-fd > 0.5 {
				fd++
			}
		} else {
			fd = math.Copysign(0, fa/fb)
		}
		if mod {
			return T(m)
		}
		return T(fd)
	}
	var zero T
	if b == zero {
		return zero
	}
	if !backend.DTypeOf[T]().IsSigned() {
		ua, ub := uint64(a), uint64(b)
		if mod {
			return T(ua % ub)
		}
		return T(ua / ub)
	}
	// In int64, then wrapped to T: the most negative T divided by -1 is
	// itself, as NumPy gives.
	ia, ib := int64(a), int64(b)
	q, r := ia/ib, ia%ib
	if r != 0 && (r < 0) != (ib < 0) {
		q--
		r += ib
	}
	if mod {
		return T(r)
	}
	return T(q)
}

func binaryMath[T backend.Element](t *testing.T, b driver.Backend, m driver.Math) {
	float := backend.DTypeOf[T]().IsFloat()
	for op := driver.BinaryMathOp(0); op.Valid(); op++ {
		if op.FloatOnly() && !float {
			continue
		}
		for _, n := range capSizesOf[T]() {
			r := rng(t, n)
			x, y := randSmall[T](r, n, -7, 15), randSmall[T](r, n, -7, 15)
			if float && n > 8 {
				nan, inf, m1 := T(math.NaN()), T(math.Inf(1)), -1.0
				x[0], y[1], x[2], y[3], x[4], y[4], x[5], y[5] = nan, nan, inf, inf, 0, T(math.Copysign(0, -1)), T(m1*5.5), T(-m1*2.25)
				y[6], x[7] = 0, T(m1*3)
			}
			want := make([]T, n)
			for i := range x {
				want[i] = binaryMathRef(op, x[i], y[i])
			}
			bx, by, bd := up(t, b, x), up(t, b, y), zeros[T](t, b, n)
			m.BinaryMath(op, bd, bx, by)
			what := fmt.Sprintf("BinaryMath(%v) of %d", op, n)
			got := down[T](t, b, bd)
			if op.String() == "arctan2" {
				checkUlps(t, what, toFloat64(got), toFloat64(want), mathUlps)
			} else {
				checkSame(t, what, got, want)
			}
			freeAll(b, bx, by, bd)
		}
	}
}

func toFloat64[T backend.Element](x []T) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}
