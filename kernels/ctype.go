package kernels

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// Type is the type of a kernel parameter (the pointee type of a pointer
// parameter) or of a struct field, as the C side sees it.
type Type int

// The types of parameters and fields. Generic is the kernel's element type
// parameter (T), fixed per variant; Struct is a struct passed by value.
const (
	Invalid Type = iota
	Bool
	Int8
	Uint8
	Int16
	Uint16
	Int32
	Uint32
	Int64
	Uint64
	Float32
	Float64
	Generic
	Struct
)

var typeNames = [...]string{
	Invalid: "invalid", Bool: "bool", Int8: "signed char", Uint8: "unsigned char",
	Int16: "short", Uint16: "unsigned short", Int32: "int", Uint32: "unsigned int",
	Int64: "long long", Uint64: "unsigned long long", Float32: "float", Float64: "double",
	Generic: "T", Struct: "struct",
}

// String returns the type's canonical C spelling ("long long", "double"),
// "T" for Generic and "struct" for Struct.
func (t Type) String() string {
	if t < 0 || int(t) >= len(typeNames) {
		return fmt.Sprintf("Type(%d)", int(t))
	}
	return typeNames[t]
}

// Size returns the size in bytes of a numeric or bool type, 0 for Generic,
// Struct and Invalid.
func (t Type) Size() int {
	switch t {
	case Bool, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

// DType returns the array element type of t, and whether it has one (the
// element types of backend arrays: float, double, signed char, short, int,
// long long and their unsigned versions).
func (t Type) DType() (backend.DType, bool) {
	switch t {
	case Float32:
		return backend.Float32, true
	case Float64:
		return backend.Float64, true
	case Int32:
		return backend.Int32, true
	case Int64:
		return backend.Int64, true
	case Uint32:
		return backend.Uint32, true
	case Uint64:
		return backend.Uint64, true
	case Int8:
		return backend.Int8, true
	case Int16:
		return backend.Int16, true
	case Uint8:
		return backend.Uint8, true
	case Uint16:
		return backend.Uint16, true
	}
	return 0, false
}

// TypeOf returns the Type of a backend element type.
func TypeOf(dt backend.DType) Type {
	switch dt {
	case backend.Float32:
		return Float32
	case backend.Float64:
		return Float64
	case backend.Int32:
		return Int32
	case backend.Int64:
		return Int64
	case backend.Uint32:
		return Uint32
	case backend.Uint64:
		return Uint64
	case backend.Int8:
		return Int8
	case backend.Int16:
		return Int16
	case backend.Uint8:
		return Uint8
	case backend.Uint16:
		return Uint16
	}
	return Invalid
}

// cTypeName returns the C spelling of a backend element type, as a variant
// defines the element type parameter.
func cTypeName(dt backend.DType) string { return TypeOf(dt).String() }

// namedTypes are the typedef names the parser knows, with their types
// (CUDA on x86-64 and aarch64 Linux: long is 8 bytes).
var namedTypes = map[string]Type{
	"int8_t": Int8, "uint8_t": Uint8, "int16_t": Int16, "uint16_t": Uint16,
	"int32_t": Int32, "uint32_t": Uint32, "int64_t": Int64, "uint64_t": Uint64,
	"size_t": Uint64, "ptrdiff_t": Int64,
}

// builtinType returns the Type spelled by a multiset of C keywords (int,
// unsigned, long, ...), or Invalid.
func builtinType(words []string) Type {
	var signed, unsigned, long, short, intw, char, float, double, boolw int
	for _, w := range words {
		switch w {
		case "signed":
			signed++
		case "unsigned":
			unsigned++
		case "long":
			long++
		case "short":
			short++
		case "int":
			intw++
		case "char":
			char++
		case "float":
			float++
		case "double":
			double++
		case "bool", "_Bool":
			boolw++
		default:
			return Invalid
		}
	}
	if signed > 1 || unsigned > 1 || intw > 1 || char > 1 || short > 1 || signed+unsigned > 1 {
		return Invalid
	}
	sign := signed + unsigned
	switch {
	case float == 1 && len(words) == 1:
		return Float32
	case double == 1 && len(words) == 1:
		return Float64
	case boolw == 1 && len(words) == 1:
		return Bool
	case float+double+boolw > 0:
		return Invalid
	case char == 1:
		if sign == 0 || long+short+intw > 0 {
			return Invalid // plain char's signedness is the platform's: refused
		}
		if unsigned == 1 {
			return Uint8
		}
		return Int8
	case short == 1:
		if long > 0 {
			return Invalid
		}
		if unsigned == 1 {
			return Uint16
		}
		return Int16
	case long == 0:
		if intw+sign == 0 {
			return Invalid
		}
		if unsigned == 1 {
			return Uint32
		}
		return Int32
	case long <= 2:
		if unsigned == 1 {
			return Uint64
		}
		return Int64
	}
	return Invalid
}
