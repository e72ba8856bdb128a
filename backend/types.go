package backend

import (
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/dtype"
)

// The element types are defined in package dtype, the leaf that package
// mpi uses too; backend re-exports them, so that backend.DType is
// dtype.DType and backend.Float64 is dtype.Float64.

// Element is the set of real (ordered) element types of arrays: the types
// that every operation takes, comparisons and sorting included.
type Element = dtype.Element

// Complex is the set of complex element types.
type Complex = dtype.Complex

// Numeric is the set of all element types of arrays: the real types of
// Element and the complex types. Arrays (Array, and package dist's) take
// any of them; operations that need an order (minimum, maximum, sorting,
// comparisons) take only Element, which is a subset of Numeric.
type Numeric = dtype.Numeric

// Float is the set of floating-point element types.
type Float = dtype.Float

// DType names an element type at run time.
type DType = dtype.DType

// The element types.
const (
	Float32    = dtype.Float32
	Float64    = dtype.Float64
	Int32      = dtype.Int32
	Int64      = dtype.Int64
	Uint32     = dtype.Uint32
	Uint64     = dtype.Uint64
	Int8       = dtype.Int8
	Int16      = dtype.Int16
	Uint8      = dtype.Uint8
	Uint16     = dtype.Uint16
	Complex64  = dtype.Complex64  // two float32: real part, then imaginary part
	Complex128 = dtype.Complex128 // two float64: real part, then imaginary part
)

// NumDTypes is the number of element types: the DTypes are 0 to
// NumDTypes-1.
const NumDTypes = dtype.NumDTypes

// DTypeOf returns the DType of T.
func DTypeOf[T Numeric]() DType { return dtype.Of[T]() }

// Inexact is the set of floating-point and complex element types: those
// of Exp, Log, Sqrt and Pow.
type Inexact = dtype.Inexact

// The types below are defined in package backend/driver, where the
// Backend interface that mentions them is, and re-exported here because
// this package's own functions take or return them: backend.Device is
// driver.Device. Implementations name them driver.X.

// Backend is a backend as its users hold it (Current, Lookup, NewOn,
// ToDevice, Array.Backend): the interface that an implementation
// satisfies, driver.Backend.
type Backend = driver.Backend

// Device is where an array's memory lives (driver.Device).
type Device = driver.Device

// Kind is the kind of a device (driver.Kind).
type Kind = driver.Kind

// The kinds of device. Fake is a device for tests: its memory is host
// memory, but it is treated as device memory everywhere (conversions,
// staging, accounting), so that tests without a GPU take the device paths.
const (
	CPU  = driver.CPU
	CUDA = driver.CUDA
	Fake = driver.Fake
)

// Host is the CPU device.
var Host = driver.Host

// Scalar is one value of any element type, tagged with its DType, as
// SumScalar and DotScalar return it (driver.Scalar).
type Scalar = driver.Scalar

// BinaryOp is an elementwise binary operation, as Apply and ApplyScalar
// take it (driver.BinaryOp).
type BinaryOp = driver.BinaryOp

// The elementwise binary operations.
const (
	Add = driver.Add
	Sub = driver.Sub
	Mul = driver.Mul
	Div = driver.Div
)
