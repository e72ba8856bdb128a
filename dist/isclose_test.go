package dist_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

var (
	nan  = math.NaN()
	pinf = math.Inf(1)
	ninf = math.Inf(-1)
)

// specialBackends are the backends of the tests of special values: the
// CPU, the fake device (a backend.Math) and the fake device without math
// functions (host copies).
func specialBackends(t *testing.T) (names []string, bs []backend.Backend) {
	names = []string{"cpu", "aware", "plain"}
	bs = []backend.Backend{cpu.Default, modeBackend(t, "aware"), modeBackend(t, "plain")}
	return names, bs
}

// fromSlice returns a 1-D array of v (on every rank) in layout l of
// mathLayouts on backend b.
func fromSlice[T backend.Numeric](t *testing.T, c mpi.Comm, v []T, o []dist.Option, b backend.Backend) *dist.Array[T] {
	t.Helper()
	x, err := dist.FromFunc(c, []int{len(v)}, func(idx []int) T { return v[idx[0]] }, append(slices.Clone(o), dist.OnBackend(b))...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// checkMask gathers m and compares it with want.
func checkMask(t *testing.T, c mpi.Comm, what string, m *dist.Array[uint8], err error, want []int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer m.Free()
	got, err := dist.Allgather(m)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]uint8, len(want))
	for i, v := range want {
		w[i] = uint8(v)
	}
	mpitest.Check(t, c, slices.Equal(got, w), "%s: got %v, NumPy %v", what, got, w)
}

// eachLayout runs f for each layout of mathLayouts and each backend, with
// the whole of n elements.
func eachLayout(t *testing.T, c mpi.Comm, n int, f func(what string, o []dist.Option, b backend.Backend)) {
	t.Helper()
	bn, bs := specialBackends(t)
	for i, b := range bs {
		names, opts := mathLayouts(n, c.Size())
		for l := range names {
			f(fmt.Sprintf("%s/%s", bn[i], names[l]), opts[l], b)
		}
	}
}

// TestIsSpecialNumPy checks Isnan, Isinf and Isfinite against NumPy's
// masks, for floats, complex and integer arrays.
func TestIsSpecialNumPy(t *testing.T) {
	c := mpitest.World(t)
	x := []float64{1.5, nan, -2.0, pinf, nan, 3.25, ninf, 0.0, math.Copysign(0, -1), 7.0, nan}
	isnan := []int{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1}
	isinf := []int{0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0}
	isfinite := []int{1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0}
	z := []complex128{1 + 1i, 1 + 1i, complex(nan, 1), complex(1, nan), complex(pinf, 1), complex(pinf, 1), complex(1, pinf), 3 - 4i, 0}
	zisnan := []int{0, 0, 1, 1, 0, 0, 0, 0, 0}
	zisinf := []int{0, 0, 0, 0, 1, 1, 1, 0, 0}
	zisfinite := []int{1, 1, 0, 0, 0, 0, 0, 1, 1}
	for _, n := range []int{len(x), 2, 0} {
		eachLayout(t, c, n, func(what string, o []dist.Option, b backend.Backend) {
			what = fmt.Sprintf("n=%d/%s", n, what)
			a := fromSlice(t, c, x[:n], o, b)
			defer a.Free()
			m, err := dist.Isnan(a)
			checkMask(t, c, what+"/Isnan", m, err, isnan[:n])
			m, err = dist.Isinf(a)
			checkMask(t, c, what+"/Isinf", m, err, isinf[:n])
			m, err = dist.Isfinite(a)
			checkMask(t, c, what+"/Isfinite", m, err, isfinite[:n])
			a32 := fromSlice(t, c, toF32(x[:n]), o, b)
			defer a32.Free()
			m, err = dist.Isfinite(a32)
			checkMask(t, c, what+"/Isfinite float32", m, err, isfinite[:n])
		})
	}
	for _, n := range []int{len(z), 2, 0} {
		eachLayout(t, c, n, func(what string, o []dist.Option, b backend.Backend) {
			what = fmt.Sprintf("n=%d/%s", n, what)
			za := fromSlice(t, c, z[:n], o, b)
			defer za.Free()
			m, err := dist.Isnan(za)
			checkMask(t, c, what+"/Isnan complex", m, err, zisnan[:n])
			m, err = dist.Isinf(za)
			checkMask(t, c, what+"/Isinf complex", m, err, zisinf[:n])
			m, err = dist.Isfinite(za)
			checkMask(t, c, what+"/Isfinite complex", m, err, zisfinite[:n])
		})
	}
	for _, n := range []int{5, 2, 0} {
		eachLayout(t, c, n, func(what string, o []dist.Option, b backend.Backend) {
			what = fmt.Sprintf("n=%d/%s", n, what)
			ia := fromSlice(t, c, []int32{1, -2, 3, 0, 5}[:n], o, b)
			defer ia.Free()
			ones := []int{1, 1, 1, 1, 1}[:n]
			zeros := []int{0, 0, 0, 0, 0}[:n]
			m, err := dist.Isnan(ia)
			checkMask(t, c, what+"/Isnan int32", m, err, zeros)
			m, err = dist.Isinf(ia)
			checkMask(t, c, what+"/Isinf int32", m, err, zeros)
			m, err = dist.Isfinite(ia)
			checkMask(t, c, what+"/Isfinite int32", m, err, ones)
		})
	}
}

func toF32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// TestIscloseNumPy checks Isclose and Allclose against NumPy's isclose and
// allclose: the default tolerances, other ones, equal_nan, infinities,
// float32 arithmetic, complex moduli and integers.
func TestIscloseNumPy(t *testing.T) {
	c := mpitest.World(t)
	a := []float64{1.0, 1.0 + 1e-5, 1.0 + 2e-5, 0.0, 1e-8, 2e-8, nan, nan, pinf, pinf, ninf, 1.0, pinf, 1e10, 100.0, math.Copysign(0, -1)}
	b := []float64{1.0, 1.0, 1.0, 1e-8, 0.0, 0.0, nan, 1.0, pinf, ninf, ninf, pinf, 1.0, 1.00001e10, 100.1, 0.0}
	plain := []int{1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1}
	eqnan := []int{1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1}
	tols := []int{1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1} // rtol=1e-3, atol=0
	f32 := []int{1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1}
	ca := []complex128{1 + 1i, 1 + 1i, complex(nan, 1), complex(1, nan), complex(pinf, 1), complex(pinf, 1), complex(1, pinf), 3 - 4i, 0}
	cb := []complex128{1 + 1i, 1 + 1.00002i, complex(1, nan), complex(1, nan), complex(pinf, 1), complex(pinf, 2), complex(1, pinf), 3 - 4.00004i, 1e-8i}
	cplain := []int{1, 0, 0, 0, 0, 0, 0, 1, 1}
	ceqnan := []int{1, 0, 1, 1, 1, 1, 1, 1, 1}
	ia := []int64{1, 2, 100000, -5, 1 << 40}
	ib := []int64{1, 3, 100001, -5, 1<<40 + 1}
	iwant := []int{1, 0, 1, 1, 1}
	eachLayout(t, c, len(a), func(what string, o []dist.Option, be backend.Backend) {
		x, y := fromSlice(t, c, a, o, be), fromSlice(t, c, b, o, be)
		defer x.Free()
		defer y.Free()
		m, err := dist.Isclose(x, y)
		checkMask(t, c, what+"/Isclose", m, err, plain)
		m, err = dist.Isclose(x, y, dist.EqualNaN())
		checkMask(t, c, what+"/Isclose equal_nan", m, err, eqnan)
		m, err = dist.Isclose(x, y, dist.Rtol(1e-3), dist.Atol(0))
		checkMask(t, c, what+"/Isclose rtol=1e-3 atol=0", m, err, tols)
		x32, y32 := fromSlice(t, c, toF32(a), o, be), fromSlice(t, c, toF32(b), o, be)
		defer x32.Free()
		defer y32.Free()
		m, err = dist.Isclose(x32, y32)
		checkMask(t, c, what+"/Isclose float32", m, err, f32)
		ok, err := dist.Allclose(x, y)
		mpitest.Check(t, c, err == nil && !ok, "%s: Allclose = %v, %v; NumPy False", what, ok, err)
	})
	eachLayout(t, c, len(ca), func(what string, o []dist.Option, be backend.Backend) {
		x, y := fromSlice(t, c, ca, o, be), fromSlice(t, c, cb, o, be)
		defer x.Free()
		defer y.Free()
		m, err := dist.Isclose(x, y)
		checkMask(t, c, what+"/Isclose complex", m, err, cplain)
		m, err = dist.Isclose(x, y, dist.EqualNaN())
		checkMask(t, c, what+"/Isclose complex equal_nan", m, err, ceqnan)
	})
	eachLayout(t, c, len(ia), func(what string, o []dist.Option, be backend.Backend) {
		ix, iy := fromSlice(t, c, ia, o, be), fromSlice(t, c, ib, o, be)
		defer ix.Free()
		defer iy.Free()
		m, err := dist.Isclose(ix, iy)
		checkMask(t, c, what+"/Isclose int64", m, err, iwant)
		ok, err := dist.Allclose(ix, iy)
		mpitest.Check(t, c, err == nil && !ok, "%s: Allclose int64 = %v, %v; NumPy False", what, ok, err)
	})
	// Allclose: True cases, and empty arrays.
	for _, n := range []int{3, 2, 0} {
		eachLayout(t, c, n, func(what string, o []dist.Option, be backend.Backend) {
			x, y := fromSlice(t, c, a[:n], o, be), fromSlice(t, c, b[:n], o, be)
			defer x.Free()
			defer y.Free()
			ok, err := dist.Allclose(x, y, dist.Rtol(1e-3))
			mpitest.Check(t, c, err == nil && ok, "%s n=%d: Allclose = %v, %v; NumPy True", what, n, ok, err)
		})
	}
	// Freed arrays.
	x, err := dist.Zeros[float64](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	y, _ := dist.Zeros[float64](c, []int{5})
	defer y.Free()
	x.Free()
	for what, err := range map[string]error{
		"Isclose":  second(dist.Isclose(x, y)),
		"Allclose": second(dist.Allclose(y, x)),
		"Isnan":    second(dist.Isnan(x)),
		"Isinf":    second(dist.Isinf(x)),
		"Isfinite": second(dist.Isfinite(x)),
	} {
		if !errors.Is(err, dist.ErrFreed) {
			t.Errorf("%s of a freed array: %v, want ErrFreed", what, err)
		}
	}
}

func second[A any](_ A, err error) error { return err }
