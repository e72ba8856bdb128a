package dist_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func Example_math() {
	world := mpi.World()
	x, _ := dist.FromFunc(world, []int{6}, func(idx []int) float64 {
		return []float64{-2, -0.5, 0, 1, 4, math.Inf(1)}[idx[0]]
	})
	y, _ := dist.ZerosLike(x)
	dist.Sqrt(y, x) // NaN for x < 0, as NumPy
	s, _ := dist.Allgather(y)
	dist.Log(y, x) // log(0) = -Inf
	l, _ := dist.Allgather(y)
	dist.PowScalar(y, x, 2)
	p, _ := dist.Allgather(y)
	dist.Clip(x, x, -1, 1) // in place
	c, _ := dist.Allgather(x)
	fmt.Println(s)
	fmt.Println(l)
	fmt.Println(p, c)
	// Output:
	// [NaN NaN 0 1 2 +Inf]
	// [NaN NaN -Inf 0 1.3862943611198906 +Inf]
	// [4 0.25 0 1 16 +Inf] [-1 -0.5 0 1 1 1]
}
