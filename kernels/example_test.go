package kernels_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// Affine are the parameters of the saxpb kernel, passed by value.
type Affine struct {
	A, B  float32
	Count int64
}

// A kernel of one's own: a host implementation in Go and CUDA source with
// a struct argument, run on host arrays (one rank, no GPU: the host
// implementation runs).
func Example() {
	saxpb := kernels.MustNew(kernels.Spec{
		Name: "saxpb",
		CUDA: `
extern "C" __global__ void saxpb(Affine p, const float *x, float *y)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.Count) {
		y[i] = p.A * x[i] + p.B;
	}
}`,
		Structs: []*kernels.StructType{kernels.MustStructOf[Affine]("")},
		Host: func(c *kernels.HostCall) error {
			p := kernels.StructAt[Affine](c, 0)
			x, y := kernels.In[float32](c, 1), kernels.Out[float32](c, 2)
			for i := int64(0); i < p.Count; i++ {
				y[i] = float32(p.A*x[i]) + p.B // rounded product: no FMA, as CUDA with --fmad=false
			}
			return nil
		},
	})
	fmt.Println(saxpb.Signature())

	x := backend.Wrap([]float32{1, 2, 3, 4})
	y := backend.Wrap(make([]float32, 4))
	err := saxpb.Call(kernels.StructValue(Affine{A: 2, B: 0.5, Count: 3}), kernels.Array(x), kernels.Array(y))
	fmt.Println(y.Data(), err)

	// A wrong argument is an error that names it.
	err = saxpb.Call(kernels.StructValue(Affine{}), kernels.Array(backend.Wrap([]float64{1})), kernels.Array(y))
	fmt.Println(err)
	// Output:
	// extern "C" __global__ void saxpb(Affine p, const float *x, float *y)
	// [2.5 4.5 6.5 0] <nil>
	// kernels: saxpb: argument 1 (x): an array of float64 on cpu, the parameter is float *
}
