package cpu

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// The operations of the complex element types: cimpl[T] implements ops for
// complex64 and complex128. Sums and dot products accumulate the real and
// imaginary parts in float64 over the chunks that the real types use, so
// that, as theirs, the result does not depend on the thread count.

type cimpl[T backend.Complex] struct{}

func (cimpl[T]) fill(x backend.Buffer, v backend.Scalar) {
	s, c := hs[T](x), backend.ValueOf[T](v)
	cloop(len(s), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i] = c
		}
	})
}

func (cimpl[T]) scale(x backend.Buffer, a backend.Scalar) {
	s, c := hs[T](x), backend.ValueOf[T](a)
	cloop(len(s), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i] *= c
		}
	})
}

func (cimpl[T]) axpy(a backend.Scalar, x, y backend.Buffer) {
	c, xs, ys := backend.ValueOf[T](a), hs[T](x), hs[T](y)
	xs = xs[:len(ys)]
	cloop(len(ys), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ys[i] = c*xs[i] + ys[i]
		}
	})
}

func (cimpl[T]) axpby(a backend.Scalar, x backend.Buffer, b backend.Scalar, y backend.Buffer) {
	ca, cb, xs, ys := backend.ValueOf[T](a), backend.ValueOf[T](b), hs[T](x), hs[T](y)
	xs = xs[:len(ys)]
	cloop(len(ys), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ys[i] = ca*xs[i] + cb*ys[i]
		}
	})
}

func (cimpl[T]) binary(op backend.BinaryOp, dst, x, y backend.Buffer) {
	d, xs, ys := hs[T](dst), hs[T](x), hs[T](y)
	xs, ys = xs[:len(d)], ys[:len(d)]
	var k func(lo, hi int)
	switch op {
	case backend.Add:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] + ys[i]
			}
		}
	case backend.Sub:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] - ys[i]
			}
		}
	case backend.Mul:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] * ys[i]
			}
		}
	case backend.Div:
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

func (cimpl[T]) binaryScalar(op backend.BinaryOp, dst, x backend.Buffer, s backend.Scalar) {
	d, xs, c := hs[T](dst), hs[T](x), backend.ValueOf[T](s)
	xs = xs[:len(d)]
	var k func(lo, hi int)
	switch op {
	case backend.Add:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] + c
			}
		}
	case backend.Sub:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] - c
			}
		}
	case backend.Mul:
		k = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = xs[i] * c
			}
		}
	case backend.Div:
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

func (cimpl[T]) sum(x backend.Buffer) backend.Scalar {
	s := hs[T](x)
	return backend.ScalarOf(csum(len(s), func(lo, hi int) complex128 {
		var acc complex128
		for _, v := range s[lo:hi] {
			acc += complex128(v)
		}
		return acc
	}))
}

// dot is NumPy's dot of two complex vectors: the sum of x[i]*y[i], with no
// conjugation (Vdot conjugates x first, as the caller asks).
func (cimpl[T]) dot(x, y backend.Buffer) backend.Scalar {
	xs, ys := hs[T](x), hs[T](y)
	ys = ys[:len(xs)]
	return backend.ScalarOf(csum(len(xs), func(lo, hi int) complex128 {
		var acc complex128
		for i := lo; i < hi; i++ {
			acc += complex128(xs[i]) * complex128(ys[i])
		}
		return acc
	}))
}

func (cimpl[T]) argmin(x backend.Buffer) (int, backend.Scalar) {
	panic(fmt.Sprintf("cpu: Argmin of %v: complex numbers are not ordered", x.DType()))
}

func (cimpl[T]) argmax(x backend.Buffer) (int, backend.Scalar) {
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
// by the rules of backend.ConvertValue (whether dropping the imaginary
// part is allowed is the caller's decision).
func convertComplex(dst, src backend.Buffer) {
	switch dst.DType() {
	case backend.Complex64:
		toComplex(hs[complex64](dst), src)
	case backend.Complex128:
		toComplex(hs[complex128](dst), src)
	default:
		// Complex to real: the real parts, converted as float32 or
		// float64 values are.
		n := src.Len()
		re := backend.HostBufferOf(make([]float64, n))
		rs := hs[float64](re)
		if src.DType() == backend.Complex64 {
			re = backend.HostBufferOf(make([]float32, n))
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
func toComplex[D backend.Complex](d []D, src backend.Buffer) {
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
// buffers (backend.ComplexArith).
func (*Backend) ComplexArith() {}
