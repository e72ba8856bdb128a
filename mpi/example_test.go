package mpi_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/mpi"
)

// The examples print the same on every rank, so they pass on one process
// and under mpirun.

func ExampleAllreduce() {
	world := mpi.World()
	// Each rank contributes its rank and 1; the sums say how many ranks there
	// are and what their ranks add up to.
	sums := make([]int64, 2)
	if err := mpi.Allreduce(world, []int64{int64(world.Rank()), 1}, sums, mpi.Sum); err != nil {
		panic(err)
	}
	p := int64(world.Size())
	fmt.Println(sums[0] == p*(p-1)/2, sums[1] == p)
	// Output:
	// true true
}

func ExampleAllgatherv() {
	world := mpi.World()
	// Rank r contributes r+1 copies of r.
	p, me := world.Size(), world.Rank()
	counts := make([]int, p)
	total := 0
	for r := range counts {
		counts[r] = r + 1
		total += r + 1
	}
	mine := make([]int32, me+1)
	for i := range mine {
		mine[i] = int32(me)
	}
	all := make([]int32, total)
	if err := mpi.Allgatherv(world, mine, all, counts, nil); err != nil {
		panic(err)
	}
	fmt.Println(all[:1], len(all) == p*(p+1)/2)
	// Output:
	// [0] true
}
