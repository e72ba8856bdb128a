package kernels_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/fakecudatest"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/profiling"
)

// The CUDA launch path without a GPU: backend/cuda's tests have a fake
// CUDA driver (backend/cuda/testdata/fakecuda, a libcuda.so.1 that runs
// kernels compiled as C++ on the host). TestEmulatedLaunch builds it with
// the kernels' variant sources compiled in (internal/fakecudatest), and
// runs TestEmulatedChild in a child process that loads it as its driver: calls then take the CUDA
// path (variant compilation, module loading, argument packing, launch
// dimensions, struct arguments) and their results are compared with the
// host implementations.
//
// The fake driver finds an entry by name, so one variant per kernel name
// can be compiled in: float64 for the catalog's kernels.

// emulatedKernels returns the kernels compiled into the fake driver.
func emulatedKernels(t *testing.T) []*kernels.Kernel {
	k, err := affineKernel()
	if err != nil {
		t.Fatal(err)
	}
	return []*kernels.Kernel{kernels.AxpyKernel, kernels.Jacobi5Kernel, kernels.Laplace5Kernel, k, blockSumKernel, mortonKernel}
}

// syncs lists the emulated kernels that call __syncthreads (the fake
// driver runs their threads as fibers).
var syncs = map[string]bool{"blocksum": true}

// blockSumKernel writes the sum of each block's elements, by
// xpmpi/reduce.cuh on the device and kernels.BlockSum on the host.
var blockSumKernel = kernels.MustNew(kernels.Spec{
	Name: "blocksum",
	CUDA: `#include "xpmpi/reduce.cuh"
extern "C" __global__ void blocksum(const double *x, double *out, long long n)
{
	__shared__ double s[1024];
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.0;
	double sum = xpmpi_block_sum(s);
	if (threadIdx.x == 0) {
		out[blockIdx.x] = sum;
	}
}`,
	Host: func(c *kernels.HostCall) error {
		x, out, n := kernels.In[float64](c, 0), kernels.Out[float64](c, 1), kernels.IntAt(c, 2)
		bs := c.Block().X
		for b := 0; b < c.Grid().X; b++ {
			vals := make([]float64, bs)
			for j := range vals {
				if i := b*bs + j; i < n {
					vals[j] = x[i]
				}
			}
			out[b] = kernels.BlockSum(vals)
		}
		return nil
	},
	Parity: []kernels.ParityCase{
		blockSumCase("1000 in blocks of 256", 1000, 256),
		blockSumCase("77 in blocks of 24", 77, 24),
		blockSumCase("one", 1, 32),
	},
})

func blockSumCase(name string, n, block int) kernels.ParityCase {
	return kernels.ParityCase{Name: name, Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Pow(-1.3, float64(i%31)) + 1e-9*float64(i)
		}
		x, err := backend.ToDevice(backend.Wrap(xs), b)
		if err != nil {
			return nil, kernels.Config{}, err
		}
		grid := (n + block - 1) / block
		out, err := backend.NewOn[float64](b, grid)
		if err != nil {
			return nil, kernels.Config{}, err
		}
		return []kernels.Arg{kernels.Array(x), kernels.Array(out), kernels.Int(n)}, kernels.Config{Block: kernels.Dim3{X: block}}, nil
	}}
}

// mortonKernel computes 2-D Morton keys, by xpmpi/morton.cuh on the device
// and algorithms.Morton2 on the host.
var mortonKernel = kernels.MustNew(kernels.Spec{
	Name: "morton2",
	CUDA: `#include <xpmpi/morton.cuh>
extern "C" __global__ void morton2(const unsigned int *x, const unsigned int *y, unsigned long long *keys, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		keys[i] = xpmpi_morton2(x[i], y[i]);
	}
}`,
	Host: func(c *kernels.HostCall) error {
		x, y, keys := kernels.In[uint32](c, 0), kernels.In[uint32](c, 1), kernels.Out[uint64](c, 2)
		for i := range kernels.IntAt(c, 3) {
			keys[i] = algorithms.Morton2(x[i], y[i])
		}
		return nil
	},
	Parity: []kernels.ParityCase{{Name: "300 keys", Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
		xs, ys := make([]uint32, 300), make([]uint32, 300)
		for i := range xs {
			xs[i], ys[i] = uint32(i*2654435761), uint32(i*40503+7)
		}
		x, err := backend.ToDevice(backend.Wrap(xs), b)
		if err != nil {
			return nil, kernels.Config{}, err
		}
		y, err := backend.ToDevice(backend.Wrap(ys), b)
		if err != nil {
			return nil, kernels.Config{}, err
		}
		keys, err := backend.NewOn[uint64](b, 300)
		if err != nil {
			return nil, kernels.Config{}, err
		}
		return []kernels.Arg{kernels.Array(x), kernels.Array(y), kernels.Array(keys), kernels.Int(300)}, kernels.Config{}, nil
	}}},
})

func affineKernel() (*kernels.Kernel, error) {
	return kernels.New(kernels.Spec{
		Name: "affine",
		CUDA: `extern "C" __global__ void affine(Affine p, const float *x, float *y)
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
}

// variantFor returns the variant compiled into the fake driver.
func variantFor(k *kernels.Kernel) kernels.Variant {
	for _, v := range k.Variants() {
		if !v.Generic || v.DType == backend.Float64 {
			return v
		}
	}
	panic("no float64 variant of " + k.Name())
}

func TestEmulatedLaunch(t *testing.T) {
	var srcs []fakecudatest.Source
	index := map[string]int{} // by kernel source
	for _, k := range emulatedKernels(t) {
		v := variantFor(k)
		i, ok := index[k.Source()]
		if !ok {
			i = len(srcs)
			index[k.Source()] = i
			code := k.VariantSource(v) + "\n#undef T\n"
			for _, d := range v.Defines {
				code += "#undef " + d.Name + "\n"
			}
			srcs = append(srcs, fakecudatest.Source{Code: code})
		}
		srcs[i].Entries = append(srcs[i].Entries, fakecudatest.Entry{Name: k.Name(), Syncs: syncs[k.Name()]})
	}
	start := time.Now()
	d := fakecudatest.Build(t, srcs...)
	t.Logf("fake driver ready in %v", time.Since(start).Round(time.Millisecond))
	d.Run(t, "TestEmulatedChild", "XPMPI_CUDA_DEBUG=1")
}

// TestEmulatedChild runs in the child process of TestEmulatedLaunch.
func TestEmulatedChild(t *testing.T) {
	fakecudatest.SkipUnlessChild(t)
	dev, err := backend.Lookup("cuda")
	if err != nil {
		t.Fatal(err)
	}
	ks := emulatedKernels(t)
	for _, k := range append(ks[:3:3], ks[4:]...) {
		for _, c := range k.ParityCases() {
			if err := kerneltest.CheckCase(k, c, dev, backend.Float64); err != nil {
				t.Error(err)
			}
		}
	}
	// The CUDA path moves nothing, and falls back on nothing.
	x, err := backend.ToDevice(backend.Wrap([]float32{1, 2, 3, 4, 5}), dev)
	if err != nil {
		t.Fatal(err)
	}
	y, err := backend.NewOn[float32](dev, 5)
	if err != nil {
		t.Fatal(err)
	}
	aff, err := affineKernel()
	if err != nil {
		t.Fatal(err)
	}
	err = profiling.AssertNoTransfers(func() error {
		return aff.Launch(kernels.Config{Strict: true, Block: kernels.Dim3{X: 2}},
			kernels.StructValue(Affine{A: 3, B: -1, Count: 4}), kernels.Array(x), kernels.Array(y))
	})
	if err != nil {
		t.Fatal(err)
	}
	got := toHost(t, y)
	for i, want := range []float32{2, 5, 8, 11, 0} {
		if got[i] != want {
			t.Errorf("affine: y[%d] = %v, want %v", i, got[i], want)
		}
	}
	// Dynamic shared memory above 48 KiB opts the function in (the fake
	// driver, as the real one, refuses such a launch otherwise), up to the
	// device's maximum (the fake device's: 227 KiB); more is refused,
	// naming the kernel.
	for _, n := range []int{64 << 10, 227 << 10, 100 << 10} {
		if err := aff.Launch(kernels.Config{SharedMem: n}, kernels.StructValue(Affine{A: 1, Count: 4}), kernels.Array(x), kernels.Array(y)); err != nil {
			t.Errorf("%d bytes of shared memory: %v", n, err)
		}
	}
	if got := toHost(t, y); got[0] != 1 || got[3] != 4 {
		t.Errorf("affine with 64-227 KiB of shared memory: y = %v", got)
	}
	err = aff.Launch(kernels.Config{SharedMem: 228 << 10}, kernels.StructValue(Affine{}), kernels.Array(x), kernels.Array(y))
	if err == nil || !strings.Contains(err.Error(), "kernels: affine") || !strings.Contains(err.Error(), "233472 bytes of dynamic shared memory, more than the 232448") {
		t.Errorf("228 KiB of shared memory: %v", err)
	}
	// Host and device arrays together are refused.
	err = aff.Call(kernels.StructValue(Affine{}), kernels.Array(backend.Wrap([]float32{1})), kernels.Array(y))
	var ae *kernels.ArgError
	if !errors.As(err, &ae) || ae.Index != 2 || !strings.Contains(err.Error(), "cuda:0") {
		t.Errorf("mixed devices: %v", err)
	}
	// An explicit grid: one block of 2 threads covers 2 elements.
	z, _ := backend.NewOn[float32](dev, 5)
	if err := aff.Launch(kernels.Config{Grid: kernels.Dim3{X: 1}, Block: kernels.Dim3{X: 2}},
		kernels.StructValue(Affine{A: 1, B: 1, Count: 5}), kernels.Array(x), kernels.Array(z)); err != nil {
		t.Fatal(err)
	}
	if got := toHost(t, z); got[1] != 3 || got[2] != 0 {
		t.Errorf("grid 1 x block 2: %v", got)
	}
	// NaN goes through the device untouched.
	xs, _ := backend.ToDevice(backend.Wrap([]float32{float32(math.NaN())}), dev)
	ys, _ := backend.NewOn[float32](dev, 1)
	if err := aff.Call(kernels.StructValue(Affine{A: 1, Count: 1}), kernels.Array(xs), kernels.Array(ys)); err != nil {
		t.Fatal(err)
	}
	if v := toHost(t, ys)[0]; v == v {
		t.Errorf("NaN in, %v out", v)
	}
}
