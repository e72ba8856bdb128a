package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// Number is the set of Go types a scalar argument may have: the fixed-size
// numeric types. (int, uint and uintptr go through Int, which checks the
// value against the parameter's type.)
type Number interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// argKind says what an Arg holds.
type argKind int

const (
	argArray argKind = iota
	argScalar
	argInt   // an untyped integer, converted to the parameter's type
	argFloat // an untyped float, converted to a float parameter's type
	argStruct
	argDist    // a dist array's block, or a number of it (LaunchDist resolves it)
	argInvalid // a dist argument that cannot be resolved (err says why)
)

// Arg is one argument of a kernel call: an array, a scalar or a struct
// value. Make it with Array, Scalar, Int, Float or StructValue.
type Arg struct {
	kind  argKind
	typ   Type          // scalars: the Go type's C type
	dt    backend.DType // arrays
	be    backend.Backend
	buf   backend.Buffer
	owner freer  // arrays: the *backend.Array, asked at the launch whether it was freed
	bits  uint64 // scalars, as Type's bits
	i     int64  // argInt
	f     float64
	st    reflect.Type // structs
	bytes []byte       // structs
	dist  *distArg     // argDist
	err   string       // argInvalid
}

// Array returns an array argument: a pointer parameter of a's element type.
func Array[T backend.Element](a *backend.Array[T]) Arg {
	if a == nil {
		panic("kernels: Array of a nil *backend.Array")
	}
	arg := Arg{kind: argArray, dt: a.DType(), be: a.Backend(), owner: a}
	if !a.Freed() { // a freed array has no buffer: the launch refuses it
		arg.buf = a.Buffer()
	}
	return arg
}

// freer is a *backend.Array of any element type, or a device buffer
// (backend.DeviceView), that knows whether its memory was freed.
type freer interface{ Freed() bool }

// freed reports whether an array argument's memory was freed: the array
// (by its Free) or, for a view on a device, the allocation under it.
func (a Arg) freed() bool {
	if a.owner != nil && a.owner.Freed() {
		return true
	}
	f, ok := a.buf.(freer)
	return ok && f.Freed()
}

// Scalar returns a scalar argument of v's type, which must be the
// parameter's type exactly (int32 for int, float64 for double, bool for
// bool, ...).
func Scalar[T Number | bool](v T) Arg {
	a := Arg{kind: argScalar}
	switch x := any(v).(type) {
	case bool:
		a.typ = Bool
		if x {
			a.bits = 1
		}
	case int8:
		a.typ, a.bits = Int8, uint64(uint8(x))
	case uint8:
		a.typ, a.bits = Uint8, uint64(x)
	case int16:
		a.typ, a.bits = Int16, uint64(uint16(x))
	case uint16:
		a.typ, a.bits = Uint16, uint64(x)
	case int32:
		a.typ, a.bits = Int32, uint64(uint32(x))
	case uint32:
		a.typ, a.bits = Uint32, uint64(x)
	case int64:
		a.typ, a.bits = Int64, uint64(x)
	case uint64:
		a.typ, a.bits = Uint64, x
	case float32:
		a.typ, a.bits = Float32, uint64(math.Float32bits(x))
	case float64:
		a.typ, a.bits = Float64, math.Float64bits(x)
	}
	return a
}

// Int returns an integer argument for any numeric parameter: it is
// converted to the parameter's type, and a value that the type cannot hold
// exactly is an error of the call.
func Int(v int) Arg { return Arg{kind: argInt, i: int64(v)} }

// Float returns a floating-point argument for a float or double
// parameter, converted (rounded for float) to the parameter's type.
func Float(v float64) Arg { return Arg{kind: argFloat, f: v} }

// StructValue returns a struct argument: v is passed by value, with its Go
// layout, to a struct parameter whose StructType has S's Go type.
func StructValue[S any](v S) Arg {
	t := reflect.TypeFor[S]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("kernels: StructValue of %v, not a struct", t))
	}
	b := append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&v)), t.Size())...)
	return Arg{kind: argStruct, st: t, bytes: b}
}

// describe says what the argument is, for messages.
func (a Arg) describe() string {
	switch a.kind {
	case argArray:
		if a.buf == nil {
			return fmt.Sprintf("a freed array of %v", a.dt)
		}
		return fmt.Sprintf("an array of %v on %v", a.dt, a.buf.Device())
	case argScalar:
		return article(goTypeName(a.typ)) + " scalar"
	case argInt:
		return fmt.Sprintf("the integer %d", a.i)
	case argFloat:
		return fmt.Sprintf("the float %v", a.f)
	case argStruct:
		return "a struct " + a.st.String()
	case argDist:
		return a.dist.what + " argument"
	}
	return "an invalid argument"
}

// article returns word with "a" or "an" before it.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

// scalarBits converts a scalar argument to the parameter type t (a numeric
// or bool Type), returning its bits in the low t.Size() bytes.
func (a Arg) scalarBits(t Type) (uint64, error) {
	switch a.kind {
	case argScalar:
		if a.typ != t {
			return 0, fmt.Errorf("%s, the parameter is %s (pass %s, or Int/Float to convert)", a.describe(), t, goTypeName(t))
		}
		return a.bits, nil
	case argFloat:
		switch t {
		case Float32:
			return uint64(math.Float32bits(float32(a.f))), nil
		case Float64:
			return math.Float64bits(a.f), nil
		}
		return 0, fmt.Errorf("%s, the parameter is %s (a float converts to float or double only)", a.describe(), t)
	case argInt:
		v := a.i
		var lo, hi int64
		switch t {
		case Int8:
			lo, hi = math.MinInt8, math.MaxInt8
		case Uint8:
			lo, hi = 0, math.MaxUint8
		case Int16:
			lo, hi = math.MinInt16, math.MaxInt16
		case Uint16:
			lo, hi = 0, math.MaxUint16
		case Int32:
			lo, hi = math.MinInt32, math.MaxInt32
		case Uint32:
			lo, hi = 0, math.MaxUint32
		case Int64:
			return uint64(v), nil
		case Uint64:
			if v < 0 {
				return 0, fmt.Errorf("%s is out of the range of %s", a.describe(), t)
			}
			return uint64(v), nil
		case Float32:
			f := float32(v)
			if int64(f) != v {
				return 0, fmt.Errorf("%s is not exactly a float", a.describe())
			}
			return uint64(math.Float32bits(f)), nil
		case Float64:
			f := float64(v)
			if int64(f) != v {
				return 0, fmt.Errorf("%s is not exactly a double", a.describe())
			}
			return math.Float64bits(f), nil
		default:
			return 0, fmt.Errorf("%s, the parameter is %s", a.describe(), t)
		}
		if v < lo || v > hi {
			return 0, fmt.Errorf("%s is out of the range of %s [%d, %d]", a.describe(), t, lo, hi)
		}
		return uint64(v) & (1<<(8*t.Size()) - 1), nil
	}
	return 0, fmt.Errorf("%s, the parameter is a scalar %s", a.describe(), t)
}

// packedArg is one argument as a launch passes it: a device buffer, or
// bytes (a scalar at its true size, a struct).
type packedArg struct {
	buf   backend.Buffer
	bytes []byte
}

// scalarBytes returns the low size bytes of bits, little-endian.
func scalarBytes(bits uint64, size int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, bits)
	return b[:size]
}

// Dim3 is a grid or block size; a zero component counts as 1.
type Dim3 struct{ X, Y, Z int }

func (d Dim3) norm() Dim3 {
	one := func(v int) int { return max(v, 1) }
	return Dim3{one(d.X), one(d.Y), one(d.Z)}
}

func (d Dim3) isZero() bool { return d == Dim3{} }

func float32frombits(b uint32) float32 { return math.Float32frombits(b) }

func float64frombits(b uint64) float64 { return math.Float64frombits(b) }

// ArrayOf returns the backend and buffer of an array argument, and false
// for any other argument. Test helpers (kerneltest) read results with it.
func (a Arg) ArrayOf() (backend.Backend, backend.Buffer, bool) {
	if a.kind != argArray {
		return nil, nil, false
	}
	return a.be, a.buf, true
}
