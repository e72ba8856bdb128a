package backend

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// complexOnHost reports whether an operation on the complex array x must
// run on host copies: x is complex and its backend is not a ComplexArith.
func complexOnHost[T Numeric](x *Array[T]) bool {
	if !DTypeOf[T]().IsComplex() {
		return false
	}
	_, ok := x.b.(driver.ComplexArith)
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
