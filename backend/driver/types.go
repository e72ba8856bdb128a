package driver

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/dtype"
)

// Kind is the kind of a device.
type Kind int

// The kinds of device. Fake is a device for tests: its memory is host
// memory, but it is treated as device memory everywhere (conversions,
// staging, accounting), so that tests without a GPU take the device paths.
const (
	CPU Kind = iota
	CUDA
	Fake
)

func (k Kind) String() string {
	switch k {
	case CPU:
		return "cpu"
	case CUDA:
		return "cuda"
	case Fake:
		return "fake"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Device is where an array's memory lives.
type Device struct {
	Kind Kind
	ID   int // device ordinal; 0 for the CPU
}

// Host is the CPU device.
var Host = Device{Kind: CPU}

// IsHost reports whether the device's memory is host memory that Go code can
// read directly.
func (d Device) IsHost() bool { return d.Kind == CPU }

func (d Device) String() string {
	if d.Kind == CPU {
		return "cpu"
	}
	return fmt.Sprintf("%v:%d", d.Kind, d.ID)
}

// Scalar is one value of any element type, tagged with its DType, as the
// type-erased Backend methods take and return it.
type Scalar struct {
	bits uint64
	hi   uint64 // the imaginary part's bits of a complex128
	dt   dtype.DType
}

// ScalarOf returns v as a Scalar.
func ScalarOf[T dtype.Numeric](v T) Scalar {
	var bits, hi uint64
	switch x := any(v).(type) {
	case float32:
		bits = uint64(math.Float32bits(x))
	case float64:
		bits = math.Float64bits(x)
	case int32:
		bits = uint64(uint32(x))
	case int64:
		bits = uint64(x)
	case uint32:
		bits = uint64(x)
	case uint64:
		bits = x
	case int8:
		bits = uint64(uint8(x))
	case int16:
		bits = uint64(uint16(x))
	case uint8:
		bits = uint64(x)
	case uint16:
		bits = uint64(x)
	case complex64:
		bits = uint64(math.Float32bits(real(x))) | uint64(math.Float32bits(imag(x)))<<32
	case complex128:
		bits, hi = math.Float64bits(real(x)), math.Float64bits(imag(x))
	}
	return Scalar{bits: bits, hi: hi, dt: dtype.Of[T]()}
}

// DType returns the scalar's element type.
func (s Scalar) DType() dtype.DType { return s.dt }

// Bits returns the scalar's bits in the low Size() bytes, as a kernel
// argument of its true size takes them. A complex64 holds its real part's
// bits in the low 4 bytes and its imaginary part's in the high 4 (its
// layout in memory); a complex128's 16 bytes do not fit: Bits returns
// its real part's and HiBits its imaginary part's.
func (s Scalar) Bits() uint64 { return s.bits }

// HiBits returns the bits of a complex128's imaginary part, and 0 for
// every other type.
func (s Scalar) HiBits() uint64 { return s.hi }

// Complex128 returns the value converted to complex128 (a real value gets
// a zero imaginary part).
func (s Scalar) Complex128() complex128 {
	switch s.dt {
	case dtype.Complex64:
		return complex(float64(math.Float32frombits(uint32(s.bits))), float64(math.Float32frombits(uint32(s.bits>>32))))
	case dtype.Complex128:
		return complex(math.Float64frombits(s.bits), math.Float64frombits(s.hi))
	}
	return complex(s.Float64(), 0)
}

// Float64 returns the value converted to float64. A complex value gives
// its real part.
func (s Scalar) Float64() float64 {
	switch s.dt {
	case dtype.Complex64, dtype.Complex128:
		return real(s.Complex128())
	case dtype.Float32:
		return float64(math.Float32frombits(uint32(s.bits)))
	case dtype.Float64:
		return math.Float64frombits(s.bits)
	case dtype.Int32:
		return float64(int32(uint32(s.bits)))
	case dtype.Int64:
		return float64(int64(s.bits))
	case dtype.Uint32:
		return float64(uint32(s.bits))
	case dtype.Int8:
		return float64(int8(uint8(s.bits)))
	case dtype.Int16:
		return float64(int16(uint16(s.bits)))
	case dtype.Uint8:
		return float64(uint8(s.bits))
	case dtype.Uint16:
		return float64(uint16(s.bits))
	default:
		return float64(s.bits)
	}
}

// Int64 returns the value converted to int64 (floats truncate; a complex
// value gives its real part's).
func (s Scalar) Int64() int64 {
	switch s.dt {
	case dtype.Float32, dtype.Float64, dtype.Complex64, dtype.Complex128:
		return int64(s.Float64())
	case dtype.Int32:
		return int64(int32(uint32(s.bits)))
	case dtype.Int8:
		return int64(int8(uint8(s.bits)))
	case dtype.Int16:
		return int64(int16(uint16(s.bits)))
	default:
		return int64(s.bits)
	}
}

// Uint64 returns the value converted to uint64 (floats truncate; a complex
// value gives its real part's).
func (s Scalar) Uint64() uint64 {
	switch s.dt {
	case dtype.Float32, dtype.Float64, dtype.Complex64, dtype.Complex128:
		return uint64(s.Float64())
	case dtype.Int32, dtype.Int8, dtype.Int16:
		return uint64(s.Int64())
	default:
		return s.bits
	}
}

// ValueOf returns s converted to T. A complex s converted to a real T
// gives its real part's value.
func ValueOf[T dtype.Numeric](s Scalar) T {
	var v T
	if s.dt == dtype.Of[T]() {
		// Exact: reinterpret the bits.
		switch p := any(&v).(type) {
		case *float32:
			*p = math.Float32frombits(uint32(s.bits))
		case *float64:
			*p = math.Float64frombits(s.bits)
		case *int32:
			*p = int32(uint32(s.bits))
		case *int64:
			*p = int64(s.bits)
		case *uint32:
			*p = uint32(s.bits)
		case *uint64:
			*p = s.bits
		case *int8:
			*p = int8(uint8(s.bits))
		case *int16:
			*p = int16(uint16(s.bits))
		case *uint8:
			*p = uint8(s.bits)
		case *uint16:
			*p = uint16(s.bits)
		case *complex64:
			*p = complex(math.Float32frombits(uint32(s.bits)), math.Float32frombits(uint32(s.bits>>32)))
		case *complex128:
			*p = complex(math.Float64frombits(s.bits), math.Float64frombits(s.hi))
		}
		return v
	}
	switch p := any(&v).(type) {
	case *float32:
		*p = float32(s.Float64())
	case *float64:
		*p = s.Float64()
	case *int32:
		*p = int32(s.Int64())
	case *int64:
		*p = s.Int64()
	case *int8:
		*p = int8(s.Int64())
	case *int16:
		*p = int16(s.Int64())
	case *uint32:
		*p = uint32(s.Uint64())
	case *uint64:
		*p = s.Uint64()
	case *uint8:
		*p = uint8(s.Uint64())
	case *uint16:
		*p = uint16(s.Uint64())
	case *complex64:
		*p = complex64(s.Complex128())
	case *complex128:
		*p = s.Complex128()
	}
	return v
}

func (s Scalar) String() string {
	switch {
	case s.dt.IsComplex():
		return fmt.Sprint(s.Complex128())
	case s.dt.IsFloat():
		return fmt.Sprint(s.Float64())
	case s.dt.IsSigned():
		return fmt.Sprint(s.Int64())
	default:
		return fmt.Sprint(s.Uint64())
	}
}

// Buffer is memory for Len elements of one DType on one device, owned by a
// backend. Views made by Backend.Slice share memory with their parent.
type Buffer interface {
	Device() Device
	DType() dtype.DType
	Len() int
	// Ptr returns the address of the first element: a host address for host
	// buffers, a device address for device buffers. It is nil when Len is 0.
	Ptr() unsafe.Pointer
}

// BinaryOp is an elementwise binary operation.
type BinaryOp int

// The elementwise binary operations.
const (
	Add BinaryOp = iota
	Sub
	Mul
	Div
)

func (o BinaryOp) String() string {
	switch o {
	case Add:
		return "add"
	case Sub:
		return "sub"
	case Mul:
		return "mul"
	case Div:
		return "div"
	}
	return fmt.Sprintf("BinaryOp(%d)", int(o))
}
