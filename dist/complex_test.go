package dist_test

// Tests of the complex element types against NumPy's results in
// testdata/complex.json and NumPy's files complex_*.npy (written by
// testdata/complex_gen.py), at every rank count, on the CPU and on the
// fake device.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// cxNum is a number of the fixture: a float or "nan", "inf", "-inf".
type cxNum = any

type cxFixture struct {
	X, Y       [][2]cxNum
	S, A, B    [2]cxNum
	Complex64  map[string]json.RawMessage
	Complex128 map[string]json.RawMessage
	Special    map[string]json.RawMessage
	Astype     map[string]json.RawMessage
}

var cxOnce = sync.OnceValues(func() (*cxFixture, error) {
	b, err := os.ReadFile(npyTestdata("complex.json"))
	if err != nil {
		return nil, err
	}
	f := new(cxFixture)
	return f, json.Unmarshal(b, f)
})

func cxData(t *testing.T) *cxFixture {
	t.Helper()
	f, err := cxOnce()
	if err != nil {
		t.Fatalf("testdata/complex.json: %v", err)
	}
	return f
}

func cxFloat(t *testing.T, v cxNum) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		switch x {
		case "nan":
			return math.NaN()
		case "inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		}
	}
	t.Fatalf("fixture number %v", v)
	return 0
}

func cxPair(t *testing.T, p [2]cxNum) complex128 { return complex(cxFloat(t, p[0]), cxFloat(t, p[1])) }

func cxPairs(t *testing.T, ps [][2]cxNum) []complex128 {
	out := make([]complex128, len(ps))
	for i, p := range ps {
		out[i] = cxPair(t, p)
	}
	return out
}

// cxComplex returns the fixture's complex values under key of m.
func cxComplex(t *testing.T, m map[string]json.RawMessage, key string) []complex128 {
	t.Helper()
	var ps [][2]cxNum
	if err := json.Unmarshal(m[key], &ps); err != nil {
		t.Fatalf("fixture %s: %v", key, err)
	}
	return cxPairs(t, ps)
}

// cxReal returns the fixture's real values under key of m.
func cxReal(t *testing.T, m map[string]json.RawMessage, key string) []float64 {
	t.Helper()
	var vs []cxNum
	if err := json.Unmarshal(m[key], &vs); err != nil {
		t.Fatalf("fixture %s: %v", key, err)
	}
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = cxFloat(t, v)
	}
	return out
}

func cxScalar(t *testing.T, m map[string]json.RawMessage, key string) complex128 {
	t.Helper()
	var p [2]cxNum
	if err := json.Unmarshal(m[key], &p); err != nil {
		t.Fatalf("fixture %s: %v", key, err)
	}
	return cxPair(t, p)
}

// cxClose reports whether a and b agree to a relative tolerance tol in
// each part (relative to the larger modulus), NaNs matching NaNs and
// infinities matching infinities of the same sign.
func cxClose(a, b complex128, tol float64) bool {
	return fClose(real(a), real(b), tol*max(cmplx.Abs(b), 1)) && fClose(imag(a), imag(b), tol*max(cmplx.Abs(b), 1))
}

func fClose(a, b, tol float64) bool {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.IsNaN(a) && math.IsNaN(b)
	case math.IsInf(a, 0) || math.IsInf(b, 0):
		return a == b
	}
	return math.Abs(a-b) <= tol
}

func cxAllClose[T complex64 | complex128](got []T, want []complex128, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !cxClose(complex128(got[i]), want[i], tol) {
			return false
		}
	}
	return true
}

// cxTol is the relative tolerance of T's results: a few units in the last
// place of its parts.
func cxTol[T complex64 | complex128]() float64 {
	if backend.DTypeOf[T]() == backend.Complex64 {
		return 4e-7
	}
	return 1e-15
}

func cxFixtureOf[T complex64 | complex128](f *cxFixture) map[string]json.RawMessage {
	if backend.DTypeOf[T]() == backend.Complex64 {
		return f.Complex64
	}
	return f.Complex128
}

// cxFrom returns the fixture values vs as an array of shape {len(vs)}
// split by opts.
func cxFrom[T complex64 | complex128](t *testing.T, c mpi.Comm, vs []complex128, opts ...dist.Option) *dist.Array[T] {
	t.Helper()
	a, err := dist.FromFunc(c, []int{len(vs)}, func(idx []int) T { return T(vs[idx[0]]) }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// cxLayouts are the layouts of the fixture's 11 elements: split over the
// ranks evenly, replicated, all on the last rank, and one element on each
// rank but the first (empty) with the rest on the last.
func cxLayouts(p int) []cxLayout {
	last := make([]int, p)
	last[p-1] = 11
	spread := make([]int, p)
	for r := 1; r < p; r++ {
		spread[r] = 1
	}
	spread[p-1] = 11 - (p - 2)
	if p == 1 {
		spread[0] = 11
	}
	return []cxLayout{
		{"even", nil},
		{"replicated", []dist.Option{dist.SplitAxis(dist.Replicated)}},
		{"last", []dist.Option{dist.BlockSizes(last)}},
		{"spread", []dist.Option{dist.BlockSizes(spread)}},
	}
}

// cxLayout is a named layout of cxLayouts (a slice, so that every rank
// runs the layouts in one order).
type cxLayout struct {
	name string
	opts []dist.Option
}

// TestComplexElementwise checks the elementwise arithmetic, Sum and Dot of
// complex arrays against NumPy's, for every layout, on the CPU and the
// fake device.
func TestComplexElementwise(t *testing.T) {
	t.Run("complex64", func(t *testing.T) { testComplexElementwise[complex64](t) })
	t.Run("complex128", func(t *testing.T) { testComplexElementwise[complex128](t) })
}

func testComplexElementwise[T complex64 | complex128](t *testing.T) {
	c := mpitest.World(t)
	f := cxData(t)
	m := cxFixtureOf[T](f)
	xs, ys := cxPairs(t, f.X), cxPairs(t, f.Y)
	s, a, b := T(cxPair(t, f.S)), T(cxPair(t, f.A)), T(cxPair(t, f.B))
	tol := cxTol[T]()
	for _, bk := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, lo := range cxLayouts(c.Size()) {
			t.Run(fmt.Sprintf("%s/%s", bk.Name(), lo.name), func(t *testing.T) {
				opts := append(slices.Clone(lo.opts), dist.OnBackend(bk))
				x, y := cxFrom[T](t, c, xs, opts...), cxFrom[T](t, c, ys, opts...)
				dst, err := dist.ZerosLike(x)
				if err != nil {
					t.Fatal(err)
				}
				check := func(op string, tol float64) {
					t.Helper()
					got, err := dist.Allgather(dst)
					want := cxComplex(t, m, op)
					mpitest.Check(t, c, err == nil && cxAllClose(got, want, tol), "%s: %v (%v), want %v", op, got, err, want)
				}
				for _, tc := range []struct {
					op string
					f  func(dst, x, y *dist.Array[T])
				}{{"add", dist.Add[T]}, {"sub", dist.Sub[T]}, {"mul", dist.Mul[T]}, {"div", dist.Div[T]}} {
					tc.f(dst, x, y)
					check(tc.op, tol)
				}
				for _, tc := range []struct {
					op string
					f  func(dst, x *dist.Array[T], s T)
				}{{"adds", dist.AddScalar[T]}, {"subs", dist.SubScalar[T]}, {"muls", dist.MulScalar[T]}, {"divs", dist.DivScalar[T]}} {
					tc.f(dst, x, s)
					check(tc.op, tol)
				}
				dist.Copy(dst, y)
				dist.Axpy(a, x, dst)
				check("axpy", tol)
				dist.Copy(dst, y)
				dist.Axpby(a, x, b, dst)
				check("axpby", tol)
				dist.Copy(dst, x)
				dist.Scale(a, dst)
				check("scale", tol)

				sum, err := dist.Sum(x)
				want := T(cxScalar(t, m, "sum"))
				mpitest.Check(t, c, err == nil && cxClose(complex128(sum), complex128(want), tol), "Sum %v (%v), want %v", sum, err, want)
				dot, err := dist.Dot(x, y)
				want = T(cxScalar(t, m, "dot"))
				mpitest.Check(t, c, err == nil && cxClose(complex128(dot), complex128(want), tol), "Dot %v (%v), want %v", dot, err, want)
				if bk.Device().Kind == backend.Fake {
					mpitest.Check(t, c, dst.Device() == bk.Device(), "result on %v", dst.Device())
				}
				x.Free()
				y.Free()
				dst.Free()
			})
		}
	}
}

// TestComplexDeviceCopies checks that complex arithmetic on the fake
// device stays there, and that on a backend without complex kernels
// (noSorter hides the fake device's ComplexArith) it runs on host copies,
// recorded.
func TestComplexDeviceCopies(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	x, err := dist.FromFunc(c, []int{7}, func(idx []int) complex128 { return complex(float64(idx[0]), 1) }, dist.OnBackend(fakedev.Default))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	y, _ := dist.ZerosLike(x)
	defer y.Free()
	expectCopies(t, "Add on the fake device", transfers{}, func() error {
		dist.Add(y, x, x)
		dist.AddScalar(y, y, 1i)
		dist.Axpby(2, x, 1i, y)
		_, err := dist.Sum(y)
		return err
	})
	n := int64(16 * x.Layout().LocalLen(me))
	plain := noSorter{fakedev.Default}
	u, err := dist.FromFunc(c, []int{7}, func(idx []int) complex128 { return complex(float64(idx[0]), 1) }, dist.OnBackend(plain))
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	v, _ := dist.ZerosLike(u)
	defer v.Free()
	// Each operand goes to the host and comes back.
	three := toHost(n).plus(toHost(n)).plus(toHost(n)).plus(toDevice(n)).plus(toDevice(n)).plus(toDevice(n))
	expectCopies(t, "Add on a backend without complex kernels", three, func() error {
		dist.Add(v, u, u)
		return nil
	})
	var sum complex128
	expectCopies(t, "Sum on a backend without complex kernels", toHost(n).plus(toDevice(n)), func() (err error) {
		sum, err = dist.Sum(v)
		return err
	})
	mpitest.Check(t, c, sum == complex(42, 14), "Sum %v, want 42+14i", sum)
}

// TestComplexMoves checks creation, Get and Set, Gather and Scatter,
// Redistribute, Transpose, Reshape, Slice and Concatenate of complex
// arrays: element for element against values computed here.
func TestComplexMoves(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	cref := func(i int) complex128 { return complex(ref(i), float64(i%7)-2.5) }
	for _, bk := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, shape := range [][]int{{0}, {1}, {3}, {7}, {5, 3}, {2, 9}, {1, 4}, {3, 0}} {
			for _, axis := range axes(shape) {
				t.Run(fmt.Sprintf("%s/%v/axis%d", bk.Name(), shape, axis), func(t *testing.T) {
					n := prod(shape)
					want := make([]complex128, n)
					for i := range want {
						want[i] = cref(i)
					}
					x, err := dist.FromFunc(c, shape, func(idx []int) complex128 { return cref(flat(idx, shape)) }, dist.SplitAxis(axis), dist.OnBackend(bk))
					if err != nil {
						t.Fatal(err)
					}
					defer x.Free()
					got, err := dist.Allgather(x)
					mpitest.Check(t, c, err == nil && slices.Equal(got, want), "FromFunc: %v, want %v", got, want)
					for _, to := range axes(shape) {
						y, err := dist.Redistribute(x, dist.NewLayout(shape, to, p))
						if err != nil {
							t.Fatal(err)
						}
						got, err := dist.Allgather(y)
						mpitest.Check(t, c, err == nil && slices.Equal(got, want), "Redistribute to %d: %v, want %v", to, got, want)
						y.Free()
					}
					var data []complex128
					if c.Rank() == 0 {
						data = want
					}
					sc, err := dist.Scatter(c, 0, data, shape, dist.SplitAxis(axis), dist.OnBackend(bk))
					if err != nil {
						t.Fatal(err)
					}
					g, err := dist.Gather(sc, 0)
					mpitest.Check(t, c, err == nil && (c.Rank() != 0 || slices.Equal(g, want)), "Scatter/Gather: %v, want %v", g, want)
					sc.Free()
					if n > 0 {
						last := make([]int, len(shape))
						for d := range shape {
							last[d] = shape[d] - 1
						}
						v, err := dist.Get(x, last...)
						mpitest.Check(t, c, err == nil && v == want[n-1], "Get: %v, want %v", v, want[n-1])
						if err := dist.Set(x, 3-4i, last...); err != nil {
							t.Fatal(err)
						}
						v, err = dist.Get(x, last...)
						mpitest.Check(t, c, err == nil && v == 3-4i, "Get after Set: %v", v)
						dist.Set(x, want[n-1], last...)
					}
					if len(shape) == 2 && axis != dist.Replicated {
						tr, err := dist.Transpose(x)
						if err != nil {
							t.Fatal(err)
						}
						got, err := dist.Allgather(tr)
						ok := err == nil
						for i := 0; ok && i < shape[0]; i++ {
							for j := 0; j < shape[1]; j++ {
								ok = ok && got[j*shape[0]+i] == want[i*shape[1]+j]
							}
						}
						mpitest.Check(t, c, ok, "Transpose: %v", got)
						tr.Free()
					}
					if axis != dist.Replicated {
						rs, err := dist.Reshape(x, n)
						if err != nil {
							t.Fatal(err)
						}
						got, err := dist.Allgather(rs)
						mpitest.Check(t, c, err == nil && slices.Equal(got, want), "Reshape: %v", got)
						rs.Free()
					}
					if len(shape) == 1 && axis != dist.Replicated {
						sl, err := dist.Slice(x, dist.Range{Start: 1, Stop: math.MaxInt, Step: 2})
						if err != nil {
							t.Fatal(err)
						}
						got, err := dist.Allgather(sl)
						var w []complex128
						for i := 1; i < n; i += 2 {
							w = append(w, want[i])
						}
						mpitest.Check(t, c, err == nil && slices.Equal(got, w), "Slice 1::2: %v, want %v", got, w)
						sl.Free()
						cat, err := dist.Concatenate(0, x, x)
						if err != nil {
							t.Fatal(err)
						}
						got, err = dist.Allgather(cat)
						mpitest.Check(t, c, err == nil && slices.Equal(got, append(slices.Clone(want), want...)), "Concatenate: %v", got)
						cat.Free()
					}
				})
			}
		}
	}
	full, err := dist.Full(c, []int{5}, complex64(1-2i))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := dist.Allgather(full)
	mpitest.Check(t, c, slices.Equal(got, []complex64{1 - 2i, 1 - 2i, 1 - 2i, 1 - 2i, 1 - 2i}), "Full: %v", got)
	full.Free()
}

// TestComplexNPY checks Save and Load of complex arrays: files NumPy wrote
// load at every layout, what Save writes NumPy reads (through Load's own
// check of the header bytes against NumPy's), and a complex file loaded
// as a real type is refused with both types named, or converted with
// Convert and DiscardImag.
func TestComplexNPY(t *testing.T) {
	c := mpitest.World(t)
	want8 := make([]complex64, 12)
	for i := range want8 {
		want8[i] = complex(float32(i)-5.5, float32(i%5)-0.25)
	}
	want16 := make([]complex128, 7)
	for i := range want16 {
		want16[i] = complex(float64(i)*0.5-1, -float64(i)/3)
	}
	for axis := dist.Replicated; axis < 2; axis++ {
		x, err := dist.Load[complex64](c, npyTestdata("complex_c8_3x4.npy"), dist.SplitAxis(axis))
		if err != nil {
			t.Fatal(err)
		}
		got, err := dist.Allgather(x)
		mpitest.Check(t, c, err == nil && slices.Equal(got, want8) && slices.Equal(x.Shape(), []int{3, 4}), "complex_c8_3x4.npy axis %d: %v %v", axis, x.Shape(), got)
		x.Free()
	}
	y, err := dist.Load[complex128](c, npyTestdata("complex_c16_7.npy"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := dist.Allgather(y)
	mpitest.Check(t, c, cxAllClose(got, want16, 1e-15), "complex_c16_7.npy: %v, want %v", got, want16)

	// Save writes NumPy's bytes: the header and the data of the file
	// numpy.save wrote.
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "c16.npy")
	if err := dist.Save(y, path); err != nil {
		t.Fatal(err)
	}
	y.Free()
	if c.Rank() == 0 {
		a, _ := os.ReadFile(path)
		b, _ := os.ReadFile(npyTestdata("complex_c16_7.npy"))
		if !slices.Equal(a, b) {
			t.Errorf("Save wrote\n%q\nnumpy.save wrote\n%q", a, b)
		}
	}
	x8, err := dist.Load[complex64](c, npyTestdata("complex_c8_3x4.npy"), dist.SplitAxis(1))
	if err != nil {
		t.Fatal(err)
	}
	path8 := filepath.Join(dir, "c8.npy")
	if err := dist.Save(x8, path8); err != nil {
		t.Fatal(err)
	}
	x8.Free()
	if c.Rank() == 0 {
		a, _ := os.ReadFile(path8)
		b, _ := os.ReadFile(npyTestdata("complex_c8_3x4.npy"))
		if !slices.Equal(a, b) {
			t.Errorf("Save wrote\n%q\nnumpy.save wrote\n%q", a, b)
		}
	}

	_, err = dist.Load[float64](c, npyTestdata("complex_c16_7.npy"))
	npyErrorEverywhere(t, c, err, "holds complex128 (<c16), not float64 (<f8); pass dist.Convert()")
	_, err = dist.Load[float64](c, npyTestdata("complex_c16_7.npy"), dist.Convert())
	npyErrorEverywhere(t, c, err, "holds complex128 (<c16), not float64 (<f8); converting it drops the imaginary parts: pass dist.Convert() and dist.DiscardImag()")
	_, err = dist.Load[complex64](c, npyTestdata("complex_c16_7.npy"))
	npyErrorEverywhere(t, c, err, "holds complex128 (<c16), not complex64 (<c8)")
	_, err = dist.Load[complex128](c, npyTestdata("numpy_i4_5.npy"))
	npyErrorEverywhere(t, c, err, "holds int32 (<i4), not complex128 (<c16)")

	re, err := dist.Load[float64](c, npyTestdata("complex_c16_7.npy"), dist.Convert(), dist.DiscardImag())
	if err != nil {
		t.Fatal(err)
	}
	gotRe, _ := dist.Allgather(re)
	wantRe := make([]float64, 7)
	for i := range wantRe {
		wantRe[i] = real(want16[i])
	}
	mpitest.Check(t, c, slices.Equal(gotRe, wantRe), "Load as float64 with DiscardImag: %v, want %v", gotRe, wantRe)
	re.Free()
	c64, err := dist.Load[complex64](c, npyTestdata("complex_c16_7.npy"), dist.Convert())
	if err != nil {
		t.Fatal(err)
	}
	got64, _ := dist.Allgather(c64)
	ok := true
	for i := range got64 {
		ok = ok && cxClose(complex128(got64[i]), complex128(complex64(want16[i])), 1e-7)
	}
	mpitest.Check(t, c, ok, "Load as complex64 with Convert: %v", got64)
	c64.Free()
	i4, err := dist.Load[complex128](c, npyTestdata("numpy_i4_5.npy"), dist.Convert())
	if err != nil {
		t.Fatal(err)
	}
	gotI, _ := dist.Allgather(i4)
	mpitest.Check(t, c, slices.Equal(gotI, []complex128{-2, -1, 0, 1, 2147483647}), "Load int32 as complex128: %v", gotI)
	i4.Free()
}

// TestComplexAstype checks conversions to and from the complex types
// against NumPy's astype, and that complex to real is refused without
// DiscardImag.
func TestComplexAstype(t *testing.T) {
	c := mpitest.World(t)
	f := cxData(t)
	m := f.Astype
	for _, bk := range []backend.Backend{backend.Current(), fakedev.Default, noSorter{fakedev.Default}} {
		opts := []dist.Option{dist.OnBackend(bk)}
		ri := cxReal(t, m, "int32")
		xi, _ := dist.FromFunc(c, []int{len(ri)}, func(idx []int) int32 { return int32(ri[idx[0]]) }, opts...)
		rf := cxReal(t, m, "float64")
		xf, _ := dist.FromFunc(c, []int{len(rf)}, func(idx []int) float64 { return rf[idx[0]] }, opts...)
		xc := cxFrom[complex128](t, c, cxPairs(t, f.X), opts...)
		exact := func(what string, got []complex128, err error, key string) {
			t.Helper()
			want := cxComplex(t, m, key)
			mpitest.Check(t, c, err == nil && slices.Equal(got, want), "%s %s: %v (%v), want %v", bk.Name(), what, got, err, want)
		}
		a, err := dist.Astype[complex128](xi)
		g, _ := dist.Allgather(a)
		exact("int32 to complex128", g, err, "int32_c128")
		b, err := dist.Astype[complex64](xi)
		g64, _ := dist.Allgather(b)
		exact("int32 to complex64", c64to128(g64), err, "int32_c64")
		a2, err := dist.Astype[complex128](xf)
		g, _ = dist.Allgather(a2)
		exact("float64 to complex128", g, err, "float64_c128")
		b2, err := dist.Astype[complex64](xf)
		g64, _ = dist.Allgather(b2)
		exact("float64 to complex64", c64to128(g64), err, "float64_c64")
		b3, err := dist.Astype[complex64](xc)
		g64, _ = dist.Allgather(b3)
		exact("complex128 to complex64", c64to128(g64), err, "c128_c64")
		r, err := dist.Astype[float64](xc, dist.DiscardImag())
		gr, _ := dist.Allgather(r)
		mpitest.Check(t, c, err == nil && slices.Equal(gr, cxReal(t, m, "c128_f64")), "complex128 to float64: %v", gr)
		r32, err := dist.Astype[float32](xc, dist.DiscardImag())
		gr32, _ := dist.Allgather(r32)
		w32 := cxReal(t, m, "c128_f32")
		ok := err == nil && len(gr32) == len(w32)
		for i := range gr32 {
			ok = ok && gr32[i] == float32(w32[i])
		}
		mpitest.Check(t, c, ok, "complex128 to float32: %v", gr32)
		ri32, err := dist.Astype[int32](xc, dist.DiscardImag())
		gi, _ := dist.Allgather(ri32)
		wi := cxReal(t, m, "c128_i32")
		ok = err == nil && len(gi) == len(wi)
		for i := range gi {
			ok = ok && float64(gi[i]) == wi[i]
		}
		mpitest.Check(t, c, ok, "complex128 to int32: %v, want %v", gi, wi)
		for _, arr := range []interface{ Free() }{a, b, a2, b2, b3, r, r32, ri32, xi, xf} {
			arr.Free()
		}
		func() {
			defer func() {
				r := recover()
				mpitest.Check(t, c, r != nil && strings.Contains(fmt.Sprint(r), "dist: Astype from complex128 to float64 drops the imaginary parts: pass DiscardImag()"), "panic %v", r)
			}()
			dist.Astype[float64](xc)
		}()
		xc.Free()
	}
}

func c64to128(s []complex64) []complex128 {
	out := make([]complex128, len(s))
	for i, v := range s {
		out[i] = complex128(v)
	}
	return out
}

// TestComplexMath checks Conj, Real, Imag, AbsComplex, Angle, Exp, Log,
// Sqrt, Pow, PowScalar, Vdot, Norm, ProdComplex and MeanComplex against
// NumPy's, for every layout, on the CPU, on the fake device (where nothing
// leaves the device) and on a backend without complex math (noSorter,
// where the blocks go through the host, recorded).
func TestComplexMath(t *testing.T) {
	t.Run("complex64", func(t *testing.T) { testComplexMath[complex64, float32](t) })
	t.Run("complex128", func(t *testing.T) { testComplexMath[complex128, float64](t) })
}

func testComplexMath[T complex64 | complex128, R float32 | float64](t *testing.T) {
	c := mpitest.World(t)
	f := cxData(t)
	m := cxFixtureOf[T](f)
	xs, ys := cxPairs(t, f.X), cxPairs(t, f.Y)
	s := T(cxPair(t, f.S))
	tol := cxTol[T]()
	if tol < 1e-14 {
		tol = 4e-15 // exp, log and pow of complex128: a few ulps
	}
	for _, bk := range []backend.Backend{backend.Current(), fakedev.Default, noSorter{fakedev.Default}} {
		for _, lo := range cxLayouts(c.Size()) {
			t.Run(fmt.Sprintf("%s/%s", bk.Name(), lo.name), func(t *testing.T) {
				opts := append(slices.Clone(lo.opts), dist.OnBackend(bk))
				x, y := cxFrom[T](t, c, xs, opts...), cxFrom[T](t, c, ys, opts...)
				defer x.Free()
				defer y.Free()
				dst, _ := dist.ZerosLike(x)
				defer dst.Free()
				cplx := func(op string, err error) {
					t.Helper()
					got, gerr := dist.Allgather(dst)
					want := cxComplex(t, m, op)
					mpitest.Check(t, c, err == nil && gerr == nil && cxAllClose(got, want, tol), "%s: %v (%v), want %v", op, got, err, want)
				}
				cplx("conj", dist.Conj(dst, x))
				cplx("exp", dist.Exp(dst, x))
				cplx("log", dist.Log(dst, x))
				cplx("sqrt", dist.Sqrt(dst, x))
				cplx("pow", dist.Pow(dst, x, y))
				cplx("pows", dist.PowScalar(dst, x, s))
				for _, tc := range []struct {
					op string
					f  func(*dist.Array[T]) (*dist.Array[R], error)
				}{{"real", dist.Real[R, T]}, {"imag", dist.Imag[R, T]}, {"abs", dist.AbsComplex[R, T]}, {"angle", dist.Angle[R, T]}} {
					r, err := tc.f(x)
					if err != nil {
						t.Fatal(err)
					}
					got, _ := dist.Allgather(r)
					want := cxReal(t, m, tc.op)
					ok := len(got) == len(want)
					for i := range got {
						ok = ok && fClose(float64(got[i]), want[i], tol*max(math.Abs(want[i]), 1))
					}
					mpitest.Check(t, c, ok && r.Device() == x.Device(), "%s: %v on %v, want %v", tc.op, got, r.Device(), want)
					r.Free()
				}
				for _, tc := range []struct {
					op string
					f  func() (T, error)
				}{
					{"vdot", func() (T, error) { return dist.Vdot(x, y) }},
					{"prod", func() (T, error) { return dist.ProdComplex(x) }},
					{"mean", func() (T, error) { return dist.MeanComplex(x) }},
				} {
					v, err := tc.f()
					want := complex128(T(cxScalar(t, m, tc.op)))
					mpitest.Check(t, c, err == nil && cxClose(complex128(v), want, max(tol, 1e-14)), "%s: %v (%v), want %v", tc.op, v, err, want)
				}
				nrm, err := dist.Norm(x)
				var wn float64
				json.Unmarshal(m["norm"], &wn)
				mpitest.Check(t, c, err == nil && fClose(nrm, wn, 1e-14*wn), "Norm: %v (%v), want %v", nrm, err, wn)
			})
		}
	}
}

// TestComplexSpecial checks Exp, Log, Sqrt, AbsComplex and Angle of
// signed zeros, infinities and NaNs against NumPy's, signs of zeros
// included.
func TestComplexSpecial(t *testing.T) {
	c := mpitest.World(t)
	sp := cxData(t).Special
	xs := cxComplex(t, sp, "x")
	x := cxFrom[complex128](t, c, xs)
	defer x.Free()
	dst, _ := dist.ZerosLike(x)
	defer dst.Free()
	same := func(a, b float64) bool {
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.IsNaN(a) && math.IsNaN(b)
		}
		if a == 0 || b == 0 || math.IsInf(b, 0) {
			return a == b && math.Signbit(a) == math.Signbit(b)
		}
		return math.Abs(a-b) <= 4e-16*math.Abs(b)
	}
	for _, tc := range []struct {
		op string
		f  func(dst, x *dist.Array[complex128]) error
	}{{"exp", dist.Exp[complex128]}, {"log", dist.Log[complex128]}, {"sqrt", dist.Sqrt[complex128]}} {
		if err := tc.f(dst, x); err != nil {
			t.Fatal(err)
		}
		got, _ := dist.Allgather(dst)
		want := cxComplex(t, sp, tc.op)
		for i := range want {
			mpitest.Check(t, c, same(real(got[i]), real(want[i])) && same(imag(got[i]), imag(want[i])), "%s(%v) = %v, want %v", tc.op, xs[i], got[i], want[i])
		}
	}
	for _, tc := range []struct {
		op string
		f  func(x *dist.Array[complex128]) (*dist.Array[float64], error)
	}{{"abs", dist.AbsComplex[float64, complex128]}, {"angle", dist.Angle[float64, complex128]}} {
		r, err := tc.f(x)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := dist.Allgather(r)
		want := cxReal(t, sp, tc.op)
		for i := range want {
			mpitest.Check(t, c, same(got[i], want[i]), "%s(%v) = %v, want %v", tc.op, xs[i], got[i], want[i])
		}
		r.Free()
	}
}

// TestComplexMathCopies checks that the functions of complex arrays move
// nothing between host and device on the fake device, and on a backend
// without complex math copy each operand block to the host and the result
// block back.
func TestComplexMathCopies(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	for _, tc := range []struct {
		name string
		b    backend.Backend
	}{{"fake", fakedev.Default}, {"plain", noSorter{fakedev.Default}}} {
		x, err := dist.FromFunc(c, []int{9}, func(idx []int) complex128 { return complex(float64(idx[0]), 1) }, dist.OnBackend(tc.b))
		if err != nil {
			t.Fatal(err)
		}
		n := int64(16 * x.Layout().LocalLen(me))
		dst, _ := dist.ZerosLike(x)
		one, two, real := toHost(n).plus(toDevice(n)), toHost(n).plus(toHost(n)).plus(toDevice(n)), toHost(n).plus(toDevice(n/2))
		if tc.name == "fake" {
			one, two, real = transfers{}, transfers{}, transfers{}
		}
		expectCopies(t, tc.name+" Exp", one, func() error { return dist.Exp(dst, x) })
		expectCopies(t, tc.name+" Pow", two, func() error { return dist.Pow(dst, x, dst) })
		var r *dist.Array[float64]
		expectCopies(t, tc.name+" AbsComplex", real, func() (err error) {
			r, err = dist.AbsComplex[float64](x)
			return err
		})
		r.Free()
		vd := toHost(n).plus(toHost(n))
		if tc.name == "fake" {
			vd = transfers{}
		}
		expectCopies(t, tc.name+" Vdot", vd, func() error {
			_, err := dist.Vdot(x, x)
			return err
		})
		x.Free()
		dst.Free()
	}
}

// TestComplexCheckpoint checks that a checkpoint holds complex arrays: it
// saves one of each complex type, loads them at another split, and
// compares element for element; the files hold NumPy's type strings.
func TestComplexCheckpoint(t *testing.T) {
	c := mpitest.World(t)
	dir := filepath.Join(mpitest.TempDir(t, c), "ckpt")
	x, err := dist.FromFunc(c, []int{5, 3}, func(idx []int) complex128 { return complex(float64(idx[0]), -float64(idx[1])/4) })
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	y, err := dist.FromFunc(c, []int{7}, func(idx []int) complex64 { return complex(1.5, float32(idx[0])) })
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	if err := dist.SaveCheckpoint(c, dir, 1, nil, dist.Entry("x", x), dist.Entry("y", y)); err != nil {
		t.Fatal(err)
	}
	r, err := dist.OpenCheckpoint(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	x2, err := dist.LoadArray[complex128](r, "x", dist.SplitAxis(1))
	if err != nil {
		t.Fatal(err)
	}
	defer x2.Free()
	y2, err := dist.LoadArray[complex64](r, "y", dist.SplitAxis(dist.Replicated))
	if err != nil {
		t.Fatal(err)
	}
	defer y2.Free()
	gx, _ := dist.Allgather(x2)
	wx, _ := dist.Allgather(x)
	gy, _ := dist.Allgather(y2)
	wy, _ := dist.Allgather(y)
	mpitest.Check(t, c, slices.Equal(gx, wx) && slices.Equal(gy, wy), "checkpoint: %v %v, want %v %v", gx, gy, wx, wy)
	_, err = dist.LoadArray[float64](r, "x")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "complex128"), "LoadArray of complex128 as float64: %v", err)
	npyOnRank0(t, c, func() error {
		b, err := os.ReadFile(filepath.Join(dir, "y.npy"))
		if err != nil {
			return err
		}
		if !strings.Contains(string(b[:128]), "'descr': '<c8'") {
			return fmt.Errorf("y.npy header %q", b[:128])
		}
		return nil
	})
}
