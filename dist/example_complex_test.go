package dist_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

func Example_complex() {
	world := mpi.World()
	x, _ := dist.FromFunc(world, []int{4}, func(idx []int) complex128 {
		return complex(float64(idx[0]), 1)
	})
	y, _ := dist.Full(world, []int{4}, 2-1i)
	// NumPy's dot (no conjugation) and vdot (conjugates x).
	d, _ := dist.Dot(x, y)
	v, _ := dist.Vdot(x, y)
	n, _ := dist.Norm(x)
	// NumPy's x.real and abs(x): real arrays of x's layout.
	re, _ := dist.Real[float64](x)
	// Complex to real drops the imaginary parts only when asked.
	trunc, _ := dist.Astype[int32](x, dist.DiscardImag())
	r, _ := dist.Allgather(re)
	t, _ := dist.Allgather(trunc)
	fmt.Printf("%v %v %.4f\n", d, v, n)
	fmt.Println(r, t)
	// Output:
	// (16+2i) (8-14i) 4.2426
	// [0 1 2 3] [0 1 2 3]
}
