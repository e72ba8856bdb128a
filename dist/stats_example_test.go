package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func Example_statistics() {
	world := mpi.World()
	// A 2 x 4 array split by columns over however many ranks there are.
	a, _ := dist.FromFunc(world, []int{2, 4}, func(idx []int) int64 {
		return int64(1 + 4*idx[0] + idx[1])
	}, dist.SplitAxis(1))
	defer a.Free()
	mean, _ := dist.Mean(a)
	v, _ := dist.Var(a, 1) // the sample variance (ddof 1)
	p, _ := dist.Prod(a)
	fmt.Println(mean, v, p)
	// Along the split axis: each rank starts from the sums of the ranks
	// before it.
	cs, _ := dist.Cumsum(a, 1)
	defer cs.Free()
	all, _ := dist.Allgather(cs)
	fmt.Println(all)
	// The means of the columns, a float64 array split as a's columns are.
	ms, _ := dist.MeanAxis(a, 0)
	defer ms.Free()
	m, _ := dist.Allgather(ms)
	fmt.Println(m)
	// 8 is in the last bin, which holds its upper edge (as in NumPy).
	counts, edges, _ := dist.Histogram(a, 4, 0, 8)
	fmt.Println(counts, edges)
	// Output:
	// 4.5 6 40320
	// [1 3 6 10 5 11 18 26]
	// [3 4 5 6]
	// [1 2 2 3] [0 2 4 6 8]
}
