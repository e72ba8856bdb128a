package cpu

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The functions of driver.UnaryOp beyond Abs (Log10, Log2, Tan, the
// inverse trigonometric and hyperbolic functions, Sign) and the
// driver.BinaryMathOp. Float32 elements are computed in float64 and
// rounded once, as the other unary functions; Maximum, Minimum, Mod and
// FloorDivide are computed in the element type itself, as NumPy's loops
// (npy_divmodf for float32). Log10 and Log2 are log(x) in double-double
// times 1/ln(10) or 1/ln(2) in double-double, so that they are correctly
// rounded but for rare double roundings, and exact at powers of 10 and 2;
// Sinh and Cosh above |x| = 21 are e**(|x|/2) squared and halved with
// this package's exp (math.Exp's amd64 assembly overflows from 709.5 on,
// and sinh(710) = 1.1e308 is finite); the others
// are Go's math functions (math.Tan, math.Atan, ...), but for Arcsin and
// Arccos near ±1 (asin, acos) and Sinh and Cosh (sinh, cosh), which
// follow glibc's formulas.

// log10 is log10(x), from logDD.
func log10(x float64) float64 {
	const hi, lo = 0.4342944819032518, 1.098319650216765e-17 // 1/ln(10) in two parts
	return logScaled(x, hi, lo)
}

// log2 is log2(x), from logDD.
func log2(x float64) float64 {
	const hi, lo = 1.4426950408889634, 2.0355273740931033e-17 // 1/ln(2) in two parts
	return logScaled(x, hi, lo)
}

// logScaled is log(x) times ch + cl, in double-double, with log's special
// values: NaN for NaN and x < 0, -Inf for ±0, +Inf for +Inf.
func logScaled(x, ch, cl float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	h, l := logDD(x)
	r, _ := mulDD(h, l, ch, cl)
	return r
}

// sinh is sinh(x) as glibc's __ieee754_sinh computes it, from math.Expm1
// below |x| = 21, and e**(|x|/2) squared and halved (with this package's
// exp) above, where e**-|x| is below half an ulp of e**|x|.
func sinh(x float64) float64 {
	a := math.Abs(x)
	switch {
	case a != a || a < 0x1p-28:
		return x
	case a < 21:
		t := math.Expm1(a)
		var r float64
		if a < 1 {
			r = 0.5 * (2*t - t*t/(t+1))
		} else {
			r = 0.5 * (t + t/(t+1))
		}
		return math.Copysign(r, x)
	}
	h := exp(0.5 * a)
	return math.Copysign((0.5*h)*h, x)
}

// cosh is cosh(x) as glibc's __ieee754_cosh computes it (large |x| as
// sinh).
func cosh(x float64) float64 {
	a := math.Abs(x)
	switch {
	case a != a:
		return a
	case a < 0.5*math.Ln2:
		t := math.Expm1(a)
		w := 1 + t
		return 1 + (t*t)/(w+w)
	case a < 21:
		t := exp(a)
		return 0.5*t + 0.5/t
	}
	h := exp(0.5 * a)
	return (0.5 * h) * h
}

// asin is arcsin(x): math.Asin for |x| <= 1/2, and pi/2 -
// 2*asin(sqrt((1-|x|)/2)) with x's sign above, where 1-|x| is exact (Go's
// Asin takes 1-x*x there and is 10 ulps off near 1).
func asin(x float64) float64 {
	a := math.Abs(x)
	if !(a > 0.5) || a > 1 { // NaN, |x| <= 1/2, |x| > 1 (NaN)
		return math.Asin(x)
	}
	return math.Copysign(math.Pi/2-2*math.Asin(math.Sqrt((1-a)/2)), x)
}

// acos is arccos(x): pi/2 - asin(x) for |x| <= 1/2, 2*asin(sqrt((1-x)/2))
// for x > 1/2 and pi - 2*asin(sqrt((1+x)/2)) for x < -1/2.
func acos(x float64) float64 {
	switch {
	case x > 0.5 && x <= 1:
		return 2 * math.Asin(math.Sqrt((1-x)/2))
	case x < -0.5 && x >= -1:
		return math.Pi - 2*math.Asin(math.Sqrt((1+x)/2))
	}
	return math.Acos(x)
}

// sign is NumPy's sign of a float: -1, +0 or 1, NaN for NaN.
func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

// intSign is NumPy's sign of an integer: -1, 0 or 1.
func intSign[T backend.Element](v T) T {
	var one T = 1
	switch {
	case v > 0:
		return one
	case v < 0:
		return 0 - one
	}
	return 0
}

// BinaryMath sets dst = op(x, y) elementwise (real buffers); dst may be x
// or y. It panics for Arctan2 of integer buffers.
func (*Backend) BinaryMath(op driver.BinaryMathOp, dst, x, y driver.Buffer) {
	if !op.Valid() {
		panic(fmt.Sprintf("cpu: invalid BinaryMathOp %d", int(op)))
	}
	sameBufs(op.String(), dst, x, y)
	mathOpsFor(dst.DType()).binary(op, dst, x, y)
}

func (floatMath[T]) binary(op driver.BinaryMathOp, dst, x, y driver.Buffer) {
	var f func(a, b T) T
	switch op {
	case driver.Maximum:
		f = fmaximum[T]
	case driver.Minimum:
		f = fminimum[T]
	case driver.Mod:
		f = fmod[T]
	case driver.FloorDivide:
		f = ffloordiv[T]
	default:
		f = func(a, b T) T { return T(math.Atan2(float64(a), float64(b))) }
	}
	map2K(hs[T](dst), hs[T](x), hs[T](y), f)
}

func (intMath[T]) binary(op driver.BinaryMathOp, dst, x, y driver.Buffer) {
	if op == driver.Arctan2 {
		panic(fmt.Sprintf("cpu: %v of %v: only float32 and float64 have it", op, dst.DType()))
	}
	switch dst.DType() {
	case backend.Int32:
		intBinary[int32](op, dst, x, y)
	case backend.Int64:
		intBinary[int64](op, dst, x, y)
	case backend.Uint32:
		intBinary[uint32](op, dst, x, y)
	case backend.Uint64:
		intBinary[uint64](op, dst, x, y)
	case backend.Int8:
		intBinary[int8](op, dst, x, y)
	case backend.Int16:
		intBinary[int16](op, dst, x, y)
	case backend.Uint8:
		intBinary[uint8](op, dst, x, y)
	case backend.Uint16:
		intBinary[uint16](op, dst, x, y)
	}
}

// integer is the integer element types.
type integer interface {
	int32 | int64 | uint32 | uint64 | int8 | int16 | uint8 | uint16
}

func intBinary[T integer](op driver.BinaryMathOp, dst, x, y driver.Buffer) {
	var f func(a, b T) T
	switch op {
	case driver.Maximum:
		f = func(a, b T) T { return max(a, b) }
	case driver.Minimum:
		f = func(a, b T) T { return min(a, b) }
	case driver.Mod:
		f = imod[T]
	default:
		f = ifloordiv[T]
	}
	map2K(hs[T](dst), hs[T](x), hs[T](y), f)
}

// map2K sets dst[i] = f(x[i], y[i]), in parallel above the elementwise
// threshold.
func map2K[T backend.Element](dst, x, y []T, f func(a, b T) T) {
	k := func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			d[i] = f(a[i], b[i])
		}
	}
	if n := len(dst); n >= elemParMin {
		parallel(n, func(lo, hi int) { k(dst[lo:hi], x[lo:hi], y[lo:hi]) })
		return
	}
	k(dst, x, y)
}

// fmaximum is np.maximum of floats: NaN if either is NaN, and b where a
// == b (so maximum(+0, -0) = -0, as NumPy 1.24's loops give on x86-64).
func fmaximum[T backend.Float](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a > b:
		return a
	}
	return b
}

// fminimum is np.minimum of floats: NaN if either is NaN, and b where a
// == b.
func fminimum[T backend.Float](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a < b:
		return a
	}
	return b
}

// divmod is NumPy's npy_divmod (numpy/core/src/npymath), in T: the floor
// quotient and the remainder with the sign of b, for b != 0.
func divmod[T backend.Float](a, b T) (floordiv, mod T) {
	mod = T(math.Mod(float64(a), float64(b))) // exact, as C's fmod
	div := (a - mod) / b
	if mod != 0 { // NaN too
		if (b < 0) != (mod < 0) {
			mod += b
			div--
		}
	} else {
		mod = T(math.Copysign(0, float64(b)))
	}
	if div != 0 {
		floordiv = T(math.Floor(float64(div)))
		if div-floordiv > 0.5 {
			floordiv++
		}
	} else {
		floordiv = T(math.Copysign(0, float64(a/b)))
	}
	return floordiv, mod
}

// fmod is np.remainder of floats (npy_remainder).
func fmod[T backend.Float](a, b T) T {
	if b == 0 {
		return T(math.Mod(float64(a), float64(b))) // NaN
	}
	_, m := divmod(a, b)
	return m
}

// ffloordiv is np.floor_divide of floats (npy_floor_divide).
func ffloordiv[T backend.Float](a, b T) T {
	if b == 0 {
		return a / b
	}
	q, _ := divmod(a, b)
	return q
}

// imod is np.remainder of integers: the sign of b, 0 for b == 0.
func imod[T integer](a, b T) T {
	if b == 0 {
		return 0
	}
	r := a % b // Go: the most negative by -1 gives 0
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// ifloordiv is np.floor_divide of integers: 0 for b == 0, and the most
// negative signed integer by -1 is itself (Go's division wraps there).
func ifloordiv[T integer](a, b T) T {
	if b == 0 {
		return 0
	}
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
