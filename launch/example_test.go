package launch_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/launch"
)

// What MPICH's mpiexec -np 2 gives its second rank.
func ExampleDetectWith() {
	env := map[string]string{
		"PMI_RANK": "1", "PMI_SIZE": "2", "PMI_FD": "6",
		"MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2",
	}
	d := launch.DetectWith(func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	})
	fmt.Printf("%s (%s library), rank %d of %d (%s), local rank %d of %d\n",
		d.Kind, d.Kind.Library(), d.Rank, d.Size, d.SizeVariable, d.LocalRank, d.LocalSize)
	// Output: MPICH's hydra mpiexec (MPICH library), rank 1 of 2 (PMI_SIZE), local rank 1 of 2
}
