package cpu

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// ops is the set of type-erased operations for one element type; impl[T]
// implements it by calling the generic kernels.
type ops interface {
	fill(x driver.Buffer, v driver.Scalar)
	scale(x driver.Buffer, a driver.Scalar)
	axpy(a driver.Scalar, x, y driver.Buffer)
	axpby(a driver.Scalar, x driver.Buffer, b driver.Scalar, y driver.Buffer)
	binary(op driver.BinaryOp, dst, x, y driver.Buffer)
	binaryScalar(op driver.BinaryOp, dst, x driver.Buffer, s driver.Scalar)
	sum(x driver.Buffer) driver.Scalar
	dot(x, y driver.Buffer) driver.Scalar
	argmin(x driver.Buffer) (int, driver.Scalar)
	argmax(x driver.Buffer) (int, driver.Scalar)
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

func hs[T backend.Numeric](b driver.Buffer) []T { return driver.HostSlice[T](b) }

func (impl[T]) fill(x driver.Buffer, v driver.Scalar) {
	fill(hs[T](x), driver.ValueOf[T](v))
}

func (impl[T]) scale(x driver.Buffer, a driver.Scalar) {
	scale(hs[T](x), driver.ValueOf[T](a))
}

func (impl[T]) axpy(a driver.Scalar, x, y driver.Buffer) {
	axpy(driver.ValueOf[T](a), hs[T](x), hs[T](y))
}

func (impl[T]) binary(op driver.BinaryOp, dst, x, y driver.Buffer) {
	binary(op, hs[T](dst), hs[T](x), hs[T](y))
}

func (impl[T]) binaryScalar(op driver.BinaryOp, dst, x driver.Buffer, s driver.Scalar) {
	binaryScalar(op, hs[T](dst), hs[T](x), driver.ValueOf[T](s))
}

func (impl[T]) sum(x driver.Buffer) driver.Scalar { return sum(hs[T](x)) }

func (impl[T]) dot(x, y driver.Buffer) driver.Scalar { return dot(hs[T](x), hs[T](y)) }

func (impl[T]) argmin(x driver.Buffer) (int, driver.Scalar) {
	i, v := argmin(hs[T](x))
	return i, driver.ScalarOf(v)
}

func (impl[T]) argmax(x driver.Buffer) (int, driver.Scalar) {
	i, v := argmax(hs[T](x))
	return i, driver.ScalarOf(v)
}

// isFloat reports whether T is float32 or float64.
func isFloat[T backend.Element]() bool { return backend.DTypeOf[T]().IsFloat() }

// isSigned reports whether T is a signed integer type.
func isSigned[T backend.Element]() bool { return backend.DTypeOf[T]().IsSigned() }
