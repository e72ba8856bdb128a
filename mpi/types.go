package mpi

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/xpmpi/xpmpi/dtype"
)

// Datatype names the element type of a buffer handed to MPI: one of the
// element types of package dtype, which holds the one list of them
// (Datatype(dtype.Float64) is Float64), or Byte for raw bytes.
type Datatype int

// The element types that xpmpi passes through MPI.
const (
	Float32 = Datatype(dtype.Float32)
	Float64 = Datatype(dtype.Float64)
	Int32   = Datatype(dtype.Int32)
	Int64   = Datatype(dtype.Int64)
	Uint32  = Datatype(dtype.Uint32)
	Uint64  = Datatype(dtype.Uint64)
	Int8    = Datatype(dtype.Int8)
	Int16   = Datatype(dtype.Int16)
	Uint8   = Datatype(dtype.Uint8)
	Uint16  = Datatype(dtype.Uint16)
	// Complex64 and Complex128 are MPI_C_FLOAT_COMPLEX and
	// MPI_C_DOUBLE_COMPLEX: Sum and Prod are defined on them, Min, Max,
	// LAnd and LOr are not.
	Complex64  = Datatype(dtype.Complex64)
	Complex128 = Datatype(dtype.Complex128)
	// Byte is raw bytes (serialized messages), not an element type of
	// arrays.
	Byte = Datatype(dtype.NumDTypes)
)

// DatatypeOf returns the Datatype of an element type.
func DatatypeOf(dt dtype.DType) Datatype {
	if !dt.Valid() {
		panic(fmt.Sprintf("mpi: invalid DType %d", int(dt)))
	}
	return Datatype(dt)
}

// Size returns the size of one element in bytes.
func (d Datatype) Size() int {
	if d == Byte {
		return 1
	}
	if !d.valid() {
		panic(fmt.Sprintf("mpi: invalid Datatype %d", int(d)))
	}
	return dtype.DType(d).Size()
}

func (d Datatype) valid() bool { return d == Byte || dtype.DType(d).Valid() }

// IsFloat reports whether d is a floating-point type.
func (d Datatype) IsFloat() bool { return d != Byte && dtype.DType(d).IsFloat() }

// IsComplex reports whether d is a complex type.
func (d Datatype) IsComplex() bool { return d != Byte && dtype.DType(d).IsComplex() }

func (d Datatype) String() string {
	switch {
	case d == Byte:
		return "byte"
	case !d.valid():
		return fmt.Sprintf("Datatype(%d)", int(d))
	}
	return dtype.DType(d).String()
}

// Op is a reduction operation.
type Op int

// The reduction operations. LAnd and LOr are the logical and/or of integer
// values (nonzero is true); MPI does not define them on floating-point types.
const (
	Sum Op = iota
	Prod
	Min
	Max
	LAnd
	LOr
)

var opNames = [...]string{"sum", "prod", "min", "max", "land", "lor"}

func (o Op) String() string {
	if o < 0 || int(o) >= len(opNames) {
		return fmt.Sprintf("Op(%d)", int(o))
	}
	return opNames[o]
}

func (o Op) valid() bool { return o >= 0 && int(o) < len(opNames) }

// validFor reports whether the operation is defined on the element type.
func (o Op) validFor(d Datatype) bool {
	if !o.valid() || !d.valid() || d == Byte {
		return false
	}
	if d.IsComplex() {
		return o == Sum || o == Prod
	}
	return !(d.IsFloat() && (o == LAnd || o == LOr))
}

// Number is the set of element types the typed functions accept.
type Number interface {
	~float32 | ~float64 | ~int32 | ~int64 | ~uint32 | ~uint64 | ~int8 | ~int16 | ~uint8 | ~uint16 | ~complex64 | ~complex128
}

// TypeOf returns the Datatype of T.
func TypeOf[T Number]() Datatype {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int32:
		return Int32
	case int64:
		return Int64
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case int8:
		return Int8
	case int16:
		return Int16
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case complex64:
		return Complex64
	case complex128:
		return Complex128
	}
	// A type defined over a basic type (~float64 and so on).
	switch reflect.TypeOf(z).Kind() {
	case reflect.Float32:
		return Float32
	case reflect.Float64:
		return Float64
	case reflect.Int32:
		return Int32
	case reflect.Int64:
		return Int64
	case reflect.Uint32:
		return Uint32
	case reflect.Int8:
		return Int8
	case reflect.Int16:
		return Int16
	case reflect.Uint8:
		return Uint8
	case reflect.Uint16:
		return Uint16
	case reflect.Complex64:
		return Complex64
	case reflect.Complex128:
		return Complex128
	default:
		return Uint64
	}
}

// Wildcards for Recv and Irecv.
const (
	AnySource = -1
	AnyTag    = -1
)

// ProcNull is the rank of no process (MPI_PROC_NULL): a send to it or a
// receive from it completes at once and moves nothing, as a Cartesian
// shift off a non-periodic edge returns it.
const ProcNull = -2

// Undefined as a color in Split leaves the caller out of every new
// communicator; Split then returns a nil Comm.
const Undefined = -32766

// Status describes a received message.
type Status struct {
	Source int // rank of the sender
	Tag    int // tag of the message
	Count  int // number of elements received
}

// InPlace, passed as the send buffer of Reduce (at the root) or Allreduce,
// makes the receive buffer the input and the output.
var InPlace = unsafe.Pointer(&inPlaceMarker)

var inPlaceMarker byte

// Error is an error reported by MPI or by the stand-in.
type Error struct {
	Call string // the call that failed, such as "Allreduce"
	Code int    // the MPI error code, or 0 for the stand-in
	Msg  string // the library's text for the error
}

func (e *Error) Error() string {
	if e.Code != 0 {
		return fmt.Sprintf("mpi: %s: %s (error code %d)", e.Call, e.Msg, e.Code)
	}
	return fmt.Sprintf("mpi: %s: %s", e.Call, e.Msg)
}

func errorf(call, format string, args ...any) error {
	return &Error{Call: call, Msg: fmt.Sprintf(format, args...)}
}
