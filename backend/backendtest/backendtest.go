package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// Sizes are the input lengths of the suite: the small and odd sizes that
// exercise unrolled loops' tails, sizes past one reduction chunk, and sizes
// past the CPU backend's parallel thresholds.
var Sizes = []int{0, 1, 2, 3, 7, 31, 1000, 4097, 1<<16 + 3, 1<<18 + 5}

// largeSize is the size from which the quick suite runs only the element
// types in quickLarge.
const largeSize = 1 << 16

// quickLarge reports whether the quick suite runs the sizes from largeSize
// up for dt: one type of each kind of code path (the two float widths, a
// wide and a narrow integer). The others run every size below largeSize.
// Under the race detector, float64 and int32 only (a float and an integer
// kernel, each split over goroutines): the split is the same code for
// every type (the CPU backend's backend.ParallelFor), and under the race
// detector these sizes of float32 and uint8 took a third of the time of
// the slowest part (BinaryScalar: 12.5 s of 36 s on a busy machine); the
// default build's TestBackend runs them.
func quickLarge(dt backend.DType) bool {
	switch dt {
	case backend.Float64, backend.Int32:
		return true
	case backend.Float32, backend.Uint8:
		return !raceEnabled
	}
	return false
}

// TestBackend runs the conformance suite on b: a subtest for every Backend
// method and every element type, plus views, host round trips, and thread
// count independence of reductions. It runs with a host thread budget of 4
// (backend.SetThreads), so that the parallel paths of a host backend run
// even on a one-CPU machine, and restores the budget at the end: it must not
// run in parallel with other tests that depend on the thread budget.
//
// With -short (testing.Short) it runs as TestBackendQuick.
func TestBackend(t *testing.T, b driver.Backend) {
	testBackend(t, b, testing.Short())
}

// TestBackendQuick runs the conformance suite of TestBackend with the large
// sizes (from 1<<16 elements) for float32, float64, int32 and uint8 only,
// and every smaller size for every type, and checks thread independence on
// 1<<18+5 elements rather than 1<<20+7. It is for slow runs: the race
// detector, a driver that emulates a device on the host. Under the race
// detector the large sizes are for float64 and int32 only, and only 1<<18+5
// of them, past the CPU backend's parallel thresholds (1<<17 elements for
// elementwise operations, 1<<18 for reductions): 1<<16+3 runs serial code,
// in which the race detector has nothing to find.
func TestBackendQuick(t *testing.T, b driver.Backend) {
	testBackend(t, b, true)
}

func testBackend(t *testing.T, b driver.Backend, quick bool) {
	prev := backend.SetThreads(4)
	defer backend.SetThreads(prev)
	t.Run("Identity", func(t *testing.T) {
		if b.Name() == "" {
			t.Error("Name() is empty")
		}
		if err := b.Synchronize(); err != nil {
			t.Errorf("Synchronize: %v", err)
		}
	})
	suites := []typed{
		&suite[float32]{b: b, quick: quick},
		&suite[float64]{b: b, quick: quick},
		&suite[int32]{b: b, quick: quick},
		&suite[int64]{b: b, quick: quick},
		&suite[uint32]{b: b, quick: quick},
		&suite[uint64]{b: b, quick: quick},
		&suite[int8]{b: b, quick: quick},
		&suite[int16]{b: b, quick: quick},
		&suite[uint8]{b: b, quick: quick},
		&suite[uint16]{b: b, quick: quick},
	}
	tests := []struct {
		name string
		f    func(typed, *testing.T)
	}{
		{"Alloc", typed.alloc},
		{"CopyHost", typed.copyHost},
		{"Slice", typed.slice},
		{"Fill", typed.fill},
		{"Copy", typed.copy},
		{"Scale", typed.scale},
		{"Axpy", typed.axpy},
		{"Axpby", typed.axpby},
		{"Binary", typed.binary},
		{"BinaryScalar", typed.binaryScalar},
		{"Sum", typed.sum},
		{"Dot", typed.dot},
		{"Argmin", typed.argmin},
		{"Argmax", typed.argmax},
		{"Jacobi5", typed.jacobi5},
		{"Laplace5", typed.laplace5},
		{"Views", typed.views},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range suites {
				t.Run(s.dtype().String(), func(t *testing.T) { tc.f(s, t) })
			}
		})
	}
	t.Run("ThreadIndependence", func(t *testing.T) { threadIndependence(t, b, quick) })
}

// typed is the suite for one element type.
type typed interface {
	dtype() backend.DType
	alloc(t *testing.T)
	copyHost(t *testing.T)
	slice(t *testing.T)
	fill(t *testing.T)
	copy(t *testing.T)
	scale(t *testing.T)
	axpy(t *testing.T)
	axpby(t *testing.T)
	binary(t *testing.T)
	binaryScalar(t *testing.T)
	sum(t *testing.T)
	dot(t *testing.T)
	argmin(t *testing.T)
	argmax(t *testing.T)
	jacobi5(t *testing.T)
	laplace5(t *testing.T)
	views(t *testing.T)
}

type suite[T backend.Element] struct {
	b     driver.Backend
	quick bool // see TestBackendQuick
}

// sizes are the input lengths of the suite for T.
func (s *suite[T]) sizes() []int {
	if !s.quick {
		return Sizes
	}
	large := quickLarge(s.dtype())
	var sizes []int
	for _, n := range Sizes {
		// Under the race detector, the large sizes from 1<<18 only (see
		// TestBackendQuick).
		if n < largeSize || large && !(raceEnabled && n < 1<<18) {
			sizes = append(sizes, n)
		}
	}
	return sizes
}

func (s *suite[T]) dtype() backend.DType { return backend.DTypeOf[T]() }

func (s *suite[T]) isFloat() bool { return s.dtype().IsFloat() }

// rng returns a random source seeded by the test's name, so that every
// subtest has its own reproducible inputs.
func rng(t *testing.T, n int) *rand.Rand {
	var h uint64 = 14695981039346656037
	for _, c := range []byte(t.Name()) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(h, uint64(n)))
}

// random returns n random elements: floats of both signs and magnitudes
// from 2^-10 to 2^10; integers with random bits over their whole range.
func (s *suite[T]) random(r *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = s.one(r)
	}
	return x
}

func (s *suite[T]) one(r *rand.Rand) T {
	if s.isFloat() {
		return T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(21)-10))
	}
	return T(r.Uint64())
}

// small returns n random elements in [-10, 10] (floats and signed) or
// [0, 20] (unsigned): many ties.
func (s *suite[T]) small(r *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		v := r.IntN(21)
		if s.isFloat() || s.dtype().IsSigned() {
			v -= 10
		}
		x[i] = T(v)
	}
	return x
}

// upload returns a new buffer on the backend holding a copy of x.
func (s *suite[T]) upload(t *testing.T, x []T) driver.Buffer {
	t.Helper()
	buf, err := s.b.Alloc(s.dtype(), len(x))
	if err != nil {
		t.Fatalf("Alloc(%v, %d): %v", s.dtype(), len(x), err)
	}
	if err := s.b.CopyFromHost(buf, unsafe.Pointer(unsafe.SliceData(x))); err != nil {
		t.Fatalf("CopyFromHost of %d elements: %v", len(x), err)
	}
	return buf
}

// download returns a copy of buf's elements in host memory.
func (s *suite[T]) download(t *testing.T, buf driver.Buffer) []T {
	t.Helper()
	if err := s.b.Synchronize(); err != nil {
		t.Fatalf("Synchronize: %v", err)
	}
	x := make([]T, buf.Len())
	if err := s.b.CopyToHost(unsafe.Pointer(unsafe.SliceData(x)), buf); err != nil {
		t.Fatalf("CopyToHost of %d elements: %v", buf.Len(), err)
	}
	return x
}

// same reports whether a and b are bitwise equal (for floats: equal with
// the same sign of zero), or both NaN.
func same[T backend.Element](a, b T) bool {
	if a == b {
		return a != 0 || math.Signbit(float64(a)) == math.Signbit(float64(b))
	}
	return a != a && b != b
}

// checkSame reports the first few elements where got and want differ
// bitwise (NaNs aside).
func checkSame[T backend.Element](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if !same(got[i], want[i]) {
			if bad < 5 {
				t.Errorf("%s: element %d of %d = %v, want %v", what, i, len(got), got[i], want[i])
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d elements differ in all", what, bad)
	}
}

// eps is the machine epsilon of T (0 for integers).
func eps[T backend.Element]() float64 {
	switch backend.DTypeOf[T]() {
	case backend.Float32:
		return 0x1p-23
	case backend.Float64:
		return 0x1p-52
	}
	return 0
}

// neumaier returns an accurate sum of the terms (compensated summation)
// and the sum of their absolute values.
func neumaier(n int, term func(i int) float64) (sum, abs float64) {
	var c float64
	for i := 0; i < n; i++ {
		v := term(i)
		t := sum + v
		if math.Abs(sum) >= math.Abs(v) {
			c += (sum - t) + v
		} else {
			c += (v - t) + sum
		}
		sum = t
		abs += math.Abs(v)
	}
	return sum + c, abs
}

func sizeName(n int) string { return fmt.Sprintf("n=%d", n) }
