package integrate_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/integrate"
	"github.com/xpmpi/xpmpi/kernels"
)

// lotkaVolterra is the right-hand side of predator-prey systems x' = x -
// x*y, y' = c*x*y - y, one system per thread, with each system's c in an
// array: a kernel with a host implementation (what runs on the host and
// the fake device) and CUDA source (what runs on a GPU).
var lotkaVolterra = kernels.MustNew(kernels.Spec{
	Name: "lotka_volterra",
	CUDA: `
extern "C" __global__ void lotka_volterra(long long n, const double *t, const double *y, double *dy, const double *c)
{
	for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += (long long)gridDim.x * blockDim.x) {
		double x = y[2 * s], p = y[2 * s + 1];
		dy[2 * s] = x - x * p;
		dy[2 * s + 1] = c[s] * x * p - p;
	}
}`,
	Host: func(hc *kernels.HostCall) error {
		n := kernels.IntAt(hc, 0)
		y, dy, c := kernels.In[float64](hc, 2), kernels.Out[float64](hc, 3), kernels.In[float64](hc, 4)
		for s := 0; s < n; s++ {
			x, p := y[2*s], y[2*s+1]
			dy[2*s] = x - float64(x*p) // rounded products: no FMA, as CUDA with --fmad=false
			dy[2*s+1] = float64(float64(c[s]*x)*p) - p
		}
		return nil
	},
})

func ExampleSolveIVPBatchArray() {
	// 1000 predator-prey systems, each with its own parameter c and start,
	// integrated to t = 10 with the state on a device (the fake device here;
	// a CUDA backend works the same way): every step is a few kernels for
	// all systems, each with its own step size.
	const n = 1000
	be := fakedev.Default
	y0, c := make([]float64, 2*n), make([]float64, n)
	for s := 0; s < n; s++ {
		y0[2*s], y0[2*s+1], c[s] = 1+float64(s%10)/10, 0.5, 0.5+float64(s%7)/4
	}
	y0d, _ := backend.ToDevice(backend.Wrap(y0), be)
	cd, _ := backend.ToDevice(backend.Wrap(c), be)
	f := func(t, y, dy *backend.Array[float64]) error {
		return lotkaVolterra.Call(kernels.Int(t.Len()), kernels.Array(t), kernels.Array(y), kernels.Array(dy), kernels.Array(cd))
	}
	res, err := integrate.SolveIVPBatchArray(f, n, 2, 0, 10, y0d, &integrate.IVPOptions{Method: integrate.RK45, RelTol: 1e-9, AbsTol: 1e-12})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Free()
	y := make([]float64, 2*n)
	backend.CopyToHostSlice(y, res.Y)
	// The invariant c*x - ln x + y - ln y of each system is kept.
	v := func(c, x, p float64) float64 { return c*x - math.Log(x) + p - math.Log(p) }
	drift := 0.0
	for s := 0; s < n; s++ {
		drift = max(drift, math.Abs(v(c[s], y[2*s], y[2*s+1])-v(c[s], y0[2*s], y0[2*s+1])))
	}
	// SciPy's solve_ivp(method="RK45", rtol=1e-9, atol=1e-12) gives these
	// values, in as many steps.
	for _, s := range []int{0, 1, 999} {
		fmt.Printf("system %d: x = %.6f, y = %.6f in %d steps\n", s, y[2*s], y[2*s+1], res.Steps[s])
	}
	fmt.Println("invariant kept to 1e-7:", drift < 1e-7)
	// Output:
	// system 0: x = 3.619152, y = 1.701066 in 150 steps
	// system 1: x = 1.049810, y = 1.735227 in 149 steps
	// system 999: x = 0.077368, y = 1.729621 in 210 steps
	// invariant kept to 1e-7: true
}
