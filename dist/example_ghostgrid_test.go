package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Example_gridGhosts runs the iteration of Example_ghosts on a 2-D
// process grid (2 x 2 at 4 ranks): each block is a rectangle with one ghost
// index on each side of both axes, whose faces and corners Exchange fills;
// the result is the row blocks' one.
func Example_gridGhosts() {
	world := mpi.World()
	u, _ := dist.Zeros[float64](world, []int{6, 6}, dist.Ghosts(1), dist.ProcessGrid(0, 0))
	v, _ := dist.ZerosLike(u)
	dist.FillBoundary(u, 1, 0)
	dist.FillBoundary(v, 1, 0)
	for range 50 {
		if err := u.Exchange(); err != nil {
			panic(err)
		}
		dist.Jacobi5(v, u)
		u, v = v, u
	}
	row, _ := dist.Get(u, 0, 2)
	sum, _ := dist.Sum(u)
	fmt.Printf("u[0][2] = %.6f, sum %.6f\n", row, sum)
	// Output:
	// u[0][2] = 0.597805, sum 4.404288
}
