package dtype

import "fmt"

// Element is the set of real (ordered) element types of arrays: the types
// that every operation takes, comparisons and sorting included.
type Element interface {
	float32 | float64 | int32 | int64 | uint32 | uint64 | int8 | int16 | uint8 | uint16
}

// Complex is the set of complex element types.
type Complex interface {
	complex64 | complex128
}

// Numeric is the set of all element types of arrays: the real types of
// Element and the complex types. Arrays (package backend's Array, and package
// dist's) take any of them; operations that need an order (minimum, maximum, sorting,
// comparisons) take only Element, which is a subset of Numeric.
type Numeric interface {
	Element | Complex
}

// Float is the set of floating-point element types.
type Float interface {
	float32 | float64
}

// Inexact is the set of floating-point and complex element types: those
// of Exp, Log, Sqrt and Pow.
type Inexact interface {
	Float | Complex
}

// DType names an element type at run time.
type DType int

// The element types.
const (
	Float32 DType = iota
	Float64
	Int32
	Int64
	Uint32
	Uint64
	Int8
	Int16
	Uint8
	Uint16
	Complex64  // two float32: real part, then imaginary part
	Complex128 // two float64: real part, then imaginary part
)

var dtypeNames = [...]string{"float32", "float64", "int32", "int64", "uint32", "uint64", "int8", "int16", "uint8", "uint16", "complex64", "complex128"}

// NumDTypes is the number of element types: the DTypes are 0 to
// NumDTypes-1. This is the one list of element types of the project:
// package backend's DType and package mpi's Datatype follow from it.
const NumDTypes = len(dtypeNames)

// Valid reports whether d is one of the element types.
func (d DType) Valid() bool { return d >= 0 && int(d) < NumDTypes }

func (d DType) String() string {
	if d < 0 || int(d) >= len(dtypeNames) {
		return fmt.Sprintf("DType(%d)", int(d))
	}
	return dtypeNames[d]
}

// Size returns the size of one element in bytes.
func (d DType) Size() int {
	switch d {
	case Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Float32, Int32, Uint32:
		return 4
	case Float64, Int64, Uint64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	panic(fmt.Sprintf("dtype: invalid DType %d", int(d)))
}

// IsFloat reports whether d is float32 or float64.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// IsComplex reports whether d is complex64 or complex128.
func (d DType) IsComplex() bool { return d == Complex64 || d == Complex128 }

// Real returns the type of the real and imaginary parts of a complex d
// (float32 for complex64, float64 for complex128), and d itself for a
// real d.
func (d DType) Real() DType {
	switch d {
	case Complex64:
		return Float32
	case Complex128:
		return Float64
	}
	return d
}

// IsSigned reports whether d is a signed integer type.
func (d DType) IsSigned() bool { return d == Int32 || d == Int64 || d == Int8 || d == Int16 }

// Of returns the DType of T.
func Of[T Numeric]() DType {
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
	default:
		return Uint64
	}
}
