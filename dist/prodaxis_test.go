package dist_test

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestProdAxis checks ProdAxis of real arrays along every axis of every
// layout of shapes (empty blocks and axes, fewer elements than ranks)
// against products computed here: int32 factors whose products wrap, and
// float64 factors ±0.5, ±1, 2 whose products are exact in any order. On
// the fake device with a CUDA-aware MPI nothing moves between host and
// device; on a backend without backend.StatsReducer (noSorter) the copies
// are those recorded. The complex types are checked against NumPy in
// TestComplexMaskScanAxis.
func TestProdAxis(t *testing.T) {
	c := mpitest.World(t)
	setAware(t, aware)
	forEachLayout(t, func(t *testing.T, shape []int, split int) {
		var e errs
		for _, bk := range []backend.Backend{backend.Current(), fakedev.Default, noSorter{fakedev.Default}} {
			testProdAxis(t, &e, bk, shape, split, func(k int) int32 { return int32((k*7)%11 - 5) })
			testProdAxis(t, &e, bk, shape, split, func(k int) float64 { return []float64{0.5, -1, 2, 1, -0.5}[k%5] })
		}
		e.check(t, c, "ProdAxis")
	})
}

func testProdAxis[T int32 | float64](t *testing.T, e *errs, bk backend.Backend, shape []int, split int, val func(int) T) {
	c := mpitest.World(t)
	x, err := dist.FromFunc(c, shape, func(idx []int) T { return val(flat(idx, shape)) }, dist.SplitAxis(split), dist.OnBackend(bk))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	for axis := range shape {
		pre, n, post := 1, shape[axis], 1
		for _, d := range shape[:axis] {
			pre *= d
		}
		for _, d := range shape[axis+1:] {
			post *= d
		}
		want := make([]T, pre*post)
		for i := 0; i < pre; i++ {
			for j := 0; j < post; j++ {
				p := T(1)
				for k := 0; k < n; k++ {
					p *= val((i*n+k)*post + j)
				}
				want[i*post+j] = p
			}
		}
		what := fmt.Sprintf("%v ProdAxis(%d) of %T on %s", shape, axis, want, bk.Name())
		var r *dist.Array[T]
		tr := copiesOf(e, what, func() { r, err = dist.ProdAxis(x, axis) })
		if bk == backend.Backend(fakedev.Default) && tr != (transfers{}) {
			e.add("%s: copies %+v on the fake device, want none", what, tr)
		}
		if err != nil {
			e.add("%s: %v", what, err)
			continue
		}
		got, err := dist.Allgather(r)
		if len(shape) == 1 {
			want = want[:1]
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) || r.Device() != bk.Device() {
			e.add("%s: %v (%v) on %v, want %v", what, got, err, r.Device(), want)
		}
		r.Free()
	}
}
