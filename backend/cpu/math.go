package cpu

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
)

// The CPU backend computes the elementwise math functions as a
// backend.Math, with Go's package math in float64: a float32 element is
// converted to float64, the function applied, and the result rounded to
// float32 (exact for Abs and Floor, correctly rounded for Sqrt, and within
// 1 ulp of the exact result for the others, whose float64 error is far
// below half a float32 ulp except near a float32 rounding boundary).
// Floor, Sqrt and Abs are exact or correctly rounded in float64 too; Exp,
// Log, Sin, Cos, Tanh and Pow are not (dist/math_test.go states the
// measured bounds against NumPy).
var _ backend.Math = (*Backend)(nil)

// mathOps is the type-erased form of the math functions for one element
// type.
type mathOps interface {
	unary(op backend.UnaryOp, dst, x backend.Buffer)
	pow(dst, x, y backend.Buffer)
	powScalar(dst, x backend.Buffer, s backend.Scalar)
	clip(dst, x backend.Buffer, lo, hi backend.Scalar)
}

// mathOpsFor returns the math functions of dt: floats have all of them,
// integers Abs and Clip.
func mathOpsFor(dt backend.DType) mathOps {
	switch dt {
	case backend.Float32:
		return floatMath[float32]{}
	case backend.Float64:
		return floatMath[float64]{}
	case backend.Int32:
		return intMath[int32]{}
	case backend.Int64:
		return intMath[int64]{}
	case backend.Uint32:
		return intMath[uint32]{}
	case backend.Uint64:
		return intMath[uint64]{}
	}
	panic(fmt.Sprintf("cpu: invalid DType %d", int(dt)))
}

// Unary sets dst = op(x) elementwise; dst may be x. It panics for a
// floating-point-only op of integer buffers.
func (*Backend) Unary(op backend.UnaryOp, dst, x backend.Buffer) {
	if !op.Valid() {
		panic(fmt.Sprintf("cpu: invalid UnaryOp %d", int(op)))
	}
	sameBufs(op.String(), dst, x)
	mathOpsFor(dst.DType()).unary(op, dst, x)
}

// Pow sets dst = x**y elementwise (float buffers); dst may be x or y.
func (*Backend) Pow(dst, x, y backend.Buffer) {
	sameBufs("pow", dst, x, y)
	mathOpsFor(dst.DType()).pow(dst, x, y)
}

// PowScalar sets dst = x**s elementwise (float buffers); dst may be x.
func (*Backend) PowScalar(dst, x backend.Buffer, s backend.Scalar) {
	sameBufs("pow", dst, x)
	mathOpsFor(dst.DType()).powScalar(dst, x, s)
}

// Clip sets dst = min(max(x, lo), hi) elementwise as NumPy's clip; dst may
// be x.
func (*Backend) Clip(dst, x backend.Buffer, lo, hi backend.Scalar) {
	sameBufs("clip", dst, x)
	mathOpsFor(dst.DType()).clip(dst, x, lo, hi)
}

// sameBufs panics unless the buffers have the type and length of the
// first.
func sameBufs(op string, bufs ...backend.Buffer) {
	for _, x := range bufs[1:] {
		if x.DType() != bufs[0].DType() || x.Len() != bufs[0].Len() {
			panic(fmt.Sprintf("cpu: %s of %d %v and %d %v", op, bufs[0].Len(), bufs[0].DType(), x.Len(), x.DType()))
		}
	}
}

// floatFuncs are the float64 functions of the float-only UnaryOps.
var floatFuncs = [...]func(float64) float64{
	backend.Exp:   exp,
	backend.Log:   logSub,
	backend.Sqrt:  math.Sqrt,
	backend.Sin:   math.Sin,
	backend.Cos:   math.Cos,
	backend.Tanh:  math.Tanh,
	backend.Floor: math.Floor,
	backend.Abs:   math.Abs,
}

type floatMath[T backend.Float] struct{}

func (floatMath[T]) unary(op backend.UnaryOp, dst, x backend.Buffer) {
	f := floatFuncs[op]
	mapK(hs[T](dst), hs[T](x), func(v T) T { return T(f(float64(v))) })
}

func (floatMath[T]) pow(dst, x, y backend.Buffer) {
	d, a, b := hs[T](dst), hs[T](x), hs[T](y)
	if n := len(d); n >= elemParMin {
		parallel(n, func(lo, hi int) { powK(d[lo:hi], a[lo:hi], b[lo:hi]) })
		return
	}
	powK(d, a, b)
}

func powK[T backend.Float](dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = T(math.Pow(float64(x[i]), float64(y[i])))
	}
}

func (floatMath[T]) powScalar(dst, x backend.Buffer, s backend.Scalar) {
	e := float64(backend.ValueOf[T](s))
	mapK(hs[T](dst), hs[T](x), func(v T) T { return T(math.Pow(float64(v), e)) })
}

func (floatMath[T]) clip(dst, x backend.Buffer, lo, hi backend.Scalar) {
	clipAll(hs[T](dst), hs[T](x), backend.ValueOf[T](lo), backend.ValueOf[T](hi))
}

// intMath are the math functions of an integer type: Abs and Clip.
type intMath[T backend.Element] struct{}

func (intMath[T]) unary(op backend.UnaryOp, dst, x backend.Buffer) {
	if op != backend.Abs {
		panic(fmt.Sprintf("cpu: %v of %v: only float32 and float64 have it", op, dst.DType()))
	}
	// -v wraps for the most negative signed integer, as NumPy's abs; an
	// unsigned v is never negative.
	mapK(hs[T](dst), hs[T](x), func(v T) T {
		if v < 0 {
			return -v
		}
		return v
	})
}

func (intMath[T]) pow(dst, x, y backend.Buffer) {
	panic(fmt.Sprintf("cpu: pow of %v: only float32 and float64 have it", dst.DType()))
}

func (intMath[T]) powScalar(dst, x backend.Buffer, s backend.Scalar) {
	panic(fmt.Sprintf("cpu: pow of %v: only float32 and float64 have it", dst.DType()))
}

func (intMath[T]) clip(dst, x backend.Buffer, lo, hi backend.Scalar) {
	clipAll(hs[T](dst), hs[T](x), backend.ValueOf[T](lo), backend.ValueOf[T](hi))
}

// mapK sets dst[i] = f(x[i]), in parallel above the elementwise threshold.
func mapK[T backend.Element](dst, x []T, f func(T) T) {
	k := func(d, s []T) {
		s = s[:len(d)]
		for i := range d {
			d[i] = f(s[i])
		}
	}
	if n := len(dst); n >= elemParMin {
		parallel(n, func(lo, hi int) { k(dst[lo:hi], x[lo:hi]) })
		return
	}
	k(dst, x)
}

func clipAll[T backend.Element](dst, x []T, lo, hi T) {
	if n := len(dst); n >= elemParMin {
		parallel(n, func(l, h int) { clipK(dst[l:h], x[l:h], lo, hi) })
		return
	}
	clipK(dst, x, lo, hi)
}

// clipK is NumPy's clip, min(max(v, lo), hi) with its maximum and minimum
// of npy_math: max(a, b) is a if a is NaN, else (a > b ? a : b); min(a, b)
// is a if a is NaN, else (a < b ? a : b). So a NaN v, lo or hi gives NaN,
// lo > hi gives hi, and of -0 and +0 the bound is kept unless v is
// strictly beyond it.
func clipK[T backend.Element](dst, x []T, lo, hi T) {
	x = x[:len(dst)]
	for i, v := range x {
		if v == v { // not NaN
			if !(v > lo) {
				v = lo
			}
			if v == v && !(v < hi) {
				v = hi
			}
		}
		dst[i] = v
	}
}

// exp is e**x in float64, by fdlibm's algorithm (e_exp.c, as Go's pure-Go
// math.Exp): x = k*ln2 + r, |r| <= ln2/2, with ln2 in two parts so that
// r is hi - lo exactly, and a rational approximation of e**r; error below
// 1 ulp. It stands in for math.Exp, whose amd64 assembly returns +Inf
// from about x = 709.5 on (go1.26: math.Exp(709.5) = +Inf; the result is
// 1.35e308, and exp overflows only above 709.78).
func exp(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)
	)
	switch {
	case x != x || x > overflow: // NaN, or +Inf and overflow
		return x * math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	if x < 0 {
		k = int(log2e*x - 0.5)
	} else {
		k = int(log2e*x + 0.5)
	}
	hi := x - float64(k)*ln2Hi
	lo := float64(k) * ln2Lo
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	r := hi - lo
	t := r * r
	c := r - t*(p1+t*(p2+t*(p3+t*(p4+t*p5))))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// logSub is math.Log, also for subnormal x: math.Log's amd64 assembly
// takes a subnormal x for a normal one (go1.26: math.Log(5e-324) =
// -709.09; the result is -744.44), so logSub scales a subnormal by 2**54
// (exactly) and subtracts 54*ln2, in two parts.
func logSub(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		const (
			ln2Hi = 6.93147180369123816490e-01 // 54*ln2Hi is exact
			ln2Lo = 1.90821492927058770002e-10
		)
		return (math.Log(x*0x1p54) - 54*ln2Hi) - 54*ln2Lo
	}
	return math.Log(x)
}
