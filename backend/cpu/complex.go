package cpu

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The operations of the complex element types: cimpl[T] implements ops for
// complex64 and complex128. Sums and dot products accumulate the real and
// imaginary parts in float64 over the chunks that the real types use, so
// that, as theirs, the result does not depend on the thread count.

type cimpl[T backend.Complex] struct{}

func (cimpl[T]) fill(x driver.Buffer, v driver.Scalar) {
	s, c := hs[T](x), driver.ValueOf[T](v)
	cloop(len(s), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i] = c
		}
	})
}

func (cimpl[T]) scale(x driver.Buffer, a driver.Scalar) {
	s, c := hs[T](x), driver.ValueOf[T](a)
	cloop(len(s), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i] *= c
		}
	})
}

func (cimpl[T]) axpy(a driver.Scalar, x, y driver.Buffer) {
	c, xs, ys := driver.ValueOf[T](a), hs[T](x), hs[T](y)
	xs = xs[:len(ys)]
	cloop(len(ys), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ys[i] = c*xs[i] + ys[i]
		}
	})
}

func (cimpl[T]) axpby(a driver.Scalar, x driver.Buffer, b driver.Scalar, y driver.Buffer) {
	ca, cb, xs, ys := driver.ValueOf[T](a), driver.ValueOf[T](b), hs[T](x), hs[T](y)
	xs = xs[:len(ys)]
	cloop(len(ys), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ys[i] = ca*xs[i] + cb*ys[i]
		}
	})
}

func (cimpl[T]) binary(op driver.BinaryOp, dst, x, y driver.Buffer) {
	d, xs, ys := hs[T](dst), hs[T](x), hs[T](y)
	xs, ys = xs[:len(d)], ys[:len(d)]
	var k func(lo, hi int)
	switch op {
	case driver.Add:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] + ys[i]
			}
		}
	case driver.Sub:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] - ys[i]
			}
		}
	case driver.Mul:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] * ys[i]
			}
		}
	case driver.Div:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] / ys[i]
			}
		}
	default:
		panic(fmt.Sprintf("cpu: invalid BinaryOp %d", int(op)))
	}
	cloop(len(d), k)
}

func (cimpl[T]) binaryScalar(op driver.BinaryOp, dst, x driver.Buffer, s driver.Scalar) {
	d, xs, c := hs[T](dst), hs[T](x), driver.ValueOf[T](s)
	xs = xs[:len(d)]
	var k func(lo, hi int)
	switch op {
	case driver.Add:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] + c
			}
		}
	case driver.Sub:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] - c
			}
		}
	case driver.Mul:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] * c
			}
		}
	case driver.Div:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] / c
			}
		}
	default:
		panic(fmt.Sprintf("cpu: invalid BinaryOp %d", int(op)))
	}
	cloop(len(d), k)
}

func (cimpl[T]) sum(x driver.Buffer) driver.Scalar {
	s := hs[T](x)
	return driver.ScalarOf(csum(len(s), func(lo, hi int) complex128 {
		var acc complex128
		for _, v := range s[lo:hi] {
			acc += complex128(v)
		}
		return acc
	}))
}

// dot is NumPy's dot of two complex vectors: the sum of x[i]*y[i], with no
// conjugation (Vdot conjugates x first, as the caller asks).
func (cimpl[T]) dot(x, y driver.Buffer) driver.Scalar {
	xs, ys := hs[T](x), hs[T](y)
	ys = ys[:len(xs)]
	return driver.ScalarOf(csum(len(xs), func(lo, hi int) complex128 {
		var acc complex128
		for i := lo; i < hi; i++ {
			acc += complex128(xs[i]) * complex128(ys[i])
		}
		return acc
	}))
}

func (cimpl[T]) argmin(x driver.Buffer) (int, driver.Scalar) {
	panic(fmt.Sprintf("cpu: Argmin of %v: complex numbers are not ordered", x.DType()))
}

func (cimpl[T]) argmax(x driver.Buffer) (int, driver.Scalar) {
	panic(fmt.Sprintf("cpu: Argmax of %v: complex numbers are not ordered", x.DType()))
}

// cloop runs k over [0, n), in parallel above elemParMin elements.
func cloop(n int, k func(lo, hi int)) {
	if n >= elemParMin {
		parallel(n, k)
		return
	}
	k(0, n)
}

// csum returns the sum of f over the fixed chunks of [0, n), the chunks'
// partial sums added pairwise (real and imaginary parts apart, as
// pairwise adds the real types'), so that the result does not depend on
// the thread count.
func csum(n int, f func(lo, hi int) complex128) complex128 {
	if n <= reduceChunk {
		return f(0, n)
	}
	p := chunkPartials(n, f)
	re, im := make([]float64, len(p)), make([]float64, len(p))
	for i, v := range p {
		re[i], im[i] = real(v), imag(v)
	}
	return complex(pairwise(re), pairwise(im))
}

// convertComplex is Convert where dst or src is complex: a real value
// becomes the real part (rounded to the part's type, as a conversion of
// the real type to it is), a complex value is converted part by part, and
// a complex value converted to a real type gives its real part converted
// by the rules of driver.ConvertValue (whether dropping the imaginary
// part is allowed is the caller's decision).
func convertComplex(dst, src driver.Buffer) {
	switch dst.DType() {
	case backend.Complex64:
		toComplex(hs[complex64](dst), src)
	case backend.Complex128:
		toComplex(hs[complex128](dst), src)
	default:
		// Complex to real: the real parts, converted as float32 or
		// float64 values are.
		n := src.Len()
		re := driver.HostBufferOf(make([]float64, n))
		rs := hs[float64](re)
		if src.DType() == backend.Complex64 {
			re = driver.HostBufferOf(make([]float32, n))
			r32 := hs[float32](re)
			for i, v := range hs[complex64](src) {
				r32[i] = real(v)
			}
		} else {
			for i, v := range hs[complex128](src) {
				rs[i] = real(v)
			}
		}
		maskOpsFor(dst.DType()).convertFrom(dst, re)
	}
}

// toComplex sets d to src converted to D.
func toComplex[D backend.Complex](d []D, src driver.Buffer) {
	switch src.DType() {
	case backend.Complex64:
		for i, v := range hs[complex64](src)[:len(d)] {
			d[i] = D(v)
		}
	case backend.Complex128:
		for i, v := range hs[complex128](src)[:len(d)] {
			d[i] = D(v)
		}
	case backend.Float32:
		realToComplex(d, hs[float32](src))
	case backend.Float64:
		realToComplex(d, hs[float64](src))
	case backend.Int32:
		realToComplex(d, hs[int32](src))
	case backend.Int64:
		realToComplex(d, hs[int64](src))
	case backend.Uint32:
		realToComplex(d, hs[uint32](src))
	case backend.Uint64:
		realToComplex(d, hs[uint64](src))
	case backend.Int8:
		realToComplex(d, hs[int8](src))
	case backend.Int16:
		realToComplex(d, hs[int16](src))
	case backend.Uint8:
		realToComplex(d, hs[uint8](src))
	case backend.Uint16:
		realToComplex(d, hs[uint16](src))
	default:
		panic(fmt.Sprintf("cpu: invalid DType %d", int(src.DType())))
	}
}

// realToComplex sets d[i] to s[i] + 0i, the real part rounded once to
// D's part type (float32 for complex64), as NumPy's casts do.
func realToComplex[D backend.Complex, S backend.Element](d []D, s []S) {
	s = s[:len(d)]
	var z D
	if _, ok := any(z).(complex64); ok {
		for i, v := range s {
			d[i] = D(complex(float32(v), 0))
		}
		return
	}
	for i, v := range s {
		d[i] = D(complex(float64(v), 0))
	}
}

// ComplexArith marks the CPU backend as one whose arithmetic takes complex
// buffers (driver.ComplexArith).
func (*Backend) ComplexArith() {}

// ComplexKernels marks the CPU backend as one whose optional kernels take
// complex buffers too (driver.ComplexKernels).
func (*Backend) ComplexKernels() {}

// The CPU backend computes the functions of complex arrays with
// math/cmplx, in complex128 (driver.ComplexMath).
var _ driver.ComplexMath = (*Backend)(nil)

// ComplexUnary sets dst = op(x) elementwise.
func (*Backend) ComplexUnary(op driver.ComplexOp, dst, x driver.Buffer) {
	if dst.Len() != x.Len() || !x.DType().IsComplex() {
		panic(fmt.Sprintf("cpu: %v of %d %v into %d %v", op, x.Len(), x.DType(), dst.Len(), dst.DType()))
	}
	want := x.DType()
	if op.RealResult() {
		want = want.Real()
	}
	if dst.DType() != want {
		panic(fmt.Sprintf("cpu: %v of %v into %v (want %v)", op, x.DType(), dst.DType(), want))
	}
	if x.DType() == backend.Complex64 {
		complexUnary[complex64, float32](op, dst, x)
	} else {
		complexUnary[complex128, float64](op, dst, x)
	}
}

func complexUnary[T backend.Complex, R backend.Float](op driver.ComplexOp, dst, x driver.Buffer) {
	xs := hs[T](x)
	if op.RealResult() {
		var f func(complex128) float64
		switch op {
		case driver.CAbs:
			f = cmplx.Abs
		case driver.CAngle:
			f = cmplx.Phase
		case driver.CReal:
			f = func(z complex128) float64 { return real(z) }
		case driver.CImag:
			f = func(z complex128) float64 { return imag(z) }
		default:
			panic(fmt.Sprintf("cpu: invalid ComplexOp %d", int(op)))
		}
		d := hs[R](dst)
		cloop(len(d), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = R(f(complex128(xs[i])))
			}
		})
		return
	}
	var f func(complex128) complex128
	switch op {
	case driver.CExp:
		f = cmplx.Exp
	case driver.CLog:
		f = cmplx.Log
	case driver.CSqrt:
		f = csqrt
	case driver.CConj:
		f = cmplx.Conj
	default:
		panic(fmt.Sprintf("cpu: invalid ComplexOp %d", int(op)))
	}
	d := hs[T](dst)
	cloop(len(d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d[i] = T(f(complex128(xs[i])))
		}
	})
}

// ComplexPow sets dst = x**y elementwise (cmplx.Pow).
func (*Backend) ComplexPow(dst, x, y driver.Buffer) {
	switch dst.DType() {
	case backend.Complex64:
		complexPow(hs[complex64](dst), hs[complex64](x), func(i int) complex128 { return complex128(hs[complex64](y)[i]) })
	case backend.Complex128:
		ys := hs[complex128](y)
		complexPow(hs[complex128](dst), hs[complex128](x), func(i int) complex128 { return ys[i] })
	default:
		panic(fmt.Sprintf("cpu: ComplexPow of %v", dst.DType()))
	}
}

// ComplexPowScalar sets dst = x**s elementwise (cmplx.Pow).
func (*Backend) ComplexPowScalar(dst, x driver.Buffer, s driver.Scalar) {
	e := s.Complex128()
	switch dst.DType() {
	case backend.Complex64:
		complexPow(hs[complex64](dst), hs[complex64](x), func(int) complex128 { return e })
	case backend.Complex128:
		complexPow(hs[complex128](dst), hs[complex128](x), func(int) complex128 { return e })
	default:
		panic(fmt.Sprintf("cpu: ComplexPowScalar of %v", dst.DType()))
	}
}

func complexPow[T backend.Complex](d, x []T, y func(i int) complex128) {
	x = x[:len(d)]
	cloop(len(d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d[i] = T(cpow(complex128(x[i]), y(i)))
		}
	})
}

// cpow is cmplx.Pow with NumPy's x**0 = 1 for every x (cmplx.Pow(0, 0)
// is 1 too, but NumPy also gives 1 for an infinite or NaN x).
func cpow(x, y complex128) complex128 {
	if y == 0 {
		return 1
	}
	return cmplx.Pow(x, y)
}

// ComplexProd returns the product of x in complex128, in order.
func (*Backend) ComplexProd(x driver.Buffer) driver.Scalar {
	p := complex128(1)
	switch x.DType() {
	case backend.Complex64:
		for _, v := range hs[complex64](x) {
			p *= complex128(v)
		}
	case backend.Complex128:
		for _, v := range hs[complex128](x) {
			p *= v
		}
	default:
		panic(fmt.Sprintf("cpu: ComplexProd of %v", x.DType()))
	}
	return driver.ScalarOf(p)
}

// ComplexVdot returns the sum of conj(x[i])*y[i], over the chunks of Dot.
func (*Backend) ComplexVdot(x, y driver.Buffer) driver.Scalar {
	switch x.DType() {
	case backend.Complex64:
		return vdot(hs[complex64](x), hs[complex64](y))
	case backend.Complex128:
		return vdot(hs[complex128](x), hs[complex128](y))
	}
	panic(fmt.Sprintf("cpu: ComplexVdot of %v", x.DType()))
}

func vdot[T backend.Complex](xs, ys []T) driver.Scalar {
	ys = ys[:len(xs)]
	return driver.ScalarOf(csum(len(xs), func(lo, hi int) complex128 {
		var acc complex128
		for i := lo; i < hi; i++ {
			acc += cmplx.Conj(complex128(xs[i])) * complex128(ys[i])
		}
		return acc
	}))
}

// csqrt is cmplx.Sqrt with C99's (and NumPy's) sqrt(NaN + iy) = NaN + iNaN
// for a finite y, where cmplx.Sqrt(NaN + 0i) is NaN + 0i.
func csqrt(z complex128) complex128 {
	if math.IsNaN(real(z)) && !math.IsInf(imag(z), 0) {
		return complex(math.NaN(), math.NaN())
	}
	return cmplx.Sqrt(z)
}
