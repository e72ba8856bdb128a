package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
)

func ExampleRunFused() {
	world := mpi.World()
	// y = a*x + y and the dot y.y of the new y, in one pass over the
	// blocks (on their device, wherever the arrays live), the dot summed
	// over the ranks.
	x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
	yNew := fuse.Out("y", fuse.Add(fuse.Mul(a, x), y))
	k := fuse.MustCompile(yNew, fuse.Dot("yy", yNew, yNew))

	xs, _ := dist.Arange(world, 1.0, 6.0, 1.0)
	ys, _ := dist.Full(world, []int{5}, 1.0)
	res, err := dist.RunFused(k, fuse.Args{"x": xs, "y": ys, "a": 2.0})
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(ys)
	fmt.Println(all, res.Float64("yy"))
	// Output:
	// [3 5 7 9 11] 285
}
