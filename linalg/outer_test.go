package linalg

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestOuter(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, m := range []int{5, 1, 0} {
		for _, la := range vecLayouts {
			for _, lb := range vecLayouts {
				a := mk[float64](t, c, []int{m}, 0, 0, la.opts([]int{m}, p)...)
				b := mk[float64](t, c, []int{4}, 1, 0, lb.opts([]int{4}, p)...)
				what := fmt.Sprintf("a [%d] %s, b %s", m, la.name, lb.name)
				y, err := Outer(a, b)
				mpitest.Check(t, c, err == nil, "%s: %v", what, err)
				if err != nil {
					continue
				}
				want := make([]float64, m*4)
				for i := range want {
					want[i] = fval(i/4, 0) * fval(i%4, 1)
				}
				got := all(t, y)
				mpitest.Check(t, c, slices.Equal(got, want) && slices.Equal(y.Shape(), []int{m, 4}), "%s: %v, want %v", what, got, want)
				wantAxis := 0
				if la.name == "replicated" {
					wantAxis = dist.Replicated
				}
				ok := y.Layout().Axis() == wantAxis
				if ok && wantAxis == 0 {
					ok = slices.Equal(y.Layout().Counts(), a.Layout().Counts())
				}
				mpitest.Check(t, c, ok, "%s: result %v for a %v", what, y.Layout(), a.Layout())
				y.Free()
				a.Free()
				b.Free()
			}
		}
	}
	// Integers wrap; complex is not conjugated; N-D inputs are flattened;
	// the fake device.
	ai, _ := dist.Full[int32](c, []int{3}, 1<<20)
	bi, _ := dist.Full[int32](c, []int{2}, 1<<12)
	yi, err := Outer(ai, bi)
	mpitest.Check(t, c, err == nil && all(t, yi)[0] == 0, "int32: %v (2^32 wraps to 0)", err)
	ac := mk[complex128](t, c, []int{2, 2}, 0, 1, dist.OnBackend(fakedev.Default))
	bc := mk[complex128](t, c, []int{3}, 2, 3, dist.OnBackend(fakedev.Default))
	yc, err := Outer(ac, bc)
	mpitest.Check(t, c, err == nil, "complex: %v", err)
	if err == nil {
		got := all(t, yc)
		ok := slices.Equal(yc.Shape(), []int{4, 3}) && yc.Device() == ac.Device()
		for i := range got {
			w := complex(fval(i/3, 0), fval(i/3, 1)) * complex(fval(i%3, 2), fval(i%3, 3))
			ok = ok && got[i] == w
		}
		mpitest.Check(t, c, ok, "complex: %v", got)
		yc.Free()
	}
	// 2-D operands on a process grid are flattened.
	ag := mk[float64](t, c, []int{2, 3}, 0, 0, dist.ProcessGrid(0, 0))
	bg := mk[float64](t, c, []int{2, 2}, 1, 0, dist.ProcessGrid(0, 0))
	yg, err := Outer(ag, bg)
	mpitest.Check(t, c, err == nil, "grid: %v", err)
	if err == nil {
		got, ok := all(t, yg), slices.Equal(yg.Shape(), []int{6, 4})
		for i := range got {
			ok = ok && got[i] == fval(i/4, 0)*fval(i%4, 1)
		}
		mpitest.Check(t, c, ok, "grid: %v of shape %v", got, yg.Shape())
		yg.Free()
	}
	// Different devices: an error.
	bd := mk[float64](t, c, []int{2}, 1, 0, dist.OnBackend(fakedev.Default))
	_, err = Outer(ag, bd)
	mpitest.Check(t, c, err != nil && contains(err.Error(), "move one to the other's device"), "different devices: %v", err)
	for _, x := range []*dist.Array[float64]{ag, bg, bd} {
		x.Free()
	}
	for _, x := range []*dist.Array[int32]{ai, bi, yi} {
		x.Free()
	}
	ac.Free()
	bc.Free()
}
