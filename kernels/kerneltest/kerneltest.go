package kerneltest

import (
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
	if why := k.ParityUnavailable(dev); why != "" {
		t.Skip("kerneltest: " + why)
	}
	if dev.Device().Kind == backend.CUDA && !k.HasCUDA() {
		t.Logf("kerneltest: %s has no CUDA source: on %v its host implementation runs on copies", k.Name(), dev.Device())
	}
	types := k.Types()
	if len(types) == 0 {
		types = []backend.DType{backend.Float64} // unused by kernels without a type parameter
	}
	cases := k.ParityCases()
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
// on dev, and returns every difference joined, or nil: see
// kernels.Kernel.CheckParity.
func CheckCase(k *kernels.Kernel, c kernels.ParityCase, dev backend.Backend, dt backend.DType) error {
	return k.CheckParity(c, dev, dt)
}

// Mismatch is the first element where two arrays differ.
type Mismatch = kernels.Mismatch

// Compare compares host and device results element by element: integers
// exactly, floats within ulps units in the last place (0: the same bits,
// except that NaNs of any payload are equal, and +0 and -0 are not). It
// returns nil or the first *Mismatch.
func Compare[T backend.Element](host, device []T, ulps int) error {
	hb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(host))), len(host)*int(unsafe.Sizeof(*new(T))))
	db := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(device))), len(device)*int(unsafe.Sizeof(*new(T))))
	if len(host) != len(device) {
		return &kernels.Mismatch{LenA: len(host), LenB: len(device)}
	}
	return kernels.CompareBytes(backend.DTypeOf[T](), hb, db, ulps)
}

// CompareBytes is Compare on the bytes of two arrays of element type dt;
// see kernels.CompareBytes.
func CompareBytes(dt backend.DType, host, device []byte, ulps int) error {
	return kernels.CompareBytes(dt, host, device, ulps)
}
