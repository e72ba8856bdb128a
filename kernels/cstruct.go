package kernels

import (
	"fmt"
	"strconv"
	"strings"
)

// cStruct is a struct declared in C source, with the layout C gives it.
type cStruct struct {
	name   string
	line   int
	fields []cField
	size   int
	align  int
}

// cField is one member of a cStruct.
type cField struct {
	name   string
	typ    Type
	nested *cStruct // when typ is Struct
	dims   []int
	offset int
	size   int
	align  int
}

// parseCStructs reads the struct definitions of C source: `struct Name {
// ... };` and `typedef struct [Tag] { ... } Name;`, with members of the
// numeric types of ParseSignatures (and bool), arrays of them with constant
// dimensions, and structs defined earlier. It computes each one's layout
// by the C rules of 64-bit Linux (each member aligned to its alignment, the
// size rounded up to the struct's alignment). It returns the structs by
// name; a definition it cannot read is an error naming the struct and the
// member.
func parseCStructs(src string) (map[string]*cStruct, error) {
	toks := tokenize(src)
	out := map[string]*cStruct{}
	for i := 0; i < len(toks); i++ {
		typedef := false
		start := i
		if toks[i].text == "typedef" && i+1 < len(toks) && toks[i+1].text == "struct" {
			typedef = true
			i++
		}
		if toks[i].text != "struct" {
			continue
		}
		tag := ""
		j := i + 1
		if j < len(toks) && isIdentStart(toks[j].text[0]) {
			tag = toks[j].text
			j++
		}
		if j >= len(toks) || toks[j].text != "{" {
			continue // a use of a struct, not a definition
		}
		end := j
		level := 0
		for ; end < len(toks); end++ {
			if toks[end].text == "{" {
				level++
			} else if toks[end].text == "}" {
				level--
				if level == 0 {
					break
				}
			}
		}
		if end >= len(toks) {
			return nil, fmt.Errorf("kernels: struct %s (line %d): no closing brace", tag, toks[start].line)
		}
		name := tag
		k := end + 1
		if typedef {
			if k < len(toks) && isIdentStart(toks[k].text[0]) {
				name = toks[k].text
				k++
			}
		}
		if name == "" {
			i = end
			continue // an anonymous struct that names nothing
		}
		cs := &cStruct{name: name, line: toks[start].line}
		if err := cs.parseMembers(toks[j+1:end], out); err != nil {
			return nil, err
		}
		out[name] = cs
		if tag != "" && tag != name {
			out[tag] = cs
		}
		i = k - 1
	}
	return out, nil
}

// parseMembers reads the members between the braces and lays them out.
func (cs *cStruct) parseMembers(toks []token, known map[string]*cStruct) error {
	fail := func(member, msg string, args ...any) error {
		where := ""
		if member != "" {
			where = ", member " + member
		}
		return fmt.Errorf("kernels: C struct %s (line %d)%s: %s", cs.name, cs.line, where, fmt.Sprintf(msg, args...))
	}
	var decl []token
	for _, t := range toks {
		if t.text != ";" {
			decl = append(decl, t)
			continue
		}
		if len(decl) == 0 {
			continue
		}
		// Type words, then declarators separated by commas.
		var words []string
		ident := ""
		k := 0
		for ; k < len(decl); k++ {
			w := decl[k].text
			if w == "const" || w == "volatile" || w == "struct" {
				continue
			}
			if builtinWord(w) {
				words = append(words, w)
				continue
			}
			if ident == "" && len(words) == 0 && isIdentStart(w[0]) {
				ident = w
				continue
			}
			break
		}
		var typ Type
		var nested *cStruct
		switch {
		case ident != "" && len(words) > 0:
			return fail("", "cannot read the type %q with %s", ident, strings.Join(words, " "))
		case ident != "":
			if t, ok := namedTypes[ident]; ok {
				typ = t
			} else if n, ok := known[ident]; ok {
				typ, nested = Struct, n
			} else {
				return fail("", "unknown type %q (define a nested struct before its use)", ident)
			}
		default:
			typ = builtinType(words)
			if typ == Invalid {
				return fail("", "unsupported type %q", strings.Join(words, " "))
			}
		}
		for _, d := range splitParams(decl[k:]) {
			if len(d) == 0 || !isIdentStart(d[0].text[0]) {
				return fail("", "cannot read a member of type %s", typ)
			}
			f := cField{name: d[0].text, typ: typ, nested: nested}
			rest := d[1:]
			for len(rest) > 0 {
				if rest[0].text == ":" {
					return fail(f.name, "bit fields are not supported")
				}
				if len(rest) < 3 || rest[0].text != "[" || rest[2].text != "]" {
					return fail(f.name, "cannot read %q", rest[0].text)
				}
				n, err := strconv.Atoi(rest[1].text)
				if err != nil || n <= 0 {
					return fail(f.name, "array dimension %q is not a positive integer constant", rest[1].text)
				}
				f.dims = append(f.dims, n)
				rest = rest[3:]
			}
			if nested != nil {
				f.size, f.align = nested.size, nested.align
			} else {
				f.size, f.align = typ.Size(), typ.Size()
			}
			for _, n := range f.dims {
				f.size *= n
			}
			cs.fields = append(cs.fields, f)
		}
		decl = decl[:0]
	}
	if len(decl) > 0 {
		return fail("", "a member without a closing semicolon")
	}
	if len(cs.fields) == 0 {
		return fail("", "no members")
	}
	at := 0
	cs.align = 1
	for i := range cs.fields {
		f := &cs.fields[i]
		at = (at + f.align - 1) / f.align * f.align
		f.offset = at
		at += f.size
		cs.align = max(cs.align, f.align)
	}
	cs.size = (at + cs.align - 1) / cs.align * cs.align
	return nil
}

// isPadding reports whether a C member is padding: named _pad... or _.
func (f cField) isPadding() bool { return f.name == "_" || strings.HasPrefix(f.name, "_pad") }

// CheckSource checks the struct's definition in C source src, if src has
// one (declared reports whether it has): member for member (padding
// members, named _ or _pad..., aside), the names, types, array dimensions,
// offsets and sizes must be Go's, and so must the struct's size and
// alignment. The C layout is computed by the rules of 64-bit Linux, which
// CUDA follows; CheckLayout (with NVRTC) has the compiler confirm it. An
// error names the struct and the first member that differs.
func (s *StructType) CheckSource(src string) (declared bool, err error) {
	structs, err := parseCStructs(src)
	if err != nil {
		return false, err
	}
	c, ok := structs[s.name]
	if !ok {
		return false, nil
	}
	return true, s.compare(c, s.name)
}

// compare checks c's layout against s's; path names s in messages.
func (s *StructType) compare(c *cStruct, path string) error {
	var gf []Field
	for _, f := range s.fields {
		if f.Name != "_" {
			gf = append(gf, f)
		}
	}
	var cf []cField
	for _, f := range c.fields {
		if !f.isPadding() {
			cf = append(cf, f)
		}
	}
	for i, g := range gf {
		if i >= len(cf) {
			return fmt.Errorf("kernels: struct %s, field %s: missing from the C declaration (line %d)", path, g.Name, c.line)
		}
		f := cf[i]
		where := fmt.Sprintf("kernels: struct %s, field %s", path, g.Name)
		if f.name != g.Name {
			return fmt.Errorf("%s: the C declaration (line %d) has %s here (fields must be in Go's order with Go's names)", where, c.line, f.name)
		}
		if f.typ != g.Type {
			return fmt.Errorf("%s: C type %s, Go type %s (%s)", where, f.typ, g.Type, goTypeName(g.Type))
		}
		if dimsString(f.dims) != dimsString(g.Dims) {
			return fmt.Errorf("%s: C dimensions %q, Go %q", where, dimsString(f.dims), dimsString(g.Dims))
		}
		if g.Struct != nil {
			if err := g.Struct.compare(f.nested, path+"."+g.Name); err != nil {
				return err
			}
		}
		if f.offset != g.Offset {
			return fmt.Errorf("%s: C offset %d, Go offset %d (add or remove padding before it)", where, f.offset, g.Offset)
		}
		if f.size != g.Size {
			return fmt.Errorf("%s: C size %d, Go size %d", where, f.size, g.Size)
		}
	}
	if len(cf) > len(gf) {
		return fmt.Errorf("kernels: struct %s, field %s: in the C declaration (line %d) but not in the Go type %v", path, cf[len(gf)].name, c.line, s.goType)
	}
	if c.size != s.size {
		return fmt.Errorf("kernels: struct %s: C size %d, Go size %d (trailing padding differs)", path, c.size, s.size)
	}
	if c.align != s.align {
		return fmt.Errorf("kernels: struct %s: C alignment %d, Go alignment %d", path, c.align, s.align)
	}
	return nil
}

// goTypeName returns the Go spelling of a numeric Type.
func goTypeName(t Type) string {
	switch t {
	case Bool:
		return "bool"
	case Int8:
		return "int8"
	case Uint8:
		return "uint8"
	case Int16:
		return "int16"
	case Uint16:
		return "uint16"
	case Int32:
		return "int32"
	case Uint32:
		return "uint32"
	case Int64:
		return "int64"
	case Uint64:
		return "uint64"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	case Struct:
		return "struct"
	}
	return t.String()
}
