package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func ExampleMatMul() {
	world := mpi.World()
	// a is 3 x 2, split by rows; b is 2 x 2, split by rows too, so that
	// MatMul passes b's blocks among the ranks (or gathers b: it is small).
	a, _ := dist.FromFunc(world, []int{3, 2}, func(idx []int) float64 { return float64(2*idx[0] + idx[1] + 1) })
	b, _ := dist.FromFunc(world, []int{2, 2}, func(idx []int) float64 { return float64(idx[0] + idx[1]) })
	c, err := dist.MatMul(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(c)
	x, _ := dist.Full(world, []int{2}, 1.0)
	y, _ := dist.MatVec(a, x)
	ys, _ := dist.Allgather(y)
	fmt.Println(c.Shape(), all, ys)
	// Output:
	// [3 2] [2 5 4 11 6 17] [3 7 11]
}

func ExampleMatMulInto() {
	world := mpi.World()
	// a and b on the most balanced 2-D process grid of the ranks: MatMul
	// multiplies them by SUMMA, the result on the same grid. MatMulInto
	// writes each product of a loop into the same result.
	a, _ := dist.FromFunc(world, []int{3, 2}, func(idx []int) float64 { return float64(2*idx[0] + idx[1] + 1) }, dist.ProcessGrid(0, 0))
	b, _ := dist.FromFunc(world, []int{2, 2}, func(idx []int) float64 { return float64(idx[0] + idx[1]) }, dist.ProcessGrid(0, 0))
	c, err := dist.MatMul(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		if err := dist.MatMulInto(c, a, b); err != nil {
			fmt.Println(err)
			return
		}
	}
	all, _ := dist.Allgather(c)
	fmt.Println(c.Layout().Axis() == dist.Grid, all)
	// Output:
	// true [2 5 4 11 6 17]
}
