package dist_test

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// BenchmarkElementwise times the elementwise functions on small blocks,
// where the per-call checks (layouts, devices, freed arrays) weigh most.
func BenchmarkElementwise(b *testing.B) {
	c := mpi.World()
	for _, n := range []int{16, 4096} {
		x, _ := dist.Full(c, []int{n}, 1.5)
		y, _ := dist.Full(c, []int{n}, 2.5)
		b.Run(fmt.Sprint("Add/", n), func(b *testing.B) {
			for range b.N {
				dist.Add(y, x, y)
			}
		})
		b.Run(fmt.Sprint("MulScalar/", n), func(b *testing.B) {
			for range b.N {
				dist.MulScalar(y, x, 0.5)
			}
		})
		b.Run(fmt.Sprint("Axpy/", n), func(b *testing.B) {
			for range b.N {
				dist.Axpy(0.5, x, y)
			}
		})
		x.Free()
		y.Free()
	}
}
