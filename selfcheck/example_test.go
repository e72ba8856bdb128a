package selfcheck_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/selfcheck"
)

// Every example prints the same on every rank: it runs unchanged on one
// process and under mpirun.

func ExampleRun() {
	rep, err := selfcheck.Run(mpi.World(), selfcheck.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d passed, %d failed\n", rep.Passed, rep.Failed)
	fmt.Println(rep.Checks[0].Name, rep.Checks[0].Result)
	// Output:
	// 14 passed, 0 failed
	// barrier pass
}

func ExampleFaultNames() {
	fmt.Println(selfcheck.FaultNames())
	// Output:
	// [panic collective-error mismatch hang]
}
