package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// arange returns the array 0, 1, ..., of shape, split along axis 0.
func arange(shape ...int) *dist.Array[float64] {
	a, _ := dist.FromFunc(mpi.World(), shape, func(idx []int) float64 {
		off := 0
		for d, i := range idx {
			off = off*shape[d] + i
		}
		return float64(off)
	})
	return a
}

func show(a *dist.Array[float64]) {
	g, _ := dist.Allgather(a)
	fmt.Println(a.Shape(), g)
}

func ExampleTake() {
	a := arange(2, 5) // [[0 1 2 3 4] [5 6 7 8 9]]
	// NumPy's take(a, [4, -1, 0], axis=1); the indices are a distributed
	// array, and may point at any rank's elements.
	ind, _ := dist.FromFunc(mpi.World(), []int{3}, func(idx []int) int64 { return []int64{4, -1, 0}[idx[0]] })
	t, _ := dist.Take(a, ind, 1)
	show(t)
	// Output: [2 3] [4 4 0 9 9 5]
}

func ExampleTakeFlat() {
	a := arange(2, 5)
	ind, _ := dist.FromFunc(mpi.World(), []int{2, 2}, func(idx []int) int32 { return []int32{9, 0, -2, 5}[idx[0]*2+idx[1]] })
	t, _ := dist.TakeFlat(a, ind) // NumPy's take(a, [[9, 0], [-2, 5]])
	show(t)
	// Output: [2 2] [9 0 8 5]
}

func ExampleFillWhere() {
	a := arange(6)
	big, _ := dist.GreaterScalar(a, 3)
	dist.FillWhere(a, big, -1) // NumPy's a[a > 3] = -1
	show(a)
	// Output: [6] [0 1 2 3 -1 -1]
}

func ExampleAssignWhere() {
	a := arange(2, 3)
	odd, _ := dist.FromFunc(mpi.World(), []int{2, 3}, func(idx []int) uint8 { return uint8((idx[0]*3 + idx[1]) % 2) })
	v, _ := dist.FromFunc(mpi.World(), []int{3}, func(idx []int) float64 { return float64(10 * (idx[0] + 1)) })
	dist.AssignWhere(a, odd, v) // NumPy's a[odd] = [10, 20, 30]
	show(a)
	// Output: [2 3] [0 10 2 20 4 30]
}

func ExamplePlace() {
	a := arange(7)
	big, _ := dist.GreaterScalar(a, 1)
	v, _ := dist.FromFunc(mpi.World(), []int{2}, func(idx []int) float64 { return float64(-1 - idx[0]) })
	dist.Place(a, big, v) // NumPy's place(a, a > 1, [-1, -2]): values repeat
	show(a)
	// Output: [7] [0 1 -1 -2 -1 -2 -1]
}

func ExampleRoll() {
	a := arange(2, 4)
	r, _ := dist.Roll(a, -1, 1) // NumPy's roll(a, -1, axis=1)
	show(r)
	// Output: [2 4] [1 2 3 0 5 6 7 4]
}

func ExampleRollAxes() {
	a := arange(2, 3)
	r, _ := dist.RollAxes(a, []int{1, 1}, []int{0, 1}) // NumPy's roll(a, (1, 1), axis=(0, 1))
	show(r)
	// Output: [2 3] [5 3 4 2 0 1]
}

func ExampleRollFlat() {
	a := arange(2, 3)
	r, _ := dist.RollFlat(a, 2) // NumPy's roll(a, 2)
	show(r)
	// Output: [2 3] [4 5 0 1 2 3]
}

func ExampleFlip() {
	a := arange(2, 3)
	f, _ := dist.Flip(a, 1) // NumPy's flip(a, axis=1); Flip(a) flips every axis
	show(f)
	// Output: [2 3] [2 1 0 5 4 3]
}

func ExampleTile() {
	a := arange(3)
	t, _ := dist.Tile(a, 2, 2) // NumPy's tile(a, (2, 2))
	show(t)
	// Output: [2 6] [0 1 2 0 1 2 0 1 2 0 1 2]
}

func ExampleRepeat() {
	a := arange(2, 2)
	r, _ := dist.Repeat(a, []int{1, 3}, 1) // NumPy's repeat(a, [1, 3], axis=1)
	show(r)
	s, _ := dist.Repeat(a, []int{2}, 0) // NumPy's repeat(a, 2, axis=0)
	show(s)
	// Output:
	// [2 4] [0 1 1 1 2 3 3 3]
	// [4 2] [0 1 0 1 2 3 2 3]
}

func ExampleRepeatFlat() {
	a := arange(2, 2)
	r, _ := dist.RepeatFlat(a, []int{2}) // NumPy's repeat(a, 2)
	show(r)
	// Output: [8] [0 0 1 1 2 2 3 3]
}

func ExamplePad() {
	a := arange(3)
	for _, mode := range []string{"constant", "edge", "reflect", "symmetric", "wrap"} {
		p, _ := dist.Pad(a, [][2]int{{2, 3}}, mode) // NumPy's pad(a, (2, 3), mode)
		g, _ := dist.Allgather(p)
		fmt.Println(mode, g)
	}
	_, err := dist.Pad(a, [][2]int{{1, 1}}, "median")
	fmt.Println(err)
	// Output:
	// constant [0 0 0 1 2 0 0 0]
	// edge [0 0 0 1 2 2 2 2]
	// reflect [2 1 0 1 2 1 0 1]
	// symmetric [1 0 0 1 2 2 1 0]
	// wrap [1 2 0 1 2 0 1 2]
	// dist: Pad: mode "median" is not supported: use one of constant, edge, reflect, symmetric, wrap (or Map and slicing for NumPy's "median")
}

func ExamplePadConstant() {
	a := arange(2, 2)
	p, _ := dist.PadConstant(a, [][2]int{{1, 0}, {0, 1}}, -1) // NumPy's pad(a, ((1, 0), (0, 1)), constant_values=-1)
	show(p)
	// Output: [3 3] [-1 -1 -1 0 1 -1 2 3 -1]
}

func ExampleDiff() {
	a, _ := dist.FromFunc(mpi.World(), []int{5}, func(idx []int) float64 { return []float64{1, 2, 4, 7, 0}[idx[0]] })
	d, _ := dist.Diff(a, 1, 0) // NumPy's diff(a)
	show(d)
	d2, _ := dist.Diff(a, 2, 0) // NumPy's diff(a, n=2)
	show(d2)
	e, _ := dist.Diff(a, 1, 0, dist.Prepend(0.0), dist.Append(10.0)) // NumPy's diff(a, prepend=0, append=10)
	show(e)
	// Output:
	// [4] [1 2 3 -7]
	// [3] [1 1 -10]
	// [6] [1 1 2 3 -7 10]
}
