package algorithms_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/algorithms"
)

// Sort particles into Morton order of their cells, then find each cell's
// particles.
func Example() {
	xs := []float64{0.9, 0.1, 0.6, 0.1, 0.4}
	ys := []float64{0.9, 0.1, 0.2, 0.2, 0.7}
	mass := []float64{1, 2, 3, 4, 5}

	// 2 levels: a 4x4 grid over the unit square.
	keys := make([]uint64, len(xs))
	algorithms.MortonKeys2(keys, xs, ys, [2]float64{0, 0}, [2]float64{1, 1}, 2)

	perm := algorithms.SortByKey(keys)
	algorithms.ApplyPermutation(xs, perm)
	algorithms.ApplyPermutation(ys, perm)
	algorithms.ApplyPermutation(mass, perm)

	unique, starts, stops := algorithms.SegmentBounds(keys)
	for s, k := range unique {
		cx, cy := algorithms.Morton2Decode(k)
		fmt.Printf("cell (%d, %d): masses %v\n", cx, cy, mass[starts[s]:stops[s]])
	}
	// Output:
	// cell (0, 0): masses [2 4]
	// cell (2, 0): masses [3]
	// cell (1, 2): masses [5]
	// cell (3, 3): masses [1]
}

func ExampleMorton2() {
	k := algorithms.Morton2(3, 5) // x = 0b011, y = 0b101
	x, y := algorithms.Morton2Decode(k)
	fmt.Printf("%06b %d %d\n", k, x, y)
	// Output:
	// 100111 3 5
}

func ExampleSortByKey() {
	keys := []int64{30, 10, 20, 10}
	names := []string{"c", "a", "b", "a'"}
	perm := algorithms.SortByKey(keys)
	sorted := make([]string, len(names))
	algorithms.Gather(sorted, names, perm)
	fmt.Println(keys, perm, sorted)
	// Output:
	// [10 10 20 30] [1 3 2 0] [a a' b c]
}

func ExampleSegmentSum() {
	// Two columns per row; the row with key -1 is dropped.
	keys := []int64{1, 0, 1, -1}
	values := []float64{
		1, 10,
		2, 20,
		3, 30,
		4, 40,
	}
	out := make([]float64, 2*2)
	algorithms.SegmentSum(out, keys, values, 2)
	fmt.Println(out)
	// Output:
	// [2 20 4 40]
}

func ExampleCellOffsets() {
	cells := []int{0, 0, 2, 2, 2, 3}
	fmt.Println(algorithms.CellOffsets(cells, 5))
	// Output:
	// [0 2 2 5 6 6]
}

// Compact several arrays by one mask.
func ExampleMaskIndex() {
	mask := []bool{true, false, true, false}
	xs := []float64{1, 2, 3, 4}
	ids := []int32{10, 20, 30, 40}
	idx := algorithms.MaskIndex(mask)
	m := algorithms.CompactByIndex(xs, idx)
	algorithms.CompactByIndex(ids, idx)
	fmt.Println(xs[:m], ids[:m])
	// Output:
	// [1 3] [10 30]
}

func ExampleCompact() {
	mask := []bool{false, true, true, false}
	a := []string{"a", "b", "c", "d"}
	m := algorithms.Compact(mask, a)
	fmt.Println(a[:m])
	// Output:
	// [b c]
}
