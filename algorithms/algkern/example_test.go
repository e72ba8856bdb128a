package algkern_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/algorithms/algkern"
	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu"
)

// Particles binned by Morton key, summed per cell and filtered, on host
// arrays (one rank, no GPU): the same calls on device arrays run the CUDA
// kernels and give the same bits.
func Example() {
	xs := backend.Wrap([]float64{0.1, 0.9, 0.6, 0.2, 0.4})
	ys := backend.Wrap([]float64{0.1, 0.9, 0.2, 0.3, 0.45})
	keys := backend.Wrap(make([]uint64, 5))
	// Two levels: 4 x 4 cells of the unit square.
	if err := algkern.MortonKeys2(keys, xs, ys, [2]float64{0, 0}, [2]float64{1, 1}, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("keys:", keys.Data())

	// The masses of particles sorted by cell, summed per cell (16 cells).
	cells := backend.Wrap([]int64{0, 0, 1, 3, 15})
	mass := backend.Wrap([]float64{1, 0.5, 2, 0.25, 4})
	perCell := backend.Wrap(make([]float64, 16))
	if err := algkern.SegmentSum(perCell, cells, mass, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mass per cell:", perCell.Data()[:4], perCell.Data()[15])

	// The particles in the lower left quarter (key < 4).
	mask := backend.Wrap(make([]uint8, 5))
	for i, k := range keys.Data() {
		if k < 4 {
			mask.Data()[i] = 1
		}
	}
	sel := backend.Wrap(make([]float64, 5))
	m, err := algkern.Compact(sel, xs, mask)
	fmt.Println("x in the lower left quarter:", sel.Data()[:m], err)
	// Output:
	// keys: [0 15 4 2 3]
	// mass per cell: [1.5 2 0 0.25] 4
	// x in the lower left quarter: [0.1 0.2 0.4] <nil>
}
