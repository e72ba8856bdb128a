package dist_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// pyIndices returns the indices of an axis of length n that r selects,
// by Python's rules for slices (CPython's PySlice_AdjustIndices, then a
// walk from start while before stop): the serial reference of the tests.
func pyIndices(n int, r dist.Range) []int {
	step := r.Step
	if step == 0 {
		step = 1
	}
	adjust := func(i int) int {
		if i < 0 {
			i += n
			if i < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
			return i
		}
		if i >= n {
			if step < 0 {
				return n - 1
			}
			return n
		}
		return i
	}
	var out []int
	for i := adjust(r.Start); (step > 0 && i < adjust(r.Stop)) || (step < 0 && i > adjust(r.Stop)); i += step {
		out = append(out, i)
	}
	return out
}

// selectRef returns the shape that ranges select from shape and the flat
// index in shape of each selected element, in row-major order.
func selectRef(shape []int, ranges []dist.Range) (out []int, src []int) {
	idx := make([][]int, len(shape))
	out = make([]int, len(shape))
	for a, n := range shape {
		r := dist.AllIndices()
		if a < len(ranges) {
			r = ranges[a]
		}
		idx[a] = pyIndices(n, r)
		out[a] = len(idx[a])
	}
	m := make([]int, len(shape))
	for i := 0; i < prod(out); i++ {
		sliceUnravel(i, out, m)
		g := make([]int, len(shape))
		for a := range m {
			g[a] = idx[a][m[a]]
		}
		src = append(src, flat(g, shape))
	}
	return out, src
}

func sliceUnravel(i int, shape, idx []int) {
	for a := len(shape) - 1; a >= 0; a-- {
		idx[a] = i % shape[a]
		i /= shape[a]
	}
}

const (
	omitLow  = math.MinInt // an omitted bound (NumPy's None) where it is clamped to the low end
	omitHigh = math.MaxInt // an omitted bound where it is clamped to the high end
)

type sliceCase struct {
	shape  []int
	ranges []dist.Range
}

// sliceCases are 1-D to 3-D, with negative indices and steps, steps above
// one, empty selections and empty arrays.
var sliceCases = []sliceCase{
	{[]int{7}, []dist.Range{{1, 6, 2}}},
	{[]int{7}, []dist.Range{{omitHigh, omitLow, -1}}},
	{[]int{7}, []dist.Range{{-2, 1, -2}}},
	{[]int{7}, []dist.Range{{3, 3, 1}}},
	{[]int{1}, []dist.Range{{0, 1, 1}}},
	{[]int{2}, []dist.Range{{-5, 5, 0}}},
	{[]int{0}, nil},
	{[]int{17}, []dist.Range{{-1, -18, -3}}},
	{[]int{17}, []dist.Range{{2, 15, 4}}},
	{[]int{5, 3}, []dist.Range{{0, omitHigh, 2}, {omitHigh, omitLow, -1}}},
	{[]int{5, 3}, []dist.Range{{-4, -1, 1}}},
	{[]int{5, 3}, []dist.Range{{4, omitLow, -3}, {1, 3, 1}}},
	{[]int{7, 2}, []dist.Range{{1, 7, 3}, {1, 2, 1}}},
	{[]int{2, 9}, []dist.Range{dist.AllIndices(), {8, 0, -2}}},
	{[]int{3, 0}, []dist.Range{{1, 3, 1}}},
	{[]int{3, 4, 5}, []dist.Range{{omitHigh, omitLow, -1}, {1, 3, 1}, {0, omitHigh, 2}}},
	{[]int{3, 4, 5}, []dist.Range{{1, 2, 1}, {-1, -5, -2}, {4, 0, -3}}},
	{[]int{2, 5, 3}, []dist.Range{dist.AllIndices(), {3, omitHigh, 1}, {0, 0, 1}}},
	{[]int{4, 0, 2}, nil},
	{[]int{1, 2, 3}, []dist.Range{{0, 1, 1}, {1, 2, 1}, {2, omitLow, -1}}},
}

// uneven returns block sizes of n over p ranks with rank 0's block empty
// (for p > 1) and half of n on the last rank.
func sliceUneven(n, p int) []int {
	c := make([]int, p)
	if p == 1 {
		c[0] = n
		return c
	}
	c[p-1] = (n + 1) / 2
	rest := n - c[p-1]
	for r := 1; r < p-1; r++ {
		c[r] = rest / (p - 2)
		if r <= rest%(p-2) {
			c[r]++
		}
	}
	if p == 2 {
		c[1] += rest
	}
	return c
}

// sliceLayout is one way of laying out a test array: a split axis (or
// Replicated), evenly or unevenly.
type sliceLayout struct {
	axis   int
	uneven bool
}

func (l sliceLayout) String() string {
	if l.uneven {
		return fmt.Sprintf("axis%d-uneven", l.axis)
	}
	return fmt.Sprintf("axis%d", l.axis)
}

func (l sliceLayout) options(shape []int, p int) []dist.Option {
	o := []dist.Option{dist.SplitAxis(l.axis)}
	if l.uneven {
		o = append(o, dist.BlockSizes(sliceUneven(shape[l.axis], p)))
	}
	return o
}

func sliceLayouts(shape []int) []sliceLayout {
	ls := []sliceLayout{{dist.Replicated, false}}
	for a := range shape {
		ls = append(ls, sliceLayout{a, false}, sliceLayout{a, true})
	}
	return ls
}

// arrayOf returns an array of shape whose element at flat index i is
// f(i), laid out by l.
func sliceArray(t *testing.T, c mpi.Comm, shape []int, l sliceLayout, f func(int) float64, opts ...dist.Option) *dist.Array[float64] {
	t.Helper()
	x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return f(flat(idx, shape)) }, append(l.options(shape, c.Size()), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func gatherAll(t *testing.T, x *dist.Array[float64]) []float64 {
	t.Helper()
	all, err := dist.Allgather(x)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestRangeIndices compares Range.Indices and the tests' reference with
// Python's slice.indices on a grid of bounds (testdata/slice_fixtures.py).
func TestRangeIndices(t *testing.T) {
	fx := loadSliceFixtures(t)
	for _, c := range fx.Indices {
		n := int(c[0].(float64))
		r := fx.rangeOf(c[1:4])
		want := c[4].([]any)
		start, stop, step, length := r.Indices(n)
		ws, we, wst := int(want[0].(float64)), int(want[1].(float64)), int(want[2].(float64))
		ref := pyIndices(n, r)
		var wl []int
		for i := ws; (wst > 0 && i < we) || (wst < 0 && i > we); i += wst {
			wl = append(wl, i)
		}
		if start != ws || stop != we || step != wst || length != len(wl) || !slices.Equal(ref, wl) {
			t.Fatalf("%v of %d (%v): Indices %d %d %d %d, reference %v; Python %v, %v", c[1:4], n, r, start, stop, step, length, ref, want, wl)
		}
	}
}

type sliceFixtures struct {
	Indices [][]any
	Cases   []struct {
		Op       string
		Shape    []int
		Shapes   [][]int
		Ranges   [][]any
		New      []int
		Axis     int
		Bshape   []int
		OutShape []int `json:"out_shape"`
		Values   []float64
		Reversed []float64
	}
}

func loadSliceFixtures(t *testing.T) *sliceFixtures {
	t.Helper()
	b, err := os.ReadFile(npyTestdata("slice_fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx sliceFixtures
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	return &fx
}

// rangeOf converts Python's (start, stop, step), None as null, to a Range.
func (*sliceFixtures) rangeOf(v []any) dist.Range {
	step := 1
	if v[2] != nil {
		step = int(v[2].(float64))
	}
	bound := func(x any, none int) int {
		if x == nil {
			return none
		}
		return int(x.(float64))
	}
	if step > 0 {
		return dist.Range{Start: bound(v[0], omitLow), Stop: bound(v[1], omitHigh), Step: step}
	}
	return dist.Range{Start: bound(v[0], omitHigh), Stop: bound(v[1], omitLow), Step: step}
}

// TestSlice checks Slice against the serial reference for every case and
// layout, and the result's layout: even along x's split axis.
func TestSlice(t *testing.T) {
	c := mpitest.World(t)
	for _, sc := range sliceCases {
		outShape, src := selectRef(sc.shape, sc.ranges)
		want := make([]float64, len(src))
		for i, f := range src {
			want[i] = ref(f)
		}
		for _, l := range sliceLayouts(sc.shape) {
			t.Run(fmt.Sprintf("%v%v/%v", sc.shape, sc.ranges, l), func(t *testing.T) {
				x := sliceArray(t, c, sc.shape, l, ref)
				defer x.Free()
				y, err := dist.Slice(x, sc.ranges...)
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				if wl := dist.NewLayout(outShape, l.axis, c.Size()); !y.Layout().Equal(wl) {
					t.Fatalf("Slice made %v, want %v", y.Layout(), wl)
				}
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(got, want), "Slice = %v, want %v", got, want)
			})
		}
	}
}

// TestSliceNumPy checks Slice, Reshape, Transpose, Concatenate and
// Broadcast against NumPy's results for the fixtures' cases, split along
// axis 0 and replicated.
func TestSliceNumPy(t *testing.T) {
	c := mpitest.World(t)
	fx := loadSliceFixtures(t)
	iota := func(i int) float64 { return float64(i) }
	for k, fc := range fx.Cases {
		for _, l := range []sliceLayout{{0, false}, {0, true}, {dist.Replicated, false}} {
			t.Run(fmt.Sprintf("%d-%s/%v", k, fc.Op, l), func(t *testing.T) {
				var y *dist.Array[float64]
				var err error
				switch fc.Op {
				case "slice":
					x := sliceArray(t, c, fc.Shape, l, iota)
					defer x.Free()
					ranges := make([]dist.Range, len(fc.Ranges))
					for a, r := range fc.Ranges {
						ranges[a] = fx.rangeOf(r)
					}
					y, err = dist.Slice(x, ranges...)
				case "reshape":
					x := sliceArray(t, c, fc.Shape, l, iota)
					defer x.Free()
					y, err = dist.Reshape(x, fc.New...)
				case "transpose":
					x := sliceArray(t, c, fc.Shape, l, iota)
					defer x.Free()
					y, err = dist.Transpose(x)
				case "concatenate":
					var xs []*dist.Array[float64]
					off := 0
					for _, s := range fc.Shapes {
						o := off
						x := sliceArray(t, c, s, l, func(i int) float64 { return float64(o + i) })
						defer x.Free()
						xs = append(xs, x)
						off += prod(s)
					}
					y, err = dist.Concatenate(fc.Axis, xs...)
				case "broadcast":
					x := sliceArray(t, c, fc.Shape, l, iota)
					defer x.Free()
					b := sliceArray(t, c, fc.Bshape, sliceLayout{dist.Replicated, false}, func(i int) float64 { return 100 * float64(i+1) })
					defer b.Free()
					r, err := dist.ZerosLike(x)
					if err != nil {
						t.Fatal(err)
					}
					defer r.Free()
					if err := dist.Broadcast(backend.Sub, r, b, x); err != nil {
						t.Fatal(err)
					}
					got := gatherAll(t, r)
					mpitest.Check(t, c, slices.Equal(got, fc.Reversed), "b - x = %v, NumPy %v", got, fc.Reversed)
					y, err = dist.ZerosLike(x)
					if err == nil {
						err = dist.Broadcast(backend.Sub, y, x, b)
					}
				default:
					t.Fatalf("unknown fixture %q", fc.Op)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(y.Shape(), fc.OutShape) && slices.Equal(got, fc.Values),
					"%s: shape %v, %v; NumPy %v, %v", fc.Op, y.Shape(), got, fc.OutShape, fc.Values)
			})
		}
	}
}

// vLayouts are the layouts of SetSlice's source: split along its first
// and last axis, and replicated.
func setSliceLayouts(shape []int) []sliceLayout {
	return []sliceLayout{{0, false}, {len(shape) - 1, true}, {dist.Replicated, false}}
}

// TestSetSlice checks SetSlice from sources of several layouts and
// SetSliceScalar against the serial reference.
func TestSetSlice(t *testing.T) {
	c := mpitest.World(t)
	for _, sc := range sliceCases {
		outShape, src := selectRef(sc.shape, sc.ranges)
		for _, l := range sliceLayouts(sc.shape) {
			for _, vl := range setSliceLayouts(outShape) {
				t.Run(fmt.Sprintf("%v%v/%v/v%v", sc.shape, sc.ranges, l, vl), func(t *testing.T) {
					want := make([]float64, prod(sc.shape))
					for i := range want {
						want[i] = ref(i)
					}
					for i, f := range src {
						want[f] = 1000 + float64(i)
					}
					x := sliceArray(t, c, sc.shape, l, ref)
					defer x.Free()
					v := sliceArray(t, c, outShape, vl, func(i int) float64 { return 1000 + float64(i) })
					defer v.Free()
					if err := dist.SetSlice(x, sc.ranges, v); err != nil {
						t.Fatal(err)
					}
					got := gatherAll(t, x)
					mpitest.Check(t, c, slices.Equal(got, want), "SetSlice: %v, want %v", got, want)
				})
			}
			t.Run(fmt.Sprintf("%v%v/%v/scalar", sc.shape, sc.ranges, l), func(t *testing.T) {
				want := make([]float64, prod(sc.shape))
				for i := range want {
					want[i] = ref(i)
				}
				for _, f := range src {
					want[f] = -7
				}
				x := sliceArray(t, c, sc.shape, l, ref)
				defer x.Free()
				dist.SetSliceScalar(x, sc.ranges, -7)
				got := gatherAll(t, x)
				mpitest.Check(t, c, slices.Equal(got, want), "SetSliceScalar: %v, want %v", got, want)
			})
		}
	}
}

// TestSliceArgs checks that wrong arguments panic with dist's prefix.
func TestSliceArgs(t *testing.T) {
	c := mpitest.World(t)
	x := sliceArray(t, c, []int{4, 3}, sliceLayout{0, false}, ref)
	defer x.Free()
	v := sliceArray(t, c, []int{2, 3}, sliceLayout{0, false}, ref)
	defer v.Free()
	// A slice, not a map: a map's order differs from rank to rank, and
	// some cases make arrays (collective) before they panic.
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"too many ranges", func() { dist.Slice(x, dist.AllIndices(), dist.AllIndices(), dist.AllIndices()) }},
		{"SetSlice shape", func() { dist.SetSlice(x, []dist.Range{{0, 3, 1}}, v) }},
		{"Reshape size", func() { dist.Reshape(x, 5, 2) }},
		{"Reshape two -1", func() { dist.Reshape(x, -1, -1) }},
		{"Transpose axes", func() { dist.Transpose(x, 0, 0) }},
		{"Concatenate axis", func() { dist.Concatenate(2, x, v) }},
		{"Concatenate shape", func() {
			w := sliceArray(t, c, []int{4, 2}, sliceLayout{0, false}, ref)
			defer w.Free()
			dist.Concatenate(0, x, w)
		}},
		{"Broadcast shape", func() {
			w := sliceArray(t, c, []int{2}, sliceLayout{dist.Replicated, false}, ref)
			defer w.Free()
			dist.Broadcast(backend.Add, x, x, w)
		}},
		{"Broadcast split shape", func() {
			w := sliceArray(t, c, []int{2}, sliceLayout{0, false}, ref)
			defer w.Free()
			dist.Broadcast(backend.Add, x, x, w)
		}},
	} {
		name, f := tc.name, tc.f
		t.Run(name, func(t *testing.T) { mustPanicDist(t, f) })
	}
}

func mustPanicDist(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		s, _ := r.(string)
		if r == nil || len(s) < 6 || s[:6] != "dist: " {
			t.Fatalf("panic %v, want one starting with \"dist: \"", r)
		}
	}()
	f()
}

// TestSliceChecking runs the operations in the checking mode: calls that
// agree pass, and ranks that pass different ranges or shapes get an error
// on every rank, with nothing left allocated on the device.
func TestSliceChecking(t *testing.T) {
	c := mpitest.World(t)
	defer mpi.SetChecking(mpi.SetChecking(true))
	x := sliceArray(t, c, []int{5, 3}, sliceLayout{0, true}, ref, dist.OnBackend(fakedev.Default))
	defer x.Free()
	y, err := dist.Slice(x, dist.Range{Start: 1, Stop: 4}, dist.Range{Start: -1, Stop: omitLow, Step: -2})
	mpitest.Check(t, c, err == nil, "Slice in the checking mode: %v", err)
	err = dist.SetSlice(x, []dist.Range{{Start: 1, Stop: 4}, {Start: -1, Stop: omitLow, Step: -2}}, y)
	mpitest.Check(t, c, err == nil, "SetSlice in the checking mode: %v", err)
	y.Free()
	for _, f := range []func() (*dist.Array[float64], error){
		func() (*dist.Array[float64], error) { return dist.Reshape(x, 3, 5) },
		func() (*dist.Array[float64], error) { return dist.Transpose(x) },
		func() (*dist.Array[float64], error) { return dist.Concatenate(1, x, x) },
	} {
		y, err := f()
		mpitest.Check(t, c, err == nil, "in the checking mode: %v", err)
		y.Free()
	}
	if c.Size() == 1 {
		return
	}
	stop := 4
	if c.Rank() == c.Size()-1 {
		stop = 3
	}
	before := fakedev.Stats().LiveBytes
	y, err = dist.Slice(x, dist.Range{Start: 1, Stop: stop})
	mpitest.Check(t, c, err != nil && y == nil, "Slice with ranges that differ: %v, %v", y, err)
	n := 3
	if c.Rank() == 0 {
		n = 5
	}
	y, err = dist.Reshape(x, n, -1)
	mpitest.Check(t, c, err != nil && y == nil, "Reshape with shapes that differ: %v, %v", y, err)
	after := fakedev.Stats().LiveBytes
	mpitest.Check(t, c, after == before, "device bytes live: %d before, %d after", before, after)
}

// TestSetSliceSelf assigns an array to a reversed selection of itself,
// NumPy's x[::-1] = x (and x[::-1, ::-1] = x): source and destination are
// the same memory, and a rank's own part is a permutation of its block, so
// no element may be written before it has been read. Sizes that do not
// divide evenly, and fewer elements than ranks.
func TestSetSliceSelf(t *testing.T) {
	c := mpitest.World(t)
	rev := dist.Range{Start: -1, Stop: math.MinInt, Step: -1}
	for _, shape := range [][]int{{9}, {10}, {2}, {7, 5}, {3, 4}} {
		ranges := make([]dist.Range, len(shape))
		for a := range ranges {
			ranges[a] = rev
		}
		n := prod(shape)
		want := make([]float64, n)
		for i := range want {
			// Reversing every axis reverses the row-major order.
			want[i] = ref(n - 1 - i)
		}
		for _, l := range sliceLayouts(shape) {
			x := sliceArray(t, c, shape, l, ref)
			if err := dist.SetSlice(x, ranges, x); err != nil {
				t.Fatal(err)
			}
			got := gatherAll(t, x)
			mpitest.Check(t, c, slices.Equal(got, want), "%v %v: x[::-1] = x gives %v, want %v", shape, l, got, want)
			x.Free()
		}
	}
}
