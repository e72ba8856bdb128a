package dist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// NPYHeader is what the header of a NumPy .npy file says about the array
// that follows it: the element type, the shape (C order) and where the data
// starts.
type NPYHeader struct {
	DType      backend.DType
	Shape      []int // empty for a 0-dimensional array
	DataOffset int64 // bytes from the start of the file to the data
}

// Len returns the number of elements.
func (h NPYHeader) Len() int { return prod(h.Shape) }

// DataSize returns the size of the data in bytes.
func (h NPYHeader) DataSize() int64 { return int64(h.Len()) * int64(h.DType.Size()) }

// The .npy format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
const (
	npyMagic = "\x93NUMPY"
	// npyAlign is the alignment of the data offset that NumPy writes.
	npyAlign = 64
	// npyGrowth is the room NumPy leaves after the header dict so that
	// axis 0 can grow in place (GROWTH_AXIS_MAX_DIGITS).
	npyGrowth = 21
	// npyMaxHeader bounds the header dict that ParseNPYHeader reads
	// (NumPy's own reader stops at 10000 bytes by default).
	npyMaxHeader = 1 << 16
	// npyMaxDims bounds the number of dimensions (NumPy's own limit is 32,
	// 64 in NumPy 2).
	npyMaxDims = 64
	// npyMaxBytes bounds the data size a header may declare.
	npyMaxBytes = 1 << 62
)

// npyDescrs are the NumPy type strings of the element types, in DType
// order.
var npyDescrs = [...]string{"<f4", "<f8", "<i4", "<i8", "<u4", "<u8"}

// npyDescr returns the NumPy type string of dt.
func npyDescr(dt backend.DType) string {
	if dt < 0 || int(dt) >= len(npyDescrs) {
		panic(fmt.Sprintf("dist: invalid DType %d", int(dt)))
	}
	return npyDescrs[dt]
}

// parseDescr returns the DType of a NumPy type string. '<' (little-endian)
// and '=' (native) are accepted ('|' too, which NumPy writes only for
// one-byte types); big-endian data is an error, since it would need
// swapping.
func parseDescr(s string) (backend.DType, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("unsupported dtype %q", s)
	}
	order, kind := s[0], s[1:]
	switch order {
	case '<', '=', '|':
	case '>', '!':
		return 0, fmt.Errorf("big-endian dtype %q is not supported: convert it with numpy, a.astype('<%s')", s, kind)
	default:
		return 0, fmt.Errorf("unsupported dtype %q", s)
	}
	for dt, d := range npyDescrs {
		if d[1:] == kind {
			return backend.DType(dt), nil
		}
	}
	return 0, fmt.Errorf("unsupported dtype %q: xpmpi arrays hold float32 (<f4), float64 (<f8), int32 (<i4), int64 (<i8), uint32 (<u4) or uint64 (<u8)", s)
}

// littleEndian is whether this machine stores numbers little-endian, as
// the files do.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func errBigEndianHost() error {
	return errors.New("dist: .npy files on a big-endian machine are not supported")
}

// npyHeaderBytes returns the header of a .npy file of dt and shape, byte
// for byte what NumPy's numpy.save writes: version 1.0 (2.0 if the dict
// does not fit in 64 KiB), the dict with its keys sorted, room for axis 0
// to grow, and spaces and a newline up to a multiple of 64 bytes.
func npyHeaderBytes(dt backend.DType, shape []int) []byte {
	var d strings.Builder
	fmt.Fprintf(&d, "{'descr': '%s', 'fortran_order': False, 'shape': (", npyDescr(dt))
	for i, n := range shape {
		if n < 0 {
			panic(fmt.Sprintf("dist: negative dimension in shape %v", shape))
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
		if pad := npyGrowth - len(strconv.Itoa(shape[0])); pad > 0 {
			d.WriteString(strings.Repeat(" ", pad))
		}
	}
	dict := d.String()
	hlen := len(dict) + 1 // with the final newline
	prefix := 10
	if 10+hlen+npyAlign > math.MaxUint16 {
		prefix = 12 // version 2.0: a 4-byte length
	}
	pad := npyAlign - (prefix+hlen)%npyAlign
	b := make([]byte, 0, prefix+hlen+pad)
	b = append(b, npyMagic...)
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

// WriteNPYHeader writes the header of a .npy file that holds an array of
// dt and shape in C order, as numpy.save writes it; the data, shape's
// elements in C order and little-endian, follows it. An empty shape is a
// 0-dimensional array.
func WriteNPYHeader(w io.Writer, dt backend.DType, shape []int) error {
	_, err := w.Write(npyHeaderBytes(dt, shape))
	return err
}

// ParseNPYHeader reads the header of a .npy file (format version 1.0, 2.0
// or 3.0) from r, leaving r at the start of the data. It accepts the
// element types of xpmpi arrays in C order only: a Fortran-order array, a
// big-endian or other type, a malformed dict (other keys than descr,
// fortran_order and shape, each once), a negative dimension or a size that
// overflows is an error. It reads no more than the header, at most 64 KiB.
func ParseNPYHeader(r io.Reader) (NPYHeader, error) {
	var h NPYHeader
	var pre [12]byte
	n, err := io.ReadFull(r, pre[:8])
	if n == 0 && err == io.EOF {
		return h, errors.New("not a .npy file: it is empty")
	}
	if got := string(pre[:min(n, len(npyMagic))]); got != npyMagic[:len(got)] {
		return h, fmt.Errorf("not a .npy file: it starts with %q, not %q", got, npyMagic)
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
	if hlen > npyMaxHeader {
		return h, fmt.Errorf(".npy header of %d bytes, more than the %d this reader accepts", hlen, npyMaxHeader)
	}
	// Read what is there before trusting the length with an allocation.
	text, err := io.ReadAll(io.LimitReader(r, hlen))
	if err != nil {
		return h, fmt.Errorf("reading the .npy header: %w", err)
	}
	if int64(len(text)) < hlen {
		return h, fmt.Errorf("truncated .npy header: %d of %d bytes", len(text), hlen)
	}
	dt, shape, err := parseNPYDict(text)
	if err != nil {
		return h, fmt.Errorf("bad .npy header: %w", err)
	}
	h.DType, h.Shape = dt, shape
	return h, nil
}

// parseNPYDict parses the header dict of a .npy file: a Python literal
// dict with exactly the keys descr, fortran_order and shape, followed by
// white space only.
func parseNPYDict(text []byte) (backend.DType, []int, error) {
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
	dt, err := parseDescr(descr.s)
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
	if len(shape.items) > npyMaxDims {
		return 0, nil, fmt.Errorf("shape of %d dimensions, more than %d", len(shape.items), npyMaxDims)
	}
	dims := make([]int, len(shape.items))
	for i, d := range shape.items {
		if d.kind != pyInt {
			return 0, nil, fmt.Errorf("dimension %d of the shape is not an integer", i)
		}
		if d.neg && d.n != 0 {
			return 0, nil, fmt.Errorf("negative dimension -%d in the shape", d.n)
		}
		if d.n > npyMaxBytes {
			return 0, nil, fmt.Errorf("dimension %d in the shape is too large", d.n)
		}
		dims[i] = int(d.n)
	}
	if _, ok := shapeBytes(dims, dt.Size()); !ok {
		return 0, nil, fmt.Errorf("shape %v is too large", dims)
	}
	return dt, dims, nil
}

// shapeBytes returns the size in bytes of an array of shape with elements
// of size bytes, and false if it is negative or over npyMaxBytes.
func shapeBytes(shape []int, size int) (int64, bool) {
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
		if n > npyMaxBytes/uint64(d) {
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

// readNPYHeaderFile reads and parses the header of the .npy file at path
// and returns it with the file's size.
func readNPYHeaderFile(path string) (NPYHeader, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return NPYHeader{}, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return NPYHeader{}, 0, err
	}
	if st.IsDir() {
		return NPYHeader{}, 0, fmt.Errorf("%s is a directory", path)
	}
	h, err := ParseNPYHeader(f)
	return h, st.Size(), err
}

// Tuning of the parallel file I/O (variables so that tests can exercise
// every path).
var (
	// ioChunkBytes bounds the bytes of one read or write call: MPI counts
	// are 32-bit, and some MPI-IO implementations mishandle calls over
	// 2 GiB.
	ioChunkBytes = 1 << 30
	// minRunBytes is the smallest contiguous run, along a split axis other
	// than 0, that ranks read and write in place with independent calls;
	// below it the array goes through a layout split on axis 0 (one
	// collective call per rank and one all-to-all), which costs a copy but
	// not one call per tiny run.
	minRunBytes = 16 << 10
)

// flatRange returns the range [lo, hi) of global C-order element indices
// that rank reads and writes as one contiguous piece when the layout's
// blocks are contiguous in the file: its block, or for a replicated layout
// its even share of the elements. ok is false for other layouts.
func (l Layout) flatRange(rank int) (lo, hi int, ok bool) {
	if l.axis == Replicated {
		n, p := l.Len(), l.ranks
		lo = rank*(n/p) + min(rank, n%p)
		hi = lo + n/p
		if rank < n%p {
			hi++
		}
		return lo, hi, true
	}
	if prod(l.shape[:l.axis]) > 1 {
		if l.ranks == 1 {
			return 0, l.Len(), true
		}
		return 0, 0, false
	}
	inner := prod(l.shape[l.axis+1:])
	lo, hi = l.Range(rank)
	return lo * inner, hi * inner, true
}

// maxFlat returns the longest flat range of any rank.
func (l Layout) maxFlat() int {
	m := 0
	for r := 0; r < l.ranks; r++ {
		lo, hi, _ := l.flatRange(r)
		m = max(m, hi-lo)
	}
	return m
}

// inPlaceRuns reports whether a layout whose blocks are not contiguous in
// the file has runs long enough to read and write in place.
func (l Layout) inPlaceRuns(size int) bool {
	inner := prod(l.shape[l.axis+1:]) * size
	shortest := -1
	for _, c := range l.counts {
		if c > 0 && (shortest < 0 || c*inner < shortest) {
			shortest = c * inner
		}
	}
	return shortest >= minRunBytes
}

// ioCalls returns how many calls of at most ioChunkBytes move n elements.
func ioCalls(n, size int) int {
	per := max(ioChunkBytes/size, 1)
	return (n + per - 1) / per
}

func hashString(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64())
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Save writes x to the file at path as a NumPy .npy file: the global
// array in C order, which numpy.load reads. It is collective. Rank 0
// creates the file at its final size and writes the header; every rank
// writes its own block at its offset, so that no rank holds more than its
// block: with ordinary file I/O when all ranks are on one node, with
// independent MPI-IO writes otherwise (XPMPI_IO=posix or mpiio chooses;
// plain file I/O in the stand-in). With a split axis other than 0, a
// rank's block is a set of strided runs in the file: runs of at least
// 16 KiB are written in place; shorter runs go through a copy of x split
// on axis 0 first. A replicated array is written by every rank, each its
// share. The file is synced, and every rank then reads back what it wrote
// and compares it with memory: a write that a library reported as done
// but that did not reach the file is an error. A failure on any rank is
// the same error on every rank.
func Save[T backend.Element](x *Array[T], path string) error {
	if err := check("Save", x, mpi.Arg{Name: "path", Value: hashString(path)}); err != nil {
		return err
	}
	if _, err := x.save(path, false); err != nil {
		return fmt.Errorf("dist: Save %s: %w", path, err)
	}
	return nil
}

// save writes x to path; with sum, it returns the CRC-32C of the data
// (see crcSum), the same on every rank.
func (x *Array[T]) save(path string, sum bool) (uint32, error) {
	if !littleEndian {
		return 0, errBigEndianHost()
	}
	c, l := x.comm, x.layout
	if len(l.shape) > npyMaxDims {
		return 0, fmt.Errorf("%d dimensions: .npy files hold at most %d", len(l.shape), npyMaxDims)
	}
	if _, _, ok := l.flatRange(0); !ok && !l.inPlaceRuns(int(unsafe.Sizeof(*new(T)))) {
		y, err := Redistribute(x, NewLayout(l.shape, 0, c.Size()))
		if err != nil {
			return 0, err
		}
		defer y.Free()
		return y.save(path, sum)
	}
	dt := backend.DTypeOf[T]()
	size := dt.Size()
	header := npyHeaderBytes(dt, l.shape)
	dataOff := int64(len(header))
	total := dataOff + int64(l.Len())*int64(size)
	how, err := writePath(c)
	if err := mpi.Agree(c, err); err != nil {
		return 0, err
	}
	if err := mpi.CheckCollective(c, "Save.write", mpi.Arg{Name: "path", Value: int64(how), Text: how.String()}); err != nil {
		return 0, err
	}
	host, herr := x.localHost()

	// Rank 0 creates (or truncates) the file at its size first, so that a
	// file that cannot be created is an agreed error before anyone writes;
	// on the POSIX path it writes the header too.
	err = nil
	if c.Rank() == 0 {
		head := header
		if how == ioMPI {
			head = nil
		}
		err = createSized(path, total, head)
	}
	if err := mpi.Agree(c, err); err != nil {
		return 0, err
	}
	var lerr error
	if how == ioPOSIX {
		lerr = herr
		if lerr == nil {
			lerr = writePOSIX(path, l, c.Rank(), host, dataOff)
		}
	} else {
		lerr = writeMPIIO(c, path, l, host, herr, header)
	}
	// Whatever the write calls said, every rank reads back what it wrote:
	// a library can report a failed write as done.
	var crc crcSum
	if lerr == nil {
		crc, lerr = verifyWritten(path, l, c.Rank(), host, header, total)
	}
	if err := mpi.Agree(c, lerr); err != nil {
		return 0, err
	}
	if !sum {
		return 0, nil
	}
	return crc.combine(c, int64(l.Len())*int64(size))
}

// writeMPIIO writes this rank's part of the file at path (rank 0 the
// header too) with MPI-IO, each rank its own bytes with independent
// writes. Not collective writes: with Open MPI 4.1 the ranks that write
// for the others (aggregators) hang in a collective write after a failed
// pwrite on one of them, from 3 ranks on, and report a failed write on
// another rank as done; with independent writes each rank's failure stays
// its own, and the read-back (verifyWritten) catches it. herr is the
// failure to get the data to the host: the rank still takes part in the
// open, the sync and the close.
func writeMPIIO[T backend.Element](c mpi.Comm, path string, l Layout, host []T, herr error, header []byte) error {
	dataOff := int64(len(header))
	f, err := mpi.OpenFile(c, path, mpi.WriteOnly)
	if err := mpi.Agree(c, err); err != nil {
		// A rank whose open succeeded keeps its handle: closing it is
		// collective, and the ranks that failed have none.
		return err
	}
	if testWrapMPI != nil {
		f = testWrapMPI(f)
	}
	lerr := herr
	if c.Rank() == 0 && lerr == nil {
		lerr = f.WriteAt(0, unsafe.Pointer(&header[0]), len(header), mpi.Byte)
	}
	if lerr == nil {
		lerr = eachRun(l, c.Rank(), host, func(off int64, run []T) error {
			return writeRun(f, dataOff+off, run)
		})
	}
	lerr = firstErr(lerr, f.Sync())
	return firstErr(lerr, f.Close())
}

// readFlat reads data at off in calls collective calls.
func readFlat[T backend.Element](f mpi.File, off int64, data []T, calls int) error {
	return flatCalls(f, off, data, calls, mpi.ReadAtAll[T])
}

// flatCalls moves data at off with calls collective calls of io, at most
// ioChunkBytes each; after a failure the remaining calls move nothing, so
// that every rank still makes the same number of calls.
func flatCalls[T backend.Element](f mpi.File, off int64, data []T, calls int, io func(mpi.File, int64, []T) error) error {
	per := max(ioChunkBytes/int(unsafe.Sizeof(*new(T))), 1)
	var first error
	for i := 0; i < calls; i++ {
		lo, hi := min(i*per, len(data)), min((i+1)*per, len(data))
		if first != nil {
			lo = hi
		}
		at := off + int64(lo)*int64(unsafe.Sizeof(*new(T)))
		if lo == hi {
			at = 0 // nothing to move: an offset inside the file
		}
		first = firstErr(first, io(f, at, data[lo:hi]))
	}
	return first
}

// writeRun writes one run with independent calls.
func writeRun[T backend.Element](f mpi.File, off int64, run []T) error {
	size := int(unsafe.Sizeof(*new(T)))
	per := max(ioChunkBytes/size, 1)
	for lo := 0; lo < len(run); lo += per {
		hi := min(lo+per, len(run))
		if err := f.WriteAt(off+int64(lo*size), unsafe.Pointer(&run[lo]), hi-lo, mpiType[T]()); err != nil {
			return err
		}
	}
	return nil
}

// readRun reads one run with independent calls.
func readRun[T backend.Element](f mpi.File, off int64, run []T) error {
	size := int(unsafe.Sizeof(*new(T)))
	per := max(ioChunkBytes/size, 1)
	for lo := 0; lo < len(run); lo += per {
		hi := min(lo+per, len(run))
		if err := f.ReadAt(off+int64(lo*size), unsafe.Pointer(&run[lo]), hi-lo, mpiType[T]()); err != nil {
			return err
		}
	}
	return nil
}

// asBytes returns the memory of s as bytes (little-endian machines only).
func asBytes[T backend.Element](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// Load reads the NumPy .npy file at path into a new array on c, laid out
// by opts (SplitAxis, BlockSizes, OnBackend) as for Zeros: any number of
// ranks, any split axis, whatever layout wrote the file. It is collective.
// Rank 0 reads and checks the header and the file's size, and every rank
// then reads only its own block (with a split axis other than 0 and runs
// shorter than 16 KiB, its share of a layout split on axis 0, which an
// all-to-all then redistributes; replicated, its share, which every rank
// then gathers). A file that is not a .npy file of T, a truncated file, a
// 0-dimensional array, or a split axis the array does not have, is the
// same error on every rank.
func Load[T backend.Element](c mpi.Comm, path string, opts ...Option) (*Array[T], error) {
	a, _, err := load[T](c, path, nil, opts)
	if err != nil {
		return nil, fmt.Errorf("dist: Load %s: %w", path, err)
	}
	return a, nil
}

// npyExpect is what a checkpoint's manifest says a .npy file holds.
type npyExpect struct {
	dtype backend.DType
	shape []int
}

// load reads the .npy file at path. With exp, the header must match it and
// the file must end with the data, and load returns the CRC-32C of the
// data, the same on every rank.
func load[T backend.Element](c mpi.Comm, path string, exp *npyExpect, opts []Option) (*Array[T], uint32, error) {
	o := options{axis: 0}
	for _, f := range opts {
		f(&o)
	}
	want := backend.DTypeOf[T]()
	if err := mpi.CheckCollective(c, "Load", mpi.Arg{Name: "dtype", Value: int64(want)},
		mpi.Arg{Name: "path", Value: hashString(path)}, mpi.Arg{Name: "axis", Value: int64(o.axis)}); err != nil {
		return nil, 0, err
	}
	if !littleEndian {
		return nil, 0, errBigEndianHost()
	}
	// Rank 0 reads the header and broadcasts it: dtype, data offset, file
	// size, dimensions, then the shape.
	var hdr [4 + npyMaxDims]int64
	var err error
	if c.Rank() == 0 {
		var h NPYHeader
		var size int64
		h, size, err = readNPYHeaderFile(path)
		if err == nil {
			err = checkNPY(h, size, exp)
		}
		if err == nil {
			hdr[0], hdr[1], hdr[2], hdr[3] = int64(h.DType), h.DataOffset, size, int64(len(h.Shape))
			for i, d := range h.Shape {
				hdr[4+i] = int64(d)
			}
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		return nil, 0, err
	}
	if err := mpi.Bcast(c, hdr[:], 0); err != nil {
		return nil, 0, err
	}
	dt, dataOff := backend.DType(hdr[0]), hdr[1]
	shape := make([]int, hdr[3])
	for i := range shape {
		shape[i] = int(hdr[4+i])
	}
	if dt != want {
		return nil, 0, fmt.Errorf("the file holds %v (%s), not %v", dt, npyDescr(dt), want)
	}
	if len(shape) == 0 {
		return nil, 0, errors.New("the file holds a 0-dimensional array; distributed arrays have at least one dimension")
	}
	if o.axis != Replicated && (o.axis < 0 || o.axis >= len(shape)) {
		return nil, 0, fmt.Errorf("split axis %d of the file's %d-dimensional shape %v", o.axis, len(shape), shape)
	}
	if o.counts != nil {
		sum := 0
		for _, n := range o.counts {
			sum += n
		}
		if len(o.counts) != c.Size() || o.axis == Replicated || sum != shape[o.axis] {
			return nil, 0, fmt.Errorf("block sizes %v for the file's shape %v on %d ranks", o.counts, shape, c.Size())
		}
	}
	l, b := buildOptions(c, shape, opts)
	size := dt.Size()
	if _, _, ok := l.flatRange(0); !ok && !l.inPlaceRuns(size) {
		y, sum, err := loadLayout[T](c, path, NewLayout(shape, 0, c.Size()), b, dataOff, exp != nil)
		if err != nil {
			return nil, 0, err
		}
		defer y.Free()
		a, err := Redistribute(y, l)
		return a, sum, err
	}
	return loadLayout[T](c, path, l, b, dataOff, exp != nil)
}

// checkNPY checks a header against the file's size and a manifest's
// expectations.
func checkNPY(h NPYHeader, size int64, exp *npyExpect) error {
	if end := h.DataOffset + h.DataSize(); size < end {
		return fmt.Errorf("truncated: the file has %d bytes, its header says shape %v of %v, %d bytes from offset %d", size, h.Shape, h.DType, h.DataSize(), h.DataOffset)
	}
	if exp == nil {
		return nil
	}
	if h.DType != exp.dtype || !slices.Equal(h.Shape, exp.shape) {
		return fmt.Errorf("the file holds %v of shape %v, the manifest says %v of shape %v", h.DType, h.Shape, exp.dtype, exp.shape)
	}
	if end := h.DataOffset + h.DataSize(); size != end {
		return fmt.Errorf("the file has %d bytes, %d more than the header and the data", size, size-end)
	}
	return nil
}

// loadLayout reads the data at dataOff into a new array of layout l: in
// one piece per rank if the layout allows, else run by run.
func loadLayout[T backend.Element](c mpi.Comm, path string, l Layout, b backend.Backend, dataOff int64, sum bool) (*Array[T], uint32, error) {
	a, err := New[T](c, l, b)
	if err != nil {
		return nil, 0, err
	}
	f, err := mpi.OpenFile(c, path, mpi.ReadOnly)
	if err := mpi.Agree(c, err); err != nil {
		a.Free()
		return nil, 0, err
	}
	size := int(unsafe.Sizeof(*new(T)))
	me := c.Rank()
	var crc crcSum
	var lerr error
	lo, hi, flat := l.flatRange(me)
	ferr := a.hostFill(func(host []T) {
		if flat {
			data := host
			if l.axis == Replicated {
				data = make([]T, hi-lo)
			}
			lerr = readFlat(f, dataOff+int64(lo)*int64(size), data, ioCalls(l.maxFlat(), size))
			if sum && lerr == nil {
				crc.add(int64(lo)*int64(size), asBytes(data))
			}
			if l.axis == Replicated {
				lerr = firstErr(lerr, mpi.Agree(c, lerr))
				if lerr == nil {
					counts, displs := make([]int, l.ranks), make([]int, l.ranks)
					for r := range counts {
						rlo, rhi, _ := l.flatRange(r)
						counts[r], displs[r] = rhi-rlo, rlo
					}
					lerr = mpi.Allgatherv(c, data, host, counts, displs)
				}
			}
			return
		}
		start, shape := l.box(me)
		boxRuns(make([]int, len(l.shape)), l.shape, start, shape, func(globalOff, packedOff, n int) {
			run := host[packedOff : packedOff+n]
			if lerr == nil {
				lerr = readRun(f, dataOff+int64(globalOff)*int64(size), run)
			}
			if sum && lerr == nil {
				crc.add(int64(globalOff)*int64(size), asBytes(run))
			}
		})
	})
	lerr = firstErr(lerr, ferr, f.Close())
	if err := mpi.Agree(c, lerr); err != nil {
		a.Free()
		return nil, 0, err
	}
	if !sum {
		return a, 0, nil
	}
	s, err := crc.combine(c, int64(l.Len())*int64(size))
	if err != nil {
		a.Free()
		return nil, 0, err
	}
	return a, s, nil
}
