package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Example_ghosts runs the Jacobi iteration of the heat equation on a 6 x 6
// grid whose rows are split over the ranks: each block has a ghost row on
// either side, exchanged before each sweep; the ghost row above the first
// row holds the hot edge (u = 1), the one below the last the cold one, and
// the first and last column are cold walls.
func Example_ghosts() {
	world := mpi.World()
	u, _ := dist.Zeros[float64](world, []int{6, 6}, dist.Ghosts(1))
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

// Example_periodic takes the centred difference of a periodic 1-D array
// with a stencil of the caller's over the blocks and their ghosts.
func Example_periodic() {
	world := mpi.World()
	x, _ := dist.Arange(world, 0.0, 8.0, 1.0, dist.Ghosts(1), dist.Periodic())
	d, _ := dist.ZerosLike(x)
	if err := x.Exchange(); err != nil {
		panic(err)
	}
	dist.ApplyStencil(d, x, 1, func(dv, xv *backend.Array[float64], rows, _ int) error {
		out, in := dv.Data(), xv.Data()
		for i := 1; i < rows-1; i++ {
			out[i] = in[i+1] - in[i-1]
		}
		return nil
	})
	all, _ := dist.Allgather(d)
	fmt.Println(all)
	// Output:
	// [-6 2 2 2 2 2 2 -6]
}
