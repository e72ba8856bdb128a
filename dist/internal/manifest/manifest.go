// Package manifest reads and writes the manifest.json of a dist checkpoint:
// its JSON format, the checks a manifest must pass to be read, and the
// rules for array names. Package dist holds the checkpoints themselves; the
// format is a package of its own so that its fuzz target builds without the
// rest of dist.
package manifest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"github.com/xpmpi/xpmpi/npy"
)

// The manifest file.
const (
	// FileName is the manifest's name in a checkpoint directory.
	FileName = "manifest.json"
	// Max bounds the manifest that Parse reads, in bytes.
	Max = 64 << 20

	format  = "xpmpi-checkpoint"
	version = 1
)

// Manifest is what a checkpoint holds (dist.Manifest).
type Manifest struct {
	Step    int64
	Meta    map[string]string
	Created time.Time
	Ranks   int
	Arrays  []Array
}

// Array describes one array of a checkpoint (dist.ArrayInfo).
type Array struct {
	Name     string
	DType    backend.DType
	Shape    []int
	Checksum uint32 // CRC-32C of the data, the global array in C order
}

// CheckName returns an error unless name is a valid array name: 1 to 128
// letters, digits and '_', and after the first character '-' and '.'.
func CheckName(name string) error {
	if len(name) == 0 || len(name) > 128 {
		return fmt.Errorf("checkpoint array name %q: 1 to 128 characters", name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || (i > 0 && (r == '-' || r == '.'))
		if !ok {
			return fmt.Errorf("checkpoint array name %q: only letters, digits, '_', and after the first character '-' and '.'", name)
		}
	}
	return nil
}

type manifestJSON struct {
	Format   string            `json:"format"`
	Version  int               `json:"version"`
	Step     int64             `json:"step"`
	Created  string            `json:"created"`
	Ranks    int               `json:"ranks"`
	Meta     map[string]string `json:"meta"`
	Arrays   []arrayJSON       `json:"arrays"`
	Checksum string            `json:"manifest_checksum"`
}

type arrayJSON struct {
	Name     string `json:"name"`
	File     string `json:"file"`
	DType    string `json:"dtype"` // NumPy's type string
	Shape    []int  `json:"shape"`
	Bytes    int64  `json:"bytes"` // of data
	Checksum string `json:"checksum"`
}

// FormatCRC writes a CRC-32C as the manifest does: crc32c:<8 hex digits>.
func FormatCRC(v uint32) string { return fmt.Sprintf("crc32c:%08x", v) }

func parseCRC(s string) (uint32, error) {
	h, ok := strings.CutPrefix(s, "crc32c:")
	if !ok || len(h) != 8 {
		return 0, fmt.Errorf("checksum %q is not crc32c:<8 hex digits>", s)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return 0, fmt.Errorf("checksum %q is not crc32c:<8 hex digits>", s)
	}
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), nil
}

// manifestSum returns the checksum of m, over its compact encoding with
// the checksum field empty.
func manifestSum(m manifestJSON) (string, error) {
	m.Checksum = ""
	b, err := marshal(m, "")
	if err != nil {
		return "", err
	}
	return FormatCRC(crc32c.Checksum(b)), nil
}

// marshal encodes m as JSON, indented by indent (none if empty), without
// escaping <, > and &.
func marshal(m manifestJSON, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	err := enc.Encode(m)
	return b.Bytes(), err
}

func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Encode returns the manifest file of m.
func Encode(m Manifest) ([]byte, error) {
	j := manifestJSON{
		Format:  format,
		Version: version,
		Step:    m.Step,
		Created: m.Created.UTC().Format(time.RFC3339Nano),
		Ranks:   m.Ranks,
		Meta:    m.Meta,
		Arrays:  []arrayJSON{},
	}
	for _, a := range m.Arrays {
		j.Arrays = append(j.Arrays, arrayJSON{
			Name:     a.Name,
			File:     a.Name + ".npy",
			DType:    npy.Descr(a.DType),
			Shape:    a.Shape,
			Bytes:    int64(prod(a.Shape)) * int64(a.DType.Size()),
			Checksum: FormatCRC(a.Checksum),
		})
	}
	sum, err := manifestSum(j)
	if err != nil {
		return nil, err
	}
	j.Checksum = sum
	return marshal(j, "  ")
}

// Parse parses and checks a manifest file.
func Parse(b []byte) (Manifest, error) {
	var m Manifest
	if len(b) > Max {
		return m, fmt.Errorf("manifest of %d bytes, more than %d", len(b), Max)
	}
	var j manifestJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return m, fmt.Errorf("bad manifest: %w", err)
	}
	if err := dec.Decode(new(json.RawMessage)); err != io.EOF {
		return m, errors.New("bad manifest: more data after the JSON object")
	}
	if j.Format != format {
		return m, fmt.Errorf("bad manifest: format %q, not %q", j.Format, format)
	}
	if j.Version != version {
		return m, fmt.Errorf("manifest version %d is not supported: this build reads version %d", j.Version, version)
	}
	sum, err := manifestSum(j)
	if err != nil {
		return m, fmt.Errorf("bad manifest: %w", err)
	}
	if sum != j.Checksum {
		return m, fmt.Errorf("manifest checksum mismatch: the manifest says %q, its content gives %q: the manifest is corrupted or was edited", j.Checksum, sum)
	}
	created, err := time.Parse(time.RFC3339Nano, j.Created)
	if err != nil {
		return m, fmt.Errorf("bad manifest: created %q: %w", j.Created, err)
	}
	if j.Ranks < 1 {
		return m, fmt.Errorf("bad manifest: written by %d ranks", j.Ranks)
	}
	m = Manifest{Step: j.Step, Meta: j.Meta, Created: created, Ranks: j.Ranks}
	seen := map[string]bool{}
	for i, a := range j.Arrays {
		if err := CheckName(a.Name); err != nil {
			return Manifest{}, fmt.Errorf("bad manifest: array %d: %w", i, err)
		}
		if low := strings.ToLower(a.Name); seen[low] {
			return Manifest{}, fmt.Errorf("bad manifest: array %q twice", a.Name)
		} else {
			seen[low] = true
		}
		if a.File != a.Name+".npy" {
			return Manifest{}, fmt.Errorf("bad manifest: array %q in file %q, not %q", a.Name, a.File, a.Name+".npy")
		}
		dt, err := npy.ParseDescr(a.DType)
		if err != nil || a.DType != npy.Descr(dt) {
			return Manifest{}, fmt.Errorf("bad manifest: array %q: dtype %q", a.Name, a.DType)
		}
		if len(a.Shape) == 0 || len(a.Shape) > npy.MaxDims {
			return Manifest{}, fmt.Errorf("bad manifest: array %q: shape %v", a.Name, a.Shape)
		}
		if n, ok := npy.ShapeBytes(a.Shape, dt.Size()); !ok || n != a.Bytes {
			return Manifest{}, fmt.Errorf("bad manifest: array %q: %d bytes for shape %v of %v", a.Name, a.Bytes, a.Shape, dt)
		}
		sum, err := parseCRC(a.Checksum)
		if err != nil {
			return Manifest{}, fmt.Errorf("bad manifest: array %q: %w", a.Name, err)
		}
		m.Arrays = append(m.Arrays, Array{Name: a.Name, DType: dt, Shape: slices.Clone(a.Shape), Checksum: sum})
	}
	return m, nil
}
