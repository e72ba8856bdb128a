package dist_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func Example_gridShape() {
	world := mpi.World()
	// A 4 x 6 array on the process grid that mpi.DimsCreate chooses for
	// however many ranks there are: a[i][j] = 10*i + j.
	a, _ := dist.FromFunc(world, []int{4, 6}, func(idx []int) float64 {
		return float64(10*idx[0] + idx[1])
	}, dist.ProcessGrid(0, 0))

	// NumPy's a[1:-1, ::-2]: the result is on a grid of the same
	// dimensions, with even blocks.
	s, _ := dist.Slice(a, dist.Range{Start: 1, Stop: -1, Step: 1},
		dist.Range{Start: math.MaxInt, Stop: math.MinInt, Step: -2})
	got, _ := dist.Allgather(s)
	fmt.Println(s.Shape(), s.Layout().Axis() == dist.Grid, got)

	// a.T: the grid's dimensions are swapped, each block transposed.
	t, _ := dist.Transpose(a)
	got, _ = dist.Allgather(t)
	fmt.Println(t.Shape(), t.Layout().Axis() == dist.Grid, got[:8])

	// a.reshape(3, 8): split along axis 0.
	r, _ := dist.Reshape(a, 3, -1)
	got, _ = dist.Allgather(r)
	fmt.Println(r.Shape(), r.Layout().Axis(), got[:8])

	// a -= the row [0, 1, ..., 5], made split along axis 0: each rank
	// fetches the part of the row its block meets.
	row, _ := dist.Arange(world, 0.0, 6.0, 1.0)
	dist.Broadcast(backend.Sub, a, a, row)
	got, _ = dist.Allgather(a)
	fmt.Println(got)
	// Output:
	// [2 3] true [15 13 11 25 23 21]
	// [6 4] true [0 10 20 30 1 11 21 31]
	// [3 8] 0 [0 1 2 3 4 5 10 11]
	// [0 0 0 0 0 0 10 10 10 10 10 10 20 20 20 20 20 20 30 30 30 30 30 30]
}
