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

func ExampleMatMul_complex() {
	world := mpi.World()
	// Complex matrices multiply as real ones do (NumPy's a @ b, no
	// conjugation): a = [[1, i], [2, 1-i]] by rows, b = [[i], [1]]
	// replicated.
	a, _ := dist.FromFunc(world, []int{2, 2}, func(idx []int) complex128 {
		return [][]complex128{{1, 1i}, {2, 1 - 1i}}[idx[0]][idx[1]]
	})
	b, _ := dist.FromFunc(world, []int{2, 1}, func(idx []int) complex128 { return []complex128{1i, 1}[idx[0]] },
		dist.SplitAxis(dist.Replicated))
	c, err := dist.MatMul(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(c)
	// The row sums of a, and NumPy's where(mask, a, conj(a)).
	s, _ := dist.SumAxis(a, 1)
	sums, _ := dist.Allgather(s)
	mask, _ := dist.FromFunc(world, []int{2, 2}, func(idx []int) uint8 { return uint8(idx[1]) })
	conj, _ := dist.ZerosLike(a)
	dist.Conj(conj, a)
	dist.Where(conj, mask, a, conj)
	w, _ := dist.Allgather(conj)
	fmt.Println(all, sums)
	fmt.Println(w)
	// Output:
	// [(0+2i) (1+1i)] [(1+1i) (3-1i)]
	// [(1-0i) (0+1i) (2-0i) (1-1i)]
}
