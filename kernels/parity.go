package kernels

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// CheckParity runs parity case c for element type dt on the host and on
// dev: the case's arguments are made once on each, the kernel runs on each,
// and every array argument of the two runs is compared, within the case's
// tolerance in ULPs (0: bitwise, NaNs of any payload equal), naming the
// argument and giving the first differing index and both values (a
// *Mismatch). The arrays of const parameters must come back unchanged, on
// both sides. It returns every problem joined, or nil.
func (k *Kernel) CheckParity(c ParityCase, dev backend.Backend, dt backend.DType) error {
	host, err := backend.Lookup("cpu")
	if err != nil {
		return err
	}
	hres, err := runCase(k, c, host, dt, false)
	if err != nil {
		return fmt.Errorf("kernels: %s (%s) on the host: %w", k.Name(), c.Name, err)
	}
	dres, err := runCase(k, c, dev, dt, !dev.Device().IsHost())
	if err != nil {
		return fmt.Errorf("kernels: %s (%s) on %v: %w", k.Name(), c.Name, dev.Device(), err)
	}
	if len(hres) != len(dres) {
		return fmt.Errorf("kernels: %s (%s): %d arguments on the host, %d on %v", k.Name(), c.Name, len(hres), len(dres), dev.Device())
	}
	sig := k.Signature()
	var errs []error
	for i := range hres {
		if hres[i] == nil || dres[i] == nil {
			continue
		}
		p := sig.Params[i]
		what := fmt.Sprintf("kernels: %s (%s, %v), argument %d (%s)", k.Name(), c.Name, dt, i, p.Name)
		if err := CompareBytes(hres[i].dt, hres[i].after, dres[i].after, c.ULPs); err != nil {
			errs = append(errs, fmt.Errorf("%s: host and %v differ: %w", what, dev.Device(), err))
		}
		if p.Const {
			if !bytes.Equal(hres[i].before, hres[i].after) {
				errs = append(errs, fmt.Errorf("%s is const, but the host implementation changed it", what))
			}
			if !bytes.Equal(dres[i].before, dres[i].after) {
				errs = append(errs, fmt.Errorf("%s is const, but the kernel changed it on %v", what, dev.Device()))
			}
		}
	}
	return errors.Join(errs...)
}

// result is one array argument's bytes before and after a run.
type result struct {
	dt            backend.DType
	before, after []byte
}

// runCase makes a case's arguments on b, runs k and returns each array
// argument's bytes before and after (nil for other arguments). strict
// refuses a host fallback (the device side of a parity check must run
// the CUDA kernel).
func runCase(k *Kernel, c ParityCase, b backend.Backend, dt backend.DType, strict bool) ([]*result, error) {
	args, cfg, err := c.Make(b, dt)
	if err != nil {
		return nil, err
	}
	if strict && b.Device().Kind == backend.CUDA {
		cfg.Strict = true
	}
	res := make([]*result, len(args))
	for i, a := range args {
		if be, buf, ok := a.ArrayOf(); ok {
			bs, err := readBytes(be, buf)
			if err != nil {
				return nil, err
			}
			res[i] = &result{dt: buf.DType(), before: bs}
		}
	}
	if err := k.Launch(cfg, args...); err != nil {
		return nil, err
	}
	for i, a := range args {
		if be, buf, ok := a.ArrayOf(); ok {
			if res[i].after, err = readBytes(be, buf); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// readBytes copies a buffer's bytes to the host, after the work queued on
// its backend.
func readBytes(be backend.Backend, buf backend.Buffer) ([]byte, error) {
	n := buf.Len() * buf.DType().Size()
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	if buf.Device().IsHost() {
		copy(out, unsafe.Slice((*byte)(buf.Ptr()), n))
		return out, nil
	}
	if err := be.Synchronize(); err != nil {
		return nil, err
	}
	if err := be.CopyToHost(unsafe.Pointer(&out[0]), buf); err != nil {
		return nil, err
	}
	return out, nil
}

// Mismatch is the first element where two arrays differ.
type Mismatch struct {
	Index      int
	Want, Got  string // the host's and the device's value, with their bits
	ULPs       uint64 // how far apart, for floats
	Tolerance  int
	LenA, LenB int // set when the lengths differ
}

// Error gives the index and both values.
func (m *Mismatch) Error() string {
	if m.LenA != m.LenB {
		return fmt.Sprintf("lengths %d and %d", m.LenA, m.LenB)
	}
	msg := fmt.Sprintf("first difference at index %d: host %s, device %s", m.Index, m.Want, m.Got)
	if m.ULPs > 0 {
		msg += fmt.Sprintf(" (%d ULPs apart; tolerance %d)", m.ULPs, m.Tolerance)
	}
	return msg
}

// CompareBytes compares the bytes of two arrays of element type dt, the
// host's and the device's, element by element: integers exactly, floats
// within ulps units in the last place (0: the same bits, except that NaNs
// of any payload are equal, and +0 and -0 are not). It returns nil or the
// first *Mismatch.
func CompareBytes(dt backend.DType, host, device []byte, ulps int) error {
	size := dt.Size()
	if len(host) != len(device) {
		return &Mismatch{LenA: len(host) / size, LenB: len(device) / size}
	}
	for i := 0; i+size <= len(host); i += size {
		var a, b uint64
		switch size {
		case 1:
			a, b = uint64(host[i]), uint64(device[i])
		case 2:
			a, b = uint64(binary.LittleEndian.Uint16(host[i:])), uint64(binary.LittleEndian.Uint16(device[i:]))
		case 4:
			a, b = uint64(binary.LittleEndian.Uint32(host[i:])), uint64(binary.LittleEndian.Uint32(device[i:]))
		default:
			a, b = binary.LittleEndian.Uint64(host[i:]), binary.LittleEndian.Uint64(device[i:])
		}
		if a == b {
			continue
		}
		if !dt.IsFloat() {
			return &Mismatch{Index: i / size, Want: format(dt, a), Got: format(dt, b)}
		}
		var d uint64
		switch dt {
		case backend.Float32:
			fa, fb := math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))
			if fa != fa && fb != fb {
				continue
			}
			d = ulpDistance(int64(int32(uint32(a))), int64(int32(uint32(b))), 31)
		case backend.Float64:
			fa, fb := math.Float64frombits(a), math.Float64frombits(b)
			if fa != fa && fb != fb {
				continue
			}
			d = ulpDistance(int64(a), int64(b), 63)
		}
		if d > 0 && (fnan(dt, a) || fnan(dt, b)) {
			d = math.MaxUint64 // a NaN against a number
		}
		if ulps > 0 && d <= uint64(ulps) {
			continue // within the tolerance (+0 and -0 are 0 ULPs apart)
		}
		return &Mismatch{Index: i / size, Want: format(dt, a), Got: format(dt, b), ULPs: d, Tolerance: ulps}
	}
	return nil
}

func fnan(dt backend.DType, bits uint64) bool {
	if dt == backend.Float32 {
		f := math.Float32frombits(uint32(bits))
		return f != f
	}
	f := math.Float64frombits(bits)
	return dt == backend.Float64 && f != f
}

// ulpDistance returns how many representable floats lie between two
// floats' bits (sign-magnitude mapped to a monotonic integer line).
func ulpDistance(a, b int64, signBit uint) uint64 {
	ord := func(x int64) int64 {
		if x < 0 {
			return -(x & (1<<signBit - 1))
		}
		return x
	}
	oa, ob := ord(a), ord(b)
	if oa > ob {
		return uint64(oa - ob)
	}
	return uint64(ob - oa)
}

// format writes an element with its bits.
func format(dt backend.DType, bits uint64) string {
	switch dt {
	case backend.Float32:
		return fmt.Sprintf("%v (%#08x)", math.Float32frombits(uint32(bits)), bits)
	case backend.Float64:
		return fmt.Sprintf("%v (%#016x)", math.Float64frombits(bits), bits)
	case backend.Int32:
		return fmt.Sprint(int32(uint32(bits)))
	case backend.Int64:
		return fmt.Sprint(int64(bits))
	case backend.Int8:
		return fmt.Sprint(int8(uint8(bits)))
	case backend.Int16:
		return fmt.Sprint(int16(uint16(bits)))
	}
	return fmt.Sprint(bits)
}

// ParityUnavailable returns why k's parity cannot be checked on dev, or ""
// if it can. A parity check compares two implementations: the host one
// and the CUDA source run on a CUDA device (a GPU, or backend/cuda's fake
// driver, which runs the CUDA source compiled as C++). It has nothing to
// compare where the kernel has no parity cases, no host implementation or
// no CUDA source, or where dev runs no CUDA code (the host, the fake
// device of backend/fakedev): there the device side would be the host
// implementation again.
func (k *Kernel) ParityUnavailable(dev backend.Backend) string {
	switch {
	case len(k.spec.Parity) == 0:
		return fmt.Sprintf("%s has no parity cases", k.Name())
	case !k.HasHost():
		return fmt.Sprintf("%s has no host implementation: nothing to compare its CUDA kernel with", k.Name())
	case !k.HasCUDA():
		return fmt.Sprintf("%s has no CUDA source: nothing to compare its host implementation with", k.Name())
	case dev == nil || dev.Device().Kind != backend.CUDA:
		where := "no device"
		if dev != nil {
			where = dev.Device().String()
		}
		return fmt.Sprintf("%s runs no CUDA code: the device side would be the host implementation of %s again, nothing to compare (run on a GPU, or on the fake CUDA driver: kerneltest.Parity)", where, k.Name())
	}
	return ""
}

// ParityTypes returns the element types a kernel's parity cases run for:
// its Types, or one (Float64, unused) for a kernel without a type
// parameter.
func (k *Kernel) ParityTypes() []backend.DType {
	if len(k.spec.Types) == 0 {
		return []backend.DType{backend.Float64}
	}
	return append([]backend.DType(nil), k.spec.Types...)
}

// ParityVariants returns the variants that k's parity cases launch, in
// order, each once: every element type of ParityTypes with each case's
// defines. It makes each case's arguments on host (the CPU backend) to
// find them. A case that cannot be made is an error naming it.
func (k *Kernel) ParityVariants(host backend.Backend) ([]Variant, error) {
	var out []Variant
	seen := map[string]bool{}
	for _, dt := range k.ParityTypes() {
		for _, pc := range k.spec.Parity {
			args, cfg, err := pc.Make(host, dt)
			if err != nil {
				return nil, fmt.Errorf("kernels: %s (%s, %v): making the case: %w", k.Name(), pc.Name, dt, err)
			}
			b, err := k.bind(cfg, args)
			if err != nil {
				return nil, fmt.Errorf("kernels: %s (%s, %v): %w", k.Name(), pc.Name, dt, err)
			}
			if key := b.variant.String(); !seen[key] {
				seen[key] = true
				out = append(out, b.variant)
			}
		}
	}
	return out, nil
}

// VariantTag returns the tag of a variant: what follows "// xpmpi kernel "
// on the first line of its VariantSource ("axpy, variant float32"). The
// fake CUDA driver's NVRTC copies it into its PTX, by which the driver
// finds that variant's entry among those compiled in.
func (k *Kernel) VariantTag(v Variant) string {
	return fmt.Sprintf("%s, variant %s", k.spec.Name, v)
}

// ParityResult is the outcome of one parity case of one kernel for one
// element type.
type ParityResult struct {
	Kernel  string `json:"kernel"`
	Type    string `json:"type,omitempty"` // the element type, for kernels with a type parameter
	Case    string `json:"case,omitempty"`
	Error   string `json:"error,omitempty"`
	Skipped string `json:"skipped,omitempty"` // why the kernel's cases did not run
}

// Compared reports whether the result compared two implementations
// (passed or failed), rather than being skipped.
func (r ParityResult) Compared() bool { return r.Skipped == "" }

// Parity runs every parity case of every kernel of the catalog, for each
// element type, on the host and on dev (see Kernel.CheckParity), where the
// device side is the CUDA kernel: a kernel that cannot be checked on dev
// gets one skipped result that says why (ParityUnavailable; on a device
// that runs no CUDA code, every kernel), and a case whose CUDA kernel
// cannot run on dev (NVRTC missing: the launch would fall back to the
// host implementation, which strict mode refuses here) is skipped saying
// so. It returns the results in catalog order and every failure joined
// (nil if none). It needs the CPU backend registered (import
// backend/cpu).
func (c *Catalog) Parity(dev backend.Backend) ([]ParityResult, error) {
	var out []ParityResult
	var errs []error
	for _, k := range c.All() {
		if why := k.ParityUnavailable(dev); why != "" {
			out = append(out, ParityResult{Kernel: k.Name(), Skipped: why})
			continue
		}
		for _, dt := range k.ParityTypes() {
			for _, pc := range k.spec.Parity {
				r := ParityResult{Kernel: k.Name(), Case: pc.Name}
				if len(k.spec.Types) > 0 {
					r.Type = dt.String()
				}
				if err := k.CheckParity(pc, dev, dt); err != nil {
					var fe *FallbackError
					if errors.As(err, &fe) {
						r.Skipped = "the CUDA kernel cannot run on " + dev.Device().String() + ": " + fe.Reason
					} else {
						r.Error = err.Error()
						errs = append(errs, err)
					}
				}
				out = append(out, r)
			}
		}
	}
	return out, errors.Join(errs...)
}

// Inputs describe the inputs of one standard parity case (StandardCases):
// the number of elements and whether NaN and infinities are mixed in.
type Inputs struct {
	Name    string // the case's name
	N       int    // elements per array
	Special bool   // NaN, +Inf and -Inf among the values of float arrays
}

// Values returns the N values of array number arg of the case, for element
// type dt: small integers and halves, different for each arg, exact in
// every element type; with Special and a float dt, a NaN, +Inf and -Inf
// at positions that depend on arg (when N >= 3).
func (in Inputs) Values(dt backend.DType, arg int) []float64 {
	vs := make([]float64, in.N)
	for i := range vs {
		vs[i] = float64((i*(arg+3)+arg)%37) - 18
		if dt.IsFloat() {
			vs[i] += 0.5 * float64(i%2)
		}
	}
	if in.Special && dt.IsFloat() && in.N >= 3 {
		vs[arg%in.N] = math.NaN()
		vs[(arg+1)%in.N] = math.Inf(1)
		vs[(arg+2)%in.N] = math.Inf(-1)
	}
	return vs
}

// StandardCases returns the parity cases every elementwise kernel should
// pass: an empty launch, one element, an odd size (1001 elements, not a
// multiple of a block) and NaN and infinities (7 elements). build makes a
// case's arguments on backend b for element type dt from its Inputs.
func StandardCases(build func(b backend.Backend, dt backend.DType, in Inputs) ([]Arg, Config, error)) []ParityCase {
	var out []ParityCase
	for _, in := range []Inputs{{Name: "empty"}, {Name: "one element", N: 1}, {Name: "odd size", N: 1001}, {Name: "NaN and infinities", N: 7, Special: true}} {
		out = append(out, ParityCase{Name: in.Name, Make: func(b backend.Backend, dt backend.DType) ([]Arg, Config, error) {
			return build(b, dt, in)
		}})
	}
	return out
}

// NewArray returns a new array on backend b holding vs converted to T: a
// helper for parity cases.
func NewArray[T backend.Element](b backend.Backend, vs []float64) (*backend.Array[T], error) {
	a, err := backend.NewOn[T](b, len(vs))
	if err != nil {
		return nil, err
	}
	s := make([]T, len(vs))
	for i, v := range vs {
		s[i] = T(v)
	}
	if err := backend.CopyFromHostSlice(a, s); err != nil {
		return nil, err
	}
	return a, nil
}
