package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func Example_processGrid() {
	// A 5 x 7 array on a 2 x 3 grid of 6 ranks, as PETSc's DMDA splits
	// it: ranks in row-major order over the grid, the first n%p blocks
	// of each axis one longer. A Layout is a value: this needs no MPI.
	l := dist.NewGridLayout([]int{5, 7}, []int{2, 3})
	for r := 0; r < l.Ranks(); r++ {
		start, shape := l.Block(r)
		fmt.Println("rank", r, "at", l.Coords(r), "holds", shape, "from", start,
			"right neighbor", l.Neighbor(r, []int{0, 1}, false))
	}

	// An array over however many ranks there are, on the grid that
	// mpi.DimsCreate chooses (ProcessGrid(0, 0)), moved to row blocks.
	world := mpi.World()
	a, _ := dist.FromFunc(world, []int{3, 4}, func(idx []int) float64 {
		return float64(10*idx[0] + idx[1])
	}, dist.ProcessGrid(0, 0))
	rows, _ := dist.Redistribute(a, dist.NewLayout(a.Shape(), 0, world.Size()))
	all, _ := dist.Allgather(rows)
	fmt.Println(a.Layout().Axis() == dist.Grid, rows.Layout().Axis(), all)
	// Output:
	// rank 0 at [0 0] holds [3 3] from [0 0] right neighbor 1
	// rank 1 at [0 1] holds [3 2] from [0 3] right neighbor 2
	// rank 2 at [0 2] holds [3 2] from [0 5] right neighbor -1
	// rank 3 at [1 0] holds [2 3] from [3 0] right neighbor 4
	// rank 4 at [1 1] holds [2 2] from [3 3] right neighbor 5
	// rank 5 at [1 2] holds [2 2] from [3 5] right neighbor -1
	// true 0 [0 1 2 3 10 11 12 13 20 21 22 23]
}
