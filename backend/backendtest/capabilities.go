package backendtest

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// Capability is one of package backend's optional interfaces and its
// conformance suite.
type Capability struct {
	// Name is the interface's name in package backend ("Math").
	Name string
	// Has reports whether a backend implements the interface.
	Has func(b driver.Backend) bool
	// Test runs the interface's suite on a backend that has it.
	Test func(t *testing.T, b driver.Backend)
}

// Capabilities are the optional interfaces of package backend, each with a
// suite that checks its contract (the interface's documentation) against
// reference results computed here with plain loops. ComplexArith and
// ComplexKernels are markers: their suites are the complex cases of the
// other capabilities' suites, which run where the backend has the marker.
// Allocation is a property of buffers, tested by TestBackend's views.
var Capabilities = []Capability{
	{"Math", has[driver.Math], testMath},
	{"Converter", has[driver.Converter], testConverter},
	{"AxisReducer", has[driver.AxisReducer], testAxisReducer},
	{"StatsReducer", has[driver.StatsReducer], testStatsReducer},
	{"Sorter", has[driver.Sorter], testSorter},
	{"FFTer", has[driver.FFTer], testFFTer},
	{"GEMM", has[driver.GEMM], testGEMM},
	{"RandomFiller", has[driver.RandomFiller], testRandomFiller},
	{"Stencils", has[driver.Stencils], testStencils},
	{"WeightedStencils", has[driver.WeightedStencils], testWeightedStencils},
	{"StencilDots", has[driver.StencilDots], testStencilDots},
	{"ComplexMath", has[driver.ComplexMath], testComplexMath},
	{"ComplexKernels", has[driver.ComplexKernels], testComplexKernels},
	{"Async", has[driver.Async], testAsync},
	{"Describer", has[driver.Describer], testDescriber},
}

func has[I any](b driver.Backend) bool {
	_, ok := b.(I)
	return ok
}

// TestCapabilities runs the suite of every optional interface that b
// implements, as a subtest named after the interface. want names the
// interfaces that b claims (a backend's test lists them): a claimed
// interface that b does not implement fails, so that a capability cannot
// be lost without a test noticing; one that b implements without the
// claim is tested all the same, and logged.
func TestCapabilities(t *testing.T, b driver.Backend, want ...string) {
	for _, w := range want {
		if !slices.ContainsFunc(Capabilities, func(c Capability) bool { return c.Name == w }) {
			t.Errorf("TestCapabilities: %q is not one of the capabilities", w)
		}
	}
	prev := backend.SetThreads(4)
	defer backend.SetThreads(prev)
	for _, c := range Capabilities {
		claimed := slices.Contains(want, c.Name)
		switch {
		case c.Has(b):
			if !claimed {
				t.Logf("%s implements %s without claiming it", b.Name(), c.Name)
			}
			t.Run(c.Name, func(t *testing.T) { c.Test(t, b) })
		case claimed:
			t.Errorf("%s claims %s but does not implement it", b.Name(), c.Name)
		}
	}
}

// capSizes are the lengths of the capability suites' inputs: empty, short
// odd ones for the tails of unrolled loops, and one past the CPU backend's
// parallel thresholds (1<<17 elementwise, 1<<18 for reductions).
var capSizes = []int{0, 1, 7, 100, 1<<18 + 3}

// capSizesOf returns the sizes of the capability suites for T: capSizes,
// the large one for float64 and int32 only (one float and one integer
// kernel: the parallel split is the same code for every type), and not at
// all with -short.
func capSizesOf[T backend.Numeric]() []int {
	dt := backend.DTypeOf[T]()
	if !testing.Short() && (dt == backend.Float64 || dt == backend.Int32) {
		return capSizes
	}
	return capSizes[:len(capSizes)-1]
}

// axisShapes are the (pre, n, post) views of the axis suites.
var axisShapes = [][3]int{{1, 0, 1}, {1, 1, 1}, {3, 5, 1}, {1, 7, 4}, {2, 6, 3}, {4, 1000, 3}, {0, 3, 2}}

// up returns a new buffer of b holding a copy of x.
func up[T backend.Numeric](t *testing.T, b driver.Backend, x []T) driver.Buffer {
	t.Helper()
	buf, err := b.Alloc(backend.DTypeOf[T](), len(x))
	if err != nil {
		t.Fatalf("Alloc(%v, %d): %v", backend.DTypeOf[T](), len(x), err)
	}
	if len(x) > 0 {
		if err := b.CopyFromHost(buf, unsafe.Pointer(unsafe.SliceData(x))); err != nil {
			t.Fatalf("CopyFromHost of %d elements: %v", len(x), err)
		}
	}
	return buf
}

// zeros returns a new buffer of b of n zero elements of T.
func zeros[T backend.Numeric](t *testing.T, b driver.Backend, n int) driver.Buffer {
	t.Helper()
	return up(t, b, make([]T, n))
}

// down returns a copy of buf's elements in host memory, after the
// backend's queued work.
func down[T backend.Numeric](t *testing.T, b driver.Backend, buf driver.Buffer) []T {
	t.Helper()
	if err := b.Synchronize(); err != nil {
		t.Fatalf("Synchronize: %v", err)
	}
	x := make([]T, buf.Len())
	if len(x) > 0 {
		if err := b.CopyToHost(unsafe.Pointer(unsafe.SliceData(x)), buf); err != nil {
			t.Fatalf("CopyToHost of %d elements: %v", buf.Len(), err)
		}
	}
	return x
}

// freeAll frees buffers of b.
func freeAll(b driver.Backend, bufs ...driver.Buffer) {
	for _, buf := range bufs {
		if buf != nil {
			b.Free(buf)
		}
	}
}

// randFloats returns n floats of both signs and magnitudes 2^-10 to 2^10.
func randFloats[T backend.Float](r *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(21)-10))
	}
	return x
}

// randSmall returns n values in [lo, lo+span) converted to T: many ties.
func randSmall[T backend.Element](r *rand.Rand, n, lo, span int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(lo + r.IntN(span))
	}
	return x
}

// ulps returns the distance in units of the last place of T between got
// and want (0 for equal values, both NaN or the same infinity; +Inf for a
// NaN or infinity against anything else).
func ulps[T backend.Float](got, want T) float64 {
	g, w := float64(got), float64(want)
	switch {
	case g == w || g != g && w != w:
		return 0
	case g != g || w != w || math.IsInf(g, 0) || math.IsInf(w, 0):
		return math.Inf(1)
	}
	e := eps[T]()
	m := math.Max(math.Abs(w), smallest[T]())
	return math.Abs(g-w) / (e * math.Ldexp(1, math.Ilogb(m)))
}

// smallest is T's smallest normal number: ulps counts below it as there.
func smallest[T backend.Float]() float64 {
	if backend.DTypeOf[T]() == backend.Float32 {
		return 0x1p-126
	}
	return 0x1p-1022
}

// checkUlps reports the first elements where got is more than maxUlps
// units in the last place from want.
func checkUlps[T backend.Float](t *testing.T, what string, got, want []T, maxUlps float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if u := ulps(got[i], want[i]); u > maxUlps {
			if bad < 5 {
				t.Errorf("%s: element %d = %v, want %v (%.3g ulps, bound %g)", what, i, got[i], want[i], u, maxUlps)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d elements out of bound in all", what, bad)
	}
}

// checkClose reports the first complex elements whose distance from want
// is over tol times scale.
func checkClose[C backend.Complex](t *testing.T, what string, got []C, want []complex128, tol, scale float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		g := complex128(got[i])
		d := cmplx.Abs(g - want[i])
		if !(d <= tol*scale) && !(cmplx.IsNaN(g) && cmplx.IsNaN(want[i])) && g != want[i] {
			if bad < 5 {
				t.Errorf("%s: element %d = %v, want %v (distance %.3g, bound %.3g)", what, i, g, want[i], d, tol*scale)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d elements out of bound in all", what, bad)
	}
}

func testDescriber(t *testing.T, b driver.Backend) {
	d := b.(driver.Describer).Describe()
	if strings.TrimSpace(d) == "" {
		t.Errorf("%s: Describe() is empty", b.Name())
	}
}
