package kernels_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi"
)

// A CuPy RawKernel stencil program, ported to a user kernel over a dist
// array. The CuPy original runs on one GPU:
//
//	step = cp.RawKernel(r'''
//	extern "C" __global__ void step(const double *u, double *un, int nx, int ny, double r) {
//	    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (i >= nx || j >= ny) return;
//	    int k = i * ny + j;
//	    if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1) { un[k] = u[k]; return; }
//	    un[k] = u[k] + r * (u[k - ny] + u[k + ny] + u[k - 1] + u[k + 1] - 4.0 * u[k]);
//	}''', 'step')
//	u = cp.zeros((nx, ny)); u[0, :] = 1.0
//	un = cp.empty_like(u)
//	for _ in range(steps):
//	    step(((ny + 15) // 16, (nx + 15) // 16), (16, 16), (u, un, nx, ny, r))
//	    u, un = un, u
//	print(float(u.sum()))
//
// Here the array is split by rows over the ranks with one ghost row on
// each side; each rank runs the kernel on its block (kernels.Dist) reading
// its ghosted storage (kernels.DistGhosted), after Exchange has filled the
// ghost rows. The kernel gets the block's rows and its first global row
// (DistShape, DistOffset), so that it finds the global boundary; the rest
// is CuPy's kernel with indices into the ghosted storage. The same
// program runs on the CPU (the host implementation), on the fake device,
// and on a GPU (the CUDA source, with XPMPI_BACKEND=cuda), at any number
// of ranks, with the same bits.
func ExampleKernel_LaunchDist() {
	step := kernels.MustNew(kernels.Spec{
		Name: "step",
		CUDA: `extern "C" __global__ void step(const double *u, double *un, long long rows, long long row0,
	long long nx, long long ny, double r)
{
	long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= rows * ny) return;
	long long i = row0 + k / ny, j = k % ny;
	const double *c = u + ny + k; // u has one ghost row before the block
	if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1) { un[k] = c[0]; return; }
	un[k] = c[0] + r * (c[-ny] + c[ny] + c[-1] + c[1] - 4.0 * c[0]);
}`,
		Host: func(c *kernels.HostCall) error {
			u, un := kernels.In[float64](c, 0), kernels.Out[float64](c, 1)
			rows, row0, nx, ny := kernels.IntAt(c, 2), kernels.IntAt(c, 3), kernels.IntAt(c, 4), kernels.IntAt(c, 5)
			r := kernels.ScalarAt[float64](c, 6)
			for k := range rows * ny {
				i, j, at := row0+k/ny, k%ny, ny+k
				if i == 0 || i == nx-1 || j == 0 || j == ny-1 {
					un[k] = u[at]
					continue
				}
				un[k] = u[at] + float64(r*(u[at-ny]+u[at+ny]+u[at-1]+u[at+1]-4.0*u[at])) // rounded product, as --fmad=false
			}
			return nil
		},
	})

	const nx, ny, steps, r = 40, 30, 100, 0.2
	world := mpi.World()
	u, err := dist.FromFunc(world, []int{nx, ny}, func(idx []int) float64 {
		if idx[0] == 0 {
			return 1
		}
		return 0
	}, dist.Ghosts(1))
	if err != nil {
		panic(err)
	}
	un, _ := dist.ZerosLike(u)
	for range steps {
		if err := u.Exchange(); err != nil {
			panic(err)
		}
		// The launch size is the length of the first array on each rank:
		// the ghosted storage here, so the kernel checks k < rows * ny.
		err := step.CallDist(kernels.DistGhosted(u), kernels.Dist(un), kernels.DistShape(un, 0), kernels.DistOffset(un, 0),
			kernels.Int(nx), kernels.Int(ny), kernels.Float(r))
		if err != nil {
			panic(err)
		}
		u, un = un, u
	}
	sum, _ := dist.Sum(u)
	fmt.Printf("sum %.12f\n", sum) // NumPy, the same steps: 137.106609559138
	// Output:
	// sum 137.106609559138
}
