package fuse_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// TestReductionKind checks the kind and result type of every reduction,
// including a Sum of a product that the compiler turns into a dot product,
// against the DType that Run's Result gives it.
func TestReductionKind(t *testing.T) {
	x, y := fuse.Var[float64]("x"), fuse.Var[float64]("y")
	f := fuse.Var[float32]("f")
	i, u := fuse.Var[int32]("i"), fuse.Var[uint64]("u")
	cases := []struct {
		red  *fuse.Expr
		kind fuse.ReductionKind
		dt   backend.DType
		str  string
	}{
		{fuse.Sum("s", x), fuse.KindSum, backend.Float64, "sum"},
		{fuse.Sum("sxy", fuse.Mul(x, y)), fuse.KindSum, backend.Float64, "sum"},
		{fuse.Dot("d", x, y), fuse.KindSum, backend.Float64, "sum"},
		{fuse.Dot("df", f, f), fuse.KindSum, backend.Float64, "sum"},
		{fuse.Sum("si", i), fuse.KindSum, backend.Int64, "sum"},
		{fuse.Sum("su", u), fuse.KindSum, backend.Uint64, "sum"},
		{fuse.ReduceMax("mx", x), fuse.KindMax, backend.Float64, "max"},
		{fuse.ReduceMax("mf", f), fuse.KindMax, backend.Float32, "max"},
		{fuse.ReduceMin("mi", i), fuse.KindMin, backend.Int32, "min"},
		{fuse.ReduceMin("mu", u), fuse.KindMin, backend.Uint64, "min"},
	}
	var roots []*fuse.Expr
	for _, c := range cases {
		roots = append(roots, c.red)
	}
	k := fuse.MustCompile(roots...)
	args := fuse.Args{"x": backend.Wrap([]float64{1, 2, 3}), "y": backend.Wrap([]float64{4, 5, 6}),
		"f": backend.Wrap([]float32{1, 2, 3}), "i": backend.Wrap([]int32{-1, 2, 3}), "u": backend.Wrap([]uint64{7, 8, 9})}
	res, err := k.Run(args)
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range cases {
		name := k.Reductions()[j]
		kind, dt := k.ReductionKind(name)
		if kind != c.kind || dt != c.dt || kind.String() != c.str {
			t.Errorf("ReductionKind(%q) = %v (%q), %v; want %v, %v", name, kind, kind.String(), dt, c.kind, c.dt)
		}
		if got := res.Scalar(name).DType(); got != dt {
			t.Errorf("%q: Result.Scalar's DType %v, ReductionKind's %v", name, got, dt)
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), `"nope"`) {
				t.Errorf("ReductionKind of an unknown name: panic %v, want one naming it", r)
			}
		}()
		k.ReductionKind("nope")
	}()
}
