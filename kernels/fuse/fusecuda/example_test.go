//go:build cgo

package fusecuda_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	_ "github.com/xpmpi/xpmpi/kernels/fuse/fusecuda" // runs fused kernels on CUDA arrays
)

// A fused axpy and dot product on a CUDA array: with the package imported,
// Run launches the generated kernel on the device (it is not run here, as
// it needs a GPU).
func Example() {
	b, err := cuda.Default()
	if err != nil {
		fmt.Println("no GPU:", err)
		return
	}
	x, err := backend.NewOn[float64](b, 1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Free()
	v := fuse.Var[float64]("x")
	k := fuse.MustCompile(fuse.Out("x", fuse.Add(v, fuse.Param[float64]("a"))), fuse.Dot("xx", v, v))
	r, err := k.Run(fuse.Args{"x": x, "a": 2.0})
	fmt.Println(r, err)
}
