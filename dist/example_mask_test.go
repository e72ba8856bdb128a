package dist_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func Example_masks() {
	world := mpi.World()
	x, _ := dist.FromFunc(world, []int{6}, func(idx []int) float64 {
		return []float64{3, -1, math.NaN(), 7, 0.5, -4}[idx[0]]
	})
	// A mask is a uint8 array of 0s and 1s: NumPy's x > 0.
	pos, _ := dist.GreaterScalar(x, 0)
	// NumPy's where(x > 0, x, 0) and x[x > 0].
	zero, _ := dist.ZerosLike(x)
	relu, _ := dist.ZerosLike(x)
	dist.Where(relu, pos, x, zero)
	kept, _ := dist.Compact(x, pos)
	// NumPy's x.astype(np.int8): NaN becomes 0 (x86-64's rule).
	small, _ := dist.Astype[int8](x)
	m, _ := dist.Allgather(pos)
	r, _ := dist.Allgather(relu)
	k, _ := dist.Allgather(kept)
	s, _ := dist.Allgather(small)
	fmt.Println(m, r)
	fmt.Println(k, s)
	// Output:
	// [1 0 0 1 1 0] [3 0 0 7 0.5 0]
	// [3 7 0.5] [3 -1 0 7 0 -4]
}
