package integrate_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/integrate"
	"github.com/xpmpi/xpmpi/mpi"
)

func ExampleQuad() {
	// The integral of 1/sqrt(x) over [0, 1] has a singularity at 0.
	r, err := integrate.Quad(func(x float64) float64 { return 1 / math.Sqrt(x) }, 0, 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.12f (error %.1e, %d evaluations)\n", r.Value, r.AbsErr, r.Evals)

	// An infinite interval, with tighter tolerances.
	r, _ = integrate.Quad(func(x float64) float64 { return math.Exp(-x * x) }, math.Inf(-1), math.Inf(1),
		&integrate.QuadOptions{AbsTol: 1e-12, RelTol: 1e-12})
	fmt.Printf("%.12f = sqrt(pi) %.12f\n", r.Value, math.Sqrt(math.Pi))
	// Output:
	// 2.000000000000 (error 5.8e-15, 231 evaluations)
	// 1.772453850906 = sqrt(pi) 1.772453850906
}

func ExampleQuadBatch() {
	// The integrals of x^k over [0, 1] for k = 0..4, in one call of the
	// integrand per round.
	a := []float64{0, 0, 0, 0, 0}
	b := []float64{1, 1, 1, 1, 1}
	res, err := integrate.QuadBatch(func(p []int, x, y []float64) {
		for i := range x {
			y[i] = math.Pow(x[i], float64(p[i]))
		}
	}, a, b, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, r := range res {
		fmt.Printf("k=%d: %.6f\n", k, r.Value)
	}
	// Output:
	// k=0: 1.000000
	// k=1: 0.500000
	// k=2: 0.333333
	// k=3: 0.250000
	// k=4: 0.200000
}

func ExampleSolveIVP() {
	// The harmonic oscillator y'' = -y, output at three times.
	f := func(t float64, y, dydt []float64) {
		dydt[0], dydt[1] = y[1], -y[0]
	}
	res, err := integrate.SolveIVP(f, 0, 2, []float64{1, 0}, &integrate.IVPOptions{
		RelTol: 1e-8, AbsTol: 1e-10,
		TEval: []float64{0, 1, 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, t := range res.T {
		fmt.Printf("t=%g y=%+.6f cos(t)=%+.6f\n", t, res.Y[k][0], math.Cos(t))
	}
	// Output:
	// t=0 y=+1.000000 cos(t)=+1.000000
	// t=1 y=+0.540302 cos(t)=+0.540302
	// t=2 y=-0.416147 cos(t)=-0.416147
}

func ExampleSolveIVP_stiff() {
	// Van der Pol with mu = 1000 is stiff: RK45 says so, Auto switches to
	// Radau and finishes.
	const mu = 1000.0
	vdp := func(t float64, y, dydt []float64) {
		dydt[0] = y[1]
		dydt[1] = mu*(1-y[0]*y[0])*y[1] - y[0]
	}
	y0 := []float64{2, 0}
	res, err := integrate.SolveIVP(vdp, 0, 3000, y0, &integrate.IVPOptions{Method: integrate.RK45})
	fmt.Println(res.Stiff, err != nil)
	res, err = integrate.SolveIVP(vdp, 0, 3000, y0, nil)
	fmt.Println(res.Method, err, res.Steps < 600)
	// Output:
	// true true
	// Radau <nil> true
}

func ExampleSolveIVP_events() {
	// A ball dropped from 10 m: stop when it hits the ground.
	fall := func(t float64, y, dydt []float64) { dydt[0], dydt[1] = y[1], -9.81 }
	ground := integrate.Event{F: func(t float64, y []float64) float64 { return y[0] }, Terminal: true, Direction: -1}
	res, _ := integrate.SolveIVP(fall, 0, 10, []float64{10, 0}, &integrate.IVPOptions{Events: []integrate.Event{ground}})
	fmt.Printf("status %d, hits the ground at t=%.6f s\n", res.Status, res.TEvents[0][0])
	// Output:
	// status 1, hits the ground at t=1.427843 s
}

func ExampleSolveIVPDist() {
	// y' = -y on a distributed array; it runs unchanged under mpirun.
	world := mpi.World()
	y0, err := dist.Full(world, []int{1000}, 1.0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer y0.Free()
	res, err := integrate.SolveIVPDist(func(t float64, y, dydt *dist.Array[float64]) error {
		out := dydt.LocalData()
		for i, v := range y.LocalData() {
			out[i] = -v
		}
		return nil
	}, 0, 1, y0, &integrate.IVPOptions{RelTol: 1e-8, AbsTol: 1e-10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Y[0].Free()
	sum, _ := dist.Sum(res.Y[0])
	fmt.Printf("sum of y(1) = %.5f (1000/e = %.5f)\n", sum, 1000/math.E)
	// Output:
	// sum of y(1) = 367.87944 (1000/e = 367.87944)
}

// Many damped oscillators, x_tt = -x - c x_t as y = (x, x_t), each with
// its own damping c, integrated a chunk of systems at a time: f is told
// which systems it evaluates. The exact solution at t = 1 for c = 0 is (cos 1, -sin 1);
// for c = 0.999 the output is what SciPy's solve_ivp gives.
func ExampleSolveIVPIndexed() {
	const nsys = 1000
	damping := make([]float64, nsys)
	y0 := make([]float64, 2*nsys)
	for i := range damping {
		damping[i] = float64(i) / nsys
		y0[2*i] = 1
	}
	f := func(idx []int, t, y, dy []float64) {
		for k, i := range idx {
			dy[2*k] = y[2*k+1]
			dy[2*k+1] = -y[2*k] - damping[i]*y[2*k+1]
		}
	}
	res, err := integrate.SolveIVPIndexed(f, nsys, 2, 0, 1, y0, &integrate.IVPOptions{Method: integrate.RK45, RelTol: 1e-9, AbsTol: 1e-12})
	if err != nil {
		fmt.Println(err)
		return
	}
	y := res.Y[1]
	fmt.Printf("c = 0: y(1) = (%.6f, %.6f), exact (%.6f, %.6f)\n", y[0], y[1], math.Cos(1), -math.Sin(1))
	fmt.Printf("c = 0.999: y(1) = (%.6f, %.6f)\n", y[2*(nsys-1)], y[2*nsys-1])
	// Output:
	// c = 0: y(1) = (0.540302, -0.841471), exact (0.540302, -0.841471)
	// c = 0.999: y(1) = (0.659606, -0.533727)
}
