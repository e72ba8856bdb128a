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
	backend.Exp:   math.Exp,
	backend.Log:   math.Log,
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
