package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Every example prints the same on every rank: it runs unchanged on one
// process and under mpirun.

func Example_creation() {
	world := mpi.World()
	// A 3 x 5 array split by rows over however many ranks there are.
	a, _ := dist.FromFunc(world, []int{3, 5}, func(idx []int) float64 {
		return float64(10*idx[0] + idx[1])
	})
	x, _ := dist.Arange(world, 0.0, 1.0, 0.25)
	y, _ := dist.Linspace(world, 0.0, 1.0, 5)
	all, _ := dist.Allgather(a)
	xs, _ := dist.Allgather(x)
	ys, _ := dist.Allgather(y)
	fmt.Println(a.Shape(), all)
	fmt.Println(xs, ys)
	// Output:
	// [3 5] [0 1 2 3 4 10 11 12 13 14 20 21 22 23 24]
	// [0 0.25 0.5 0.75] [0 0.25 0.5 0.75 1]
}

func Example_elementwise() {
	world := mpi.World()
	x, _ := dist.Arange(world, 1.0, 6.0, 1.0)
	y, _ := dist.Full(world, []int{5}, 2.0)
	z, _ := dist.ZerosLike(x)
	dist.Mul(z, x, y)       // z = x*y
	dist.AddScalar(z, z, 1) // z = z+1
	dist.Axpy(-1, x, z)     // z = z - x
	dist.Map(z, func(v float64) float64 { return v * v })
	out, _ := dist.Allgather(z)
	fmt.Println(out)
	// Output:
	// [4 9 16 25 36]
}

func Example_reductions() {
	world := mpi.World()
	a, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return float64(3*idx[0]+idx[1]) - 2
	}, dist.SplitAxis(1))
	sum, _ := dist.Sum(a)
	norm, _ := dist.Norm(a)
	i, _ := dist.Argmin(a)
	rows, _ := dist.SumAxis(a, 1)
	r, _ := dist.Allgather(rows)
	fmt.Println(sum, norm, i, dist.Unravel(i, a.Shape()), r)
	// Output:
	// 3 4.358898943540674 0 [0 0] [-3 6]
}

func Example_halo() {
	world := mpi.World()
	// 1-D array of 8 values with one ghost cell on each side of every block.
	x, _ := dist.Arange(world, 0.0, 8.0, 1.0)
	h, _ := dist.HaloOf(x, 1)
	if err := h.Exchange(); err != nil {
		panic(err)
	}
	// Each block now sees its neighbours' edge values: a centred difference
	// needs no more communication.
	local := h.Local().Data()
	lo, _ := x.Range()
	d, _ := dist.ZerosLike(x)
	diff := d.LocalData()
	for i := range diff {
		g := lo + i
		left, right := local[i], local[i+2]
		if g == 0 {
			left = local[i+1]
		}
		if g == 7 {
			right = local[i+1]
		}
		diff[i] = right - left
	}
	out, _ := dist.Allgather(d)
	fmt.Println(out)
	// Output:
	// [1 2 2 2 2 2 2 1]
}
