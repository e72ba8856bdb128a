package heat_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers/heat"
)

// Every example prints the same on every rank: it runs unchanged on one
// process and under mpirun.

func ExampleSolve() {
	world := mpi.World()
	res, err := heat.Solve(world, heat.Config{N: 61, Iters: 40})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The checksum agrees at any rank count up to rounding in the last
	// digits.
	fmt.Printf("sum of u over the 61 x 61 interior after 40 iterations: %.10g\n", res.Checksum)
	// Output:
	// sum of u over the 61 x 61 interior after 40 iterations: 179.6553705
}

func ExampleConfig_Check() {
	cfg := heat.Config{N: 64, Iters: 100, Every: 10}
	fmt.Println(cfg.Check())
	cfg.Checkpoint = "ck"
	fmt.Println(cfg.Check())
	// Output:
	// heat: Every 10 without Checkpoint: say where to save
	// <nil>
}
