// Command panicker panics on rank 1 after a barrier while the other ranks
// wait in a barrier and an allreduce that rank 1 never joins: mpi.Main must
// end the whole job with the panic text and the rank, never leave the other
// ranks waiting.
package main

import (
	"fmt"
	"os"

	"github.com/xpmpi/xpmpi/mpi"
)

func main() {
	os.Exit(mpi.Main(func(world mpi.Comm) error {
		if err := world.Barrier(); err != nil {
			return err
		}
		if world.Rank() == 1 {
			panic("deliberate panic on rank 1")
		}
		if err := world.Barrier(); err != nil {
			return err
		}
		sum, err := mpi.AllreduceValue(world, int64(1), mpi.Sum)
		if err != nil {
			return err
		}
		fmt.Printf("rank %d: allreduce gave %d: rank 1 should have aborted the job\n", world.Rank(), sum)
		return nil
	}))
}
