// Package npy reads and writes the header of NumPy's .npy files for the
// element types of xpmpi arrays, byte for byte as numpy.save writes it, with
// a parser of the header's Python literal that refuses what it does not
// understand. It needs no MPI: package dist writes and reads the data in
// parallel, around these headers.
//
// The format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// Header is what the header of a NumPy .npy file says about the array
// that follows it: the element type, the shape (C order) and where the data
// starts.
type Header struct {
	DType      backend.DType
	Shape      []int // empty for a 0-dimensional array
	DataOffset int64 // bytes from the start of the file to the data
}

// Len returns the number of elements.
func (h Header) Len() int {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

// DataSize returns the size of the data in bytes.
func (h Header) DataSize() int64 { return int64(h.Len()) * int64(h.DType.Size()) }

// The .npy format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
const (
	magic = "\x93NUMPY"
	// Align is the alignment of the data offset that NumPy writes.
	Align = 64
	// growth is the room NumPy leaves after the header dict so that
	// axis 0 can grow in place (GROWTH_AXIS_MAX_DIGITS).
	growth = 21
	// maxHeader bounds the header dict that ReadHeader reads
	// (NumPy's own reader stops at 10000 bytes by default).
	maxHeader = 1 << 16
	// MaxDims bounds the number of dimensions (NumPy's own limit is 32,
	// 64 in NumPy 2).
	MaxDims = 64
	// MaxBytes bounds the data size a header may declare.
	MaxBytes = 1 << 62
)

// descrs are the NumPy type strings of the element types, in DType
// order: NumPy writes '|' (no byte order) for one-byte types.
var descrs = [...]string{"<f4", "<f8", "<i4", "<i8", "<u4", "<u8", "|i1", "<i2", "|u1", "<u2", "<c8", "<c16"}

// Descr returns the NumPy type string of dt.
func Descr(dt backend.DType) string {
	if dt < 0 || int(dt) >= len(descrs) {
		panic(fmt.Sprintf("npy: invalid DType %d", int(dt)))
	}
	return descrs[dt]
}

// ParseDescr returns the DType of a NumPy type string. '<' (little-endian)
// and '=' (native) are accepted ('|' too, which NumPy writes only for
// one-byte types); big-endian data is an error, since it would need
// swapping.
func ParseDescr(s string) (backend.DType, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("unsupported dtype %q", s)
	}
	order, kind := s[0], s[1:]
	switch {
	case order == '<', order == '=', order == '|':
	case (order == '>' || order == '!') && (kind == "i1" || kind == "u1"):
		// One byte has no order.
	case order == '>', order == '!':
		return 0, fmt.Errorf("big-endian dtype %q is not supported: convert it with numpy, a.astype('<%s')", s, kind)
	default:
		return 0, fmt.Errorf("unsupported dtype %q", s)
	}
	for dt, d := range descrs {
		if d[1:] == kind {
			return backend.DType(dt), nil
		}
	}
	return 0, fmt.Errorf("unsupported dtype %q: xpmpi arrays hold float32 (<f4), float64 (<f8), int8 (|i1), int16 (<i2), int32 (<i4), int64 (<i8), uint8 (|u1), uint16 (<u2), uint32 (<u4), uint64 (<u8), complex64 (<c8) or complex128 (<c16)", s)
}

// LittleEndian is whether this machine stores numbers little-endian, as
// the files do.
var LittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func ErrBigEndianHost() error {
	return errors.New("npy: .npy files on a big-endian machine are not supported")
}

// HeaderBytes returns the header of a .npy file of dt and shape, byte
// for byte what NumPy's numpy.save writes: version 1.0 (2.0 if the dict
// does not fit in 64 KiB), the dict with its keys sorted, room for axis 0
// to grow, and spaces and a newline up to a multiple of 64 bytes.
func HeaderBytes(dt backend.DType, shape []int) []byte {
	var d strings.Builder
	fmt.Fprintf(&d, "{'descr': '%s', 'fortran_order': False, 'shape': (", Descr(dt))
	for i, n := range shape {
		if n < 0 {
			panic(fmt.Sprintf("npy: negative dimension in shape %v", shape))
		}
		if i > 0 {
			d.WriteString(", ")
		}
		d.WriteString(strconv.Itoa(n))
	}
	if len(shape) == 1 {
		d.WriteString(",")
	}
	d.WriteString("), }")
	if len(shape) > 0 {
		if pad := growth - len(strconv.Itoa(shape[0])); pad > 0 {
			d.WriteString(strings.Repeat(" ", pad))
		}
	}
	dict := d.String()
	hlen := len(dict) + 1 // with the final newline
	prefix := 10
	if 10+hlen+Align > math.MaxUint16 {
		prefix = 12 // version 2.0: a 4-byte length
	}
	pad := Align - (prefix+hlen)%Align
	b := make([]byte, 0, prefix+hlen+pad)
	b = append(b, magic...)
	if prefix == 10 {
		b = append(b, 1, 0)
		b = binary.LittleEndian.AppendUint16(b, uint16(hlen+pad))
	} else {
		b = append(b, 2, 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen+pad))
	}
	b = append(b, dict...)
	b = append(b, bytes.Repeat([]byte{' '}, pad)...)
	return append(b, '\n')
}

// WriteHeader writes the header of a .npy file that holds an array of
// dt and shape in C order, as numpy.save writes it; the data, shape's
// elements in C order and little-endian, follows it. An empty shape is a
// 0-dimensional array.
func WriteHeader(w io.Writer, dt backend.DType, shape []int) error {
	_, err := w.Write(HeaderBytes(dt, shape))
	return err
}

// ReadHeader reads the header of a .npy file (format version 1.0, 2.0
// or 3.0) from r, leaving r at the start of the data. It accepts the
// element types of xpmpi arrays in C order only: a Fortran-order array, a
// big-endian or other type, a malformed dict (other keys than descr,
// fortran_order and shape, each once), a negative dimension or a size that
// overflows is an error. It reads no more than the header, at most 64 KiB.
func ReadHeader(r io.Reader) (Header, error) {
	var h Header
	var pre [12]byte
	n, err := io.ReadFull(r, pre[:8])
	if n == 0 && err == io.EOF {
		return h, errors.New("not a .npy file: it is empty")
	}
	if got := string(pre[:min(n, len(magic))]); got != magic[:len(got)] {
		return h, fmt.Errorf("not a .npy file: it starts with %q, not %q", got, magic)
	}
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return h, fmt.Errorf("truncated .npy header: %d bytes", n)
	case err != nil:
		return h, fmt.Errorf("reading the .npy header: %w", err)
	}
	major, minor := pre[6], pre[7]
	var hlen int64
	switch {
	case major == 1 && minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return h, errors.New("truncated .npy header: no header length")
		}
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
		h.DataOffset = 10 + hlen
	case (major == 2 || major == 3) && minor == 0:
		if _, err := io.ReadFull(r, pre[8:12]); err != nil {
			return h, errors.New("truncated .npy header: no header length")
		}
		hlen = int64(binary.LittleEndian.Uint32(pre[8:12]))
		h.DataOffset = 12 + hlen
	default:
		return h, fmt.Errorf(".npy format version %d.%d is not supported (1.0, 2.0 and 3.0 are)", major, minor)
	}
	if hlen > maxHeader {
		return h, fmt.Errorf(".npy header of %d bytes, more than the %d this reader accepts", hlen, maxHeader)
	}
	// Read what is there before trusting the length with an allocation.
	text, err := io.ReadAll(io.LimitReader(r, hlen))
	if err != nil {
		return h, fmt.Errorf("reading the .npy header: %w", err)
	}
	if int64(len(text)) < hlen {
		return h, fmt.Errorf("truncated .npy header: %d of %d bytes", len(text), hlen)
	}
	dt, shape, err := parseDict(text)
	if err != nil {
		return h, fmt.Errorf("bad .npy header: %w", err)
	}
	h.DType, h.Shape = dt, shape
	return h, nil
}

// parseDict parses the header dict of a .npy file: a Python literal
// dict with exactly the keys descr, fortran_order and shape, followed by
// white space only.
func parseDict(text []byte) (backend.DType, []int, error) {
	p := &pyParser{s: text}
	v, err := p.value(0)
	if err != nil {
		return 0, nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return 0, nil, fmt.Errorf("unexpected %q after the dict at byte %d", p.s[p.i], p.i)
	}
	if v.kind != pyDict {
		return 0, nil, errors.New("the header is not a dict")
	}
	var descr, fortran, shape *pyValue
	for i := range v.items {
		k, val := v.keys[i], &v.items[i]
		switch k {
		case "descr":
			descr = val
		case "fortran_order":
			fortran = val
		case "shape":
			shape = val
		default:
			return 0, nil, fmt.Errorf("unexpected key %q in the header dict (want descr, fortran_order and shape)", k)
		}
	}
	switch {
	case descr == nil:
		return 0, nil, errors.New("no 'descr' in the header dict")
	case fortran == nil:
		return 0, nil, errors.New("no 'fortran_order' in the header dict")
	case shape == nil:
		return 0, nil, errors.New("no 'shape' in the header dict")
	}
	if descr.kind != pyString {
		return 0, nil, errors.New("'descr' is not a type string: structured dtypes are not supported")
	}
	dt, err := ParseDescr(descr.s)
	if err != nil {
		return 0, nil, err
	}
	if fortran.kind != pyBool {
		return 0, nil, errors.New("'fortran_order' is not True or False")
	}
	if fortran.b {
		return 0, nil, errors.New("fortran_order is True: column-major data is not supported; save a C-order array, numpy.ascontiguousarray(a)")
	}
	if shape.kind != pyTuple {
		return 0, nil, errors.New("'shape' is not a tuple")
	}
	if len(shape.items) > MaxDims {
		return 0, nil, fmt.Errorf("shape of %d dimensions, more than %d", len(shape.items), MaxDims)
	}
	dims := make([]int, len(shape.items))
	for i, d := range shape.items {
		if d.kind != pyInt {
			return 0, nil, fmt.Errorf("dimension %d of the shape is not an integer", i)
		}
		if d.neg && d.n != 0 {
			return 0, nil, fmt.Errorf("negative dimension -%d in the shape", d.n)
		}
		if d.n > MaxBytes {
			return 0, nil, fmt.Errorf("dimension %d in the shape is too large", d.n)
		}
		dims[i] = int(d.n)
	}
	if _, ok := ShapeBytes(dims, dt.Size()); !ok {
		return 0, nil, fmt.Errorf("shape %v is too large", dims)
	}
	return dt, dims, nil
}

// ShapeBytes returns the size in bytes of an array of shape with elements
// of size bytes, and false if it is negative or over MaxBytes.
func ShapeBytes(shape []int, size int) (int64, bool) {
	n := uint64(size)
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d == 0 {
			return 0, true
		}
	}
	for _, d := range shape {
		if n > MaxBytes/uint64(d) {
			return 0, false
		}
		n *= uint64(d)
	}
	return int64(n), true
}

// pyValue is a Python literal of a .npy header.
type pyValue struct {
	kind  int
	s     string    // pyString
	b     bool      // pyBool
	n     uint64    // pyInt: magnitude
	neg   bool      // pyInt: a minus sign
	items []pyValue // pyTuple, pyList, pyDict values
	keys  []string  // pyDict keys
}

const (
	pyString = iota
	pyBool
	pyNone
	pyInt
	pyTuple
	pyList
	pyDict
)

// pyMaxDepth bounds the nesting of literals, pyMaxItems the items of a
// tuple, list or dict.
const (
	pyMaxDepth = 8
	pyMaxItems = 256
)

// pyParser parses the subset of Python literals that .npy headers use:
// strings without escapes, True, False, None, decimal integers, tuples,
// lists and dicts with string keys.
type pyParser struct {
	s []byte
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.i++
		default:
			return
		}
	}
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

// peek skips white space and returns the next byte, or 0 at the end.
func (p *pyParser) peek() byte {
	p.space()
	if p.i >= len(p.s) {
		return 0
	}
	return p.s[p.i]
}

func (p *pyParser) value(depth int) (pyValue, error) {
	if depth > pyMaxDepth {
		return pyValue{}, p.errorf("literals nested too deep")
	}
	c := p.peek()
	switch {
	case c == 0:
		return pyValue{}, p.errorf("the header ends too early")
	case c == '\'' || c == '"':
		s, err := p.str()
		return pyValue{kind: pyString, s: s}, err
	case c == 'u' && p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"'):
		p.i++ // Python 2's u'...'
		s, err := p.str()
		return pyValue{kind: pyString, s: s}, err
	case c == '{':
		return p.dict(depth)
	case c == '(' || c == '[':
		return p.seq(depth)
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.integer()
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		start := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] == '_' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
			p.i++
		}
		switch w := string(p.s[start:p.i]); w {
		case "True":
			return pyValue{kind: pyBool, b: true}, nil
		case "False":
			return pyValue{kind: pyBool}, nil
		case "None":
			return pyValue{kind: pyNone}, nil
		default:
			p.i = start
			return pyValue{}, p.errorf("unexpected name %.20q", w)
		}
	}
	return pyValue{}, p.errorf("unexpected %q", c)
}

func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	start := p.i
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == q:
			s := string(p.s[start:p.i])
			p.i++
			return s, nil
		case c == '\\':
			return "", p.errorf("escape sequences in strings are not supported")
		case c == '\n' || c == '\r':
			return "", p.errorf("newline in a string")
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}

func (p *pyParser) integer() (pyValue, error) {
	v := pyValue{kind: pyInt}
	if c := p.s[p.i]; c == '-' || c == '+' {
		v.neg = c == '-'
		p.i++
		p.space()
	}
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		if p.i-start >= 19 {
			return v, p.errorf("integer too large")
		}
		v.n = v.n*10 + uint64(p.s[p.i]-'0')
		p.i++
	}
	if p.i == start {
		return v, p.errorf("a sign without digits")
	}
	if p.i < len(p.s) && (p.s[p.i] == 'L' || p.s[p.i] == 'l') {
		p.i++ // Python 2's long integers, in headers that old NumPy wrote
	}
	if p.i < len(p.s) {
		if c := p.s[p.i]; c == '_' || c == '.' || c == 'e' || c == 'E' || c == 'x' || c == 'j' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			return v, p.errorf("not a decimal integer")
		}
	}
	return v, nil
}

// seq parses a tuple or a list. A parenthesized value without a comma is
// the value itself, as in Python: (5) is 5, (5,) a tuple.
func (p *pyParser) seq(depth int) (pyValue, error) {
	open := p.s[p.i]
	closing, kind := byte(')'), pyTuple
	if open == '[' {
		closing, kind = ']', pyList
	}
	p.i++
	v := pyValue{kind: kind}
	comma := false
	for {
		if p.peek() == closing {
			p.i++
			break
		}
		if len(v.items) == pyMaxItems {
			return v, p.errorf("more than %d items in a sequence", pyMaxItems)
		}
		item, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.items = append(v.items, item)
		switch p.peek() {
		case ',':
			p.i++
			comma = true
			continue
		case closing:
			p.i++
		default:
			return v, p.errorf("expected ',' or %q", closing)
		}
		break
	}
	if kind == pyTuple && len(v.items) == 1 && !comma {
		return v.items[0], nil
	}
	return v, nil
}

func (p *pyParser) dict(depth int) (pyValue, error) {
	p.i++
	v := pyValue{kind: pyDict}
	for {
		if p.peek() == '}' {
			p.i++
			return v, nil
		}
		if len(v.items) == pyMaxItems {
			return v, p.errorf("more than %d items in a dict", pyMaxItems)
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		if k.kind != pyString {
			return v, p.errorf("a dict key that is not a string")
		}
		if slices.Contains(v.keys, k.s) {
			return v, p.errorf("key %q twice in the dict", k.s)
		}
		if p.peek() != ':' {
			return v, p.errorf("expected ':' after key %q", k.s)
		}
		p.i++
		val, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.keys = append(v.keys, k.s)
		v.items = append(v.items, val)
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return v, nil
		default:
			return v, p.errorf("expected ',' or '}' in the dict")
		}
	}
}

// ReadFileHeader reads and parses the header of the .npy file at path
// and returns it with the file's size. A path that is not a regular file
// (a FIFO, a device, a directory) is refused without blocking, as
// OpenRegular refuses it.
func ReadFileHeader(path string) (Header, int64, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return Header{}, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Header{}, 0, err
	}
	h, err := ReadHeader(f)
	return h, st.Size(), err
}
