package kernels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
)

// ParamKind says how an argument is passed: a device (or host) array, a
// scalar, or a struct by value.
type ParamKind int

// The kinds of parameters.
const (
	ArrayParam ParamKind = iota
	ScalarParam
	StructParam
)

// String returns "array", "scalar" or "struct".
func (k ParamKind) String() string {
	switch k {
	case ArrayParam:
		return "array"
	case ScalarParam:
		return "scalar"
	case StructParam:
		return "struct"
	}
	return fmt.Sprintf("ParamKind(%d)", int(k))
}

// Param is one parameter of a kernel signature.
type Param struct {
	// Name is the parameter's name in the source ("argN", N from 0, if it
	// has none).
	Name string
	// Pointer is true for a pointer parameter: an array argument.
	Pointer bool
	// Const is true for a pointer to const data: the kernel only reads the
	// array (host implementations must not write it either).
	Const bool
	// Restrict is true for a __restrict__ pointer: the array must not
	// share memory with another array argument of the call.
	Restrict bool
	// Type is the parameter's type, the element type for a pointer.
	Type Type
	// TypeParam names the element type parameter when Type is Generic.
	TypeParam string
	// StructName is the C name of the struct when Type is Struct.
	StructName string
}

// Kind returns how the argument is passed.
func (p Param) Kind() ParamKind {
	switch {
	case p.Pointer:
		return ArrayParam
	case p.Type == Struct:
		return StructParam
	}
	return ScalarParam
}

// TypeName returns the C spelling of the parameter's (element) type.
func (p Param) TypeName() string {
	switch p.Type {
	case Generic:
		return p.TypeParam
	case Struct:
		return p.StructName
	}
	return p.Type.String()
}

// String returns the parameter as a C declaration, canonically spelled:
// "const double *__restrict__ x", "int n", "Params p".
func (p Param) String() string {
	var sb strings.Builder
	if p.Const {
		sb.WriteString("const ")
	}
	sb.WriteString(p.TypeName())
	if p.Pointer {
		sb.WriteString(" *")
		if p.Restrict {
			sb.WriteString("__restrict__ ")
		}
	} else {
		sb.WriteByte(' ')
	}
	sb.WriteString(p.Name)
	return sb.String()
}

// Signature is the signature of a kernel: its name, its element type
// parameters and its parameters.
type Signature struct {
	// Name is the kernel's name (its entry in the compiled module).
	Name string
	// TypeParams are the element type parameters: those of a template
	// <typename T> before the kernel, or the names given to the parser as
	// macros that a variant defines (see Spec.TypeParam).
	TypeParams []string
	// Template is true if the kernel is a C++ template.
	Template bool
	// ExternC is true if the kernel has C linkage (extern "C"), so that its
	// entry is its name.
	ExternC bool
	// Global is true if the signature was parsed from a __global__ function
	// (false for a host signature such as "void axpy(...)").
	Global bool
	// Params are the parameters, in order.
	Params []Param
}

// String returns the signature as one line of C, canonically spelled, as
// ParseSignature reads it back.
func (s Signature) String() string {
	var sb strings.Builder
	if s.Template {
		sb.WriteString("template <")
		for i, t := range s.TypeParams {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("typename " + t)
		}
		sb.WriteString("> ")
	}
	if s.ExternC {
		sb.WriteString(`extern "C" `)
	}
	if s.Global {
		sb.WriteString("__global__ ")
	}
	sb.WriteString("void " + s.Name + "(")
	for i, p := range s.Params {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(p.String())
	}
	sb.WriteString(")")
	return sb.String()
}

// Equal reports whether two signatures take the same arguments: the same
// name, the same parameters by kind, type, constness and element type
// parameter. Parameter names, __restrict__, linkage and whether the
// signature came from a template or a macro do not count.
func (s Signature) Equal(o Signature) bool { return s.Diff(o) == "" }

// Diff returns "" if the signatures take the same arguments (see Equal),
// and otherwise the first difference, naming the parameter.
func (s Signature) Diff(o Signature) string {
	if s.Name != o.Name {
		return fmt.Sprintf("names %s and %s", s.Name, o.Name)
	}
	if len(s.Params) != len(o.Params) {
		return fmt.Sprintf("%d and %d parameters", len(s.Params), len(o.Params))
	}
	for i, p := range s.Params {
		q := o.Params[i]
		if p.Pointer != q.Pointer || p.Const != q.Const || p.TypeName() != q.TypeName() || p.Type != q.Type {
			return fmt.Sprintf("parameter %d (%s): %q and %q", i, p.Name, p.String(), q.String())
		}
	}
	return ""
}

// ParseError is a kernel signature that the parser cannot read or does not
// support.
type ParseError struct {
	Kernel string // the kernel's name, "" if not known yet
	Param  int    // the parameter's index, -1 if the error is not about one
	Name   string // the parameter's name, if known
	Line   int    // the line in the source, 0 if unknown
	Msg    string
}

// Error names the kernel, the line and the parameter, and says what is
// not supported.
func (e *ParseError) Error() string {
	var sb strings.Builder
	sb.WriteString("kernels: ")
	if e.Kernel != "" {
		sb.WriteString("kernel " + e.Kernel)
	} else {
		sb.WriteString("kernel signature")
	}
	if e.Line > 0 {
		fmt.Fprintf(&sb, " (line %d)", e.Line)
	}
	if e.Param >= 0 {
		fmt.Fprintf(&sb, ", parameter %d", e.Param)
		if e.Name != "" {
			sb.WriteString(" (" + e.Name + ")")
		}
	}
	sb.WriteString(": " + e.Msg)
	return sb.String()
}

// ParseOptions are the choices of ParseSignatures.
type ParseOptions struct {
	// TypeParams are names that stand for the element type as macros a
	// variant defines (#define T double), in addition to the type
	// parameters of a template.
	TypeParams []string
}

// ParseSignature returns the signature of the __global__ function called
// name in CUDA C source src. See ParseSignatures for what is supported.
func ParseSignature(src, name string, opts ParseOptions) (Signature, error) {
	sigs, err := ParseSignatures(src, opts)
	if err != nil {
		return Signature{}, err
	}
	for _, s := range sigs {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(sigs))
	for i, s := range sigs {
		names[i] = s.Name
	}
	found := "it has none"
	if len(names) > 0 {
		found = "it has " + strings.Join(names, ", ")
	}
	return Signature{}, &ParseError{Kernel: name, Param: -1, Msg: "no __global__ function of that name in the source (" + found + ")"}
}

// ParseSignatures returns the signatures of every __global__ function of
// CUDA C source src, in order (an overloaded name is an error).
//
// Supported: `extern "C"` (on the declaration or as a block), `template
// <typename T>` and `template <class T>` with type parameters only,
// __launch_bounds__(...), static, inline, __noinline__ and
// __forceinline__ before or after the return type, which must be void.
// Parameters: pointers (one level) to the array element types float,
// double, int, unsigned, long long, unsigned long long and their <stdint.h>
// names (int32_t, int64_t, uint32_t, uint64_t), or to an element type
// parameter; const and volatile before or after the type; __restrict__ (or
// restrict) after the *; scalars of those types, of bool, of
// signed/unsigned char and short, of size_t and ptrdiff_t (long counts as 8
// bytes, as on Linux); structs by value, named with or without the struct
// keyword. Not supported, with an error naming the kernel and the parameter:
// references, arrays, pointers to pointers or to structs, plain char, a
// pointer to bool or to 1- and 2-byte integers (no array has those
// elements), non-type template parameters, default arguments and function
// pointers. Comments and preprocessor lines are ignored: a macro that
// changes a signature is not expanded.
func ParseSignatures(src string, opts ParseOptions) ([]Signature, error) {
	toks := tokenize(src)
	var sigs []Signature
	// Brace depth, and the depths at which an extern "C" { block opened.
	depth := 0
	var externBlocks []int
	for i := 0; i < len(toks); i++ {
		t := toks[i].text
		switch t {
		case "{":
			depth++
			if i >= 2 && toks[i-1].text == `"C"` && toks[i-2].text == "extern" {
				externBlocks = append(externBlocks, depth)
			}
			continue
		case "}":
			if n := len(externBlocks); n > 0 && externBlocks[n-1] == depth {
				externBlocks = externBlocks[:n-1]
			}
			depth--
			continue
		case "__global__":
		default:
			continue
		}
		sig, next, err := parseGlobal(toks, i, len(externBlocks) > 0, opts)
		if err != nil {
			return nil, err
		}
		for _, s := range sigs {
			if s.Name == sig.Name {
				return nil, &ParseError{Kernel: sig.Name, Param: -1, Line: toks[i].line, Msg: "declared twice (overloads are not supported)"}
			}
		}
		sigs = append(sigs, sig)
		i = next - 1
	}
	return sigs, nil
}

// specifiers that may come before or after the return type of a kernel.
var specifiers = map[string]bool{"static": true, "inline": true, "__inline__": true, "__noinline__": true, "__forceinline__": true, "__host__": false}

// parseGlobal parses the kernel whose __global__ is toks[g]; it returns the
// signature and the index after its closing parenthesis.
func parseGlobal(toks []token, g int, inExternBlock bool, opts ParseOptions) (Signature, int, error) {
	sig := Signature{Global: true, ExternC: inExternBlock}
	line := toks[g].line
	fail := func(msg string, args ...any) (Signature, int, error) {
		return Signature{}, 0, &ParseError{Kernel: sig.Name, Param: -1, Line: line, Msg: fmt.Sprintf(msg, args...)}
	}
	// Look back over specifiers for extern "C" and a template header.
	var templateErr error
	j := g - 1
	for j >= 0 && specifiers[toks[j].text] {
		j--
	}
	if j >= 1 && toks[j].text == `"C"` && toks[j-1].text == "extern" {
		sig.ExternC = true
		j -= 2
		for j >= 0 && specifiers[toks[j].text] {
			j--
		}
	}
	if j >= 0 && toks[j].text == ">" {
		// Find the matching "template <".
		open := -1
		level := 0
		for k := j; k >= 0; k-- {
			switch toks[k].text {
			case ">":
				level++
			case "<":
				level--
			case ";", "{", "}":
				k = -1
				continue
			}
			if level == 0 {
				open = k
				break
			}
		}
		if open >= 1 && toks[open-1].text == "template" {
			sig.Template = true
			sig.TypeParams, templateErr = templateParams(toks[open+1 : j])
		}
	}
	// Forward: specifiers, __launch_bounds__(...), void, name.
	i := g + 1
	sawVoid := false
	for i < len(toks) {
		t := toks[i].text
		switch {
		case specifiers[t]:
			i++
		case t == "__launch_bounds__":
			end := skipParens(toks, i+1)
			if end < 0 {
				return fail("unterminated __launch_bounds__")
			}
			i = end
		case t == "void" && !sawVoid:
			sawVoid = true
			i++
		default:
			goto name
		}
	}
name:
	if i >= len(toks) || !isIdentStart(toks[i].text[0]) {
		return fail("no kernel name after __global__")
	}
	if !sawVoid {
		return fail("a __global__ function must return void")
	}
	sig.Name = toks[i].text
	if templateErr != nil {
		return fail("%v", templateErr)
	}
	i++
	if i < len(toks) && toks[i].text == "<" {
		return fail("explicit specializations are not supported")
	}
	if i >= len(toks) || toks[i].text != "(" {
		return fail("no parameter list after the name")
	}
	end := skipParens(toks, i)
	if end < 0 {
		return fail("unterminated parameter list")
	}
	inner := toks[i+1 : end-1]
	typeParams := append(slices.Clone(sig.TypeParams), opts.TypeParams...)
	if len(inner) == 1 && inner[0].text == "void" {
		inner = nil
	}
	if len(inner) > 0 {
		for k, ptoks := range splitParams(inner) {
			p, err := parseParam(ptoks, k, typeParams)
			if err != nil {
				err.Kernel = sig.Name
				err.Line = line
				return Signature{}, 0, err
			}
			for _, q := range sig.Params {
				if q.Name == p.Name {
					return Signature{}, 0, &ParseError{Kernel: sig.Name, Param: k, Name: p.Name, Line: line, Msg: "duplicate parameter name"}
				}
			}
			sig.Params = append(sig.Params, p)
		}
	}
	return sig, end, nil
}

// templateParams parses the inside of template <...>: type parameters only.
func templateParams(toks []token) ([]string, error) {
	var names []string
	for _, part := range splitParams(toks) {
		if len(part) != 2 || (part[0].text != "typename" && part[0].text != "class") || !isIdentStart(part[1].text[0]) {
			var words []string
			for _, t := range part {
				words = append(words, t.text)
			}
			return nil, fmt.Errorf("template parameter %q: only type parameters (typename T) are supported", strings.Join(words, " "))
		}
		names = append(names, part[1].text)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("empty template parameter list")
	}
	return names, nil
}

// skipParens returns the index after the parenthesis that closes the one
// at toks[i], or -1.
func skipParens(toks []token, i int) int {
	if i >= len(toks) || toks[i].text != "(" {
		return -1
	}
	level := 0
	for k := i; k < len(toks); k++ {
		switch toks[k].text {
		case "(":
			level++
		case ")":
			level--
			if level == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// splitParams splits tokens at the commas outside parentheses, brackets
// and angle brackets.
func splitParams(toks []token) [][]token {
	var out [][]token
	level := 0
	start := 0
	for k, t := range toks {
		switch t.text {
		case "(", "[", "<", "{":
			level++
		case ")", "]", ">", "}":
			level--
		case ",":
			if level == 0 {
				out = append(out, toks[start:k])
				start = k + 1
			}
		}
	}
	return append(out, toks[start:])
}

// parseParam parses the tokens of one parameter, the k-th.
func parseParam(toks []token, k int, typeParams []string) (Param, *ParseError) {
	p := Param{Name: fmt.Sprintf("arg%d", k)}
	fail := func(msg string, args ...any) (Param, *ParseError) {
		return Param{}, &ParseError{Param: k, Name: p.Name, Msg: fmt.Sprintf(msg, args...)}
	}
	if len(toks) == 0 {
		return fail("empty parameter")
	}
	// The name is the last identifier if something comes before it that
	// can be a type.
	last := toks[len(toks)-1].text
	named := false
	if isIdentStart(last[0]) && len(toks) > 1 && !isTypeWord(last, typeParams) {
		p.Name = last
		toks = toks[:len(toks)-1]
		named = true
	}
	_ = named
	var words []string // type keywords
	var ident string   // a type name: typedef, struct or type parameter
	constBefore, constAfter := false, false
	stars := 0
	sawStruct := false
	for _, tk := range toks {
		t := tk.text
		switch {
		case t == "const":
			if stars > 0 {
				constAfter = true
			} else {
				constBefore = true
			}
		case t == "volatile":
		case t == "__restrict__" || t == "restrict" || t == "__restrict":
			if stars == 0 {
				return fail("__restrict__ before the *")
			}
			p.Restrict = true
		case t == "*":
			stars++
		case t == "&":
			return fail("references are not supported: pass arrays as pointers and structs by value")
		case t == "[" || t == "]":
			return fail("array parameters are not supported: use a pointer")
		case t == "(" || t == ")":
			return fail("function pointers are not supported")
		case t == "=":
			return fail("default arguments are not supported")
		case t == "struct":
			sawStruct = true
		case t == "::" || t == "<" || t == ">":
			return fail("qualified or template type names are not supported")
		case isIdentStart(t[0]):
			if stars > 0 {
				return fail("unexpected %q after the *", t)
			}
			if builtinWord(t) {
				words = append(words, t)
			} else {
				if ident != "" {
					return fail("cannot read the type: %q then %q", ident, t)
				}
				ident = t
			}
		default:
			return fail("unexpected %q", t)
		}
	}
	_ = constAfter // a const pointer (T *const p) still points to writable data
	if stars > 1 {
		return fail("pointers to pointers are not supported")
	}
	p.Pointer = stars == 1
	p.Const = constBefore && p.Pointer
	switch {
	case ident != "" && len(words) > 0:
		return fail("cannot read the type: %q with %s", ident, strings.Join(words, " "))
	case ident != "":
		if t, ok := namedTypes[ident]; ok && !sawStruct {
			p.Type = t
		} else if slices.Contains(typeParams, ident) && !sawStruct {
			p.Type = Generic
			p.TypeParam = ident
		} else {
			p.Type = Struct
			p.StructName = ident
		}
	case len(words) > 0:
		p.Type = builtinType(words)
		if p.Type == Invalid {
			if slices.Contains(words, "char") {
				return fail("type %q: plain char is not supported (say signed char or unsigned char)", strings.Join(words, " "))
			}
			return fail("unsupported type %q", strings.Join(words, " "))
		}
	default:
		return fail("no type")
	}
	if p.Name == "" || !isIdentStart(p.Name[0]) {
		return fail("no parameter name")
	}
	if p.Pointer {
		switch p.Type {
		case Struct:
			return fail("pointers to structs (%s *) are not supported: arrays have numeric elements", p.StructName)
		case Generic:
		default:
			if _, ok := p.Type.DType(); !ok {
				return fail("a pointer to %s: arrays have float, double, int, unsigned, long long or unsigned long long elements", p.Type)
			}
		}
	} else if p.Restrict {
		return fail("__restrict__ on a parameter that is not a pointer")
	}
	return p, nil
}

// builtinWord reports whether w is a C keyword of a builtin arithmetic type.
func builtinWord(w string) bool {
	switch w {
	case "signed", "unsigned", "long", "short", "int", "char", "float", "double", "bool", "_Bool", "void":
		return true
	}
	return false
}

// isTypeWord reports whether w names a type (and so cannot be a parameter
// name).
func isTypeWord(w string, typeParams []string) bool {
	if builtinWord(w) || w == "const" || w == "volatile" || w == "struct" || w == "__restrict__" || w == "restrict" || w == "__restrict" {
		return true
	}
	_, ok := namedTypes[w]
	return ok || slices.Contains(typeParams, w)
}

// ElementTypes returns the element types of the array parameters that are
// not generic, in parameter order.
func (s Signature) ElementTypes() []backend.DType {
	var out []backend.DType
	for _, p := range s.Params {
		if dt, ok := p.Type.DType(); ok && p.Pointer {
			out = append(out, dt)
		}
	}
	return out
}

// ParseHostSignature parses a signature written without __global__, such as
// "void axpy(int n, double a, const double *x, double *y)": the signature
// of a kernel that has only a host implementation, or the host side's
// declaration that a catalog checks against the CUDA source's. A leading
// __global__ and extern "C" are accepted too. Parameters are read as by
// ParseSignatures.
func ParseHostSignature(decl string, opts ParseOptions) (Signature, error) {
	toks := tokenize(decl)
	start := 0
	if len(toks) >= 2 && toks[0].text == "extern" && toks[1].text == `"C"` {
		start = 2
	}
	if start < len(toks) && toks[start].text == "__global__" {
		toks = toks[start:]
	} else {
		toks = append([]token{{text: "__global__", line: 1}}, toks[start:]...)
	}
	sig, end, err := parseGlobal(toks, 0, false, opts)
	if err != nil {
		return Signature{}, err
	}
	if rest := toks[end:]; len(rest) > 1 || len(rest) == 1 && rest[0].text != ";" {
		return Signature{}, &ParseError{Kernel: sig.Name, Param: -1, Msg: fmt.Sprintf("unexpected %q after the parameter list", rest[0].text)}
	}
	sig.Global, sig.ExternC = false, false
	return sig, nil
}
