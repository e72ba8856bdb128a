package dist_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func Example_slice() {
	world := mpi.World()
	// A 4 x 5 array split by rows: a[i][j] = 10*i + j.
	a, _ := dist.FromFunc(world, []int{4, 5}, func(idx []int) float64 {
		return float64(10*idx[0] + idx[1])
	})
	// NumPy's a[1:, ::-2]: rows 1 to the end, every other column from
	// the last; math.MaxInt and math.MinInt are the omitted bounds.
	s, _ := dist.Slice(a, dist.Range{Start: 1, Stop: math.MaxInt, Step: 1},
		dist.Range{Start: math.MaxInt, Stop: math.MinInt, Step: -2})
	got, _ := dist.Allgather(s)
	fmt.Println(s.Shape(), got)

	// a[::3, 1:3] = -1, then a[0, :] = [100 ... 104] from a replicated row.
	dist.SetSliceScalar(a, []dist.Range{{Start: 0, Stop: math.MaxInt, Step: 3}, {Start: 1, Stop: 3}}, -1)
	row, _ := dist.Arange(world, 100.0, 105.0, 1.0, dist.SplitAxis(dist.Replicated))
	row2, _ := dist.Reshape(row, 1, 5)
	dist.SetSlice(a, []dist.Range{{Start: 0, Stop: 1}}, row2)
	all, _ := dist.Allgather(a)
	fmt.Println(all)

	// Broadcasting: subtract the replicated row from every row of a.
	dist.Broadcast(backend.Sub, a, a, row)
	t, _ := dist.Transpose(a)
	all, _ = dist.Allgather(t)
	fmt.Println(t.Shape(), all)
	// Output:
	// [3 3] [14 12 10 24 22 20 34 32 30]
	// [100 101 102 103 104 10 11 12 13 14 20 21 22 23 24 30 -1 -1 33 34]
	// [5 4] [0 -90 -80 -70 0 -90 -80 -102 0 -90 -80 -103 0 -90 -80 -70 0 -90 -80 -70]
}
