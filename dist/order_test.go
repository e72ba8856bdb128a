package dist_test

import (
	"cmp"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// orderLayout is a layout of the order tests, for an array of shape on p
// ranks.
type orderLayout struct {
	name string
	opts func(shape []int, p int) []dist.Option
}

// orderLayouts1 are the 1-D layouts: even, uneven with empty ranks, all on
// the last rank, replicated, ghosted, and even on the fake device.
var orderLayouts1 = []orderLayout{
	{"even", func([]int, int) []dist.Option { return nil }},
	{"uneven", func(s []int, p int) []dist.Option {
		c := make([]int, p)
		c[0] = (s[0] + 1) / 2
		c[p-1] += s[0] - c[0]
		return []dist.Option{dist.BlockSizes(c)}
	}},
	{"last", func(s []int, p int) []dist.Option {
		c := make([]int, p)
		c[p-1] = s[0]
		return []dist.Option{dist.BlockSizes(c)}
	}},
	{"replicated", func([]int, int) []dist.Option { return []dist.Option{dist.SplitAxis(dist.Replicated)} }},
	{"ghost", func([]int, int) []dist.Option { return []dist.Option{dist.Ghosts(1)} }},
	{"fake", func([]int, int) []dist.Option { return []dist.Option{dist.OnBackend(fakedev.Default)} }},
}

// orderLayoutsN are the N-D layouts: split along axes 0 and 1, a process
// grid, replicated, and a grid on the fake device.
var orderLayoutsN = []orderLayout{
	{"rows", func([]int, int) []dist.Option { return nil }},
	{"axis1", func([]int, int) []dist.Option { return []dist.Option{dist.SplitAxis(1)} }},
	{"grid", func(s []int, p int) []dist.Option { return []dist.Option{dist.ProcessGrid(make([]int, len(s))...)} }},
	{"replicated", func([]int, int) []dist.Option { return []dist.Option{dist.SplitAxis(dist.Replicated)} }},
	{"fakegrid", func(s []int, p int) []dist.Option {
		return []dist.Option{dist.ProcessGrid(make([]int, len(s))...), dist.OnBackend(fakedev.Default)}
	}},
}

func orderFromSlice(t *testing.T, c mpi.Comm, data []float64, shape []int, opts []dist.Option) *dist.Array[float64] {
	t.Helper()
	x, err := dist.FromFunc(c, shape, func(idx []int) float64 {
		off := 0
		for a := range shape {
			off = off*shape[a] + idx[a]
		}
		return data[off]
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func allOf[T float64 | int64](t *testing.T, a *dist.Array[T]) []T {
	t.Helper()
	g, err := dist.Allgather(a)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// sameFloats reports whether got equals want to a relative 1e-13, NaNs
// equal.
func sameFloats(got, want []float64) bool {
	return slices.EqualFunc(got, want, sameFloat)
}

func sameFloat(g, w float64) bool {
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	return math.Abs(g-w) <= 1e-13*math.Max(1, math.Abs(w))
}

func TestUniqueNumPy(t *testing.T) {
	c := mpitest.World(t)
	for _, tc := range orderCases {
		for _, lk := range orderLayouts1 {
			shape := []int{len(tc.x)}
			x := orderFromSlice(t, c, tc.x, shape, lk.opts(shape, c.Size()))
			r, err := dist.UniqueWithOptions(x, dist.UniqueOptions{Counts: true, Inverse: true})
			if err != nil {
				t.Fatalf("%s/%s: %v", tc.name, lk.name, err)
			}
			if got := allOf(t, r.Values); !sameFloats(got, tc.unique) {
				t.Errorf("%s/%s: values %v, want %v", tc.name, lk.name, got, tc.unique)
			}
			if got := allOf(t, r.Counts); !slices.Equal(got, tc.counts) {
				t.Errorf("%s/%s: counts %v, want %v", tc.name, lk.name, got, tc.counts)
			}
			if got := allOf(t, r.Inverse); !slices.Equal(got, tc.inverse) {
				t.Errorf("%s/%s: inverse %v, want %v", tc.name, lk.name, got, tc.inverse)
			}
			if !r.Inverse.Layout().Equal(x.Layout()) {
				t.Errorf("%s/%s: inverse layout %v, want x's %v", tc.name, lk.name, r.Inverse.Layout(), x.Layout())
			}
			if r.Values.Device() != x.Device() {
				t.Errorf("%s/%s: values on %v, x on %v", tc.name, lk.name, r.Values.Device(), x.Device())
			}
			r.Free()
			u, err := dist.Unique(x)
			if err != nil {
				t.Fatal(err)
			}
			if got := allOf(t, u); !sameFloats(got, tc.unique) {
				t.Errorf("%s/%s: Unique %v, want %v", tc.name, lk.name, got, tc.unique)
			}
			u.Free()
			x.Free()
		}
	}
}

func TestUniqueGridNumPy(t *testing.T) {
	c := mpitest.World(t)
	data := grid2Data()
	for _, lk := range orderLayoutsN {
		shape := []int{5, 4}
		x := orderFromSlice(t, c, data, shape, lk.opts(shape, c.Size()))
		r, err := dist.UniqueWithOptions(x, dist.UniqueOptions{Counts: true, Inverse: true})
		if err != nil {
			t.Fatalf("%s: %v", lk.name, err)
		}
		if got := allOf(t, r.Values); !sameFloats(got, grid2Unique) {
			t.Errorf("%s: values %v, want %v", lk.name, got, grid2Unique)
		}
		if got := allOf(t, r.Counts); !slices.Equal(got, grid2Counts) {
			t.Errorf("%s: counts %v, want %v", lk.name, got, grid2Counts)
		}
		if got := allOf(t, r.Inverse); !slices.Equal(got, grid2Inverse) {
			t.Errorf("%s: inverse %v, want %v", lk.name, got, grid2Inverse)
		}
		r.Free()
		x.Free()
	}
}

func TestUniqueLarge(t *testing.T) {
	c := mpitest.World(t)
	n := 20011
	x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64((idx[0]*7919)%10007 - 5000) })
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	r, err := dist.UniqueWithOptions(x, dist.UniqueOptions{Counts: true, Inverse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Free()
	if r.Values.Len() != bigUniqueLen {
		t.Fatalf("%d values, want %d", r.Values.Len(), bigUniqueLen)
	}
	vals, counts, inv := allOf(t, r.Values), allOf(t, r.Counts), allOf(t, r.Inverse)
	total := int64(0)
	for i, v := range vals {
		if i > 0 && v <= vals[i-1] {
			t.Fatalf("values not strictly ascending at %d", i)
		}
		total += counts[i]
	}
	if total != int64(n) {
		t.Errorf("counts sum to %d, want %d", total, n)
	}
	for i, k := range inv {
		if want := float64((i*7919)%10007 - 5000); vals[k] != want {
			t.Fatalf("values[inverse[%d]] = %v, want %v", i, vals[k], want)
		}
	}
}

func TestArgsortNumPy(t *testing.T) {
	c := mpitest.World(t)
	for _, tc := range orderCases {
		for _, lk := range orderLayouts1 {
			shape := []int{len(tc.x)}
			x := orderFromSlice(t, c, tc.x, shape, lk.opts(shape, c.Size()))
			for _, ax := range []int{0, -1} {
				a, err := dist.Argsort(x, ax)
				if err != nil {
					t.Fatalf("%s/%s: %v", tc.name, lk.name, err)
				}
				if got := allOf(t, a); !slices.Equal(got, tc.argsort) {
					t.Errorf("%s/%s/axis %d: %v, want %v", tc.name, lk.name, ax, got, tc.argsort)
				}
				if !a.Layout().Equal(x.Layout()) {
					t.Errorf("%s/%s: layout %v, want x's %v", tc.name, lk.name, a.Layout(), x.Layout())
				}
				a.Free()
			}
			x.Free()
		}
	}
}

func grid2Data() []float64 {
	d := make([]float64, 20)
	for r := range 5 {
		for col := range 4 {
			d[r*4+col] = float64((r*3+col*5)%7 - 2)
		}
	}
	d[1*4+2] = nan
	return d
}

func cube3Data() []float64 {
	d := make([]float64, 24)
	for i := range d {
		d[i] = float64((i*5)%9 - 4)
	}
	return d
}

func TestArgsortAxesNumPy(t *testing.T) {
	c := mpitest.World(t)
	cases := []struct {
		name  string
		data  []float64
		shape []int
		want  map[int][]int64
	}{
		{"grid2", grid2Data(), []int{5, 4}, map[int][]int64{0: grid2Argsort0, 1: grid2Argsort1, -1: grid2Argsort1, -2: grid2Argsort0}},
		{"cube3", cube3Data(), []int{2, 3, 4}, map[int][]int64{0: cube3Argsort0, 1: cube3Argsort1, 2: cube3Argsort2, -1: cube3Argsort2}},
	}
	for _, tc := range cases {
		for _, lk := range orderLayoutsN {
			x := orderFromSlice(t, c, tc.data, tc.shape, lk.opts(tc.shape, c.Size()))
			for _, ax := range sortedKeys(tc.want) {
				want := tc.want[ax]
				a, err := dist.Argsort(x, ax)
				if err != nil {
					t.Fatalf("%s/%s/axis %d: %v", tc.name, lk.name, ax, err)
				}
				if got := allOf(t, a); !slices.Equal(got, want) {
					t.Errorf("%s/%s/axis %d: %v, want %v", tc.name, lk.name, ax, got, want)
				}
				if !a.Layout().Equal(x.Layout()) {
					t.Errorf("%s/%s: layout %v, want x's %v", tc.name, lk.name, a.Layout(), x.Layout())
				}
				a.Free()
			}
			x.Free()
		}
	}
}

func TestSearchsortedNumPy(t *testing.T) {
	c := mpitest.World(t)
	for _, lk := range orderLayouts1 {
		a := orderFromSlice(t, c, searchA, []int{len(searchA)}, lk.opts([]int{len(searchA)}, c.Size()))
		for _, vk := range orderLayouts1 {
			v := orderFromSlice(t, c, searchV, []int{len(searchV)}, vk.opts([]int{len(searchV)}, c.Size()))
			for _, side := range []dist.Side{dist.SideLeft, dist.SideRight} {
				want := map[dist.Side][]int64{dist.SideLeft: searchLeft, dist.SideRight: searchRight}[side]
				r, err := dist.Searchsorted(a, v, side)
				if err != nil {
					t.Fatalf("%s/%s/%v: %v", lk.name, vk.name, side, err)
				}
				if got := allOf(t, r); !slices.Equal(got, want) {
					t.Errorf("a %s, v %s, side %v: %v, want %v", lk.name, vk.name, side, got, want)
				}
				if !r.Layout().Equal(v.Layout()) {
					t.Errorf("a %s, v %s: layout %v, want v's %v", lk.name, vk.name, r.Layout(), v.Layout())
				}
				r.Free()
			}
			v.Free()
		}
		a.Free()
	}
}

func TestSearchsortedDuplicates(t *testing.T) {
	// Runs of equal values across the ranks' blocks: a = 0,0,...,1,1,...,2.
	c := mpitest.World(t)
	n := 3*c.Size() + 2
	a, err := dist.FromFunc(c, []int{n}, func(idx []int) int64 { return int64(3 * idx[0] / n) })
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	v, err := dist.FromFunc(c, []int{5, 2}, func(idx []int) int64 { return int64(idx[0]) - 1 }, dist.SplitAxis(1))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	ga := gathered64(t, a)
	for _, side := range []dist.Side{dist.SideLeft, dist.SideRight} {
		r, err := dist.Searchsorted(a, v, side)
		if err != nil {
			t.Fatal(err)
		}
		got := allOf(t, r)
		r.Free()
		for i, g := range got {
			w := int64(i/2) - 1
			var want int64
			for _, e := range ga {
				if e < w || (side == dist.SideRight && e == w) {
					want++
				}
			}
			if g != want {
				t.Errorf("side %v: value %d: %d, want %d", side, w, g, want)
			}
		}
	}
}

func gathered64(t *testing.T, a *dist.Array[int64]) []int64 { return allOf(t, a) }

func TestQuantileNumPy(t *testing.T) {
	c := mpitest.World(t)
	for _, tc := range orderCases {
		for _, lk := range orderLayouts1 {
			shape := []int{len(tc.x)}
			x := orderFromSlice(t, c, tc.x, shape, lk.opts(shape, c.Size()))
			name := tc.name + "/" + lk.name
			med, err := dist.Median(x)
			if err != nil || !sameFloat(med, tc.median) {
				t.Errorf("%s: Median %v, %v; want %v", name, med, err, tc.median)
			}
			qs, err := dist.Quantiles(x, orderQs, "")
			if err != nil || !sameFloats(qs, tc.quantiles) {
				t.Errorf("%s: Quantiles %v, %v; want %v", name, qs, err, tc.quantiles)
			}
			pc, err := dist.Percentile(x, 37.5, dist.QuantileLinear)
			if err != nil || !sameFloat(pc, tc.percentile37) {
				t.Errorf("%s: Percentile(37.5) %v, %v; want %v", name, pc, err, tc.percentile37)
			}
			for _, q := range []float64{0.43, 0.45} {
				ms := map[float64]map[dist.QuantileMethod]float64{0.43: tc.methods43, 0.45: tc.methods45}[q]
				for _, m := range sortedKeys(ms) {
					want := ms[m]
					v, err := dist.Quantile(x, q, m)
					if err != nil || !sameFloat(v, want) {
						t.Errorf("%s: Quantile(%v, %s) %v, %v; want %v", name, q, m, v, err, want)
					}
				}
			}
			for _, ax := range []int{0, -1} {
				a, err := dist.MedianAxis(x, ax)
				if err != nil {
					t.Fatalf("%s: MedianAxis: %v", name, err)
				}
				if got := allOf(t, a); !sameFloats(got, []float64{tc.median}) {
					t.Errorf("%s: MedianAxis(%d) %v, want %v", name, ax, got, tc.median)
				}
				a.Free()
			}
			x.Free()
		}
	}
}

func TestQuantileLarge(t *testing.T) {
	// Enough elements for rounds of pivot counting before the gather.
	c := mpitest.World(t)
	n := 20011
	f := func(idx []int) float64 { return float64((idx[0]*7919)%10007 - 5000) }
	for _, lk := range orderLayouts1 {
		x, err := dist.FromFunc(c, []int{n}, f, lk.opts([]int{n}, c.Size())...)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := dist.Quantiles(x, orderQs, dist.QuantileLinear)
		if err != nil || !sameFloats(qs, bigQuantiles) {
			t.Errorf("%s: Quantiles %v, %v; want %v", lk.name, qs, err, bigQuantiles)
		}
		med, err := dist.Median(x)
		if err != nil || med != bigMedian {
			t.Errorf("%s: Median %v, %v; want %v", lk.name, med, err, bigMedian)
		}
		for _, m := range sortedKeys(bigMethods) {
			want := bigMethods[m]
			v, err := dist.Quantile(x, 0.43, m)
			if err != nil || !sameFloat(v, want) {
				t.Errorf("%s: Quantile(0.43, %s) %v, %v; want %v", lk.name, m, v, err, want)
			}
		}
		x.Free()
	}
}

func TestQuantileAxesNumPy(t *testing.T) {
	c := mpitest.World(t)
	for _, lk := range orderLayoutsN {
		shape := []int{5, 4}
		x := orderFromSlice(t, c, grid2Data(), shape, lk.opts(shape, c.Size()))
		wants := map[int][2][]float64{0: {grid2Median0, grid2Pct0}, 1: {grid2Median1, grid2Pct1}, -1: {grid2Median1, grid2Pct1}}
		for _, ax := range sortedKeys(wants) {
			want := wants[ax]
			m, err := dist.MedianAxis(x, ax)
			if err != nil {
				t.Fatalf("%s: MedianAxis(%d): %v", lk.name, ax, err)
			}
			if got := allOf(t, m); !sameFloats(got, want[0]) {
				t.Errorf("%s: MedianAxis(%d) %v, want %v", lk.name, ax, got, want[0])
			}
			m.Free()
			p, err := dist.PercentileAxis(x, 30, ax, "")
			if err != nil {
				t.Fatalf("%s: PercentileAxis(%d): %v", lk.name, ax, err)
			}
			if got := allOf(t, p); !sameFloats(got, want[1]) {
				t.Errorf("%s: PercentileAxis(30, %d) %v, want %v", lk.name, ax, got, want[1])
			}
			p.Free()
		}
		x.Free()
		shape = []int{2, 3, 4}
		x = orderFromSlice(t, c, cube3Data(), shape, lk.opts(shape, c.Size()))
		cubes := map[int][]float64{0: cube3Quantile0, 1: cube3Quantile1, 2: cube3Quantile2, -3: cube3Quantile0}
		for _, ax := range sortedKeys(cubes) {
			want := cubes[ax]
			q, err := dist.QuantileAxis(x, 0.6, ax, dist.QuantileLinear)
			if err != nil {
				t.Fatalf("%s: QuantileAxis(%d): %v", lk.name, ax, err)
			}
			if got := allOf(t, q); !sameFloats(got, want) {
				t.Errorf("%s: QuantileAxis(0.6, %d) %v, want %v", lk.name, ax, got, want)
			}
			q.Free()
		}
		x.Free()
	}
}

func TestQuantileErrors(t *testing.T) {
	c := mpitest.World(t)
	e, err := dist.Zeros[float64](c, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Free()
	if _, err := dist.Median(e); !errors.Is(err, dist.ErrEmpty) {
		t.Errorf("Median of an empty array: %v, want ErrEmpty", err)
	}
	if _, err := dist.Percentile(e, 50, ""); !errors.Is(err, dist.ErrEmpty) {
		t.Errorf("Percentile of an empty array: %v, want ErrEmpty", err)
	}
	e2, err := dist.Zeros[float64](c, []int{3, 0})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Free()
	if _, err := dist.MedianAxis(e2, 1); !errors.Is(err, dist.ErrEmpty) {
		t.Errorf("MedianAxis along an empty axis: %v, want ErrEmpty", err)
	}
	x, err := dist.Full(c, []int{5}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	for _, q := range []float64{-0.1, 1.5, nan} {
		if _, err := dist.Quantile(x, q, ""); err == nil {
			t.Errorf("Quantile(%v): no error", q)
		}
	}
	if _, err := dist.Percentile(x, 101, ""); err == nil {
		t.Error("Percentile(101): no error")
	}
	_, err = dist.Quantile(x, 0.5, "hazen")
	if err == nil || !containsAll(err.Error(), "hazen", "linear") {
		t.Errorf("Quantile with method hazen: %v, want a refusal naming it and the supported ones", err)
	}
	u, err := dist.Unique(e)
	if err != nil || u.Len() != 0 {
		t.Errorf("Unique of an empty array: %v, %v", u, err)
	}
	if u != nil {
		u.Free()
	}
}

// sortedKeys returns m's keys in order: every rank must call the
// collectives in the same order, which a map's iteration does not keep.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K { return slices.Sorted(maps.Keys(m)) }

func containsAll(s string, words ...string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

func TestOrderFreed(t *testing.T) {
	c := mpitest.World(t)
	x, err := dist.Full(c, []int{5}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := dist.Full(c, []int{5}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	x.Free()
	calls := map[string]func() error{
		"Unique":       func() error { _, err := dist.Unique(x); return err },
		"Argsort":      func() error { _, err := dist.Argsort(x, -1); return err },
		"Searchsorted": func() error { _, err := dist.Searchsorted(x, v, dist.SideLeft); return err },
		"Searchsorted v": func() error {
			_, err := dist.Searchsorted(v, x, dist.SideLeft)
			return err
		},
		"Median":         func() error { _, err := dist.Median(x); return err },
		"Percentile":     func() error { _, err := dist.Percentile(x, 3, ""); return err },
		"QuantileAxis":   func() error { _, err := dist.QuantileAxis(x, 0.3, 0, ""); return err },
		"MedianAxis":     func() error { _, err := dist.MedianAxis(x, 0); return err },
		"PercentileAxis": func() error { _, err := dist.PercentileAxis(x, 3, 0, ""); return err },
	}
	// In the checking mode each call joins a check of its name: the same
	// order on every rank (a map's differs from rank to rank).
	for _, name := range sortedKeys(calls) {
		var mm *mpi.MismatchError
		if err := calls[name](); !errors.Is(err, dist.ErrFreed) || errors.As(err, &mm) {
			t.Errorf("%s of a freed array: %v", name, err)
		}
	}
}

func TestArgsortIntegers(t *testing.T) {
	// Integer types: the stable order, every layout, fewer elements than
	// ranks included.
	c := mpitest.World(t)
	for _, n := range []int{0, 1, 3, 17} {
		f := func(idx []int) int32 { return int32((idx[0] * 5) % 4) }
		want := make([]int64, n)
		for i := range want {
			want[i] = int64(i)
		}
		slices.SortStableFunc(want, func(a, b int64) int { return int(f([]int{int(a)}) - f([]int{int(b)})) })
		for _, lk := range orderLayouts1 {
			if lk.name == "uneven" && n == 0 {
				continue
			}
			x, err := dist.FromFunc(c, []int{n}, f, lk.opts([]int{n}, c.Size())...)
			if err != nil {
				t.Fatal(err)
			}
			a, err := dist.Argsort(x, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := allOf(t, a); !slices.Equal(got, want) {
				t.Errorf("n %d, %s: %v, want %v", n, lk.name, got, want)
			}
			a.Free()
			x.Free()
		}
	}
}

func TestQuantileFloat32NumPy(t *testing.T) {
	// NumPy interpolates float32 data with b-a in float32 and the rest in
	// float64 (its linear quantile of float32 is float64), and its median of
	// float32 is the float32 mean of the middle two.
	c := mpitest.World(t)
	data := []float32{0.1, 0.7, 0.3, 0.9}
	for _, lk := range orderLayouts1 {
		x, err := dist.FromFunc(c, []int{4}, func(idx []int) float32 { return data[idx[0]] }, lk.opts([]int{4}, c.Size())...)
		if err != nil {
			t.Fatal(err)
		}
		med, err := dist.Median(x)
		if err != nil || med != 0.5 {
			t.Errorf("%s: Median %v, %v; want 0.5", lk.name, med, err)
		}
		q, err := dist.Quantile(x, 0.3, "")
		if err != nil || q != 0.2800000101327896 {
			t.Errorf("%s: Quantile(0.3) %v, %v; want 0.2800000101327896", lk.name, q, err)
		}
		p, err := dist.Percentile(x, 70, dist.QuantileMidpoint)
		if err != nil || p != 0.7999999821186066 {
			t.Errorf("%s: Percentile(70, midpoint) %v, %v; want 0.7999999821186066", lk.name, p, err)
		}
		x.Free()
	}
}

func TestQuantileRounds(t *testing.T) {
	// More elements than the selection gathers (65536): rounds of pivot
	// counting, with the two elements of an interpolation on either side of
	// a pivot (twolevel). NumPy 1.24's values.
	c := mpitest.World(t)
	qs := []float64{0, 0.1, 0.25, 0.5, 0.73, 0.999, 1}
	cases := []struct {
		name      string
		n         int
		f         func(i int) float64
		quantiles []float64
		median    float64
		methods   map[dist.QuantileMethod]float64 // at 0.4999
	}{
		{"huge", 200004, func(i int) float64 { return float64((i*7919)%100003 - 50000) },
			[]float64{-50000.0, -40000.0, -25000.0, 0.5, 23001.0, 49902.0, 50002.0}, 0.5,
			map[dist.QuantileMethod]float64{"lower": -10.0, "higher": -9.0, "nearest": -10.0, "midpoint": -9.5, "linear": -9.500299999999697}},
		{"dups", 150001, func(i int) float64 { return float64((i*31)%7 - 3) },
			[]float64{-3.0, -3.0, -2.0, 0.0, 2.0, 3.0, 3.0}, 0,
			map[dist.QuantileMethod]float64{"lower": 0, "higher": 0, "nearest": 0, "midpoint": 0, "linear": 0}},
		{"twolevel", 140000, func(i int) float64 { return float64(1 - i%2) },
			[]float64{0, 0, 0, 0.5, 1, 1, 1}, 0.5,
			map[dist.QuantileMethod]float64{"lower": 0, "higher": 0, "nearest": 0, "midpoint": 0, "linear": 0}},
	}
	for _, tc := range cases {
		for _, lk := range orderLayouts1[:3] {
			x, err := dist.FromFunc(c, []int{tc.n}, func(idx []int) float64 { return tc.f(idx[0]) }, lk.opts([]int{tc.n}, c.Size())...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dist.Quantiles(x, qs, "")
			if err != nil || !sameFloats(got, tc.quantiles) {
				t.Errorf("%s/%s: Quantiles %v, %v; want %v", tc.name, lk.name, got, err, tc.quantiles)
			}
			med, err := dist.Median(x)
			if err != nil || med != tc.median {
				t.Errorf("%s/%s: Median %v, %v; want %v", tc.name, lk.name, med, err, tc.median)
			}
			for _, m := range sortedKeys(tc.methods) {
				v, err := dist.Quantile(x, 0.4999, m)
				if err != nil || !sameFloat(v, tc.methods[m]) {
					t.Errorf("%s/%s: Quantile(0.4999, %s) %v, %v; want %v", tc.name, lk.name, m, v, err, tc.methods[m])
				}
			}
			x.Free()
		}
	}
}

func TestNanQuantileNumPy(t *testing.T) {
	// NumPy 1.24's nanmedian, nanpercentile and nanquantile.
	c := mpitest.World(t)
	tc := orderCases[0] // "mixed": two NaNs
	for _, lk := range orderLayouts1 {
		x := orderFromSlice(t, c, tc.x, []int{len(tc.x)}, lk.opts([]int{len(tc.x)}, c.Size()))
		for _, chk := range []struct {
			name string
			f    func() (float64, error)
			want float64
		}{
			{"NanMedian", func() (float64, error) { return dist.NanMedian(x) }, 2.0},
			{"NanPercentile(37.5)", func() (float64, error) { return dist.NanPercentile(x, 37.5, "") }, 1.0},
			{"NanQuantile(0.73)", func() (float64, error) { return dist.NanQuantile(x, 0.73, "") }, 2.65},
			{"NanQuantile(0.43, midpoint)", func() (float64, error) { return dist.NanQuantile(x, 0.43, dist.QuantileMidpoint) }, 1.5},
		} {
			if v, err := chk.f(); err != nil || !sameFloat(v, chk.want) {
				t.Errorf("%s: %s %v, %v; want %v", lk.name, chk.name, v, err, chk.want)
			}
		}
		x.Free()
	}
	all, err := dist.Full(c, []int{3}, math.NaN())
	if err != nil {
		t.Fatal(err)
	}
	if v, err := dist.NanMedian(all); err != nil || !math.IsNaN(v) {
		t.Errorf("NanMedian of NaNs only: %v, %v; want NaN", v, err)
	}
	all.Free()
	g := grid2Data()
	for r := range 5 {
		g[r*4+3] = nan
	}
	for _, lk := range orderLayoutsN {
		x := orderFromSlice(t, c, g, []int{5, 4}, lk.opts([]int{5, 4}, c.Size()))
		for _, chk := range []struct {
			name string
			f    func() (*dist.Array[float64], error)
			want []float64
		}{
			{"NanMedianAxis(0)", func() (*dist.Array[float64], error) { return dist.NanMedianAxis(x, 0) }, []float64{1, 1, 0.5, nan}},
			{"NanPercentileAxis(30, 1)", func() (*dist.Array[float64], error) { return dist.NanPercentileAxis(x, 30, -1, "") },
				[]float64{-0.20000000000000018, -0.4, 1.2, -0.8, 0.19999999999999996}},
			{"NanQuantileAxis(0.6, 0)", func() (*dist.Array[float64], error) { return dist.NanQuantileAxis(x, 0.6, 0, "") },
				[]float64{1.7999999999999998, 1.4, 0.7999999999999998, nan}},
		} {
			a, err := chk.f()
			if err != nil {
				t.Fatalf("%s: %s: %v", lk.name, chk.name, err)
			}
			if got := allOf(t, a); !sameFloats(got, chk.want) {
				t.Errorf("%s: %s %v, want %v", lk.name, chk.name, got, chk.want)
			}
			a.Free()
		}
		x.Free()
	}
}

// TestQuantileSampled runs the selection with limits small enough that
// arrays of a few thousand elements take its every path: the sampled first
// round (bracket), its miss (data whose sample lies: two levels, a period
// near the sampling stride, few distinct values), the rounds of pivots
// after it and the gather. Each result must have the bits of the same call
// with the selection gathering everything at once.
func TestQuantileSampled(t *testing.T) {
	c := mpitest.World(t)
	const n = 3001
	patterns := []struct {
		name string
		f    func(i int) float64
	}{
		{"scrambled", func(i int) float64 { return float64((i * 7919) % 2003) }},
		{"sorted", func(i int) float64 { return float64(i) }},
		{"reversed", func(i int) float64 { return float64(n - i) }},
		{"equal", func(int) float64 { return 7 }},
		{"twolevel", func(i int) float64 { return float64(i % 2) }},
		{"period", func(i int) float64 { return float64(i % 46) }},
		{"fewdistinct", func(i int) float64 { return float64((i * 31) % 5) }},
		{"nan", func(i int) float64 {
			if i%17 == 3 {
				return math.NaN()
			}
			return float64((i * 7919) % 2003)
		}},
	}
	qs := []float64{0, 0.001, 0.1, 0.5, 0.77, 0.999, 1}
	// run returns Quantiles, Median, NanQuantile at each of qs, and the
	// lower and higher quantiles at 0.37: float64 and int64 data.
	run := func(x *dist.Array[float64], xi *dist.Array[int64]) []float64 {
		var out []float64
		v, err := dist.Quantiles(x, qs, "")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v...)
		med, err := dist.Median(x)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, med)
		for _, q := range qs {
			v, err := dist.NanQuantile(x, q, "")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		for _, m := range []dist.QuantileMethod{dist.QuantileLower, dist.QuantileHigher} {
			v, err := dist.Quantile(xi, 0.37, m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		v, err = dist.Quantiles(xi, qs, dist.QuantileMidpoint)
		if err != nil {
			t.Fatal(err)
		}
		return append(out, v...)
	}
	for _, pt := range patterns {
		for _, lk := range orderLayouts1 {
			opts := lk.opts([]int{n}, c.Size())
			x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return pt.f(idx[0]) }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			xi, err := dist.FromFunc(c, []int{n}, func(idx []int) int64 {
				if v := pt.f(idx[0]); !math.IsNaN(v) {
					return int64(v)
				}
				return -1
			}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			restore := dist.SetSelectionLimits(1<<40, 1<<14, 2)
			want := run(x, xi)
			restore()
			limits := []struct {
				gather, sample int64
				slack          float64
			}{{40, 64, 2}, {40, 64, 0}, {40, 2, 2}, {200, 4096, 2}, {200, 4096, 0}}
			if testing.Short() {
				limits = limits[:3] // not the sample of every element
			}
			for _, lim := range limits {
				restore := dist.SetSelectionLimits(lim.gather, lim.sample, lim.slack)
				got := run(x, xi)
				restore()
				if !slices.EqualFunc(got, want, func(a, b float64) bool {
					return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
				}) {
					t.Errorf("%s/%s, limits %+v: %v, want %v", pt.name, lk.name, lim, got, want)
				}
			}
			x.Free()
			xi.Free()
		}
	}
	// A slack of 0 brackets one sample element on either side of the
	// estimate: some first rounds must miss, and the results above held.
	if dist.SelectionMisses() == 0 {
		t.Error("no first round of a selection missed: the test does not reach the path after a miss")
	}
}
