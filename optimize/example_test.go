package optimize_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/optimize"
	"gonum.org/v1/gonum/mat"
)

func ExampleNewton() {
	// Kepler's equation E - e sin E = M for three orbits at once: one call
	// of f (and of f') per iteration evaluates every orbit still active.
	m := []float64{0.5, 1.5, 3}
	e := []float64{0.1, 0.5, 0.9}
	f := func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = x[k] - e[i]*math.Sin(x[k]) - m[i]
		}
	}
	fprime := func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = 1 - e[i]*math.Cos(x[k])
		}
	}
	res, err := optimize.Newton(f, fprime, m, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, E := range res.Root {
		fmt.Printf("E = %.10f after %d steps (residual %.0e)\n", E, res.Iterations[i], math.Abs(res.Residual[i]))
	}
	// Output:
	// E = 0.5524799869 after 3 steps (residual 0e+00)
	// E = 1.9621892876 after 5 steps (residual 0e+00)
	// E = 3.0670374966 after 3 steps (residual 0e+00)
}

func ExampleNewtonFDF() {
	// Kepler's equation again, with the value and the derivative from one
	// callback: math.Sincos gives the sine that f needs and the cosine
	// that f' needs in one call. The roots are ExampleNewton's.
	m := []float64{0.5, 1.5, 3}
	e := []float64{0.1, 0.5, 0.9}
	fdf := func(idx []int, x, f, df []float64) {
		for k, i := range idx {
			s, c := math.Sincos(x[k])
			f[k] = x[k] - e[i]*s - m[i]
			df[k] = 1 - e[i]*c
		}
	}
	res, err := optimize.NewtonFDF(fdf, m, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, E := range res.Root {
		fmt.Printf("E = %.10f after %d steps\n", E, res.Iterations[i])
	}
	fmt.Println("calls of fdf:", res.Calls) // five iterations and the residuals
	// Output:
	// E = 0.5524799869 after 3 steps
	// E = 1.9621892876 after 5 steps
	// E = 3.0670374966 after 3 steps
	// calls of fdf: 6
}

func ExampleNewtonInto() {
	// Two orbits at three times: the mean anomalies advance, and every
	// solve writes into the same result, so the loop allocates nothing
	// after the first solve.
	m0 := []float64{0.5, 1.5}
	e := []float64{0.1, 0.5}
	m := make([]float64, len(m0))
	f := func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = x[k] - e[i]*math.Sin(x[k]) - m[i]
		}
	}
	fprime := func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = 1 - e[i]*math.Cos(x[k])
		}
	}
	var res optimize.NewtonResult
	for step := range 3 {
		for i := range m {
			m[i] = m0[i] + 0.25*float64(step)
		}
		if err := optimize.NewtonInto(&res, f, fprime, m, nil); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("step %d: E = %.10f %.10f\n", step, res.Root[0], res.Root[1])
	}
	// Output:
	// step 0: E = 0.5524799869 1.9621892876
	// step 1: E = 0.8233421852 2.1644509284
	// step 2: E = 1.0885977524 2.3542427582
}

func ExampleNewtonDist() {
	world := mpi.World()
	// x^2 = c for c = 1..10, each rank solving its block.
	x0, err := dist.Full(world, []int{10}, 1.0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x0.Free()
	lo, _ := x0.Range()
	f := func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = x[k]*x[k] - float64(lo+i+1)
		}
	}
	fprime := func(idx []int, x, out []float64) {
		for k := range idx {
			out[k] = 2 * x[k]
		}
	}
	res, err := optimize.NewtonDist(f, fprime, x0, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Root.Free()
	defer res.Residual.Free()
	root, _ := dist.Get(res.Root, 1)
	fmt.Printf("%d of 10 converged in at most %d steps; sqrt(2) = %.12f\n", res.NumConverged, res.MaxIterations, root)
	// Output:
	// 10 of 10 converged in at most 6 steps; sqrt(2) = 1.414213562373
}

func ExampleRoot() {
	// Powell's badly scaled system, as fsolve solves it.
	f := func(x, fx []float64) {
		fx[0] = 1e4*x[0]*x[1] - 1
		fx[1] = math.Exp(-x[0]) + math.Exp(-x[1]) - 1.0001
	}
	res, err := optimize.Root(f, []float64{0, 1}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = [%.6e %.6f], %d calls: %s\n", res.X[0], res.X[1], res.NFev, res.Message)

	// With its Jacobian (hybrj).
	jac := func(x []float64, j *mat.Dense) {
		j.Set(0, 0, 1e4*x[1])
		j.Set(0, 1, 1e4*x[0])
		j.Set(1, 0, -math.Exp(-x[0]))
		j.Set(1, 1, -math.Exp(-x[1]))
	}
	res, _ = optimize.Root(f, []float64{0, 1}, &optimize.RootOptions{Jac: jac})
	fmt.Printf("with the Jacobian: %d calls, %d Jacobians\n", res.NFev, res.NJev)
	// Output:
	// x = [1.098159e-05 9.106147], 177 calls: The solution converged.
	// with the Jacobian: 167 calls, 5 Jacobians
}

func ExampleMinimize() {
	rosen := func(x []float64) float64 {
		a, b := x[1]-x[0]*x[0], 1-x[0]
		return 100*(a*a) + b*b
	}
	res, err := optimize.Minimize(rosen, []float64{-1.2, 1}, &optimize.MinimizeOptions{Method: optimize.NelderMead})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = [%.4f %.4f] in %d iterations, %d evaluations: %s\n", res.X[0], res.X[1], res.NIt, res.NFev, res.Message)
	// Output:
	// x = [1.0000 1.0000] in 85 iterations, 159 evaluations: Optimization terminated successfully.
}

func ExampleMinimizeDist() {
	world := mpi.World()
	// f(x) = sum (x_i - i)^2 / 2 over a distributed array, with the bound
	// x_i <= 3; its terms summed exactly, so any rank count gives the same
	// bits.
	const n = 6
	x0, _ := dist.Zeros[float64](world, []int{n})
	defer x0.Free()
	upper, _ := dist.Full(world, []int{n}, 3.0)
	defer upper.Free()
	f := func(x, grad *dist.Array[float64]) (float64, error) {
		lo, _ := x.Range()
		g := grad.LocalData()
		terms := make([]float64, len(g))
		for k, v := range x.LocalData() {
			d := v - float64(lo+k)
			terms[k], g[k] = d*d/2, d
		}
		return optimize.ExactSum(x.Comm(), terms)
	}
	res, err := optimize.MinimizeDist(f, x0, &optimize.DistMinimizeOptions{Upper: upper})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.X.Free()
	x, _ := dist.Allgather(res.X)
	fmt.Printf("x = %.6f, f = %g: %s\n", x, res.Fun, res.Message)
	// Output:
	// x = [0.000000 1.000000 2.000000 3.000000 3.000000 3.000000], f = 2.5: CONVERGENCE: NORM_OF_PROJECTED_GRADIENT_<=_PGTOL
}

func ExampleNewtonKrylov() {
	world := mpi.World()
	// u^3 + u - c_i = 0 for every element, as a "large" system.
	x0, _ := dist.Zeros[float64](world, []int{100})
	defer x0.Free()
	F := func(x, fx *dist.Array[float64]) error {
		lo, _ := x.Range()
		out := fx.LocalData()
		for k, u := range x.LocalData() {
			out[k] = u*u*u + u - float64(lo+k)/10
		}
		return nil
	}
	res, err := optimize.NewtonKrylov(F, x0, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.X.Free()
	u, _ := dist.Get(res.X, 20) // u^3 + u = 2
	fmt.Printf("converged %v in %d Newton iterations, u[20] = %.6f\n", res.Converged, res.NIt, u)
	// Output:
	// converged true in 5 Newton iterations, u[20] = 1.000000
}

func ExampleExactSum() {
	// The sum is rounded once, so it does not depend on the order (or on
	// how the values are divided among ranks: here rank 0 holds them all).
	world := mpi.World()
	v := []float64{1e16, 1, -1e16, 1}
	local := v
	if world.Rank() != 0 {
		local = nil
	}
	s, _ := optimize.ExactSum(world, local)
	naive := 0.0
	for _, x := range v {
		naive += x
	}
	fmt.Println(s, naive)
	// Output:
	// 2 1
}
