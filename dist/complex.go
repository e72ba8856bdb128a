package dist

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// The functions of complex arrays. They need no communication, except
// Vdot and Norm, which are collective. A block on a device is computed
// there when its backend is a backend.ComplexMath (the CPU backend, the
// fake device and CUDA); on another (one a user registers) the operands
// are copied to the host and the result back, recorded as the copies they
// are.
//
// Special values: the functions are Go's math/cmplx, computed in
// complex128 (and rounded to complex64 for complex64 arrays). For finite
// arguments they agree with NumPy to a few units in the last place; on
// the special values that testdata/complex.json holds (signed zeros,
// infinities and NaNs in either part) Exp, Log, Sqrt, AbsComplex and
// Angle give NumPy's (C99 Annex G) results, Sqrt(NaN+yi) = NaN+NaNi
// included (math/cmplx alone gives NaN+0i for y = 0). Pow(x, 0) is 1 for
// every x, as NumPy's; Pow's other special values are math/cmplx's and
// are not checked against NumPy's.

// Conj sets dst to the complex conjugate of x; dst may be x.
func Conj[T backend.Complex](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Conj")
	}
	return complexMath("Conj", dst, []*Array[T]{x}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
		m.ComplexUnary(backend.CConj, d, in[0])
	})
}

// Real returns the real parts of x, as NumPy's x.real (a copy): an array
// of x's layout on x's backend. R must be T's part type, float32 for
// complex64 and float64 for complex128 (dist.Real[float64](x)); another
// panics. It is collective (the allocation is agreed on).
func Real[R backend.Float, T backend.Complex](x *Array[T]) (*Array[R], error) {
	if x.freed {
		return nil, freedCollective("Real", x.comm)
	}
	return complexToReal[R]("Real", backend.CReal, x)
}

// Imag returns the imaginary parts of x, as NumPy's x.imag (a copy), with
// Real's rules for R.
func Imag[R backend.Float, T backend.Complex](x *Array[T]) (*Array[R], error) {
	if x.freed {
		return nil, freedCollective("Imag", x.comm)
	}
	return complexToReal[R]("Imag", backend.CImag, x)
}

// AbsComplex returns the moduli of x, as NumPy's abs of a complex array
// (computed without overflow, math/cmplx.Abs), with Real's rules for R.
// Abs takes real arrays.
func AbsComplex[R backend.Float, T backend.Complex](x *Array[T]) (*Array[R], error) {
	if x.freed {
		return nil, freedCollective("AbsComplex", x.comm)
	}
	return complexToReal[R]("AbsComplex", backend.CAbs, x)
}

// Angle returns the arguments of x in radians, in [-pi, pi], as NumPy's
// angle, with Real's rules for R.
func Angle[R backend.Float, T backend.Complex](x *Array[T]) (*Array[R], error) {
	if x.freed {
		return nil, freedCollective("Angle", x.comm)
	}
	return complexToReal[R]("Angle", backend.CAngle, x)
}

func complexToReal[R backend.Float, T backend.Complex](name string, op backend.ComplexOp, x *Array[T]) (*Array[R], error) {
	if want := backend.DTypeOf[T]().Real(); backend.DTypeOf[R]() != want {
		panic(fmt.Sprintf("dist: %s of %v gives %v, not %v", name, backend.DTypeOf[T](), want, backend.DTypeOf[R]()))
	}
	if err := check(name, x); err != nil {
		return nil, err
	}
	out, err := newOn[R](x.comm, x.layout, x.local.Backend())
	if err != nil {
		return nil, err
	}
	err = complexMath(name, out, []*Array[T]{x}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
		m.ComplexUnary(op, d, in[0])
	})
	if err := mpi.Agree(x.comm, err); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// complexExp, ... are Exp, Log, Sqrt, Pow and PowScalar of complex
// arrays.
func complexUnary[T backend.Inexact](name string, op backend.ComplexOp, dst, x *Array[T]) error {
	switch d := any(dst).(type) {
	case *Array[complex64]:
		return complexMath(name, d, []*Array[complex64]{any(x).(*Array[complex64])}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
			m.ComplexUnary(op, d, in[0])
		})
	case *Array[complex128]:
		return complexMath(name, d, []*Array[complex128]{any(x).(*Array[complex128])}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
			m.ComplexUnary(op, d, in[0])
		})
	}
	panic("dist: " + name + " of a real array as a complex one")
}

func complexPow[T backend.Inexact](dst, x, y *Array[T]) error {
	switch d := any(dst).(type) {
	case *Array[complex64]:
		return complexMath("Pow", d, []*Array[complex64]{any(x).(*Array[complex64]), any(y).(*Array[complex64])}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
			m.ComplexPow(d, in[0], in[1])
		})
	case *Array[complex128]:
		return complexMath("Pow", d, []*Array[complex128]{any(x).(*Array[complex128]), any(y).(*Array[complex128])}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
			m.ComplexPow(d, in[0], in[1])
		})
	}
	panic("dist: Pow of a real array as a complex one")
}

func complexPowScalar[T backend.Inexact](dst, x *Array[T], s T) error {
	sc := backend.ScalarOf(s)
	switch d := any(dst).(type) {
	case *Array[complex64]:
		return complexMath("PowScalar", d, []*Array[complex64]{any(x).(*Array[complex64])}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
			m.ComplexPowScalar(d, in[0], sc)
		})
	case *Array[complex128]:
		return complexMath("PowScalar", d, []*Array[complex128]{any(x).(*Array[complex128])}, func(m backend.ComplexMath, d backend.Buffer, in []backend.Buffer) {
			m.ComplexPowScalar(d, in[0], sc)
		})
	}
	panic("dist: PowScalar of a real array as a complex one")
}

// realMath runs f, a function of real float arrays, on dst and ins
// viewed as their float type (T is float32 or float64).
func realMath[T backend.Inexact](dst *Array[T], f32 func(*Array[float32]) error, f64 func(*Array[float64]) error) error {
	switch d := any(dst).(type) {
	case *Array[float32]:
		return f32(d)
	case *Array[float64]:
		return f64(d)
	}
	panic("dist: a complex array as a real one")
}

func isComplex[T backend.Numeric]() bool { return backend.DTypeOf[T]().IsComplex() }

// complexMath checks that dst and ins have one layout and one device, and
// runs f with the blocks' backend.ComplexMath and buffers; on a backend
// that is not one, with the CPU backend on host copies of ins (recorded),
// the result copied into dst's block (recorded).
func complexMath[T backend.Complex, R backend.Numeric](name string, dst *Array[R], ins []*Array[T], f func(m backend.ComplexMath, dst backend.Buffer, ins []backend.Buffer)) error {
	dev := dst.local.Device()
	for _, a := range ins {
		if !a.layout.Equal(dst.layout) || a.comm != dst.comm {
			panic(fmt.Sprintf("dist: %s: layouts differ: %v and %v", name, dst.layout, a.layout))
		}
		if d := a.local.Device(); d != dev {
			panic(fmt.Sprintf("dist: %s: blocks on %v and %v; move one with ToHost or ToDevice", name, dev, d))
		}
	}
	bufs := make([]backend.Buffer, len(ins))
	if m, ok := dst.local.Backend().(backend.ComplexMath); ok {
		for i, a := range ins {
			bufs[i] = a.local.Buffer()
		}
		f(m, dst.local.Buffer(), bufs)
		return nil
	}
	if dst.local.Len() == 0 {
		return nil
	}
	for i, a := range ins {
		h, err := backend.ToHost(a.local)
		if err != nil {
			return err
		}
		bufs[i] = h.Buffer()
	}
	out := make([]R, dst.local.Len())
	f(hostComplex(), backend.HostBufferOf(out), bufs)
	return backend.CopyFromHostSlice(dst.local, out)
}

// complexScalar returns f of x's blocks (and y's), on the device where
// the backend is a backend.ComplexMath, on host copies (recorded)
// otherwise.
func complexScalar[T backend.Complex](x *Array[T], y *Array[T], f func(m backend.ComplexMath, x, y backend.Buffer) backend.Scalar) (backend.Scalar, error) {
	if m, ok := x.local.Backend().(backend.ComplexMath); ok {
		var yb backend.Buffer
		if y != nil {
			yb = y.local.Buffer()
		}
		return f(m, x.local.Buffer(), yb), nil
	}
	hx, err := backend.ToHost(x.local)
	if err != nil {
		return backend.Scalar{}, err
	}
	var yb backend.Buffer
	if y != nil {
		hy, err := backend.ToHost(y.local)
		if err != nil {
			return backend.Scalar{}, err
		}
		yb = hy.Buffer()
	}
	return f(hostComplex(), hx.Buffer(), yb), nil
}

// complexScalarStep is complexScalar as the local step of a collective:
// a device failure it panics with is returned as its error (localStep).
func complexScalarStep[T backend.Complex](x *Array[T], y *Array[T], f func(m backend.ComplexMath, x, y backend.Buffer) backend.Scalar) (s backend.Scalar, err error) {
	if derr := localStep(func() { s, err = complexScalar(x, y, f) }); derr != nil {
		return backend.Scalar{}, derr
	}
	return s, err
}

// Vdot returns the sum of conj(x[i])*y[i] over all elements, as
// numpy.vdot: the real and imaginary parts accumulated as Sum's, the
// ranks' partial sums combined by an allreduce. It is collective.
func Vdot[T backend.Complex](x, y *Array[T]) (T, error) {
	if x.freed || y.freed {
		return 0, freedCollective("Vdot", x.comm)
	}
	sameLayout("Vdot", x, y)
	if err := check("Vdot", x); err != nil {
		return 0, err
	}
	v, err := vdot(x, y)
	return T(v), err
}

// vdot is Vdot in complex128.
func vdot[T backend.Complex](x, y *Array[T]) (complex128, error) {
	s, err := complexScalarStep(x, y, func(m backend.ComplexMath, x, y backend.Buffer) backend.Scalar { return m.ComplexVdot(x, y) })
	if err := agreeStep(x.comm, "Vdot", err); err != nil {
		return 0, err
	}
	return allreduceAcc[complex128](x.comm, x.layout, "Vdot", s, nil)
}

// normComplex is Norm of a complex array: the square root of the sum of
// the squared moduli, accumulated in float64 (numpy.linalg.norm).
func normComplex[T backend.Inexact](x *Array[T]) (float64, error) {
	var v complex128
	var err error
	switch a := any(x).(type) {
	case *Array[complex64]:
		v, err = vdot(a, a)
	case *Array[complex128]:
		v, err = vdot(a, a)
	}
	return math.Sqrt(real(v)), err
}

// ProdComplex returns the product of all elements of a complex array:
// the elements multiplied in complex128 in order on each rank, the ranks'
// products multiplied in rank order, rounded to T at the end (1 for an
// empty array), as Prod does for real types. It is collective.
func ProdComplex[T backend.Complex](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("ProdComplex", x.comm)
	}
	if err := check("Prod", x); err != nil {
		return 0, err
	}
	s, err := complexScalarStep(x, nil, func(m backend.ComplexMath, x, _ backend.Buffer) backend.Scalar { return m.ComplexProd(x) })
	if err := agreeStep(x.comm, "ProdComplex", err); err != nil {
		return 0, err
	}
	p := s.Complex128()
	if x.layout.axis == Replicated {
		return T(p), nil
	}
	all := make([]complex128, x.comm.Size())
	if err := mpi.Allgather(x.comm, []complex128{p}, all); err != nil {
		return 0, err
	}
	p = 1
	for _, v := range all {
		p *= v
	}
	return T(p), nil
}

// MeanComplex returns the mean of all elements of a complex array, as
// NumPy's mean: the sum (its parts accumulated in float64, as Sum's)
// divided by the number of elements, rounded to T. On an empty array
// every rank returns NaN+NaNi and an error wrapping ErrEmpty, as Mean
// does. It is collective.
func MeanComplex[T backend.Complex](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("MeanComplex", x.comm)
	}
	nan := T(complex(math.NaN(), math.NaN()))
	if err := check("Mean", x); err != nil {
		return nan, err
	}
	if x.Len() == 0 {
		return nan, emptyErr("Mean", x)
	}
	ls, derr := localValue(func() backend.Scalar { return backend.SumScalar(x.local) })
	s, err := allreduceAcc[complex128](x.comm, x.layout, "Mean", ls, derr)
	if err != nil {
		return nan, err
	}
	return T(s / complex(float64(x.Len()), 0)), nil
}
