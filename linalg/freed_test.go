package linalg

import (
	"errors"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestFreed: every function returns at once, on every rank, an error
// wrapping dist.ErrFreed that names it, for a freed operand.
func TestFreed(t *testing.T) {
	c := mpitest.World(t)
	live := mk[float64](t, c, []int{4, 4}, 0, 0)
	lb := mk[float64](t, c, []int{4}, 1, 0)
	defer live.Free()
	defer lb.Free()
	for _, tc := range []struct {
		name string
		f    func(x *dist.Array[float64]) error
	}{
		{"Solve", func(x *dist.Array[float64]) error { _, err := Solve(x, lb); return err }},
		{"Solve", func(x *dist.Array[float64]) error { _, err := Solve(live, x); return err }},
		{"QR", func(x *dist.Array[float64]) error { _, _, err := QR(x); return err }},
		{"Lstsq", func(x *dist.Array[float64]) error { _, err := Lstsq(x, lb); return err }},
		{"Norm", func(x *dist.Array[float64]) error { _, err := Norm(x, OrdDefault); return err }},
		{"Outer", func(x *dist.Array[float64]) error { _, err := Outer(x, lb); return err }},
	} {
		// A freed a of [4, 4] (b of [4] in the second Solve case: the
		// shapes are checked after the freed operands).
		x := mk[float64](t, c, []int{4, 4}, 0, 0)
		x.Free()
		err := tc.f(x)
		mpitest.Check(t, c, errors.Is(err, dist.ErrFreed) && contains(err.Error(), "linalg: "+tc.name), "%s of a freed array: %v", tc.name, err)
	}
	xc := mk[complex128](t, c, []int{2, 2}, 0, 1)
	xc.Free()
	_, err := NormComplex[float64](xc, OrdDefault)
	mpitest.Check(t, c, errors.Is(err, dist.ErrFreed), "NormComplex of a freed array: %v", err)
}
