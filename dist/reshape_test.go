package dist_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// reshapeCases are shapes and new shapes of as many elements (-1 to be
// inferred).
var reshapeCases = []struct{ from, to []int }{
	{[]int{0}, []int{0, 3}},
	{[]int{1}, []int{1, 1, 1}},
	{[]int{7}, []int{7, 1}},
	{[]int{12}, []int{-1, 4}},
	{[]int{6, 4}, []int{12, 2}},
	{[]int{6, 4}, []int{3, 8}},
	{[]int{6, 4}, []int{24}},
	{[]int{5, 3}, []int{3, 5}},
	{[]int{2, 9}, []int{3, -1, 2}},
	{[]int{3, 4, 5}, []int{5, 12}},
	{[]int{3, 4, 5}, []int{60}},
	{[]int{4, 0, 2}, []int{0, 8}},
	{[]int{3, 0}, []int{0}},
}

// TestReshape checks Reshape from every layout: the elements keep their
// row-major order, and the result is the view that the test predicts
// (x split on axis 0 in blocks of whole new rows, or replicated), or a
// new array split evenly along axis 0.
func TestReshape(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, rc := range reshapeCases {
		to := slices.Clone(rc.to)
		n := prod(rc.from)
		for a, d := range to {
			if d == -1 {
				to[a] = -n / prod(rc.to)
			}
		}
		want := make([]float64, n)
		for i := range want {
			want[i] = ref(i)
		}
		for _, l := range sliceLayouts(rc.from) {
			t.Run(fmt.Sprintf("%v-%v/%v", rc.from, rc.to, l), func(t *testing.T) {
				x := sliceArray(t, c, rc.from, l, ref)
				defer x.Free()
				y, err := dist.Reshape(x, rc.to...)
				if err != nil {
					t.Fatal(err)
				}
				// The view expected: every block whole rows of the new shape.
				row, xrow := prod(to[1:]), prod(rc.from[1:])
				view := l.axis == dist.Replicated || n == 0
				var counts []int
				if l.axis == 0 && row > 0 {
					view = true
					start := 0
					for _, k := range x.Layout().Counts() {
						if (k*xrow)%row != 0 || (start*xrow)%row != 0 {
							view = false
						}
						counts = append(counts, k*xrow/row)
						start += k
					}
				}
				var wl dist.Layout
				switch {
				case l.axis == dist.Replicated:
					wl = dist.NewLayout(to, dist.Replicated, p)
				case view && counts != nil:
					wl = dist.NewLayoutCounts(to, 0, counts)
				default:
					wl = dist.NewLayout(to, 0, p)
				}
				if !y.Layout().Equal(wl) {
					t.Fatalf("Reshape made %v, want %v", y.Layout(), wl)
				}
				if view && x.Local().Len() > 0 && y.Local().Ptr() != x.Local().Ptr() {
					t.Fatalf("Reshape copied where a view was expected")
				}
				if !view {
					defer y.Free()
				}
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(got, want), "Reshape: %v, want %v", got, want)
			})
		}
	}
}

// TestTranspose checks Transpose of 2-D arrays from every layout.
func TestTranspose(t *testing.T) {
	c := mpitest.World(t)
	for _, shape := range shapes {
		if len(shape) != 2 {
			continue
		}
		n0, n1 := shape[0], shape[1]
		want := make([]float64, n0*n1)
		for i := 0; i < n0; i++ {
			for j := 0; j < n1; j++ {
				want[j*n0+i] = ref(i*n1 + j)
			}
		}
		for _, l := range sliceLayouts(shape) {
			t.Run(fmt.Sprintf("%v/%v", shape, l), func(t *testing.T) {
				x := sliceArray(t, c, shape, l, ref)
				defer x.Free()
				y, err := dist.Transpose(x)
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				axis := 0
				if l.axis == dist.Replicated {
					axis = dist.Replicated
				}
				if wl := dist.NewLayout([]int{n1, n0}, axis, c.Size()); !y.Layout().Equal(wl) {
					t.Fatalf("Transpose made %v, want %v", y.Layout(), wl)
				}
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(got, want), "Transpose: %v, want %v", got, want)
			})
		}
	}
}

// concatRef joins arrays of the shapes along axis, element j of input i
// being 1000*i + j, in row-major order.
func concatRef(shapes [][]int, axis int) []float64 {
	var out []float64
	pre := prod(shapes[0][:axis])
	for i := 0; i < pre; i++ {
		for k, s := range shapes {
			chunk := prod(s[axis:])
			for j := 0; j < chunk; j++ {
				out = append(out, 1000*float64(k)+float64(i*chunk+j))
			}
		}
	}
	return out
}

// TestConcatenate checks Concatenate along each axis of inputs with mixed
// layouts, empty inputs and empty blocks.
func TestConcatenate(t *testing.T) {
	c := mpitest.World(t)
	for _, tc := range []struct {
		shapes [][]int
		axis   int
	}{
		{[][]int{{3}, {0}, {5}}, 0},
		{[][]int{{1}, {1}}, 0},
		{[][]int{{2, 3}, {4, 3}}, 0},
		{[][]int{{0, 3}, {5, 3}}, 0},
		{[][]int{{3, 2}, {3, 1}, {3, 4}}, 1},
		{[][]int{{2, 2, 3}, {2, 1, 3}}, 1},
		{[][]int{{2, 2, 3}, {2, 2, 1}}, 2},
		{[][]int{{1, 2, 3}, {3, 2, 3}}, 0},
	} {
		want := concatRef(tc.shapes, tc.axis)
		d := len(tc.shapes[0])
		for k, l0 := range sliceLayouts(tc.shapes[0]) {
			t.Run(fmt.Sprintf("%v/%d/%v", tc.shapes, tc.axis, l0), func(t *testing.T) {
				var xs []*dist.Array[float64]
				for i, s := range tc.shapes {
					l := l0
					if i > 0 {
						// The others rotate through the layouts.
						ls := sliceLayouts(s)
						l = ls[(k+i)%(2*d+1)]
					}
					base := 1000 * float64(i)
					x := sliceArray(t, c, s, l, func(j int) float64 { return base + float64(j) })
					defer x.Free()
					xs = append(xs, x)
				}
				y, err := dist.Concatenate(tc.axis, xs...)
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				shape := slices.Clone(tc.shapes[0])
				shape[tc.axis] = 0
				for _, s := range tc.shapes {
					shape[tc.axis] += s[tc.axis]
				}
				if wl := dist.NewLayout(shape, l0.axis, c.Size()); !y.Layout().Equal(wl) {
					t.Fatalf("Concatenate made %v, want %v", y.Layout(), wl)
				}
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(got, want), "Concatenate: %v, want %v", got, want)
			})
		}
	}
}
