package cpu

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// ops is the set of type-erased operations for one element type; impl[T]
// implements it by calling the generic kernels.
type ops interface {
	fill(x backend.Buffer, v backend.Scalar)
	scale(x backend.Buffer, a backend.Scalar)
	axpy(a backend.Scalar, x, y backend.Buffer)
	axpby(a backend.Scalar, x backend.Buffer, b backend.Scalar, y backend.Buffer)
	binary(op backend.BinaryOp, dst, x, y backend.Buffer)
	binaryScalar(op backend.BinaryOp, dst, x backend.Buffer, s backend.Scalar)
	sum(x backend.Buffer) backend.Scalar
	dot(x, y backend.Buffer) backend.Scalar
	argmin(x backend.Buffer) (int, backend.Scalar)
	argmax(x backend.Buffer) (int, backend.Scalar)
}

// opsFor is the one switch on the DType of every operation.
func opsFor(dt backend.DType) ops {
	switch dt {
	case backend.Float32:
		return impl[float32]{}
	case backend.Float64:
		return impl[float64]{}
	case backend.Int32:
		return impl[int32]{}
	case backend.Int64:
		return impl[int64]{}
	case backend.Uint32:
		return impl[uint32]{}
	case backend.Uint64:
		return impl[uint64]{}
	case backend.Int8:
		return impl[int8]{}
	case backend.Int16:
		return impl[int16]{}
	case backend.Uint8:
		return impl[uint8]{}
	case backend.Uint16:
		return impl[uint16]{}
	case backend.Complex64:
		return cimpl[complex64]{}
	case backend.Complex128:
		return cimpl[complex128]{}
	}
	panic(fmt.Sprintf("cpu: invalid DType %d", int(dt)))
}

type impl[T backend.Element] struct{}

func hs[T backend.Numeric](b backend.Buffer) []T { return backend.HostSlice[T](b) }

func (impl[T]) fill(x backend.Buffer, v backend.Scalar) {
	fill(hs[T](x), backend.ValueOf[T](v))
}

func (impl[T]) scale(x backend.Buffer, a backend.Scalar) {
	scale(hs[T](x), backend.ValueOf[T](a))
}

func (impl[T]) axpy(a backend.Scalar, x, y backend.Buffer) {
	axpy(backend.ValueOf[T](a), hs[T](x), hs[T](y))
}

func (impl[T]) binary(op backend.BinaryOp, dst, x, y backend.Buffer) {
	binary(op, hs[T](dst), hs[T](x), hs[T](y))
}

func (impl[T]) binaryScalar(op backend.BinaryOp, dst, x backend.Buffer, s backend.Scalar) {
	binaryScalar(op, hs[T](dst), hs[T](x), backend.ValueOf[T](s))
}

func (impl[T]) sum(x backend.Buffer) backend.Scalar { return sum(hs[T](x)) }

func (impl[T]) dot(x, y backend.Buffer) backend.Scalar { return dot(hs[T](x), hs[T](y)) }

func (impl[T]) argmin(x backend.Buffer) (int, backend.Scalar) {
	i, v := argmin(hs[T](x))
	return i, backend.ScalarOf(v)
}

func (impl[T]) argmax(x backend.Buffer) (int, backend.Scalar) {
	i, v := argmax(hs[T](x))
	return i, backend.ScalarOf(v)
}

// isFloat reports whether T is float32 or float64.
func isFloat[T backend.Element]() bool { return backend.DTypeOf[T]().IsFloat() }

// isSigned reports whether T is a signed integer type.
func isSigned[T backend.Element]() bool { return backend.DTypeOf[T]().IsSigned() }
