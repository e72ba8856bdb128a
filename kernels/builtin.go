package kernels

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
)

// The project's kernels, registered in Default.

// AxpyKernel sets y[i] = a*x[i] + y[i] for i < n, for float32, float64,
// int32 and int64 (integers wrap). Its host implementation is the CPU
// backend's arithmetic; compiled with --fmad=false the CUDA one gives the
// same bits.
var AxpyKernel = MustNew(Spec{
	Name: "axpy",
	Doc:  "y = a*x + y",
	CUDA: `
extern "C" __global__ void axpy(long long n, T a, const T *__restrict__ x, T *__restrict__ y)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		y[i] = a * x[i] + y[i];
	}
}
`,
	Signature: "void axpy(long long n, T a, const T *x, T *y)",
	Types:     []backend.DType{backend.Float32, backend.Float64, backend.Int32, backend.Int64},
	Host: func(c *HostCall) error {
		switch c.DType() {
		case backend.Float32:
			axpyHost[float32](c)
		case backend.Float64:
			axpyHost[float64](c)
		case backend.Int32:
			axpyHost[int32](c)
		case backend.Int64:
			axpyHost[int64](c)
		default:
			return fmt.Errorf("no host variant for %v", c.DType())
		}
		return nil
	},
	Parity: StandardCases(func(b backend.Backend, dt backend.DType, in Inputs) ([]Arg, Config, error) {
		xs, ys := in.Values(dt, 0), in.Values(dt, 1)
		switch dt {
		case backend.Float32:
			return axpyArgs[float32](b, xs, ys, 1.5)
		case backend.Float64:
			return axpyArgs[float64](b, xs, ys, 1.5)
		case backend.Int32:
			return axpyArgs[int32](b, xs, ys, 3)
		case backend.Int64:
			return axpyArgs[int64](b, xs, ys, 3)
		}
		return nil, Config{}, fmt.Errorf("no case for %v", dt)
	}),
})

func axpyHost[T float32 | float64 | int32 | int64](c *HostCall) {
	n := IntAt(c, 0)
	a := ScalarAt[T](c, 1)
	x, y := In[T](c, 2), Out[T](c, 3)
	if n > len(x) || n > len(y) {
		panic(fmt.Sprintf("kernels: axpy: n = %d with arrays of %d and %d elements", n, len(x), len(y)))
	}
	x, y = x[:n], y[:n]
	for i := range y {
		y[i] = T(a*x[i]) + y[i] // T(...) rounds the product: no fused multiply-add, as CUDA with --fmad=false
	}
}

// stencilSource is the CUDA source of jacobi5 and laplace5: one thread per
// grid point (a grid-stride loop), interior points only, the terms added
// in the CPU backend's order.
const stencilSource = `
extern "C" __global__ void jacobi5(long long rows, long long cols, T *__restrict__ dst, const T *__restrict__ src)
{
	const T q = (T)0.25;
	long long n = rows * cols;
	for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
		long long i = k / cols, j = k % cols;
		if (i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1) {
			dst[k] = q * (src[k - cols] + src[k + cols] + src[k - 1] + src[k + 1]);
		}
	}
}

extern "C" __global__ void laplace5(long long rows, long long cols, T *__restrict__ dst, const T *__restrict__ src)
{
	long long n = rows * cols;
	for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
		long long i = k / cols, j = k % cols;
		if (i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1) {
			dst[k] = (T)4 * src[k] - src[k - cols] - src[k + cols] - src[k - 1] - src[k + 1];
		}
	}
}
`

// Jacobi5Kernel applies one 5-point Jacobi sweep of src into dst, two
// rows x cols row-major grids, as backend.Jacobi5 does (interior points
// only, the same bits).
var Jacobi5Kernel = MustNew(Spec{
	Name:      "jacobi5",
	Doc:       "dst = 0.25*(up + down + left + right) on the interior of a grid",
	CUDA:      stencilSource,
	Signature: "void jacobi5(long long rows, long long cols, T *dst, const T *src)",
	Types:     []backend.DType{backend.Float32, backend.Float64},
	Host:      stencilHost(false),
	Parity:    stencilCases(),
})

// Laplace5Kernel applies the 5-point Laplacian of src into dst, as
// backend.Laplace5 does (interior points only, the same bits).
var Laplace5Kernel = MustNew(Spec{
	Name:      "laplace5",
	Doc:       "dst = 4*src - up - down - left - right on the interior of a grid",
	CUDA:      stencilSource,
	Signature: "void laplace5(long long rows, long long cols, T *dst, const T *src)",
	Types:     []backend.DType{backend.Float32, backend.Float64},
	Host:      stencilHost(true),
	Parity:    stencilCases(),
})

func init() {
	MustRegister(AxpyKernel)
	MustRegister(Jacobi5Kernel)
	MustRegister(Laplace5Kernel)
}

func stencilHost(laplace bool) HostFunc {
	return func(c *HostCall) error {
		switch c.DType() {
		case backend.Float32:
			stencil[float32](c, laplace)
		case backend.Float64:
			stencil[float64](c, laplace)
		default:
			return fmt.Errorf("no host variant for %v", c.DType())
		}
		return nil
	}
}

func stencil[T float32 | float64](c *HostCall, laplace bool) {
	rows, cols := IntAt(c, 0), IntAt(c, 1)
	dst, src := Out[T](c, 2), In[T](c, 3)
	if rows < 0 || cols < 0 || rows*cols > len(dst) || rows*cols > len(src) {
		panic(fmt.Sprintf("kernels: %s of a %d x %d grid over arrays of %d and %d elements", c.Kernel(), rows, cols, len(dst), len(src)))
	}
	const q = 0.25
	for i := 1; i < rows-1; i++ {
		for j := 1; j < cols-1; j++ {
			k := i*cols + j
			if laplace {
				dst[k] = T(4*src[k]) - src[k-cols] - src[k+cols] - src[k-1] - src[k+1]
			} else {
				dst[k] = q * (src[k-cols] + src[k+cols] + src[k-1] + src[k+1])
			}
		}
	}
}

func axpyArgs[T float32 | float64 | int32 | int64](b backend.Backend, xs, ys []float64, a float64) ([]Arg, Config, error) {
	x, err := NewArray[T](b, xs)
	if err != nil {
		return nil, Config{}, err
	}
	y, err := NewArray[T](b, ys)
	if err != nil {
		return nil, Config{}, err
	}
	return []Arg{Int(len(xs)), Scalar(T(a)), Array(x), Array(y)}, Config{}, nil
}

// stencilCases are the parity cases of jacobi5 and laplace5: odd grids,
// a grid without interior, an empty one, and NaN and infinities.
func stencilCases() []ParityCase {
	grid := func(name string, rows, cols int, special bool) ParityCase {
		return ParityCase{Name: name, Make: func(b backend.Backend, dt backend.DType) ([]Arg, Config, error) {
			vs := make([]float64, rows*cols)
			for i := range vs {
				vs[i] = math.Sin(float64(i)*0.37) * 10
			}
			if special && len(vs) > 12 {
				vs[cols+1], vs[2*cols+2], vs[len(vs)/2] = math.NaN(), math.Inf(1), math.Inf(-1)
			}
			switch dt {
			case backend.Float32:
				return stencilArgs[float32](b, vs, rows, cols)
			case backend.Float64:
				return stencilArgs[float64](b, vs, rows, cols)
			}
			return nil, Config{}, fmt.Errorf("no case for %v", dt)
		}}
	}
	return []ParityCase{
		grid("odd grid 37x53", 37, 53, false), grid("one row", 1, 9, false),
		grid("3x3", 3, 3, false), grid("empty", 0, 0, false), grid("NaN and infinities", 9, 11, true),
	}
}

func stencilArgs[T float32 | float64](b backend.Backend, vs []float64, rows, cols int) ([]Arg, Config, error) {
	src, err := NewArray[T](b, vs)
	if err != nil {
		return nil, Config{}, err
	}
	dst, err := NewArray[T](b, make([]float64, len(vs)))
	if err != nil {
		return nil, Config{}, err
	}
	return []Arg{Int(rows), Int(cols), Array(dst), Array(src)}, Config{}, nil
}
