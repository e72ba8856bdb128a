package kernels

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// StructType is a Go struct type that kernels take by value: its C name,
// its fields and its layout (offsets, sizes, alignment), as Go lays it out.
// Decl gives the C declaration with that layout made explicit; CheckSource
// checks a C declaration written by hand against it.
//
// Fields may be bool, int8 to int64, uint8 to uint64, float32, float64,
// arrays of those, and structs of those (nested structs become C structs
// of their own; see StructOf for their names). Blank fields (_) are
// padding. int, uint, uintptr, pointers,
// strings, slices, maps, complex numbers, interfaces and zero-size fields
// are refused: their C counterpart has no fixed size or no meaning on a
// device.
type StructType struct {
	name   string
	goType reflect.Type
	fields []Field
	size   int
	align  int
}

// Field is one field of a StructType.
type Field struct {
	// Name is the C name: the Go name, or the name a `cuda:"name"` tag
	// gives. It is "_" for a blank (padding) field.
	Name string
	// GoName is the Go name.
	GoName string
	// Type is the element type: numeric, Bool, or Struct for a nested
	// struct (then Struct is set).
	Type Type
	// Struct is the nested struct's type when Type is Struct.
	Struct *StructType
	// Dims are the array dimensions, outermost first; nil for a scalar.
	Dims []int
	// Offset, Size and Align are the field's layout in bytes.
	Offset, Size, Align int
}

// Name returns the C name of the struct.
func (s *StructType) Name() string { return s.name }

// GoType returns the Go type.
func (s *StructType) GoType() reflect.Type { return s.goType }

// Size returns the size in bytes, as sizeof in C and unsafe.Sizeof in Go.
func (s *StructType) Size() int { return s.size }

// Align returns the alignment in bytes.
func (s *StructType) Align() int { return s.align }

// Fields returns the fields, in order, padding included.
func (s *StructType) Fields() []Field { return append([]Field(nil), s.fields...) }

// StructOf returns the StructType of S under the C name cname ("" for the
// Go type's name). A nested struct field's C name is its Go type's name
// unless the field has a tag `cuda:"fieldname,StructName"`; a field's C
// name is its Go name unless the tag gives one (`cuda:"name"`). It returns
// an error naming the field for a type that has no fixed C layout.
func StructOf[S any](cname string) (*StructType, error) {
	return structOf(reflect.TypeFor[S](), cname)
}

// MustStructOf is StructOf for package-level variables: it panics on an
// error.
func MustStructOf[S any](cname string) *StructType {
	s, err := StructOf[S](cname)
	if err != nil {
		panic(err.Error())
	}
	return s
}

func structOf(t reflect.Type, cname string) (*StructType, error) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		return nil, fmt.Errorf("kernels: struct arguments need a 64-bit platform (CUDA's layout is that of 64-bit C)")
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("kernels: %v is not a struct type", t)
	}
	if cname == "" {
		cname = t.Name()
	}
	if cname == "" || !validIdent(cname) {
		return nil, fmt.Errorf("kernels: struct %v: %q is not a C name (give one to StructOf)", t, cname)
	}
	s := &StructType{name: cname, goType: t, size: int(t.Size()), align: t.Align()}
	if t.NumField() == 0 {
		return nil, fmt.Errorf("kernels: struct %s: no fields (an empty struct has size 0 in Go, 1 in C++)", cname)
	}
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		f := Field{Name: sf.Name, GoName: sf.Name, Offset: int(sf.Offset), Size: int(sf.Type.Size()), Align: sf.Type.Align()}
		nested := ""
		if tag, ok := sf.Tag.Lookup("cuda"); ok {
			name, rest, _ := strings.Cut(tag, ",")
			if name != "" {
				f.Name = name
			}
			nested = rest
		}
		if f.Name != "_" && !validIdent(f.Name) {
			return nil, fmt.Errorf("kernels: struct %s, field %s: %q is not a C name", cname, sf.Name, f.Name)
		}
		if f.Name != "_" && seen[f.Name] {
			return nil, fmt.Errorf("kernels: struct %s, field %s: C name %q used twice", cname, sf.Name, f.Name)
		}
		seen[f.Name] = true
		if sf.Name != "_" && !sf.IsExported() {
			return nil, fmt.Errorf("kernels: struct %s, field %s: unexported (export it, or name it _ for padding)", cname, sf.Name)
		}
		et := sf.Type
		for et.Kind() == reflect.Array {
			f.Dims = append(f.Dims, et.Len())
			et = et.Elem()
		}
		if f.Size == 0 {
			return nil, fmt.Errorf("kernels: struct %s, field %s: size 0 (Go and C lay out empty fields differently)", cname, sf.Name)
		}
		switch et.Kind() {
		case reflect.Bool:
			f.Type = Bool
		case reflect.Int8:
			f.Type = Int8
		case reflect.Uint8:
			f.Type = Uint8
		case reflect.Int16:
			f.Type = Int16
		case reflect.Uint16:
			f.Type = Uint16
		case reflect.Int32:
			f.Type = Int32
		case reflect.Uint32:
			f.Type = Uint32
		case reflect.Int64:
			f.Type = Int64
		case reflect.Uint64:
			f.Type = Uint64
		case reflect.Float32:
			f.Type = Float32
		case reflect.Float64:
			f.Type = Float64
		case reflect.Struct:
			inner, err := structOf(et, nested)
			if err != nil {
				return nil, fmt.Errorf("kernels: struct %s, field %s: %w", cname, sf.Name, unwrapPrefix(err))
			}
			f.Type, f.Struct = Struct, inner
		case reflect.Int, reflect.Uint, reflect.Uintptr:
			return nil, fmt.Errorf("kernels: struct %s, field %s: %v has no fixed size in C (use int64 or uint64)", cname, sf.Name, et)
		default:
			return nil, fmt.Errorf("kernels: struct %s, field %s: %v cannot be a field of a kernel argument (numbers, bool, arrays and structs only)", cname, sf.Name, et)
		}
		s.fields = append(s.fields, f)
	}
	return s, nil
}

// unwrapPrefix drops the "kernels: " of a nested error so that messages
// do not repeat it.
func unwrapPrefix(err error) error {
	msg := strings.TrimPrefix(err.Error(), "kernels: ")
	return fmt.Errorf("%s", msg)
}

func validIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// Decl returns the C declarations of the struct and of the structs it
// nests (those first), with Go's layout made explicit: every padding byte
// that Go inserts is a field named _padN (unsigned char), each field is
// commented with its offset, and the struct with its size and alignment.
// It compiles as C and as CUDA C++, and the C layout equals Go's by
// construction (x86-64 and aarch64 Linux, and CUDA on them, align each
// numeric type to its size, as Go does on 64-bit platforms).
func (s *StructType) Decl() string {
	var sb strings.Builder
	done := map[string]bool{}
	s.decl(&sb, done)
	return sb.String()
}

func (s *StructType) decl(sb *strings.Builder, done map[string]bool) {
	if done[s.name] {
		return
	}
	done[s.name] = true
	for _, f := range s.fields {
		if f.Struct != nil {
			f.Struct.decl(sb, done)
		}
	}
	fmt.Fprintf(sb, "/* %s: Go type %v; size %d, align %d */\n", s.name, s.goType, s.size, s.align)
	fmt.Fprintf(sb, "typedef struct %s {\n", s.name)
	pad := 0
	at := 0
	padField := func(n int) {
		fmt.Fprintf(sb, "\tunsigned char _pad%d[%d]; /* offset %d: padding */\n", pad, n, at)
		pad++
	}
	for _, f := range s.fields {
		if f.Offset > at {
			padField(f.Offset - at)
			at = f.Offset
		}
		if f.Name == "_" {
			fmt.Fprintf(sb, "\tunsigned char _pad%d[%d]; /* offset %d: blank field */\n", pad, f.Size, at)
			pad++
		} else {
			fmt.Fprintf(sb, "\t%s %s%s; /* offset %d */\n", f.cType(), f.Name, dimsString(f.Dims), f.Offset)
		}
		at = f.Offset + f.Size
	}
	if s.size > at {
		padField(s.size - at)
	}
	fmt.Fprintf(sb, "} %s;\n", s.name)
}

func (f Field) cType() string {
	if f.Struct != nil {
		return f.Struct.name
	}
	return f.Type.String()
}

func dimsString(dims []int) string {
	var sb strings.Builder
	for _, d := range dims {
		fmt.Fprintf(&sb, "[%d]", d)
	}
	return sb.String()
}

// StaticAsserts returns C++11 static_asserts of the struct's layout (and
// of the structs it nests): sizeof, alignof, and each named field's
// offsetof and sizeof, each with a message that names the struct and the
// field and gives Go's value. Appended to a source that declares the
// struct, they make NVRTC (or any C++ compiler) refuse a declaration whose
// layout differs from Go's.
func (s *StructType) StaticAsserts() string {
	var sb strings.Builder
	sb.WriteString(offsetofMacro)
	done := map[string]bool{}
	s.asserts(&sb, done)
	return sb.String()
}

func (s *StructType) asserts(sb *strings.Builder, done map[string]bool) {
	if done[s.name] {
		return
	}
	done[s.name] = true
	for _, f := range s.fields {
		if f.Struct != nil {
			f.Struct.asserts(sb, done)
		}
	}
	for _, f := range s.fields {
		if f.Name == "_" {
			continue
		}
		fmt.Fprintf(sb, "static_assert(XPMPI_OFFSETOF(%s, %s) == %d, \"xpmpi layout: struct %s, field %s: offset differs from Go's %d\");\n", s.name, f.Name, f.Offset, s.name, f.Name, f.Offset)
		fmt.Fprintf(sb, "static_assert(sizeof(((%s *)0)->%s) == %d, \"xpmpi layout: struct %s, field %s: size differs from Go's %d\");\n", s.name, f.Name, f.Size, s.name, f.Name, f.Size)
	}
	fmt.Fprintf(sb, "static_assert(sizeof(%s) == %d, \"xpmpi layout: struct %s: size differs from Go's %d\");\n", s.name, s.size, s.name, s.size)
	fmt.Fprintf(sb, "static_assert(alignof(%s) == %d, \"xpmpi layout: struct %s: alignment differs from Go's %d\");\n", s.name, s.align, s.name, s.align)
}

// offsetofMacro defines XPMPI_OFFSETOF, a constant offsetof: the compiler's
// __builtin_offsetof where __has_builtin says it has one (g++, clang, and
// NVRTC versions that have it); otherwise, under NVRTC (11.8 has no
// <cstddef> and no __builtin_offsetof), the classic address-of-member-of-
// null, which its front end folds to a constant.
const offsetofMacro = `#ifndef XPMPI_OFFSETOF
#if defined(__has_builtin)
#if __has_builtin(__builtin_offsetof)
#define XPMPI_OFFSETOF(S, f) __builtin_offsetof(S, f)
#endif
#endif
#endif
#ifndef XPMPI_OFFSETOF
#if defined(__CUDACC_RTC__)
#define XPMPI_OFFSETOF(S, f) ((unsigned long long)&(((S *)0)->f))
#else
#define XPMPI_OFFSETOF(S, f) __builtin_offsetof(S, f)
#endif
#endif
`
