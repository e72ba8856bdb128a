package driver

import "fmt"

// ComplexArith is implemented by a backend whose Backend methods of
// arithmetic (Fill, Scale, Axpy, Axpby, Binary, BinaryScalar, Sum and Dot)
// take complex64 and complex128 buffers on its own device. The CPU backend,
// the fake device and CUDA implement it. For a backend that does not, package
// backend's functions (Fill, Scale, Axpy, Axpby, Apply, ApplyScalar, Sum,
// Dot) copy complex arrays to the host, compute there with the CPU backend
// and copy the results back, each copy recorded as backend.HostCall records it:
// never silently.
type ComplexArith interface {
	// ComplexArith marks the backend; it does nothing.
	ComplexArith()
}

// ComplexKernels is implemented by a ComplexArith backend whose optional
// kernels take complex buffers too: AxisReducer's SumAxis and CastSums,
// StatsReducer's ScanAxis, Converter's Where, Compress and Convert, and
// GEMM. The CPU backend, the fake device and CUDA implement it. Package
// dist copies complex blocks of a backend that is not a ComplexKernels
// (one a user registers) to the host for those operations, recorded as
// the copies they are.
type ComplexKernels interface {
	ComplexArith
	// ComplexKernels marks the backend; it does nothing.
	ComplexKernels()
}

// ComplexOp is an elementwise function of a complex argument, as
// ComplexMath.ComplexUnary applies it.
type ComplexOp int

// The elementwise functions of a complex argument. Exp, Log, Sqrt and Conj
// give a complex result of the argument's type; Abs (the modulus), Angle
// (the argument, in (-pi, pi]), Real and Imag give a real one of its part
// type (float32 for complex64, float64 for complex128).
const (
	CExp ComplexOp = iota
	CLog
	CSqrt
	CConj
	CAbs
	CAngle
	CReal
	CImag
)

var complexOpNames = [...]string{"exp", "log", "sqrt", "conj", "abs", "angle", "real", "imag"}

func (o ComplexOp) String() string {
	if o < 0 || int(o) >= len(complexOpNames) {
		return fmt.Sprintf("ComplexOp(%d)", int(o))
	}
	return complexOpNames[o]
}

// RealResult reports whether o gives a real result (Abs, Angle, Real,
// Imag).
func (o ComplexOp) RealResult() bool { return o >= CAbs }

// ComplexMath is implemented by a backend that computes the elementwise
// functions of complex arrays on its own device, so that dist's Exp, Log,
// Sqrt, Pow, Conj, Real, Imag, AbsComplex, Angle, Prod and Vdot of a
// complex device array stay on the device. Buffers are on the backend's
// device and have one length.
//
// Results are those of Go's math/cmplx, computed in complex128 and
// rounded to complex64 for complex64 buffers: NumPy's to a few units in
// the last place for finite arguments; where math/cmplx and NumPy (C99
// Annex G) differ on special values (infinities, NaNs, signed zeros),
// dist's documentation says so.
//
// The CPU backend, the fake device and CUDA (complex.cu: Exp, Log and Pow
// there within a few ulps of these, the rest bit for bit) implement it; a
// backend that does not has the blocks copied to the host by dist and the
// result copied back, recorded as the copies they are.
type ComplexMath interface {
	// ComplexUnary sets dst[i] = op(x[i]). dst has x's type, or x's part
	// type where op.RealResult(); dst may be x when it has x's type.
	ComplexUnary(op ComplexOp, dst, x Buffer)
	// ComplexPow sets dst[i] = x[i] raised to y[i]; dst may be x or y.
	ComplexPow(dst, x, y Buffer)
	// ComplexPowScalar sets dst[i] = x[i] raised to s, a Scalar of x's
	// type; dst may be x.
	ComplexPowScalar(dst, x Buffer, s Scalar)
	// ComplexProd returns the product of x's elements, multiplied in
	// complex128 in the order of the elements, as a Complex128 scalar (1
	// for an empty x). It waits for the work queued before it.
	ComplexProd(x Buffer) Scalar
	// ComplexVdot returns the sum of conj(x[i])*y[i], accumulated as Dot
	// accumulates complex products, as a Complex128 scalar. It waits for
	// the work queued before it.
	ComplexVdot(x, y Buffer) Scalar
}
