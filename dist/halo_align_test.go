package dist

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// TestGhostedBlockAlignment checks where the block of a ghosted array
// starts in its allocation: on the first 64-byte boundary after the ghost
// layers for a small block, a 4 KiB boundary for one of pageAlignAbove bytes or more
// (CG's vectors measured 10-20% slower in their update passes with the
// block 64 bytes into a page). The offset is checked from the allocation's
// start, and the address itself where the allocation starts on a page, as
// Go's large allocations do.
func TestGhostedBlockAlignment(t *testing.T) {
	cases := []struct {
		shape []int
		w     int
	}{
		{[]int{10, 7}, 1},
		{[]int{64, 33}, 2},
		{[]int{300, 1026}, 1},   // 2.4 MiB of float64
		{[]int{130, 1026}, 1},   // just above 1 MiB (float64)
		{[]int{120, 1026}, 1},   // just below (float64)
		{[]int{40, 30, 222}, 2}, // three axes
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.shape, "/w", c.w), func(t *testing.T) {
			checkBlockAlignment[float64](t, c.shape, c.w)
			checkBlockAlignment[float32](t, c.shape, c.w)
			checkBlockAlignment[complex128](t, c.shape, c.w)
			checkBlockAlignment[int8](t, c.shape, c.w)
		})
	}
}

func checkBlockAlignment[T backend.Numeric](t *testing.T, shape []int, w int) {
	t.Helper()
	a, err := Zeros[T](mpi.World(), shape, Ghosts(w))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	size := backend.DTypeOf[T]().Size()
	ghost := uintptr(w * prod(shape[1:]) * size) // bytes of one side's ghost layers
	align := uintptr(64)
	if uintptr(prod(a.LocalShape())*size)+2*ghost >= pageAlignAbove {
		align = 4096
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(a.gh.alloc.Data())))
	block := uintptr(unsafe.Pointer(unsafe.SliceData(a.LocalData())))
	ghosted := uintptr(unsafe.Pointer(unsafe.SliceData(a.Ghosted().Data())))
	if got, want := block-ghosted, ghost; got != want {
		t.Fatalf("%T: the block starts %d bytes into the ghosted storage, want %d", *new(T), got, want)
	}
	if off := block - base; off%align != 0 || off-ghost >= align {
		t.Errorf("%T: the block starts %d bytes into its allocation: want the first multiple of %d after the ghost layers (%d bytes)", *new(T), off, align, ghost)
	}
	if base%align == 0 && block%align != 0 {
		t.Errorf("%T: the allocation starts at %#x, on a %d-byte boundary, but the block at %#x", *new(T), base, align, block)
	}
}
