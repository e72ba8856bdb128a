package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Sorting a distributed array: the result has the even block layout and,
// with SortWithIndex, the global index of every element in the input. Equal
// keys keep their input order, so the result is the same at any number of
// ranks.
func ExampleSort() {
	world := mpi.World()
	keys := []int64{5, 3, 9, 3, 1, 7, 3, 0}
	x, _ := dist.FromFunc(world, []int{len(keys)}, func(idx []int) int64 { return keys[idx[0]] })
	sorted, perm, _ := dist.SortWithIndex(x)
	s, _ := dist.Allgather(sorted)
	p, _ := dist.Allgather(perm)
	fmt.Println(s)
	fmt.Println(p)
	fmt.Println(sorted.Layout().Equal(dist.NewLayout([]int{len(keys)}, 0, world.Size())))
	// Output:
	// [0 1 3 3 3 5 7 9]
	// [7 4 1 3 6 0 5 2]
	// true
}

// A distributed random array: element g is drawn with stream g, so the
// array is the same at any number of ranks and on any split axis.
func ExampleUniform() {
	world := mpi.World()
	const seed, draw = 2024, 0
	rows, _ := dist.Uniform[float64](world, []int{2, 3}, seed, draw)
	cols, _ := dist.Uniform[float64](world, []int{2, 3}, seed, draw, dist.SplitAxis(1))
	a, _ := dist.Allgather(rows)
	b, _ := dist.Allgather(cols)
	k, _ := dist.UniformInts(world, []int{6}, seed, draw, int32(0), 10)
	ints, _ := dist.Allgather(k)
	fmt.Printf("%.4f\n", a)
	fmt.Println(fmt.Sprint(a) == fmt.Sprint(b))
	fmt.Println(ints)
	// Output:
	// [0.2686 0.6315 0.3704 0.2376 0.6845 0.4452]
	// true
	// [2 6 3 2 6 4]
}
