package integrate_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/integrate"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

func ExampleQuadBatchArray() {
	// The integrals of x^(p+1) from 0 to 1 for the problems p = 0..3, the
	// integrand one fused kernel over every node of every problem, run on
	// the device (the fake device here; a CUDA backend works the same way).
	p, x := fuse.Var[int64]("p"), fuse.Var[float64]("x")
	k := fuse.MustCompile(fuse.Out("y", fuse.Pow(x, fuse.Add(fuse.Cast[float64](p), fuse.Const(1.0)))))
	f := func(p *backend.Array[int64], x, y *backend.Array[float64]) error {
		_, err := k.Run(fuse.Args{"p": p, "x": x, "y": y})
		return err
	}
	res, err := integrate.QuadBatchArray(f, []float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}, fakedev.Default, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, r := range res {
		fmt.Printf("p=%d: %.15f (1/%d)\n", i, r.Value, i+2)
	}
	// Output:
	// p=0: 0.500000000000000 (1/2)
	// p=1: 0.333333333333333 (1/3)
	// p=2: 0.250000000000000 (1/4)
	// p=3: 0.200000000000000 (1/5)
}
