package dist_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// broadcastRef returns the flat index in bshape of the element that
// NumPy's broadcasting pairs with flat index i of shape.
func broadcastRef(i int, shape, bshape []int) int {
	idx := make([]int, len(shape))
	sliceUnravel(i, shape, idx)
	k := len(shape) - len(bshape)
	j := 0
	for a, n := range bshape {
		v := idx[k+a]
		if n == 1 {
			v = 0
		}
		j = j*n + v
	}
	return j
}

var broadcastCases = []struct{ shape, bshape []int }{
	{[]int{7}, []int{1}},
	{[]int{7}, []int{7}},
	{[]int{0}, []int{1}},
	{[]int{2}, []int{1}},
	{[]int{5, 3}, []int{3}},
	{[]int{5, 3}, []int{1, 3}},
	{[]int{5, 3}, []int{5, 1}},
	{[]int{5, 3}, []int{1}},
	{[]int{1, 4}, []int{4}},
	{[]int{7, 2}, []int{7, 2}},
	{[]int{0, 3}, []int{3}},
	{[]int{3, 4, 5}, []int{5}},
	{[]int{3, 4, 5}, []int{4, 1}},
	{[]int{3, 4, 5}, []int{3, 1, 5}},
	{[]int{3, 4, 5}, []int{1, 1, 1}},
	{[]int{2, 5, 3}, []int{2, 5, 1}},
}

func binaryRef(op backend.BinaryOp, a, b float64) float64 {
	switch op {
	case backend.Add:
		return a + b
	case backend.Sub:
		return a - b
	case backend.Mul:
		return a * b
	}
	return a / b
}

// TestBroadcast checks Broadcast of split (and replicated) arrays with a
// replicated operand of every broadcastable shape, on either side, and
// into the split operand itself.
func TestBroadcast(t *testing.T) {
	c := mpitest.World(t)
	bval := func(i int) float64 { return 3 + float64(i)*0.5 }
	for _, bc := range broadcastCases {
		for _, l := range sliceLayouts(bc.shape) {
			for _, op := range []backend.BinaryOp{backend.Sub, backend.Div} {
				for _, flip := range []bool{false, true} {
					t.Run(fmt.Sprintf("%v-%v/%v/%v/flip%v", bc.shape, bc.bshape, l, op, flip), func(t *testing.T) {
						want := make([]float64, prod(bc.shape))
						for i := range want {
							a, b := ref(i), bval(broadcastRef(i, bc.shape, bc.bshape))
							if flip {
								a, b = b, a
							}
							want[i] = binaryRef(op, a, b)
						}
						x := sliceArray(t, c, bc.shape, l, ref)
						defer x.Free()
						b := sliceArray(t, c, bc.bshape, sliceLayout{dist.Replicated, false}, bval)
						defer b.Free()
						var err error
						if flip {
							err = dist.Broadcast(op, x, b, x)
						} else {
							err = dist.Broadcast(op, x, x, b)
						}
						if err != nil {
							t.Fatal(err)
						}
						got := gatherAll(t, x)
						mpitest.Check(t, c, slices.Equal(got, want), "Broadcast: %v, want %v", got, want)
					})
				}
			}
		}
	}
}
