package linalg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// normInput returns gen.py's array name in a layout.
func normInput(t *testing.T, c mpi.Comm, name string, l lay) *dist.Array[float64] {
	switch name {
	case "v":
		return mk[float64](t, c, []int{7}, 2, 0, l.opts([]int{7}, c.Size())...)
	case "x":
		return mk[float64](t, c, []int{3, 4}, 0, 0, l.opts([]int{3, 4}, c.Size())...)
	case "xt":
		g := make([]float64, 12)
		for i := 0; i < 3; i++ {
			for j := 0; j < 4; j++ {
				g[j*3+i] = fval(i*4+j, 0)
			}
		}
		return mkData(t, c, []int{4, 3}, g, l.opts([]int{4, 3}, c.Size())...)
	}
	return mk[float64](t, c, []int{2, 3, 4}, 1, 0, l.opts([]int{2, 3, 4}, c.Size())...)
}

var x3Layouts = []lay{
	matLayouts[0], matLayouts[2],
	{"axis2", func([]int, int) []dist.Option { return []dist.Option{dist.SplitAxis(2)} }},
	matLayouts[3],
	{"grid", func([]int, int) []dist.Option { return []dist.Option{dist.ProcessGrid(0, 0, 0)} }},
	matLayouts[6],
}

func TestNorm(t *testing.T) {
	c := mpitest.World(t)
	for _, nc := range normCases {
		lays := matLayouts
		switch nc.name {
		case "v":
			lays = vecLayouts
		case "x3":
			lays = x3Layouts
		}
		for _, l := range lays {
			x := normInput(t, c, nc.name, l)
			what := fmt.Sprintf("%s %v %s, ord %v, axes %v", nc.name, x.Shape(), l.name, nc.ord, nc.axes)
			y, err := Norm(x, nc.ord, nc.axes...)
			mpitest.Check(t, c, err == nil, "%s: %v", what, err)
			if err == nil {
				e := relErr(all(t, y), nc.want)
				mpitest.Check(t, c, e < 1e-13 && slices.Equal(y.Shape(), nc.shape), "%s: shape %v (want %v), relative error %.3g against NumPy", what, y.Shape(), nc.shape, e)
				y.Free()
			}
			x.Free()
		}
	}
}

func TestNormComplexAndFloat32(t *testing.T) {
	c := mpitest.World(t)
	for _, nc := range normCasesC {
		for _, l := range matLayouts {
			x := mk[complex128](t, c, []int{3, 4}, 0, 2, l.opts([]int{3, 4}, c.Size())...)
			what := fmt.Sprintf("complex %s, ord %v, axes %v", l.name, nc.ord, nc.axes)
			y, err := NormComplex[float64](x, nc.ord, nc.axes...)
			mpitest.Check(t, c, err == nil, "%s: %v", what, err)
			if err == nil {
				e := relErr(all(t, y), nc.want)
				mpitest.Check(t, c, e < 1e-13 && slices.Equal(y.Shape(), nc.shape), "%s: shape %v, relative error %.3g against NumPy", what, y.Shape(), e)
				y.Free()
			}
			x.Free()
		}
	}
	x := mk[complex128](t, c, []int{3, 4}, 0, 2)
	_, err := NormComplex[float32](x, OrdDefault)
	mpitest.Check(t, c, err != nil && contains(err.Error(), "type of T's parts"), "NormComplex[float32] of complex128: %v", err)
	x.Free()
	// float32 on the fake device: float32 results.
	for _, nc := range normCases[:12] {
		if nc.name == "x3" {
			continue
		}
		var x *dist.Array[float32]
		if nc.name == "v" {
			x = mk[float32](t, c, []int{7}, 2, 0, dist.OnBackend(fakedev.Default))
		} else {
			x = mk[float32](t, c, []int{3, 4}, 0, 0, dist.OnBackend(fakedev.Default))
		}
		y, err := Norm(x, nc.ord, nc.axes...)
		mpitest.Check(t, c, err == nil, "float32 %s %v: %v", nc.name, nc.ord, err)
		if err == nil {
			e := relErr(all(t, y), nc.want)
			mpitest.Check(t, c, e < 1e-5 && y.Device() == x.Device(), "float32 %s %v %v: relative error %.3g, on %v", nc.name, nc.ord, nc.axes, e, y.Device())
			y.Free()
		}
		x.Free()
	}
}

func TestNormRefusals(t *testing.T) {
	c := mpitest.World(t)
	v := mk[float64](t, c, []int{7}, 2, 0)
	x := mk[float64](t, c, []int{3, 4}, 0, 0)
	x3 := mk[float64](t, c, []int{2, 3, 4}, 1, 0)
	e, _ := dist.Zeros[float64](c, []int{3, 0})
	for _, tc := range []struct {
		name string
		x    *dist.Array[float64]
		ord  Ord
		axes []int
		says string
	}{
		{"fro of a vector", v, OrdFro, nil, "invalid norm order 'fro' for vectors"},
		{"nuc along one axis", x, OrdNuc, []int{1}, "for vectors"},
		{"3 of a matrix", x, OrdP(3), nil, "invalid norm order 3 for matrices"},
		{"2 of a stack", x3, OrdP(2), []int{1, 2}, "stack of matrices"},
		{"nuc of a stack", x3, OrdNuc, []int{0, 2}, "stack of matrices"},
		{"numeric ord of 3-D, no axes", x3, OrdP(1), nil, "improper number of dimensions"},
		{"three axes", x3, OrdDefault, []int{0, 1, 2}, "improper number of dimensions"},
		{"duplicate axes", x, OrdDefault, []int{1, -1}, "duplicate axes"},
		{"axis out of range", x, OrdDefault, []int{2}, "out of range"},
		{"max of empty rows", e, OrdP(math.Inf(1)), []int{1}, "zero-size"},
		{"matrix 1 of a 3 x 0 matrix", e, OrdP(1), nil, "zero-size"},
		{"2 of empty", e, OrdP(2), nil, "empty matrix"},
	} {
		y, err := Norm(tc.x, tc.ord, tc.axes...)
		mpitest.Check(t, c, y == nil && err != nil && contains(err.Error(), tc.says), "%s: %v, want an error that says %q", tc.name, err, tc.says)
	}
	_, err := Norm(e, OrdP(math.Inf(-1)), 1)
	mpitest.Check(t, c, errors.Is(err, dist.ErrEmpty), "min of an empty line: %v, want dist.ErrEmpty", err)
	// The sums of empty lines are 0, as NumPy's.
	for _, o := range []Ord{OrdDefault, OrdP(1), OrdP(0), OrdP(3)} {
		y, err := Norm(e, o, 1)
		mpitest.Check(t, c, err == nil && slices.Equal(all(t, y), []float64{0, 0, 0}), "ord %v of empty rows: %v", o, err)
		y.Free()
	}
	// NumPy: the Inf matrix norm of a 3 x 0 matrix is the max of its row
	// sums, 0.
	y, err := Norm(e, OrdP(math.Inf(1)))
	mpitest.Check(t, c, err == nil && all(t, y)[0] == 0, "inf of a 3 x 0 matrix: %v", err)
	y.Free()
	y, err = Norm(e, OrdNuc)
	mpitest.Check(t, c, err == nil && all(t, y)[0] == 0, "nuc of an empty matrix: %v", err)
	y.Free()
	for _, a := range []*dist.Array[float64]{v, x, x3, e} {
		a.Free()
	}
}
