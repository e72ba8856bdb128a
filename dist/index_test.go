package dist_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// indexCase is one NumPy-computed case of testdata/index_numpy.json
// (written by testdata/index_gen.py): the operation on
// x.flat[i] = (7i+3) mod 11 - 4 of shape, and NumPy's result.
type indexCase struct {
	Name, Op string
	Shape    []int
	Params   struct {
		Shift, Axis, N     int
		Shifts, Axes, Reps []int
		Repeats, Indices   []int
		Ishape             []int
		Width              [][2]int
		Mode               string
		Value              float64
		Values             []float64
		Prepend, Append    *float64
		PrependArray       []int
		AppendArray        []int
	}
	Want   []float64
	Wshape []int
}

func indexCases(t *testing.T) []indexCase {
	b, err := os.ReadFile("testdata/index_numpy.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []indexCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

func xval(i int) float64 { return float64((i*7+3)%11) - 4 }

// indexLayouts are the layouts the cases run on: name and options, for
// a shape.
func indexLayouts(shape []int, p int) map[string][]dist.Option {
	ls := map[string][]dist.Option{
		"rows":       {dist.SplitAxis(0)},
		"replicated": {dist.SplitAxis(dist.Replicated)},
	}
	counts := make([]int, p)
	counts[p-1] = shape[0] // every index on the last rank, the others empty
	ls["last"] = []dist.Option{dist.BlockSizes(counts)}
	if len(shape) >= 2 {
		ls["axis1"] = []dist.Option{dist.SplitAxis(1)}
		ls["grid"] = []dist.Option{dist.ProcessGrid(make([]int, len(shape))...)}
		ls["ghost"] = []dist.Option{dist.Ghosts(1)}
	}
	return ls
}

// runIndexCase runs c on x (of opts) and returns the result's global
// contents and shape, or the error.
func runIndexCase(t *testing.T, comm mpi.Comm, c indexCase, opts []dist.Option, bk backend.Backend) ([]float64, []int, error) {
	on := func(o ...dist.Option) []dist.Option {
		if bk != nil {
			o = append(o, dist.OnBackend(bk))
		}
		return o
	}
	x, err := dist.FromFunc(comm, c.Shape, func(idx []int) float64 { return xval(ravelIdx(idx, c.Shape)) }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	p := c.Params
	vec := func(v []float64, o ...dist.Option) *dist.Array[float64] {
		a, err := dist.FromFunc(comm, []int{len(v)}, func(idx []int) float64 { return v[idx[0]] }, on(o...)...)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	var r *dist.Array[float64]
	switch c.Op {
	case "Roll":
		r, err = dist.Roll(x, p.Shift, p.Axis)
	case "RollFlat":
		r, err = dist.RollFlat(x, p.Shift)
	case "RollAxes":
		r, err = dist.RollAxes(x, p.Shifts, p.Axes)
	case "Flip":
		r, err = dist.Flip(x, p.Axes...)
	case "Tile":
		r, err = dist.Tile(x, p.Reps...)
	case "Repeat":
		r, err = dist.Repeat(x, p.Repeats, p.Axis)
	case "RepeatFlat":
		r, err = dist.RepeatFlat(x, p.Repeats)
	case "Pad":
		r, err = dist.Pad(x, p.Width, p.Mode)
	case "PadConstant":
		r, err = dist.PadConstant(x, p.Width, p.Value)
	case "Diff":
		var o []dist.DiffOption[float64]
		if p.Prepend != nil {
			o = append(o, dist.Prepend(*p.Prepend))
		}
		if p.Append != nil {
			o = append(o, dist.Append(*p.Append))
		}
		end := func(s []int) *dist.Array[float64] {
			a, err := dist.FromFunc(comm, s, func(idx []int) float64 { return float64(ravelIdx(idx, s))*3 - 5 }, on(dist.SplitAxis(1))...)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		if p.PrependArray != nil {
			e := end(p.PrependArray)
			defer e.Free()
			o = append(o, dist.PrependArray(e))
		}
		if p.AppendArray != nil {
			e := end(p.AppendArray)
			defer e.Free()
			o = append(o, dist.AppendArray(e))
		}
		r, err = dist.Diff(x, p.N, p.Axis, o...)
	case "Take", "TakeFlat":
		// The indices split along axis 0, or replicated for odd shapes.
		io := []dist.Option{dist.SplitAxis(0)}
		if len(c.Shape)%2 == 0 {
			io = []dist.Option{dist.SplitAxis(dist.Replicated)}
		}
		ind, err := dist.FromFunc(comm, p.Ishape, func(idx []int) int64 { return int64(p.Indices[ravelIdx(idx, p.Ishape)]) }, on(io...)...)
		if err != nil {
			t.Fatal(err)
		}
		defer ind.Free()
		if c.Op == "Take" {
			r, err = dist.Take(x, ind, p.Axis)
		} else {
			r, err = dist.TakeFlat(x, ind)
		}
		if err != nil {
			return nil, nil, err
		}
	case "FillWhere", "AssignWhere", "Place":
		m, err := dist.GreaterScalar(x, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Free()
		switch c.Op {
		case "FillWhere":
			err = dist.FillWhere(x, m, p.Value)
		case "AssignWhere":
			v := vec(p.Values)
			defer v.Free()
			err = dist.AssignWhere(x, m, v)
		default:
			v := vec(p.Values, dist.SplitAxis(dist.Replicated))
			defer v.Free()
			err = dist.Place(x, m, v)
		}
		if err != nil {
			return nil, nil, err
		}
		g, err := dist.Allgather(x)
		return g, x.Shape(), err
	default:
		t.Fatalf("unknown op %s", c.Op)
	}
	if err != nil {
		return nil, nil, err
	}
	defer r.Free()
	g, err := dist.Allgather(r)
	return g, r.Shape(), err
}

func ravelIdx(idx, shape []int) int {
	off := 0
	for a := range shape {
		off = off*shape[a] + idx[a]
	}
	return off
}

// TestIndexNumPy runs every NumPy case on every layout of indexLayouts,
// on the CPU and the fake device.
func TestIndexNumPy(t *testing.T) {
	comm := mpitest.World(t)
	for _, bk := range []backend.Backend{nil, fakedev.Default} {
		for _, c := range indexCases(t) {
			ls := indexLayouts(c.Shape, comm.Size())
			names := make([]string, 0, len(ls))
			for n := range ls {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, ln := range names {
				opts := slices.Clone(ls[ln])
				if bk != nil {
					opts = append(opts, dist.OnBackend(bk))
				}
				got, shape, err := runIndexCase(t, comm, c, opts, bk)
				name := fmt.Sprintf("%s/%s/fake=%v", c.Name, ln, bk != nil)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if !slices.Equal(shape, c.Wshape) {
					t.Errorf("%s: shape %v, want %v", name, shape, c.Wshape)
					continue
				}
				if !slices.Equal(got, c.Want) {
					t.Errorf("%s: got %v, want %v", name, got, c.Want)
				}
			}
		}
	}
}

// TestIndexErrors: NumPy's errors, returned on every rank.
func TestIndexErrors(t *testing.T) {
	comm := mpitest.World(t)
	x, err := dist.FromFunc(comm, []int{5, 3}, func(idx []int) float64 { return float64(idx[0]*3 + idx[1]) })
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	ind := func(v ...int64) *dist.Array[int64] {
		a, err := dist.FromFunc(comm, []int{len(v)}, func(idx []int) int64 { return v[idx[0]] })
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	bad := ind(1, 7, 0)
	defer bad.Free()
	neg := ind(-16)
	defer neg.Free()
	mask, err := dist.GreaterScalar(x, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer mask.Free()
	two, err := dist.Zeros[float64](comm, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Free()
	empty, err := dist.Zeros[float64](comm, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Free()
	cases := []struct {
		name string
		f    func() error
		want string
	}{
		{"Take out of range", func() error { _, err := dist.Take(x, bad, 0); return err }, "index 7 is out of bounds for axis 0 with size 5"},
		{"Take negative out of range", func() error { _, err := dist.Take(x, neg, 1); return err }, "index -16 is out of bounds for axis 1 with size 3"},
		{"TakeFlat out of range", func() error { _, err := dist.TakeFlat(x, neg); return err }, "index -16 is out of bounds for size 15"},
		{"Take bad axis", func() error { _, err := dist.Take(x, bad, 2); return err }, "axis 2 is out of bounds"},
		{"Roll bad axis", func() error { _, err := dist.Roll(x, 1, -3); return err }, "axis -3 is out of bounds"},
		{"Flip repeated axis", func() error { _, err := dist.Flip(x, 0, -2); return err }, "repeated axis"},
		{"Tile negative", func() error { _, err := dist.Tile(x, 2, -1); return err }, "negative"},
		{"Repeat negative", func() error { _, err := dist.Repeat(x, []int{1, -1, 2}, 1); return err }, "may not contain negative values"},
		{"Repeat length", func() error { _, err := dist.Repeat(x, []int{1, 2}, 1); return err }, "2 repeats for 3 indices"},
		{"Pad mode", func() error { _, err := dist.Pad(x, [][2]int{{1, 1}}, "median"); return err }, `mode "median" is not supported`},
		{"Pad unknown mode", func() error { _, err := dist.Pad(x, [][2]int{{1, 1}}, "mirror"); return err }, `mode "mirror" is not supported`},
		{"Pad negative", func() error { _, err := dist.Pad(x, [][2]int{{1, -1}}, "edge"); return err }, "negative"},
		{"Pad widths", func() error { _, err := dist.Pad(x, [][2]int{{1, 1}, {1, 1}, {1, 1}}, "edge"); return err }, "3 pad widths"},
		{"Diff order", func() error { _, err := dist.Diff(x, -1, 0); return err }, "order must be non-negative but got -1"},
		{"AssignWhere length", func() error { return dist.AssignWhere(x, mask, two) }, "cannot assign 2 input values to the 10 output values"},
		{"Place empty", func() error { return dist.Place(x, mask, empty) }, "cannot insert from an empty array"},
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if v := recover(); v != nil {
					err = fmt.Errorf("panic: %v", v)
				}
			}()
			return c.f()
		}()
		if err == nil || strings.HasPrefix(err.Error(), "panic") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// Pad of an empty axis by another mode than constant.
	e, err := dist.Zeros[float64](comm, []int{0, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Free()
	if _, err := dist.Pad(e, [][2]int{{1, 0}, {1, 1}}, "wrap"); err == nil || !strings.Contains(err.Error(), "can't extend empty axis 0") {
		t.Errorf("Pad of an empty axis: %v", err)
	}
}

// TestIndexFreed: every operation on a freed array fails with ErrFreed.
func TestIndexFreed(t *testing.T) {
	comm := mpitest.World(t)
	x, err := dist.Zeros[float64](comm, []int{4, 3})
	if err != nil {
		t.Fatal(err)
	}
	ind, err := dist.Zeros[int64](comm, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	defer ind.Free()
	m, err := dist.Zeros[uint8](comm, []int{4, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Free()
	v, err := dist.Zeros[float64](comm, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	x.Free()
	calls := map[string]func() error{
		"Take":        func() error { _, err := dist.Take(x, ind, 0); return err },
		"TakeFlat":    func() error { _, err := dist.TakeFlat(x, ind); return err },
		"Roll":        func() error { _, err := dist.Roll(x, 1, 0); return err },
		"RollFlat":    func() error { _, err := dist.RollFlat(x, 1); return err },
		"Flip":        func() error { _, err := dist.Flip(x); return err },
		"Tile":        func() error { _, err := dist.Tile(x, 2); return err },
		"Repeat":      func() error { _, err := dist.Repeat(x, []int{2}, 0); return err },
		"RepeatFlat":  func() error { _, err := dist.RepeatFlat(x, []int{2}); return err },
		"Pad":         func() error { _, err := dist.Pad(x, [][2]int{{1, 1}}, "edge"); return err },
		"Diff":        func() error { _, err := dist.Diff(x, 1, 0); return err },
		"FillWhere":   func() error { return dist.FillWhere(x, m, 1) },
		"AssignWhere": func() error { return dist.AssignWhere(x, m, v) },
		"Place":       func() error { return dist.Place(x, m, v) },
	}
	names := make([]string, 0, len(calls))
	for n := range calls {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := calls[n](); !errors.Is(err, dist.ErrFreed) {
			t.Errorf("%s of a freed array: %v, want ErrFreed", n, err)
		}
	}
}
