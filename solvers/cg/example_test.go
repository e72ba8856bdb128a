package cg_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers/cg"
)

// Every example prints the same on every rank: it runs unchanged on one
// process and under mpirun.

func ExampleSolve() {
	world := mpi.World()
	res, err := cg.Solve(world, cg.Config{N: 61, Tol: 1e-8})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The iterations are the same at any rank count; the sum of x agrees
	// up to rounding in the last digits.
	fmt.Printf("converged %v in %d iterations, relative residual %.2g\n", res.Converged, res.Iters, res.RelRes)
	fmt.Printf("sum of x over the 61 x 61 unknowns: %.10g\n", res.Checksum)
	// Output:
	// converged true in 114 iterations, relative residual 8.6e-09
	// sum of x over the 61 x 61 unknowns: 518864.4785
}

func ExampleSolve_maxIter() {
	world := mpi.World()
	// Too few iterations is not an error: Converged says so.
	res, err := cg.Solve(world, cg.Config{N: 61, Tol: 1e-8, MaxIter: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("converged", res.Converged, "after", res.Iters, "iterations")
	// Output:
	// converged false after 10 iterations
}

func ExampleConfig_Check() {
	fmt.Println(cg.Config{N: 64, Tol: -1}.Check())
	// Output:
	// cg: Tol -1: want 0 or more
}

// ExampleCG solves a 1-D Poisson problem, -u” = 1 on 99 interior points
// with u = 0 at both ends, with a matrix-free operator over an array with
// ghost layers and a Jacobi preconditioner.
func ExampleCG() {
	world := mpi.World()
	n := 99
	b, err := dist.Full(world, []int{n}, 1.0, dist.Ghosts(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	x, _ := dist.ZerosLike(b)
	// A u = 2u - left - right: exchange the ghosts, then a stencil of the
	// caller's over each block (here a Go loop on the host).
	a := func(dst, src *dist.Array[float64]) error {
		if err := src.Exchange(); err != nil {
			return err
		}
		return dist.ApplyStencil(dst, src, 1, func(d, s *backend.Array[float64], rows, _ int) error {
			out, in := d.Data(), s.Data()
			for i := 1; i < rows-1; i++ {
				out[i] = 2*in[i] - in[i-1] - in[i+1]
			}
			return nil
		})
	}
	jacobi := func(dst, src *dist.Array[float64]) error {
		dist.Copy(dst, src)
		dist.Scale(0.5, dst)
		return nil
	}
	st, err := cg.CG(a, b, x, cg.Options{Tol: 1e-10, Precond: jacobi})
	if err != nil {
		fmt.Println(err)
		return
	}
	mid, _ := dist.Get(x, n/2)
	// The exact solution is u_i = (i+1)(n-i)/2: 1250 in the middle.
	fmt.Printf("converged %v in %d iterations; u[%d] = %.6f\n", st.Converged, st.Iters, n/2, mid)
	// Output:
	// converged true in 50 iterations; u[49] = 1250.000000
}
