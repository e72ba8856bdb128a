package dist_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// scanShapes are the shapes of the grid scans' and grid moments' tests:
// 2-D and 3-D, lengths that no rank count divides, fewer elements than
// ranks, and an empty axis.
var scanShapes = [][]int{{4, 3}, {5, 3}, {1, 2}, {3, 2, 5}, {2, 1, 3}, {0, 3}}

// numOf returns the integer v as a T (the real part for a complex T).
func numOf[T backend.Numeric](v int) T { return backend.ValueOf[T](backend.ScalarOf(int64(v))) }

// serialScan returns the cumulative sums (products) of the row-major
// array all of shape along axis, taken in T in the order of the axis.
func serialScan[T backend.Numeric](all []T, shape []int, axis int, prod bool) []T {
	pre, n, post := 1, shape[axis], 1
	for _, d := range shape[:axis] {
		pre *= d
	}
	for _, d := range shape[axis+1:] {
		post *= d
	}
	out := make([]T, len(all))
	for i := 0; i < pre; i++ {
		for k := 0; k < post; k++ {
			var acc T
			if prod {
				acc = numOf[T](1)
			}
			for j := 0; j < n; j++ {
				at := (i*n+j)*post + k
				if prod {
					acc *= all[at]
				} else {
					acc += all[at]
				}
				out[at] = acc
			}
		}
	}
	return out
}

// TestScanGrid checks Cumsum and Cumprod along every axis of arrays on
// process grids (every factorisation of the rank count, the DimsCreate
// grid, uneven blocks with empty ones) against the serial running sums
// and products of the gathered input, for real, integer and complex
// types, on the CPU and the fake device. The data are small integers, so
// that every result is exact. Before the fix, a scan along an axis that
// the grid splits restarted at every block boundary.
func TestScanGrid(t *testing.T) {
	c := mpitest.World(t)
	var e errs
	for _, bk := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, shape := range scanShapes {
			for _, gc := range gridCases(shape, c.Size()) {
				for axis := range shape {
					for _, prod := range []bool{false, true} {
						name := fmt.Sprintf("%s %v %s axis %d prod %v", bk.Name(), shape, gc.name, axis, prod)
						scanGridCase[float64](&e, c, name, shape, gc.opt, bk, axis, prod)
						scanGridCase[int32](&e, c, name, shape, gc.opt, bk, axis, prod)
						scanGridCase[uint8](&e, c, name, shape, gc.opt, bk, axis, prod)
						scanGridCase[complex128](&e, c, name, shape, gc.opt, bk, axis, prod)
						scanGridCase[complex64](&e, c, name, shape, gc.opt, bk, axis, prod)
					}
				}
			}
		}
	}
	e.check(t, c, "Cumsum/Cumprod on grids")
}

func scanGridCase[T backend.Numeric](e *errs, c mpi.Comm, name string, shape []int, opt dist.Option, bk backend.Backend, axis int, prod bool) {
	name = fmt.Sprintf("%s %v", name, backend.DTypeOf[T]())
	x, err := dist.FromFunc(c, shape, func(idx []int) T {
		v := 1
		for _, i := range idx {
			v = v*3 + i
		}
		if prod {
			return numOf[T](v%2 + 1) // 1 and 2: products stay exact
		}
		return numOf[T](v % 5)
	}, opt, dist.OnBackend(bk))
	if err != nil {
		e.add("%s: %v", name, err)
		return
	}
	defer x.Free()
	all, err := dist.Allgather(x)
	if err != nil {
		e.add("%s: Allgather: %v", name, err)
		return
	}
	want := serialScan(all, shape, axis, prod)
	// Both through the negative axis too: NumPy's axis - ndim.
	for _, ax := range []int{axis, axis - len(shape)} {
		var y *dist.Array[T]
		if prod {
			y, err = dist.Cumprod(x, ax)
		} else {
			y, err = dist.Cumsum(x, ax)
		}
		if err != nil {
			e.add("%s (axis %d): %v", name, ax, err)
			continue
		}
		if !y.Layout().Equal(x.Layout()) {
			e.add("%s (axis %d): layout %v, want %v", name, ax, y.Layout(), x.Layout())
		}
		got, err := dist.Allgather(y)
		y.Free()
		if err != nil {
			e.add("%s (axis %d): Allgather: %v", name, ax, err)
		} else if !slices.Equal(got, want) {
			e.add("%s (axis %d): got %v, want %v", name, ax, got, want)
		}
	}
}

// TestMomentsAxisGrid checks MeanAxis, VarAxis and StdAxis (and, on the
// same arrays, the other axis reductions) of arrays on process grids,
// which are redistributed first, against the same reduction of a
// replicated copy of the data, along every axis (and its negative
// alias), on the CPU and the fake device. Before the fix, the moments of
// any grid array panicked at every rank count.
func TestMomentsAxisGrid(t *testing.T) {
	c := mpitest.World(t)
	var e errs
	for _, bk := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, shape := range scanShapes {
			for _, gc := range gridCases(shape, c.Size()) {
				name := fmt.Sprintf("%s %v %s", bk.Name(), shape, gc.name)
				momentsGridCase(&e, c, name, shape, gc.opt, bk)
			}
		}
	}
	e.check(t, c, "axis reductions on grids")
}

func momentsGridCase(e *errs, c mpi.Comm, name string, shape []int, opt dist.Option, bk backend.Backend) {
	f := func(idx []int) float64 {
		v := 1
		for _, i := range idx {
			v = v*7 + i
		}
		return float64(v%11) - 4
	}
	x, err := dist.FromFunc(c, shape, f, opt, dist.OnBackend(bk))
	if err != nil {
		e.add("%s: %v", name, err)
		return
	}
	defer x.Free()
	r, err := dist.FromFunc(c, shape, f, dist.SplitAxis(dist.Replicated), dist.OnBackend(bk))
	if err != nil {
		e.add("%s: %v", name, err)
		return
	}
	defer r.Free()
	type red struct {
		name string
		f    func(x *dist.Array[float64], axis int) (*dist.Array[float64], error)
	}
	reds := []red{
		{"MeanAxis", dist.MeanAxis[float64]},
		{"VarAxis", func(x *dist.Array[float64], a int) (*dist.Array[float64], error) { return dist.VarAxis(x, a, 0) }},
		{"StdAxis ddof 1", func(x *dist.Array[float64], a int) (*dist.Array[float64], error) { return dist.StdAxis(x, a, 1) }},
		{"SumAxis", dist.SumAxis[float64]},
		{"ProdAxis", dist.ProdAxis[float64]},
		{"NormAxis", dist.NormAxis[float64]},
		{"DotAxis", func(x *dist.Array[float64], a int) (*dist.Array[float64], error) { return dist.DotAxis(x, x, a) }},
		{"Cumsum", dist.Cumsum[float64]},
	}
	if prod(shape) > 0 {
		reds = append(reds,
			red{"MinAxis", dist.MinAxis[float64]},
			red{"MaxAxis", dist.MaxAxis[float64]},
			red{"ArgminAxis", func(x *dist.Array[float64], a int) (*dist.Array[float64], error) {
				i, err := dist.ArgminAxis(x, a)
				if err != nil {
					return nil, err
				}
				defer i.Free()
				return dist.Astype[float64](i)
			}},
			red{"ArgmaxAxis", func(x *dist.Array[float64], a int) (*dist.Array[float64], error) {
				i, err := dist.ArgmaxAxis(x, a)
				if err != nil {
					return nil, err
				}
				defer i.Free()
				return dist.Astype[float64](i)
			}})
	}
	for _, rd := range reds {
		for axis := range shape {
			for _, ax := range []int{axis, axis - len(shape)} {
				what := fmt.Sprintf("%s %s axis %d", name, rd.name, ax)
				want, werr := gathered(rd.f(r, axis))
				got, gerr := gathered(rd.f(x, ax))
				if werr != nil || gerr != nil {
					e.add("%s: %v / replicated %v", what, gerr, werr)
					continue
				}
				if !allClose(got, want) {
					e.add("%s: got %v, want %v", what, got, want)
				}
			}
		}
	}
}

// gathered returns every element of a (which it frees) on every rank.
func gathered(a *dist.Array[float64], err error) ([]float64, error) {
	if err != nil {
		return nil, err
	}
	defer a.Free()
	return dist.Allgather(a)
}

func allClose(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if math.IsNaN(w) && math.IsNaN(g) || g == w {
			continue
		}
		if math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
			return false
		}
	}
	return true
}
