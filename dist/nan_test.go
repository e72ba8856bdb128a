package dist_test

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// closeTo reports whether got is want within rel (relative), NaN matching
// NaN.
func closeTo(got, want, rel float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// TestNanReductionsNumPy checks the full NaN-ignoring reductions against
// NumPy's values, float64 and float32, on every backend and layout of the
// tests of special values, and their special cases: all NaN, empty,
// ddof >= the number of non-NaN elements, integer arrays.
func TestNanReductionsNumPy(t *testing.T) {
	c := mpitest.World(t)
	x := []float64{1.5, nan, -2.0, 4.0, nan, 3.25, nan, 0.0, 7.0, -1.0, nan}
	eachLayout(t, c, len(x), func(what string, o []dist.Option, b backend.Backend) {
		a := fromSlice(t, c, x, o, b)
		defer a.Free()
		a32 := fromSlice(t, c, toF32(x), o, b)
		defer a32.Free()
		check := func(name string, got, want float64, err error, rel float64) {
			t.Helper()
			mpitest.Check(t, c, err == nil && closeTo(got, want, rel), "%s: %s = %v (%v), NumPy %v", what, name, got, err, want)
		}
		v, err := dist.Nansum(a)
		check("Nansum", v, 12.75, err, 0)
		v, err = dist.Nanprod(a)
		check("Nanprod", v, 0, err, 0)
		v, err = dist.Nanmax(a)
		check("Nanmax", v, 7, err, 0)
		v, err = dist.Nanmin(a)
		check("Nanmin", v, -2, err, 0)
		i, err := dist.Nanargmax(a)
		check("Nanargmax", float64(i), 8, err, 0)
		i, err = dist.Nanargmin(a)
		check("Nanargmin", float64(i), 2, err, 0)
		v, err = dist.Nanmean(a)
		check("Nanmean", v, 1.8214285714285714, err, 1e-15)
		v, err = dist.Nanvar(a, 0)
		check("Nanvar ddof=0", v, 8.512755102040815, err, 1e-14)
		v, err = dist.Nanvar(a, 1)
		check("Nanvar ddof=1", v, 9.931547619047619, err, 1e-14)
		v, err = dist.Nanstd(a, 1)
		check("Nanstd ddof=1", v, 3.1514358027806337, err, 1e-14)
		v, err = dist.Nanvar(a, 7) // 7 non-NaN elements
		check("Nanvar ddof=7", v, nan, err, 0)
		f, err := dist.Nansum(a32)
		check("Nansum float32", float64(f), 12.75, err, 0)
		f, err = dist.Nanmax(a32)
		check("Nanmax float32", float64(f), 7, err, 0)
		i, err = dist.Nanargmin(a32)
		check("Nanargmin float32", float64(i), 2, err, 0)
		v, err = dist.Nanmean(a32)
		check("Nanmean float32", v, 1.8214285714285714, err, 1e-7)
		v, err = dist.Nanvar(a32, 0)
		check("Nanvar float32", v, 8.512755102040815, err, 1e-6)
	})
	// All NaN: NaN (sum 0, product 1), and ErrAllNaN for the arg forms.
	for _, n := range []int{3, 1} {
		eachLayout(t, c, n, func(what string, o []dist.Option, b backend.Backend) {
			what = fmt.Sprintf("all NaN n=%d/%s", n, what)
			a := fromSlice(t, c, []float64{nan, nan, nan}[:n], o, b)
			defer a.Free()
			fs := map[string]func(*dist.Array[float64]) (float64, error){
				"Nanmax": dist.Nanmax[float64], "Nanmin": dist.Nanmin[float64],
				"Nanmean": dist.Nanmean[float64],
				"Nanvar":  func(x *dist.Array[float64]) (float64, error) { return dist.Nanvar(x, 0) },
				"Nanstd":  func(x *dist.Array[float64]) (float64, error) { return dist.Nanstd(x, 0) },
			}
			for _, name := range slices.Sorted(maps.Keys(fs)) { // the same order on every rank
				v, err := fs[name](a)
				mpitest.Check(t, c, err == nil && math.IsNaN(v), "%s: %s = %v, %v; NumPy nan", what, name, v, err)
			}
			s, err := dist.Nansum(a)
			mpitest.Check(t, c, err == nil && s == 0, "%s: Nansum = %v, %v; NumPy 0", what, s, err)
			p, err := dist.Nanprod(a)
			mpitest.Check(t, c, err == nil && p == 1, "%s: Nanprod = %v, %v; NumPy 1", what, p, err)
			for _, f := range []func(*dist.Array[float64]) (int, error){dist.Nanargmax[float64], dist.Nanargmin[float64]} {
				name := "Nanargmax/Nanargmin"
				_, err := f(a)
				mpitest.Check(t, c, errors.Is(err, dist.ErrAllNaN), "%s: %s: %v, want ErrAllNaN", what, name, err)
			}
		})
	}
	// Empty arrays.
	eachLayout(t, c, 0, func(what string, o []dist.Option, b backend.Backend) {
		a := fromSlice(t, c, []float64{}, o, b)
		defer a.Free()
		s, err := dist.Nansum(a)
		mpitest.Check(t, c, err == nil && s == 0, "%s: Nansum of empty = %v, %v; NumPy 0", what, s, err)
		p, err := dist.Nanprod(a)
		mpitest.Check(t, c, err == nil && p == 1, "%s: Nanprod of empty = %v, %v; NumPy 1", what, p, err)
		_, e1 := dist.Nanmax(a)
		_, e2 := dist.Nanargmin(a)
		_, e3 := dist.Nanmean(a)
		_, e4 := dist.Nanvar(a, 0)
		for i, err := range []error{e1, e2, e3, e4} {
			mpitest.Check(t, c, errors.Is(err, dist.ErrEmpty), "%s: empty %d: %v, want ErrEmpty", what, i, err)
		}
	})
	// [NaN, -Inf]: NaN counts as -Inf for Nanargmax, as NumPy's.
	eachLayout(t, c, 2, func(what string, o []dist.Option, b backend.Backend) {
		a := fromSlice(t, c, []float64{nan, ninf}, o, b)
		defer a.Free()
		i, err := dist.Nanargmax(a)
		mpitest.Check(t, c, err == nil && i == 0, "%s: Nanargmax([nan, -inf]) = %v, %v; NumPy 0", what, i, err)
		v, err := dist.Nanmax(a)
		mpitest.Check(t, c, err == nil && v == ninf, "%s: Nanmax([nan, -inf]) = %v, %v; NumPy -inf", what, v, err)
	})
	// Integers: the plain reductions.
	eachLayout(t, c, 5, func(what string, o []dist.Option, b backend.Backend) {
		a := fromSlice(t, c, []int32{3, -1, 4, 1, -5}, o, b)
		defer a.Free()
		s, err := dist.Nansum(a)
		mpitest.Check(t, c, err == nil && s == 2, "%s: Nansum int32 = %v, %v", what, s, err)
		m, err := dist.Nanmax(a)
		mpitest.Check(t, c, err == nil && m == 4, "%s: Nanmax int32 = %v, %v", what, m, err)
		i, err := dist.Nanargmin(a)
		mpitest.Check(t, c, err == nil && i == 4, "%s: Nanargmin int32 = %v, %v", what, i, err)
		v, err := dist.Nanvar(a, 1)
		mpitest.Check(t, c, err == nil && closeTo(v, 12.8, 1e-15), "%s: Nanvar int32 = %v, %v", what, v, err)
	})
}

// nanGrid is NumPy's 3x4 test matrix of the axis forms, with an all-NaN
// row and column.
var nanGrid = []float64{1, nan, 3, nan, nan, nan, nan, nan, 5, nan, -1, 2}

// TestNanAxisNumPy checks the axis forms against NumPy's values along both
// axes of a 3x4 array, split on either axis and replicated.
func TestNanAxisNumPy(t *testing.T) {
	c := mpitest.World(t)
	want := map[string][2][]float64{ // axis 0, axis 1
		"NansumAxis":  {{6, 0, 2, 2}, {4, 0, 6}},
		"NanprodAxis": {{5, 1, -3, 2}, {3, 1, -10}},
		"NanmaxAxis":  {{5, nan, 3, 2}, {3, nan, 5}},
		"NanminAxis":  {{1, nan, -1, 2}, {1, nan, -1}},
		"NanmeanAxis": {{3, nan, 1, 2}, {2, nan, 2}},
	}
	fs := map[string]func(*dist.Array[float64], int) (*dist.Array[float64], error){
		"NansumAxis": dist.NansumAxis[float64], "NanprodAxis": dist.NanprodAxis[float64],
		"NanmaxAxis": dist.NanmaxAxis[float64], "NanminAxis": dist.NanminAxis[float64],
		"NanmeanAxis": dist.NanmeanAxis[float64],
	}
	bn, bs := specialBackends(t)
	for bi, b := range bs {
		for _, split := range []int{0, 1, dist.Replicated} {
			what := fmt.Sprintf("%s/split %d", bn[bi], split)
			a, err := dist.FromFunc(c, []int{3, 4}, func(idx []int) float64 { return nanGrid[idx[0]*4+idx[1]] }, dist.SplitAxis(split), dist.OnBackend(b))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range slices.Sorted(maps.Keys(fs)) {
				f := fs[name]
				for ax := range 2 {
					r, err := f(a, ax-2*ax) // axis 0, and -1 for axis 1
					if err != nil {
						t.Fatalf("%s: %s axis %d: %v", what, name, ax, err)
					}
					got, err := dist.Allgather(r)
					if err != nil {
						t.Fatal(err)
					}
					r.Free()
					ok := len(got) == len(want[name][ax])
					for i := range got {
						ok = ok && closeTo(got[i], want[name][ax][i], 0)
					}
					mpitest.Check(t, c, ok, "%s: %s axis %d = %v, NumPy %v", what, name, ax, got, want[name][ax])
				}
			}
			// The arg forms: ErrAllNaN with an all-NaN line.
			for _, f := range []func(*dist.Array[float64], int) (*dist.Array[int64], error){dist.NanargmaxAxis[float64], dist.NanargminAxis[float64]} {
				name := "NanargmaxAxis/NanargminAxis"
				_, err := f(a, 1)
				mpitest.Check(t, c, errors.Is(err, dist.ErrAllNaN), "%s: %s: %v, want ErrAllNaN", what, name, err)
			}
			a.Free()
			m2 := []float64{1, nan, 3, nan, nan, 2, nan, 9, 5, nan, -1, 2}
			a, err = dist.FromFunc(c, []int{3, 4}, func(idx []int) float64 { return m2[idx[0]*4+idx[1]] }, dist.SplitAxis(split), dist.OnBackend(b))
			if err != nil {
				t.Fatal(err)
			}
			for _, cs := range []struct {
				name string
				f    func(*dist.Array[float64], int) (*dist.Array[int64], error)
				want [2][]int64
			}{
				{"NanargmaxAxis", dist.NanargmaxAxis[float64], [2][]int64{{2, 1, 0, 1}, {2, 3, 0}}},
				{"NanargminAxis", dist.NanargminAxis[float64], [2][]int64{{0, 1, 2, 2}, {0, 1, 2}}},
			} {
				for ax := range 2 {
					r, err := cs.f(a, ax)
					if err != nil {
						t.Fatalf("%s: %s axis %d: %v", what, cs.name, ax, err)
					}
					got, err := dist.Allgather(r)
					if err != nil {
						t.Fatal(err)
					}
					r.Free()
					mpitest.Check(t, c, slices.Equal(got, cs.want[ax]), "%s: %s axis %d = %v, NumPy %v", what, cs.name, ax, got, cs.want[ax])
				}
			}
			a.Free()
		}
	}
	// Freed arrays.
	x, err := dist.Zeros[float64](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	x.Free()
	for what, err := range map[string]error{
		"Nansum": second(dist.Nansum(x)), "Nanprod": second(dist.Nanprod(x)), "Nanmax": second(dist.Nanmax(x)),
		"Nanmin": second(dist.Nanmin(x)), "Nanargmax": second(dist.Nanargmax(x)), "Nanargmin": second(dist.Nanargmin(x)),
		"Nanmean": second(dist.Nanmean(x)), "Nanvar": second(dist.Nanvar(x, 0)), "Nanstd": second(dist.Nanstd(x, 0)),
		"NansumAxis": second(dist.NansumAxis(x, 0)), "NanprodAxis": second(dist.NanprodAxis(x, 0)),
		"NanmaxAxis": second(dist.NanmaxAxis(x, 0)), "NanminAxis": second(dist.NanminAxis(x, 0)),
		"NanargmaxAxis": second(dist.NanargmaxAxis(x, 0)), "NanargminAxis": second(dist.NanargminAxis(x, 0)),
		"NanmeanAxis": second(dist.NanmeanAxis(x, 0)),
	} {
		if !errors.Is(err, dist.ErrFreed) {
			t.Errorf("%s of a freed array: %v, want ErrFreed", what, err)
		}
	}
}
