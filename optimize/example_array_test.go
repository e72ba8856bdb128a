package optimize_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/optimize"
)

func ExampleNewtonArray() {
	// x^3 = c for c = 1..5, with x0, c and the results on a device (the
	// fake device here; a CUDA backend's arrays work the same way). f and
	// f' are fused kernels of x and the parameter array c.
	dev := fakedev.Default
	x0, _ := backend.ToDevice(backend.Wrap([]float64{1, 1, 1, 1, 1}), dev)
	c, _ := backend.ToDevice(backend.Wrap([]float64{1, 2, 3, 4, 5}), dev)
	x := fuse.Var[float64]("x")
	f := optimize.FuseFunc(fuse.Sub(fuse.Mul(fuse.Mul(x, x), x), fuse.Var[float64]("c")), fuse.Args{"c": c})
	fprime := optimize.FuseFunc(fuse.Mul(fuse.Const(3.0), fuse.Mul(x, x)), nil)
	res, err := optimize.NewtonArray(f, fprime, x0, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Free()
	root, _ := backend.ToHost(res.Root)
	fmt.Printf("%.12f\n", root.Data())
	fmt.Println(res.NumConverged, "converged; most steps", res.MaxIterations, "; counts read back", res.Readbacks)
	// Output:
	// [1.000000000000 1.259921049895 1.442249570307 1.587401051968 1.709975946677]
	// 5 converged; most steps 6 ; counts read back 7
}
