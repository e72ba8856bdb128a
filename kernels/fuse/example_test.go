package fuse_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// y = a*x + y and the squared norm of the new y, in one pass.
func Example() {
	x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
	yNew := fuse.Out("y", fuse.Add(fuse.Mul(a, x), y))
	k := fuse.MustCompile(yNew, fuse.Dot("yy", yNew, yNew), fuse.ReduceMax("xmax", x))

	xs := backend.Wrap([]float64{1, 2, 3, 4})
	ys := backend.Wrap([]float64{10, 20, 30, 40})
	res, err := k.Run(fuse.Args{"x": xs, "y": ys, "a": 2.0})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ys.Data(), res.Float64("yy"), res.Float64("xmax"))
	fmt.Println(k)
	// Output:
	// [12 24 36 48] 4320 4
	// fuse.Kernel(t4 = axpy(a, x, y) float64 chunk; yy = Dot(t4, t4); xmax = ReduceMax(x); y <- t4)
}

// Comparisons, Where and casts: clip negative values to zero and count
// them.
func ExampleWhere() {
	x := fuse.Var[float32]("x")
	zero := fuse.Const[float32](0)
	neg := fuse.Lt(x, zero)
	k := fuse.MustCompile(
		fuse.Out("x", fuse.Where(neg, zero, x)),
		fuse.Sum("negatives", fuse.Cast[int32](neg)),
	)
	xs := backend.Wrap([]float32{-1, 2, -3, 4, 5})
	res, err := k.Run(fuse.Args{"x": xs})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(xs.Data(), res.Scalar("negatives"))
	// Output:
	// [0 2 0 4 5] 2
}

// A parameter given by pointer is read at each Run: a loop changes it
// without touching the arguments.
func ExampleArgs() {
	x := fuse.Var[float64]("x")
	s := fuse.Param[float64]("s")
	k := fuse.MustCompile(fuse.Out("x", fuse.Mul(x, s)))
	xs := backend.Wrap([]float64{1, 1, 1})
	scale := 1.0
	args := fuse.Args{"x": xs, "s": &scale}
	for i := 0; i < 3; i++ {
		scale = float64(i + 2)
		if _, err := k.Run(args); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(xs.Data())
	// Output:
	// [24 24 24]
}

// The CUDA program of a kernel: its entries, and the order of the
// arguments that a launcher passes.
func ExampleKernel_CUDA() {
	x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
	yNew := fuse.Out("y", fuse.Add(fuse.Mul(a, x), y))
	k := fuse.MustCompile(yNew, fuse.Dot("yy", yNew, yNew))
	p, err := k.CUDA()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Arrays, p.Params, p.Results, p.ResultTypes, p.Options, p.Grid(1<<20))
	fmt.Println(p.Final == p.Main+"_final")
	// Output:
	// [x y] [a] [yy] [float64] [--fmad=false] 1024
	// true
}
