package dist_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestNegativeIndices checks that Get and Set read a negative index as
// NumPy does (counted from the end of its dimension) on every layout, and
// that indices and axes out of range panic with a message that names the
// operation.
func TestNegativeIndices(t *testing.T) {
	c := mpitest.World(t)
	shape := []int{3, 5}
	layouts := []struct {
		name string
		opts []dist.Option
	}{
		{"rows", []dist.Option{dist.SplitAxis(0)}},
		{"cols", []dist.Option{dist.SplitAxis(1)}},
		{"replicated", []dist.Option{dist.SplitAxis(dist.Replicated)}},
		{"grid", []dist.Option{dist.ProcessGrid(0, 0)}},
	}
	var e errs
	for _, lc := range layouts {
		name, opts := lc.name, lc.opts
		x, err := dist.FromFunc(c, shape, func(idx []int) int32 { return int32(10*idx[0] + idx[1]) }, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ idx, pos []int }{
			{[]int{-1, -1}, []int{2, 4}}, {[]int{-3, 0}, []int{0, 0}}, {[]int{1, -5}, []int{1, 0}}, {[]int{-2, 3}, []int{1, 3}},
		} {
			idx := slices.Clone(tc.idx)
			v, err := dist.Get(x, idx...)
			if want := int32(10*tc.pos[0] + tc.pos[1]); err != nil || v != want {
				e.add("%s: Get%v = %v, %v; want %v", name, tc.idx, v, err, want)
			}
			if !slices.Equal(idx, tc.idx) {
				e.add("%s: Get changed its index slice to %v", name, idx)
			}
			if err := dist.Set(x, -7, idx...); err != nil {
				e.add("%s: Set%v: %v", name, tc.idx, err)
			}
			if v, err := dist.Get(x, tc.pos...); err != nil || v != -7 {
				e.add("%s: after Set%v, Get%v = %v, %v", name, tc.idx, tc.pos, v, err)
			}
		}
		for _, idx := range [][]int{{3, 0}, {-4, 0}, {0, 5}, {0, -6}} {
			if !panicsWith(func() { dist.Get(x, idx...) }, "dist: Get: index") {
				e.add("%s: Get%v did not panic", name, idx)
			}
		}
		x.Free()
	}
	e.check(t, c, "negative indices")
}

// TestNegativeAxes checks the operations that take an axis with negative
// axes against the same calls with the axis counted from the start, and
// that axes out of range panic with a clear message.
func TestNegativeAxes(t *testing.T) {
	c := mpitest.World(t)
	x, err := dist.FromFunc(c, []int{2, 3, 4}, func(idx []int) float64 { return float64(idx[0]*12 + idx[1]*4 + idx[2]) })
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	var e errs
	for axis := 0; axis < 3; axis++ {
		a, err := gathered(dist.Concatenate(axis, x, x))
		b, err2 := gathered(dist.Concatenate(axis-3, x, x))
		if err != nil || err2 != nil || !slices.Equal(a, b) {
			e.add("Concatenate along %d and %d differ: %v %v", axis, axis-3, err, err2)
		}
	}
	for _, f := range []struct {
		name string
		call func(axis int)
	}{
		{"SumAxis", func(a int) { dist.SumAxis(x, a) }},
		{"MeanAxis", func(a int) { dist.MeanAxis(x, a) }},
		{"Cumsum", func(a int) { dist.Cumsum(x, a) }},
		{"Concatenate", func(a int) { dist.Concatenate(a, x, x) }},
		{"ArgmaxAxis", func(a int) { dist.ArgmaxAxis(x, a) }},
	} {
		for _, a := range []int{3, -4} {
			if !panicsWith(func() { f.call(a) }, fmt.Sprintf("along axis %d of a 3-dimensional array", a)) {
				e.add("%s along axis %d did not panic with a clear message", f.name, a)
			}
		}
	}
	e.check(t, c, "negative axes")
}

// panicsWith reports whether f panics with a string that starts "dist: "
// and contains sub.
func panicsWith(f func(), sub string) (ok bool) {
	defer func() {
		s, isStr := recover().(string)
		ok = isStr && strings.HasPrefix(s, "dist: ") && strings.Contains(s, sub)
	}()
	f()
	return false
}
