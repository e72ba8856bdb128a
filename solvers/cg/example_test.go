package cg_test

import (
	"fmt"

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
