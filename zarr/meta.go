package zarr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
)

// Metadata is what an array's .zarray file says, as written: the fields of
// the Zarr v2 array metadata.
type Metadata struct {
	Shape      []int    // the array's shape
	Chunks     []int    // the shape of every chunk
	DType      string   // NumPy's type string with its byte order: "<f8", "|u1", "<c16"
	Compressor string   // the compressor's id ("zlib", "gzip", "blosc", ...); "" for none
	Level      int      // the compressor's level, where it has one
	Filters    []string // the filters' ids; nil for none
	FillValue  string   // fill_value as JSON text: "0", "null", "\"NaN\"", "[1.0, 0.0]"
	Order      string   // "C" or "F": the order of the elements within a chunk
	Separator  string   // dimension_separator: "." (keys "0.1") or "/" (keys "0/1")
}

// zarray is the JSON of a .zarray file, its keys in the order zarr-python
// writes them (sorted).
type zarray struct {
	Chunks     []int           `json:"chunks"`
	Compressor json.RawMessage `json:"compressor"`
	Separator  string          `json:"dimension_separator,omitempty"`
	DType      json.RawMessage `json:"dtype"`
	FillValue  json.RawMessage `json:"fill_value"`
	Filters    json.RawMessage `json:"filters"`
	Order      string          `json:"order"`
	Shape      []int           `json:"shape"`
	Format     int             `json:"zarr_format"`
}

// arrayMeta is a .zarray that this package can read: its element type
// known, its compressor supported, no filters.
type arrayMeta struct {
	Metadata
	dt      backend.DType
	swap    bool // big-endian elements
	fortran bool // order "F"
}

// refusal is the advice that ends the message of what is not supported.
const refusal = "re-save with compressor=None or zlib"

// readMeta reads and parses the .zarray file of the array at dir.
func readMeta(dir string) (Metadata, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".zarray"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, err3 := os.Stat(filepath.Join(dir, "zarr.json")); err3 == nil {
				return Metadata{}, fmt.Errorf("%s is a Zarr v3 array (zarr.json): only Zarr v2 is supported", dir)
			}
			if _, err2 := os.Stat(filepath.Join(dir, ".zgroup")); err2 == nil {
				return Metadata{}, fmt.Errorf("%s is a Zarr group, not an array: %w", dir, fs.ErrNotExist)
			}
			return Metadata{}, fmt.Errorf("no Zarr array at %s (no .zarray): %w", dir, fs.ErrNotExist)
		}
		return Metadata{}, err
	}
	return parseMeta(b)
}

// parseMeta parses the contents of a .zarray file.
func parseMeta(b []byte) (Metadata, error) {
	var z zarray
	z.Format = -1
	if err := json.Unmarshal(b, &z); err != nil {
		return Metadata{}, fmt.Errorf(".zarray is not valid JSON: %v", err)
	}
	if z.Format != 2 {
		return Metadata{}, fmt.Errorf(".zarray: zarr_format %d: only Zarr v2 is supported", z.Format)
	}
	if z.Shape == nil || z.Chunks == nil {
		return Metadata{}, errors.New(".zarray: shape or chunks missing")
	}
	m := Metadata{Shape: z.Shape, Chunks: z.Chunks, Order: z.Order, Separator: z.Separator}
	if m.Separator == "" {
		m.Separator = "."
	}
	if err := json.Unmarshal(z.DType, &m.DType); err != nil {
		return Metadata{}, fmt.Errorf(".zarray: dtype %s is a structured type, which is not supported", compact(z.DType))
	}
	if len(z.FillValue) == 0 {
		m.FillValue = "null"
	} else {
		m.FillValue = compact(z.FillValue)
	}
	if c := bytes.TrimSpace(z.Compressor); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
		var comp struct {
			ID     string `json:"id"`
			Level  *int   `json:"level"`
			CLevel *int   `json:"clevel"`
		}
		if err := json.Unmarshal(c, &comp); err != nil || comp.ID == "" {
			return Metadata{}, fmt.Errorf(".zarray: compressor %s has no id", compact(c))
		}
		m.Compressor = comp.ID
		if comp.Level != nil {
			m.Level = *comp.Level
		} else if comp.CLevel != nil {
			m.Level = *comp.CLevel
		}
	}
	if f := bytes.TrimSpace(z.Filters); len(f) > 0 && !bytes.Equal(f, []byte("null")) {
		var fs []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(f, &fs); err != nil {
			return Metadata{}, fmt.Errorf(".zarray: filters %s is not a list of codecs", compact(f))
		}
		m.Filters = []string{}
		for _, x := range fs {
			m.Filters = append(m.Filters, x.ID)
		}
	}
	return m, nil
}

func compact(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// check turns m into an arrayMeta, or says why this package cannot read it.
func (m Metadata) check() (arrayMeta, error) {
	a := arrayMeta{Metadata: m}
	if len(m.Chunks) != len(m.Shape) {
		return a, fmt.Errorf("chunks %v do not match shape %v", m.Chunks, m.Shape)
	}
	for i := range m.Shape {
		if m.Shape[i] < 0 || m.Chunks[i] < 1 {
			return a, fmt.Errorf("shape %v with chunks %v: negative dimension or empty chunk", m.Shape, m.Chunks)
		}
	}
	if len(m.Shape) == 0 {
		return a, errors.New("a 0-dimensional array: dist arrays have at least one dimension")
	}
	var err error
	if a.dt, a.swap, err = parseDType(m.DType); err != nil {
		return a, err
	}
	switch m.Compressor {
	case "", "zlib", "gzip":
	default:
		return a, fmt.Errorf("compressor %s is not supported: %s", m.Compressor, refusal)
	}
	if len(m.Filters) > 0 {
		return a, fmt.Errorf("filter %s is not supported: re-save with filters=None", strings.Join(m.Filters, ", "))
	}
	switch m.Order {
	case "C":
	case "F":
		a.fortran = true
	default:
		return a, fmt.Errorf("order %q: want \"C\" or \"F\"", m.Order)
	}
	switch m.Separator {
	case ".", "/":
	default:
		return a, fmt.Errorf("dimension_separator %q: want \".\" or \"/\"", m.Separator)
	}
	return a, nil
}

// typestr is NumPy's type string of each element type, little-endian, as
// NumPy writes it (one-byte types with '|').
var typestr = [backend.NumDTypes]string{
	backend.Float32: "<f4", backend.Float64: "<f8",
	backend.Int32: "<i4", backend.Int64: "<i8",
	backend.Uint32: "<u4", backend.Uint64: "<u8",
	backend.Int8: "|i1", backend.Int16: "<i2",
	backend.Uint8: "|u1", backend.Uint16: "<u2",
	backend.Complex64: "<c8", backend.Complex128: "<c16",
}

// parseDType returns the element type of a NumPy type string and whether its
// elements are big-endian.
func parseDType(s string) (backend.DType, bool, error) {
	if len(s) >= 3 {
		swap := false
		switch s[0] {
		case '<', '|', '=':
		case '>':
			swap = true
		default:
			goto bad
		}
		body := s[1:]
		for dt, t := range typestr {
			if t[1:] == body {
				if backend.DType(dt).Size() == 1 {
					swap = false
				}
				return backend.DType(dt), swap, nil
			}
		}
	}
bad:
	return 0, false, fmt.Errorf("dtype %q is not supported: dist has %s", s, strings.Join(typestr[:], ", "))
}

// parseFill returns the fill value of raw (a .zarray's fill_value) as a T,
// and false for null.
func parseFill[T backend.Numeric](raw string) (T, bool, error) {
	var zero T
	raw = strings.TrimSpace(raw)
	if raw == "null" || raw == "" {
		return zero, false, nil
	}
	bad := func() (T, bool, error) {
		return zero, false, fmt.Errorf("fill_value %s is not a %v", raw, backend.DTypeOf[T]())
	}
	switch p := any(&zero).(type) {
	case *complex64, *complex128:
		var parts []json.RawMessage
		if json.Unmarshal([]byte(raw), &parts) != nil || len(parts) != 2 {
			return bad()
		}
		re, err1 := parseFloat(string(parts[0]))
		im, err2 := parseFloat(string(parts[1]))
		if err1 != nil || err2 != nil {
			return bad()
		}
		if q, ok := p.(*complex64); ok {
			*q = complex(float32(re), float32(im))
		} else {
			*p.(*complex128) = complex(re, im)
		}
		return zero, true, nil
	case *float32:
		f, err := parseFloat(raw)
		if err != nil {
			return bad()
		}
		*p = float32(f)
		return zero, true, nil
	case *float64:
		f, err := parseFloat(raw)
		if err != nil {
			return bad()
		}
		*p = f
		return zero, true, nil
	}
	// Integers: a JSON integer that fits T (NumPy's np.array(v, dtype) would
	// wrap one that does not; refusing is safer), or a float with an
	// integral value.
	dt := backend.DTypeOf[T]()
	bits := uint(dt.Size() * 8)
	if dt.IsSigned() {
		v, err := strconv.ParseInt(raw, 10, int(bits))
		if err != nil {
			f, ferr := strconv.ParseFloat(raw, 64)
			if ferr != nil || f != math.Trunc(f) || f < -math.Ldexp(1, int(bits)-1) || f >= math.Ldexp(1, int(bits)-1) {
				return bad()
			}
			v = int64(f)
		}
		setInt(&zero, uint64(v))
		return zero, true, nil
	}
	v, err := strconv.ParseUint(raw, 10, int(bits))
	if err != nil {
		f, ferr := strconv.ParseFloat(raw, 64)
		if ferr != nil || f != math.Trunc(f) || f < 0 || f >= math.Ldexp(1, int(bits)) {
			return bad()
		}
		v = uint64(f)
	}
	setInt(&zero, v)
	return zero, true, nil
}

// setInt stores the low bits of v in the integer *p.
func setInt[T backend.Numeric](p *T, v uint64) {
	switch q := any(p).(type) {
	case *int8:
		*q = int8(v)
	case *int16:
		*q = int16(v)
	case *int32:
		*q = int32(v)
	case *int64:
		*q = int64(v)
	case *uint8:
		*q = uint8(v)
	case *uint16:
		*q = uint16(v)
	case *uint32:
		*q = uint32(v)
	case *uint64:
		*q = v
	}
}

// parseFloat parses a JSON number or one of zarr's names of the
// non-finite floats.
func parseFloat(s string) (float64, error) {
	switch strings.TrimSpace(s) {
	case `"NaN"`:
		return math.NaN(), nil
	case `"Infinity"`:
		return math.Inf(1), nil
	case `"-Infinity"`:
		return math.Inf(-1), nil
	}
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		return 0, err
	}
	return f, nil
}

// formatFloat writes f as zarr writes a float fill value.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return `"NaN"`
	case math.IsInf(f, 1):
		return `"Infinity"`
	case math.IsInf(f, -1):
		return `"-Infinity"`
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0" // as Python writes a float
	}
	return s
}

// formatFill returns v as a .zarray's fill_value.
func formatFill[T backend.Numeric](v T) string {
	switch x := any(v).(type) {
	case float32:
		return formatFloat(float64(x), 32)
	case float64:
		return formatFloat(x, 64)
	case complex64:
		return "[" + formatFloat(float64(real(x)), 32) + ", " + formatFloat(float64(imag(x)), 32) + "]"
	case complex128:
		return "[" + formatFloat(real(x), 64) + ", " + formatFloat(imag(x), 64) + "]"
	}
	return fmt.Sprint(v)
}

// encodeMeta returns the .zarray of an array written by Save, formatted as
// zarr-python writes it (sorted keys, four-space indent).
func encodeMeta(m Metadata) []byte {
	z := zarray{
		Chunks:     m.Chunks,
		Compressor: json.RawMessage("null"),
		Separator:  m.Separator,
		DType:      mustJSON(m.DType),
		FillValue:  json.RawMessage(m.FillValue),
		Filters:    json.RawMessage("null"),
		Order:      m.Order,
		Shape:      m.Shape,
		Format:     2,
	}
	if m.Compressor != "" {
		z.Compressor = mustJSON(map[string]any{"id": m.Compressor, "level": m.Level})
	}
	return marshal(z)
}

// marshal returns v as JSON with a four-space indent and a final newline,
// '<' and '>' as they are (NumPy's type strings hold them).
func marshal(v any) []byte {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.SetIndent("", "    ")
	if err := e.Encode(v); err != nil {
		panic("zarr: " + err.Error())
	}
	return buf.Bytes()
}

func mustJSON(v any) json.RawMessage {
	return bytes.TrimSpace(marshal(v))
}

// encodeAttrs returns the .zattrs of attrs, checking that every value is a
// string, a bool, a finite number or a slice of them.
func encodeAttrs(op string, attrs map[string]any) []byte {
	for _, k := range slices.Sorted(maps.Keys(attrs)) { // the same key named every time
		if err := checkAttr(attrs[k]); err != nil {
			panic(fmt.Sprintf("zarr: %s: attribute %q: %v", op, k, err))
		}
	}
	return marshal(attrs) // encoding/json sorts map keys
}

func checkAttr(v any) error {
	switch x := v.(type) {
	case string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return nil
	case float32:
		return checkFinite(float64(x))
	case float64:
		return checkFinite(x)
	case []string, []bool, []int, []int32, []int64, []uint64:
		return nil
	case []float32:
		for _, f := range x {
			if err := checkFinite(float64(f)); err != nil {
				return err
			}
		}
		return nil
	case []float64:
		for _, f := range x {
			if err := checkFinite(f); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for _, e := range x {
			if err := checkAttr(e); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("a %T: attributes are strings, bools, numbers or slices of them", v)
}

func checkFinite(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%v is not finite: JSON has no such number", f)
	}
	return nil
}

// decodeAttrs parses a .zattrs file: numbers that are integers and fit an
// int64 become int64, other numbers float64.
func decodeAttrs(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf(".zattrs is not a JSON object: %v", err)
	}
	for k, v := range m {
		m[k] = numbers(v)
	}
	return m, nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}
