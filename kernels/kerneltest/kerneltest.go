package kerneltest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu" // host arrays
	"github.com/xpmpi/xpmpi/internal/fakecudatest"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi"
)

// Device returns the backend where Parity runs kernels' device side: the
// CUDA backend if it runs here (a GPU, or the fake CUDA driver in a child
// process of Emulate), else nil. It logs why the CUDA backend does not
// run.
func Device(t testing.TB) backend.Backend {
	t.Helper()
	b, err := backend.Lookup("cuda")
	if err == nil {
		return b
	}
	t.Logf("kerneltest: no CUDA device (%v)", err)
	return nil
}

// Parity checks each kernel's host implementation against its CUDA
// source, running every parity case for every variant (element type and
// the cases' defines): on the GPU where there is one (ParityOn); without
// one, on backend/cuda's fake CUDA driver, which runs the CUDA source
// compiled as C++ on the host (Emulate: built once for all of ks, with
// every variant compiled in, and t's test run again in a child process
// on it). Where neither can run (-short, no g++, an MPI build, a build
// without cgo) it skips t saying that there is nothing to compare: it
// never compares the host implementation with itself.
//
// Parity must be called from the test function itself or a subtest of
// it, before anything that must not run twice: the child process runs
// the same test.
func Parity(t *testing.T, ks ...*kernels.Kernel) {
	t.Helper()
	dev := Emulate(t, ks...)
	if dev == nil {
		return
	}
	if len(ks) == 1 {
		ParityOn(t, ks[0], dev)
		return
	}
	for _, k := range ks {
		t.Run(k.Name(), func(t *testing.T) { ParityOn(t, k, dev) })
	}
}

// Emulate returns the CUDA backend on which ks run their CUDA source: a
// GPU's, or, in the child process Emulate starts, the fake CUDA driver's.
// In the parent process on a machine without a GPU, it builds the fake
// driver (internal/fakecudatest) with every parity variant of every one
// of ks that has CUDA source compiled in (each variant in a namespace of
// its own, found by its tag: kernels.Kernel.VariantTag), runs t's own
// test (t.Name()) again in a child process whose CUDA driver and NVRTC
// are the fake ones (the fake NVRTC tags each variant's PTX; strict mode:
// no host fallback), fails t if the child fails, and returns nil: the
// caller returns. It skips t where the fake driver cannot be built or run
// (see package internal/fakecudatest).
//
// With a real NVRTC present, the variants' PTX is compiled and checked
// by package kernels' CompileAll (xpmpi kernels --compile); the fake
// NVRTC here only tags the source.
func Emulate(t *testing.T, ks ...*kernels.Kernel) backend.Backend {
	t.Helper()
	if dev, err := backend.Lookup("cuda"); err == nil {
		if fakecudatest.InChild() {
			t.Logf("kerneltest: on the fake CUDA driver (%v)", dev.Device())
		}
		return dev
	} else if fakecudatest.InChild() {
		t.Fatalf("kerneltest: the fake CUDA driver does not load in the child: %v", err)
	}
	host, err := backend.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	var srcs []fakecudatest.Source
	for _, k := range ks {
		if !k.HasCUDA() || !k.HasHost() || len(k.ParityCases()) == 0 {
			continue
		}
		vs, err := k.ParityVariants(host)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			srcs = append(srcs, emulatedSource(k, v, len(srcs)))
		}
	}
	if len(srcs) == 0 {
		t.Skip("kerneltest: no CUDA device, and none of the kernels has both a host implementation and CUDA source with parity cases: nothing to compare")
	}
	t.Logf("kerneltest: no CUDA device: the CUDA source runs on the fake CUDA driver (%d variants)", len(srcs))
	d := fakecudatest.Build(t, srcs...)
	d.NVRTC = d.Lib // the fake NVRTC tags each variant's PTX
	d.Run(t, t.Name())
	return nil
}

// headerMacroRE finds the macros the shipped headers define (their include
// guards among them).
var headerMacroRE = regexp.MustCompile(`(?m)^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)`)

// externCBlockRE and externCRE find the C linkage of a block and of a
// declaration.
var (
	externCBlockRE = regexp.MustCompile(`extern\s*"C"\s*\{`)
	externCRE      = regexp.MustCompile(`extern\s*"C"(\s*[^\s{])`)
)

// emulatedSource returns variant v of k as a source of the fake driver:
// in a namespace of its own (scope i), with the shipped headers' macros
// undefined first (so that a header included by an earlier variant is
// included again) and the variant's defines after.
func emulatedSource(k *kernels.Kernel, v kernels.Variant, i int) fakecudatest.Source {
	var sb strings.Builder
	seen := map[string]bool{}
	for _, name := range kernels.Headers() {
		text, _ := kernels.Header(name)
		for _, m := range headerMacroRE.FindAllStringSubmatch(text, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				fmt.Fprintf(&sb, "#undef %s\n", m[1])
			}
		}
	}
	src := k.VariantSource(v)
	// C linkage would give every variant's entry one symbol: in the
	// driver they are C++ functions of their namespaces, registered by
	// key.
	sb.WriteString(externCBlockRE.ReplaceAllString(externCRE.ReplaceAllString(src, "$1"), "inline namespace xp_c {"))
	sb.WriteString("\n#undef " + typeParam(k) + "\n")
	for _, d := range v.Defines {
		sb.WriteString("#undef " + d.Name + "\n")
	}
	sb.WriteString("#undef XPMPI_DEBUG\n")
	return fakecudatest.Source{
		Code:    sb.String(),
		Scope:   fmt.Sprintf("xp_variant_%d", i),
		Entries: []fakecudatest.Entry{{Name: k.Name(), Key: k.VariantTag(v), Syncs: strings.Contains(src, "__syncthreads")}},
	}
}

// typeParam returns the kernel's element type macro ("T" by default).
func typeParam(k *kernels.Kernel) string {
	if tp := k.Signature().TypeParams; len(tp) > 0 {
		return tp[0]
	}
	return "T"
}

// ParityOn runs every parity case of k for each element type of k (one
// subtest per type and case): the case's arguments are made once on the
// host and once on dev, k runs on each (on dev, the CUDA kernel: strict
// mode, no host fallback), and then every array argument of the two runs
// is compared, within the case's tolerance in ULPs (0: bitwise, NaNs of
// any payload equal), reporting the first differing index and both
// values. The arrays of const parameters must come back unchanged, on
// both sides: host implementations only read them.
//
// Where there is nothing to compare (kernels.Kernel.ParityUnavailable: no
// host implementation, no CUDA source, no parity cases, or a dev that
// runs no CUDA code, as the fake device of backend/fakedev) it skips t
// saying why.
func ParityOn(t *testing.T, k *kernels.Kernel, dev backend.Backend) {
	t.Helper()
	if why := k.ParityUnavailable(dev); why != "" {
		t.Skip("kerneltest: " + why)
	}
	cases := k.ParityCases()
	for _, dt := range k.ParityTypes() {
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

// NeedNVRTC skips t, a test that compiles CUDA source with NVRTC, in an
// MPI build, where every rank would compile the same kernels (the default
// build compiles them once), and where there is no NVRTC.
func NeedNVRTC(t testing.TB) {
	t.Helper()
	if mpi.Built {
		t.Skip("the default build compiles them (once, not on every rank)")
	}
	if _, _, err := kernels.NVRTC(); err != nil {
		t.Skipf("no NVRTC (set XPMPI_NVRTC; see scripts/fetch-nvrtc.sh): %v", err)
	}
}
