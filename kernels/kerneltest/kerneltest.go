package kerneltest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu" // host arrays
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels"
)

// Device returns the backend where Parity runs kernels' device side: the
// CUDA backend if it runs here, else the fake device. It logs which, and
// why the CUDA backend does not run.
func Device(t testing.TB) backend.Backend {
	t.Helper()
	b, err := backend.Lookup("cuda")
	if err == nil {
		return b
	}
	t.Logf("kerneltest: no CUDA device (%v): the device side runs on the fake device, where kernels fall back to their host implementations", err)
	return fakedev.Default
}

// Parity runs every parity case of k, for each of its element types (one
// subtest each), on the host and on Device(t), and compares the results:
// see ParityOn.
func Parity(t *testing.T, k *kernels.Kernel) {
	t.Helper()
	ParityOn(t, k, Device(t))
}

// ParityOn runs every parity case of k for each element type of k (one
// subtest per type and case): the case's arguments are made once on the
// host and once on dev, k runs on each, and then every array argument of
// the two runs is compared, within the case's tolerance in ULPs (0:
// bitwise, NaNs of any payload equal), reporting the first differing
// index and both values. The arrays of const parameters must come back
// unchanged, on both sides: host implementations only read them.
//
// The device side needs CUDA code that runs there, or a host
// implementation that can run on dev's memory (the fake device's is host
// memory): a kernel without a host implementation on a device without
// CUDA is skipped with a message, as is a kernel without parity cases.
func ParityOn(t *testing.T, k *kernels.Kernel, dev backend.Backend) {
	t.Helper()
	cases := k.ParityCases()
	if len(cases) == 0 {
		t.Skipf("kerneltest: %s has no parity cases", k.Name())
	}
	if dev.Device().Kind != backend.CUDA && !k.HasHost() {
		t.Skipf("kerneltest: %s has no host implementation, and %v runs no CUDA code: its parity needs a GPU", k.Name(), dev.Device())
	}
	if dev.Device().Kind != backend.CUDA && os.Getenv("XPMPI_KERNELS_STRICT") == "1" {
		t.Skipf("kerneltest: XPMPI_KERNELS_STRICT=1 refuses the host fallback that %s needs on %v", k.Name(), dev.Device())
	}
	if dev.Device().Kind == backend.CUDA && !k.HasCUDA() {
		t.Logf("kerneltest: %s has no CUDA source: on %v its host implementation runs on copies", k.Name(), dev.Device())
	}
	types := k.Types()
	if len(types) == 0 {
		types = []backend.DType{backend.Float64} // unused by kernels without a type parameter
	}
	for _, dt := range types {
		for _, c := range cases {
			name := c.Name
			if len(k.Types()) > 0 {
				name = dt.String() + "/" + name
			}
			t.Run(name, func(t *testing.T) {
				if err := CheckCase(k, c, dev, dt); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// CheckCase runs one parity case of k for element type dt on the host and
// on dev, and returns every difference (see ParityOn) joined, or nil.
func CheckCase(k *kernels.Kernel, c kernels.ParityCase, dev backend.Backend, dt backend.DType) error {
	host, err := backend.Lookup("cpu")
	if err != nil {
		return err
	}
	hres, err := run(k, c, host, dt)
	if err != nil {
		return fmt.Errorf("%s (%s) on the host: %w", k.Name(), c.Name, err)
	}
	dres, err := run(k, c, dev, dt)
	if err != nil {
		return fmt.Errorf("%s (%s) on %v: %w", k.Name(), c.Name, dev.Device(), err)
	}
	if len(hres) != len(dres) {
		return fmt.Errorf("%s (%s): %d arguments on the host, %d on %v", k.Name(), c.Name, len(hres), len(dres), dev.Device())
	}
	sig := k.Signature()
	var errs []error
	for i := range hres {
		if hres[i] == nil || dres[i] == nil {
			continue
		}
		p := sig.Params[i]
		what := fmt.Sprintf("%s (%s, %v), argument %d (%s)", k.Name(), c.Name, dt, i, p.Name)
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

// run makes a case's arguments on b, runs k and returns each array
// argument's bytes before and after (nil for other arguments).
func run(k *kernels.Kernel, c kernels.ParityCase, b backend.Backend, dt backend.DType) ([]*result, error) {
	args, cfg, err := c.Make(b, dt)
	if err != nil {
		return nil, err
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

// Compare compares host and device results element by element: integers
// exactly, floats within ulps units in the last place (0: the same bits,
// except that NaNs of any payload are equal, and +0 and -0 are not). It
// returns nil or the first *Mismatch.
func Compare[T backend.Element](host, device []T, ulps int) error {
	hb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(host))), len(host)*int(unsafe.Sizeof(*new(T))))
	db := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(device))), len(device)*int(unsafe.Sizeof(*new(T))))
	if len(host) != len(device) {
		return &Mismatch{LenA: len(host), LenB: len(device)}
	}
	return CompareBytes(backend.DTypeOf[T](), hb, db, ulps)
}

// CompareBytes is Compare on the bytes of two arrays of element type dt.
func CompareBytes(dt backend.DType, host, device []byte, ulps int) error {
	size := dt.Size()
	if len(host) != len(device) {
		return &Mismatch{LenA: len(host) / size, LenB: len(device) / size}
	}
	for i := 0; i+size <= len(host); i += size {
		var a, b uint64
		if size == 4 {
			a, b = uint64(binary.LittleEndian.Uint32(host[i:])), uint64(binary.LittleEndian.Uint32(device[i:]))
		} else {
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
	}
	return fmt.Sprint(bits)
}
