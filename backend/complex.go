package backend

import "fmt"

// ComplexArith is implemented by a backend whose Backend methods of
// arithmetic (Fill, Scale, Axpy, Axpby, Binary, BinaryScalar, Sum and Dot)
// take complex64 and complex128 buffers on its own device. The CPU backend,
// the fake device and CUDA implement it. For a backend that does not, this
// package's functions (Fill, Scale, Axpy, Axpby, Apply, ApplyScalar, Sum,
// Dot) copy complex arrays to the host, compute there with the CPU backend
// and copy the results back, each copy recorded as HostCall records it:
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

// complexOnHost reports whether an operation on the complex array x must
// run on host copies: x is complex and its backend is not a ComplexArith.
func complexOnHost[T Numeric](x *Array[T]) bool {
	if !DTypeOf[T]().IsComplex() {
		return false
	}
	_, ok := x.b.(ComplexArith)
	return !ok
}

// hostComplex runs f on host copies of arrays (recorded by HostCall) and
// copies them back. An error of the copies panics: the arithmetic
// functions that call it return no error, as the device's own kernels
// would panic on a failed launch.
func hostComplex[T Numeric](f func(h []*Array[T]), arrays ...*Array[T]) {
	err := HostCall(func(h []*Array[T]) error {
		f(h)
		return nil
	}, arrays...)
	if err != nil {
		panic(fmt.Sprintf("backend: complex arithmetic on host copies of %v arrays: %v", arrays[0].Device(), err))
	}
}
