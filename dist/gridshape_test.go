package dist_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// Slicing, reshaping, transposing and broadcasting arrays on a process
// grid.

// shapeGrid is a process-grid layout of the tests of this file: a grid
// case of grid_test.go, with or without ghost layers, on the CPU or the
// fake device.
type shapeGrid struct {
	gridCase
	ghosts bool
	dev    bool
}

func (g shapeGrid) String() string {
	s := g.name
	if g.ghosts {
		s += "+ghosts"
	}
	if g.dev {
		s += "/fake"
	}
	return s
}

func (g shapeGrid) options() []dist.Option {
	o := []dist.Option{g.opt}
	if g.ghosts {
		o = append(o, dist.Ghosts(1))
	}
	if g.dev {
		o = append(o, dist.OnBackend(fakedev.Default))
	}
	return o
}

// shapeGrids returns the grid layouts of shape on p ranks: every grid
// case, the DimsCreate grid with ghost layers, and the uneven grid on the
// fake device.
func shapeGrids(shape []int, p int) []shapeGrid {
	var out []shapeGrid
	cases := gridCases(shape, p)
	for _, g := range cases {
		out = append(out, shapeGrid{gridCase: g})
	}
	out = append(out, shapeGrid{gridCase: cases[len(cases)-2], ghosts: true})
	out = append(out, shapeGrid{gridCase: cases[len(cases)-1], dev: true})
	return out
}

func gridArray(t *testing.T, c mpi.Comm, shape []int, g shapeGrid, f func(int) float64) *dist.Array[float64] {
	t.Helper()
	x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return f(flat(idx, shape)) }, g.options()...)
	if err != nil {
		t.Fatal(err)
	}
	if x.Layout().Axis() != dist.Grid {
		t.Fatalf("made %v, want a grid layout", x.Layout())
	}
	return x
}

// onDevice reports whether a's block is where g puts it.
func onDevice(a *dist.Array[float64], g shapeGrid) bool {
	return a.Local().Device().IsHost() != g.dev
}

// TestGridSlice checks Slice of arrays on process grids against the serial
// reference for every case of TestSlice, and the result's layout: x's
// grid with even blocks.
func TestGridSlice(t *testing.T) {
	c := mpitest.World(t)
	for _, sc := range sliceCases {
		outShape, src := selectRef(sc.shape, sc.ranges)
		want := make([]float64, len(src))
		for i, f := range src {
			want[i] = ref(f)
		}
		for _, g := range shapeGrids(sc.shape, c.Size()) {
			t.Run(fmt.Sprintf("%v%v/%v", sc.shape, sc.ranges, g), func(t *testing.T) {
				x := gridArray(t, c, sc.shape, g, ref)
				defer x.Free()
				y, err := dist.Slice(x, sc.ranges...)
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				if wl := dist.NewGridLayout(outShape, g.dims()); !y.Layout().Equal(wl) {
					t.Fatalf("Slice made %v, want %v", y.Layout(), wl)
				}
				if !onDevice(y, g) || y.Ghosts() != 0 {
					t.Fatalf("Slice's block on %v with %d ghosts", y.Local().Device(), y.Ghosts())
				}
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(got, want), "Slice = %v, want %v", got, want)
			})
		}
	}
}

// TestGridSetSlice checks SetSlice into arrays on process grids from
// sources on a grid, split and replicated, into a split array from a
// source on a grid, and SetSliceScalar.
func TestGridSetSlice(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	vval := func(i int) float64 { return 1000 + float64(i) }
	for _, sc := range sliceCases {
		outShape, src := selectRef(sc.shape, sc.ranges)
		want := refValues(sc.shape)
		for i, f := range src {
			want[f] = vval(i)
		}
		for _, g := range shapeGrids(sc.shape, p) {
			vg := shapeGrid{gridCase: gridCases(outShape, p)[0], dev: g.dev}
			// A slice, not a map: every rank runs them in one order.
			type source struct {
				name string
				mk   func() *dist.Array[float64]
			}
			sources := []source{{"v " + vg.String(), func() *dist.Array[float64] { return gridArray(t, c, outShape, vg, vval) }}}
			if !g.dev {
				sources = append(sources, source{"v axis0", func() *dist.Array[float64] { return sliceArray(t, c, outShape, sliceLayout{0, true}, vval) }},
					source{"v replicated", func() *dist.Array[float64] {
						return sliceArray(t, c, outShape, sliceLayout{dist.Replicated, false}, vval)
					}})
			}
			for _, src := range sources {
				name, mk := src.name, src.mk
				t.Run(fmt.Sprintf("%v%v/%v/%s", sc.shape, sc.ranges, g, name), func(t *testing.T) {
					x := gridArray(t, c, sc.shape, g, ref)
					defer x.Free()
					v := mk()
					defer v.Free()
					if err := dist.SetSlice(x, sc.ranges, v); err != nil {
						t.Fatal(err)
					}
					got := gatherAll(t, x)
					mpitest.Check(t, c, slices.Equal(got, want), "SetSlice: %v, want %v", got, want)
				})
			}
			t.Run(fmt.Sprintf("%v%v/%v/scalar", sc.shape, sc.ranges, g), func(t *testing.T) {
				want := refValues(sc.shape)
				for _, f := range src {
					want[f] = -7
				}
				x := gridArray(t, c, sc.shape, g, ref)
				defer x.Free()
				dist.SetSliceScalar(x, sc.ranges, -7)
				got := gatherAll(t, x)
				mpitest.Check(t, c, slices.Equal(got, want), "SetSliceScalar: %v, want %v", got, want)
			})
		}
		t.Run(fmt.Sprintf("%v%v/axis0/v-grid", sc.shape, sc.ranges), func(t *testing.T) {
			x := sliceArray(t, c, sc.shape, sliceLayout{0, true}, ref)
			defer x.Free()
			v := gridArray(t, c, outShape, shapeGrid{gridCase: gridCases(outShape, p)[len(gridCases(outShape, p))-1]}, vval)
			defer v.Free()
			if err := dist.SetSlice(x, sc.ranges, v); err != nil {
				t.Fatal(err)
			}
			got := gatherAll(t, x)
			mpitest.Check(t, c, slices.Equal(got, want), "SetSlice: %v, want %v", got, want)
		})
	}
}

// reshapeTargets returns new shapes for an array of shape: flat, reversed,
// and with a dimension split or two merged.
func reshapeTargets(shape []int) [][]int {
	n := prod(shape)
	r := slices.Clone(shape)
	slices.Reverse(r)
	out := [][]int{{n}, r}
	if n%2 == 0 && n > 0 {
		out = append(out, []int{2, n / 2}, []int{n / 2, 1, 2})
	}
	if len(shape) >= 2 {
		out = append(out, append([]int{shape[0] * shape[1]}, shape[2:]...))
	}
	return out
}

// TestGridReshape checks Reshape of arrays on process grids: the values in
// row-major order, and the layout (a view with x's row blocks where the
// grid splits axis 0 alone and the blocks are whole rows, even along axis
// 0 otherwise).
func TestGridReshape(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, shape := range shapes {
		want := refValues(shape)
		for _, g := range shapeGrids(shape, p) {
			for _, ns := range reshapeTargets(shape) {
				t.Run(fmt.Sprintf("%v/%v/to%v", shape, g, ns), func(t *testing.T) {
					x := gridArray(t, c, shape, g, ref)
					defer x.Free()
					y, err := dist.Reshape(x, ns...)
					if err != nil {
						t.Fatal(err)
					}
					defer y.Free()
					if !slices.Equal(y.Shape(), ns) || y.Layout().Axis() != 0 || !onDevice(y, g) {
						t.Fatalf("Reshape made %v on %v", y.Layout(), y.Local().Device())
					}
					got := gatherAll(t, y)
					mpitest.Check(t, c, slices.Equal(got, want), "Reshape = %v, want %v", got, want)
					// Where the grid splits axis 0 alone, blocks of whole
					// rows of the new shape are kept.
					d := g.dims()
					rows := slices.Max(append([]int{1}, d[1:]...)) == 1
					whole := rows && len(shape) > 0
					row, xrow := prod(ns[1:]), prod(shape[1:])
					start := 0
					var counts []int
					for _, n := range g.counts[0] {
						if row == 0 || (n*xrow)%row != 0 || (start*xrow)%row != 0 {
							whole = false
							break
						}
						counts = append(counts, n*xrow/row)
						start += n
					}
					if whole && prod(shape) > 0 {
						wl := dist.NewLayoutCounts(ns, 0, counts)
						mpitest.Check(t, c, y.Layout().Equal(wl), "Reshape of whole rows made %v, want the view's %v", y.Layout(), wl)
					}
				})
			}
		}
	}
}

// permutations returns every permutation of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, q := range permutations(n - 1) {
		for i := 0; i <= len(q); i++ {
			r := append(slices.Clone(q[:i]), n-1)
			out = append(out, append(r, q[i:]...))
		}
	}
	return out
}

// transposeRef returns the shape and values of x (of shape, values by f)
// with its axes permuted by perm.
func transposeRef(shape, perm []int, f func(int) float64) ([]int, []float64) {
	out := make([]int, len(shape))
	for i, a := range perm {
		out[i] = shape[a]
	}
	vals := make([]float64, prod(out))
	idx := make([]int, len(out))
	src := make([]int, len(out))
	for k := range vals {
		sliceUnravel(k, out, idx)
		for i, a := range perm {
			src[a] = idx[i]
		}
		vals[k] = f(flat(src, shape))
	}
	return out, vals
}

// TestGridTranspose checks Transpose with every permutation of the axes
// (and none: reversed) of arrays on process grids, split and replicated:
// the values, and the layout (the grid permuted, each block keeping its
// sizes; even along axis 0 for a split array).
func TestGridTranspose(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, shape := range shapes {
		perms := append([][]int{nil}, permutations(len(shape))...)
		for _, perm := range perms {
			pm := perm
			if pm == nil {
				pm = make([]int, len(shape))
				for i := range pm {
					pm[i] = len(shape) - 1 - i
				}
			}
			outShape, want := transposeRef(shape, pm, ref)
			for _, g := range shapeGrids(shape, p) {
				t.Run(fmt.Sprintf("%v/%v/axes%v", shape, g, perm), func(t *testing.T) {
					x := gridArray(t, c, shape, g, ref)
					defer x.Free()
					y, err := dist.Transpose(x, perm...)
					if err != nil {
						t.Fatal(err)
					}
					defer y.Free()
					counts := make([][]int, len(pm))
					for i, a := range pm {
						counts[i] = g.counts[a]
					}
					if wl := dist.NewGridLayoutCounts(outShape, counts); !y.Layout().Equal(wl) || !onDevice(y, g) {
						t.Fatalf("Transpose made %v, want %v", y.Layout(), wl)
					}
					got := gatherAll(t, y)
					mpitest.Check(t, c, slices.Equal(got, want), "Transpose = %v, want %v", got, want)
				})
			}
			for _, l := range sliceLayouts(shape) {
				t.Run(fmt.Sprintf("%v/%v/axes%v", shape, l, perm), func(t *testing.T) {
					x := sliceArray(t, c, shape, l, ref)
					defer x.Free()
					y, err := dist.Transpose(x, perm...)
					if err != nil {
						t.Fatal(err)
					}
					defer y.Free()
					axis := 0
					if l.axis == dist.Replicated {
						axis = dist.Replicated
					}
					if wl := dist.NewLayout(outShape, axis, p); !y.Layout().Equal(wl) {
						t.Fatalf("Transpose made %v, want %v", y.Layout(), wl)
					}
					got := gatherAll(t, y)
					mpitest.Check(t, c, slices.Equal(got, want), "Transpose = %v, want %v", got, want)
				})
			}
		}
	}
}

// TestTransposeAxes checks that wrong axes panic with dist's prefix, and
// that negative axes count from the end.
func TestTransposeAxes(t *testing.T) {
	c := mpitest.World(t)
	x := sliceArray(t, c, []int{2, 3, 4}, sliceLayout{0, false}, ref)
	defer x.Free()
	for _, axes := range [][]int{{0, 1}, {0, 1, 1}, {0, 1, 3}, {-4, 0, 1}} {
		t.Run(fmt.Sprint(axes), func(t *testing.T) { mustPanicDist(t, func() { dist.Transpose(x, axes...) }) })
	}
	y, err := dist.Transpose(x, -1, 0, -2)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	shape, want := transposeRef([]int{2, 3, 4}, []int{2, 0, 1}, ref)
	got := gatherAll(t, y)
	mpitest.Check(t, c, slices.Equal(y.Shape(), shape) && slices.Equal(got, want), "Transpose(-1, 0, -2): %v %v, want %v %v", y.Shape(), got, shape, want)
}

// TestGridBroadcast checks Broadcast into arrays on process grids with an
// operand of every broadcastable shape, replicated, split or on a grid, on
// either side; and into split arrays with operands on a grid.
func TestGridBroadcast(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	bval := func(i int) float64 { return 3 + float64(i)*0.5 }
	type maker struct {
		name string
		mk   func(t *testing.T, shape []int, f func(int) float64) *dist.Array[float64]
	}
	for _, bc := range broadcastCases {
		want := func(flip bool) []float64 {
			w := make([]float64, prod(bc.shape))
			for i := range w {
				a, b := ref(i), bval(broadcastRef(i, bc.shape, bc.bshape))
				if flip {
					a, b = b, a
				}
				w[i] = binaryRef(backend.Sub, a, b)
			}
			return w
		}
		var dsts []maker
		for _, g := range shapeGrids(bc.shape, p) {
			dsts = append(dsts, maker{g.String(), func(t *testing.T, s []int, f func(int) float64) *dist.Array[float64] {
				return gridArray(t, c, s, g, f)
			}})
		}
		dsts = append(dsts, maker{"axis0-uneven", func(t *testing.T, s []int, f func(int) float64) *dist.Array[float64] {
			return sliceArray(t, c, s, sliceLayout{0, true}, f)
		}})
		for _, dm := range dsts {
			dev := dm.name[len(dm.name)-5:] == "/fake"
			var ops []maker
			for _, l := range []sliceLayout{{dist.Replicated, false}, {0, false}, {len(bc.bshape) - 1, true}} {
				ops = append(ops, maker{"b " + l.String(), func(t *testing.T, s []int, f func(int) float64) *dist.Array[float64] {
					var o []dist.Option
					if dev {
						o = append(o, dist.OnBackend(fakedev.Default))
					}
					return sliceArray(t, c, s, l, f, o...)
				}})
			}
			if len(bc.bshape) >= 1 {
				g := shapeGrid{gridCase: gridCases(bc.bshape, p)[len(gridCases(bc.bshape, p))-1], dev: dev}
				ops = append(ops, maker{"b " + g.String(), func(t *testing.T, s []int, f func(int) float64) *dist.Array[float64] {
					return gridArray(t, c, s, g, f)
				}})
			}
			for _, om := range ops {
				for _, flip := range []bool{false, true} {
					t.Run(fmt.Sprintf("%v-%v/%s/%s/flip%v", bc.shape, bc.bshape, dm.name, om.name, flip), func(t *testing.T) {
						x := dm.mk(t, bc.shape, ref)
						defer x.Free()
						b := om.mk(t, bc.bshape, bval)
						defer b.Free()
						var err error
						if flip {
							err = dist.Broadcast(backend.Sub, x, b, x)
						} else {
							err = dist.Broadcast(backend.Sub, x, x, b)
						}
						if err != nil {
							t.Fatal(err)
						}
						got := gatherAll(t, x)
						w := want(flip)
						mpitest.Check(t, c, slices.Equal(got, w), "Broadcast: %v, want %v", got, w)
					})
				}
			}
		}
	}
}

// TestBroadcastNeither checks Broadcast where neither operand has the
// result's layout: two vectors into an array on a process grid (an outer
// difference), and two arrays of the result's shape on other layouts.
func TestBroadcastNeither(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	shape := []int{5, 3}
	g := shapeGrid{gridCase: gridCases(shape, p)[len(gridCases(shape, p))-1]}
	d := gridArray(t, c, shape, g, func(int) float64 { return 0 })
	defer d.Free()
	col := sliceArray(t, c, []int{5, 1}, sliceLayout{0, true}, func(i int) float64 { return float64(10 * i) })
	defer col.Free()
	row := sliceArray(t, c, []int{3}, sliceLayout{dist.Replicated, false}, func(i int) float64 { return float64(i) })
	defer row.Free()
	if err := dist.Broadcast(backend.Sub, d, col, row); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 15)
	for i := range want {
		want[i] = float64(10*(i/3) - i%3)
	}
	got := gatherAll(t, d)
	mpitest.Check(t, c, slices.Equal(got, want), "col - row: %v, want %v", got, want)

	a := sliceArray(t, c, shape, sliceLayout{1, true}, ref)
	defer a.Free()
	b := sliceArray(t, c, shape, sliceLayout{dist.Replicated, false}, bvalOf)
	defer b.Free()
	if err := dist.Broadcast(backend.Mul, d, a, b); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i] = ref(i) * bvalOf(i)
	}
	got = gatherAll(t, d)
	mpitest.Check(t, c, slices.Equal(got, want), "a * b: %v, want %v", got, want)
	mustPanicDist(t, func() {
		w := sliceArray(t, c, []int{2}, sliceLayout{0, false}, ref)
		defer w.Free()
		dist.Broadcast(backend.Add, d, d, w)
	})
}

func bvalOf(i int) float64 { return 3 + float64(i)*0.5 }

// TestGridNumPy checks Slice, Reshape, Transpose, Concatenate and
// Broadcast of arrays on process grids (DimsCreate's, and uneven with
// empty blocks) against NumPy's results for the fixtures' cases, and
// Transpose with axes against values NumPy computed
// (np.arange(24.).reshape(2, 3, 4).transpose(axes).ravel()).
func TestGridNumPy(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	fx := loadSliceFixtures(t)
	iota := func(i int) float64 { return float64(i) }
	grids := func(shape []int) []shapeGrid {
		gs := gridCases(shape, p)
		return []shapeGrid{{gridCase: gs[len(gs)-2]}, {gridCase: gs[len(gs)-1], dev: true}}
	}
	for k, fc := range fx.Cases {
		shape := fc.Shape
		if fc.Op == "concatenate" {
			shape = fc.Shapes[0]
		}
		for gi, g := range grids(shape) {
			t.Run(fmt.Sprintf("%d-%s/%v", k, fc.Op, g), func(t *testing.T) {
				var y *dist.Array[float64]
				var err error
				switch fc.Op {
				case "slice":
					x := gridArray(t, c, fc.Shape, g, iota)
					defer x.Free()
					ranges := make([]dist.Range, len(fc.Ranges))
					for a, r := range fc.Ranges {
						ranges[a] = fx.rangeOf(r)
					}
					y, err = dist.Slice(x, ranges...)
				case "reshape":
					x := gridArray(t, c, fc.Shape, g, iota)
					defer x.Free()
					y, err = dist.Reshape(x, fc.New...)
				case "transpose":
					x := gridArray(t, c, fc.Shape, g, iota)
					defer x.Free()
					y, err = dist.Transpose(x)
				case "concatenate":
					var xs []*dist.Array[float64]
					off := 0
					for i, s := range fc.Shapes {
						o := off
						f := func(j int) float64 { return float64(o + j) }
						var x *dist.Array[float64]
						if i%2 == 0 {
							x = gridArray(t, c, s, grids(s)[gi], f)
						} else {
							// Every other one split along its last axis.
							var opts []dist.Option
							if g.dev {
								opts = append(opts, dist.OnBackend(fakedev.Default))
							}
							x = sliceArray(t, c, s, sliceLayout{len(s) - 1, true}, f, opts...)
						}
						defer x.Free()
						xs = append(xs, x)
						off += prod(s)
					}
					y, err = dist.Concatenate(fc.Axis, xs...)
					if err == nil {
						wl := dist.NewGridLayout(y.Shape(), grids(fc.Shapes[0])[gi].dims())
						mpitest.Check(t, c, y.Layout().Equal(wl), "Concatenate made %v, want %v", y.Layout(), wl)
					}
				case "broadcast":
					x := gridArray(t, c, fc.Shape, g, iota)
					defer x.Free()
					b := sliceArray(t, c, fc.Bshape, sliceLayout{0, true}, func(i int) float64 { return 100 * float64(i+1) }, dist.OnBackend(x.Local().Backend()))
					defer b.Free()
					r, err := dist.ZerosLike(x)
					if err != nil {
						t.Fatal(err)
					}
					defer r.Free()
					if err := dist.Broadcast(backend.Sub, r, b, x); err != nil {
						t.Fatal(err)
					}
					got := gatherAll(t, r)
					mpitest.Check(t, c, slices.Equal(got, fc.Reversed), "b - x = %v, NumPy %v", got, fc.Reversed)
					y, err = dist.ZerosLike(x)
					if err == nil {
						err = dist.Broadcast(backend.Sub, y, x, b)
					}
				default:
					t.Fatalf("unknown fixture %q", fc.Op)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(y.Shape(), fc.OutShape) && slices.Equal(got, fc.Values),
					"%s: shape %v, %v; NumPy %v, %v", fc.Op, y.Shape(), got, fc.OutShape, fc.Values)
			})
		}
	}
	numpy := []struct {
		axes  []int
		shape []int
		want  []float64
	}{
		{[]int{1, 2, 0}, []int{3, 4, 2}, []float64{0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23}},
		{nil, []int{4, 3, 2}, []float64{0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23}},
		{[]int{0, -1, 1}, []int{2, 4, 3}, []float64{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23}},
	}
	for _, tc := range numpy {
		for _, g := range grids([]int{2, 3, 4}) {
			t.Run(fmt.Sprintf("transpose%v/%v", tc.axes, g), func(t *testing.T) {
				x := gridArray(t, c, []int{2, 3, 4}, g, iota)
				defer x.Free()
				y, err := dist.Transpose(x, tc.axes...)
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				got := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(y.Shape(), tc.shape) && slices.Equal(got, tc.want), "Transpose%v: %v %v, NumPy %v %v", tc.axes, y.Shape(), got, tc.shape, tc.want)
			})
		}
	}
}
