package dist_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// gridsOf returns every process grid of d dimensions with p ranks in all.
func gridsOf(p, d int) [][]int {
	if d == 1 {
		return [][]int{{p}}
	}
	var out [][]int
	for f := 1; f <= p; f++ {
		if p%f == 0 {
			for _, rest := range gridsOf(p/f, d-1) {
				out = append(out, append([]int{f}, rest...))
			}
		}
	}
	return out
}

// even returns the block sizes of n indices over p blocks: the first n%p
// get one more.
func even(n, p int) []int {
	c := make([]int, p)
	for b := range c {
		c[b] = n / p
		if b < n%p {
			c[b]++
		}
	}
	return c
}

// optionsFor returns the options that lay a new array out as l.
func optionsFor(l dist.Layout) []dist.Option {
	switch l.Axis() {
	case dist.Grid:
		counts := make([][]int, l.Dims())
		for a := range counts {
			counts[a] = l.GridCounts(a)
		}
		return []dist.Option{dist.GridBlockSizes(counts...)}
	case dist.Replicated:
		return []dist.Option{dist.SplitAxis(dist.Replicated)}
	}
	return []dist.Option{dist.SplitAxis(l.Axis()), dist.BlockSizes(l.Counts())}
}

// gridCase is a grid layout as a test describes it: the block sizes along
// each axis, and the option that makes it.
type gridCase struct {
	name   string
	counts [][]int
	opt    dist.Option
}

func (g gridCase) dims() []int {
	d := make([]int, len(g.counts))
	for a, c := range g.counts {
		d[a] = len(c)
	}
	return d
}

// block returns rank's block in g: its coordinates are rank in row-major
// order over the grid.
func (g gridCase) block(rank int) (start, shape []int) {
	d := g.dims()
	coords := make([]int, len(d))
	for a := len(d) - 1; a >= 0; a-- {
		coords[a] = rank % d[a]
		rank /= d[a]
	}
	start, shape = make([]int, len(d)), make([]int, len(d))
	for a, i := range coords {
		for _, n := range g.counts[a][:i] {
			start[a] += n
		}
		shape[a] = g.counts[a][i]
	}
	return start, shape
}

// gridCases returns the grid layouts of shape on p ranks that the tests
// use: every factorisation of p with even blocks, the DimsCreate choice
// (ProcessGrid with zeros), and uneven blocks with empty ones.
func gridCases(shape []int, p int) []gridCase {
	var out []gridCase
	for _, d := range gridsOf(p, len(shape)) {
		counts := make([][]int, len(d))
		for a := range d {
			counts[a] = even(shape[a], d[a])
		}
		out = append(out, gridCase{fmt.Sprint("grid", d), counts, dist.ProcessGrid(d...)})
	}
	dims, err := mpi.DimsCreate(p, len(shape), nil)
	if err != nil {
		panic(err)
	}
	counts := make([][]int, len(dims))
	for a := range dims {
		counts[a] = even(shape[a], dims[a])
	}
	out = append(out, gridCase{fmt.Sprint("auto", dims), counts, dist.ProcessGrid(make([]int, len(shape))...)})
	// Uneven: along each axis everything on the last grid coordinate but
	// one index on the first, over the DimsCreate grid.
	uneven := make([][]int, len(dims))
	for a := range dims {
		uneven[a] = make([]int, dims[a])
		uneven[a][dims[a]-1] = shape[a]
		if shape[a] > 0 && dims[a] > 1 {
			uneven[a][0], uneven[a][dims[a]-1] = 1, shape[a]-1
		}
	}
	out = append(out, gridCase{fmt.Sprint("uneven", uneven), uneven, dist.GridBlockSizes(uneven...)})
	return out
}

func refValues(shape []int) []float64 {
	want := make([]float64, prod(shape))
	for i := range want {
		want[i] = ref(i)
	}
	return want
}

// boxOf returns the elements of the box (start, bshape) of the global
// row-major array all, in row-major order.
func boxOf[T any](all []T, shape, start, bshape []int) []T {
	var out []T
	idx := make([]int, len(shape))
	for i := 0; i < prod(bshape); i++ {
		r := i
		for a := len(bshape) - 1; a >= 0; a-- {
			idx[a] = start[a] + r%bshape[a]
			r /= bshape[a]
		}
		out = append(out, all[flat(idx, shape)])
	}
	return out
}

// checkGridArray checks x's layout against g and its block and its
// Allgather against want.
func checkGridArray(t *testing.T, c mpi.Comm, x *dist.Array[float64], shape []int, g gridCase, want []float64) {
	t.Helper()
	me := c.Rank()
	l := x.Layout()
	start, bshape := g.block(me)
	gs, gsh := l.Block(me)
	if l.Axis() != dist.Grid || !slices.Equal(l.GridDims(), g.dims()) || !slices.Equal(gs, start) || !slices.Equal(gsh, bshape) || !slices.Equal(x.LocalShape(), bshape) {
		t.Fatalf("%v: grid %v, block %v %v (local shape %v), want grid %v, block %v %v", l, l.GridDims(), gs, gsh, x.LocalShape(), g.dims(), start, bshape)
	}
	local := make([]float64, x.Local().Len())
	if len(local) > 0 {
		if err := backend.CopyToHostSlice(local, x.Local()); err != nil {
			t.Fatal(err)
		}
	}
	wb := boxOf(want, shape, start, bshape)
	got, err := dist.Allgather(x)
	mpitest.Check(t, c, err == nil && slices.Equal(local, wb) && slices.Equal(got, want),
		"%v: block %v, want %v; Allgather %v (%v), want %v", l, local, wb, got, err, want)
}

// TestGridLayout checks a grid layout's blocks, coordinates, owners and
// neighbors against values worked out by hand, and a split or replicated
// layout seen as a grid.
func TestGridLayout(t *testing.T) {
	l := dist.NewGridLayout([]int{5, 7}, []int{2, 3})
	if l.Ranks() != 6 || l.Axis() != dist.Grid || l.Dims() != 2 || l.Len() != 35 {
		t.Fatalf("%v: ranks %d axis %d", l, l.Ranks(), l.Axis())
	}
	if !slices.Equal(l.GridCounts(0), []int{3, 2}) || !slices.Equal(l.GridCounts(1), []int{3, 2, 2}) {
		t.Fatalf("grid counts %v %v", l.GridCounts(0), l.GridCounts(1))
	}
	blocks := []struct{ coords, start, shape []int }{
		{[]int{0, 0}, []int{0, 0}, []int{3, 3}},
		{[]int{0, 1}, []int{0, 3}, []int{3, 2}},
		{[]int{0, 2}, []int{0, 5}, []int{3, 2}},
		{[]int{1, 0}, []int{3, 0}, []int{2, 3}},
		{[]int{1, 1}, []int{3, 3}, []int{2, 2}},
		{[]int{1, 2}, []int{3, 5}, []int{2, 2}},
	}
	for r, b := range blocks {
		st, sh := l.Block(r)
		if !slices.Equal(l.Coords(r), b.coords) || l.RankAt(b.coords) != r || !slices.Equal(st, b.start) || !slices.Equal(sh, b.shape) ||
			!slices.Equal(l.LocalShape(r), b.shape) || l.LocalLen(r) != prod(b.shape) {
			t.Errorf("rank %d: coords %v, block %v %v, want %v, %v %v", r, l.Coords(r), st, sh, b.coords, b.start, b.shape)
		}
		// Every element of the block is owned by r.
		for i := b.start[0]; i < b.start[0]+b.shape[0]; i++ {
			for j := b.start[1]; j < b.start[1]+b.shape[1]; j++ {
				if o := l.OwnerOf([]int{i, j}); o != r {
					t.Errorf("OwnerOf(%d, %d) = %d, want %d", i, j, o, r)
				}
			}
		}
	}
	neighbors := []struct {
		rank     int
		offset   []int
		periodic bool
		want     int
	}{
		{4, []int{-1, 0}, false, 1}, {4, []int{0, 1}, false, 5}, {4, []int{-1, -1}, false, 0},
		{4, []int{1, 0}, false, -1}, {4, []int{1, 0}, true, 1}, {0, []int{0, -1}, true, 2},
		{0, []int{-1, -1}, true, 5}, {2, []int{0, 1}, false, -1}, {3, []int{0, 0}, false, 3},
	}
	for _, n := range neighbors {
		if got := l.Neighbor(n.rank, n.offset, n.periodic); got != n.want {
			t.Errorf("Neighbor(%d, %v, %v) = %d, want %d", n.rank, n.offset, n.periodic, got, n.want)
		}
	}
	if s := l.String(); !strings.Contains(s, "[5 7]") || !strings.Contains(s, "process grid [2 3]") || !strings.Contains(s, "[[3 2] [3 2 2]]") {
		t.Errorf("String %q", s)
	}

	// Empty blocks, and owners past them.
	e := dist.NewGridLayoutCounts([]int{3, 2}, [][]int{{0, 3}, {2, 0}})
	if e.Ranks() != 4 || e.LocalLen(0) != 0 || e.LocalLen(1) != 0 || e.LocalLen(3) != 0 || !slices.Equal(e.LocalShape(2), []int{3, 2}) {
		t.Errorf("%v: local shapes %v %v %v %v", e, e.LocalShape(0), e.LocalShape(1), e.LocalShape(2), e.LocalShape(3))
	}
	if o := e.OwnerOf([]int{0, 1}); o != 2 {
		t.Errorf("OwnerOf(0, 1) of %v = %d, want 2", e, o)
	}
	if l1 := dist.NewGridLayout([]int{1, 2}, []int{2, 2}); !slices.Equal(l1.GridCounts(0), []int{1, 0}) || l1.LocalLen(2) != 0 || l1.OwnerOf([]int{0, 1}) != 1 {
		t.Errorf("%v: counts %v, LocalLen(2) %d", l1, l1.GridCounts(0), l1.LocalLen(2))
	}

	// Equal tells grids apart.
	eq := []struct {
		a, b dist.Layout
		want bool
	}{
		{l, dist.NewGridLayout([]int{5, 7}, []int{2, 3}), true},
		{l, dist.NewGridLayoutCounts([]int{5, 7}, [][]int{{3, 2}, {3, 2, 2}}), true},
		{l, dist.NewGridLayoutCounts([]int{5, 7}, [][]int{{2, 3}, {3, 2, 2}}), false},
		{l, dist.NewGridLayout([]int{5, 7}, []int{3, 2}), false},
		{dist.NewGridLayout([]int{5, 7}, []int{6, 1}), dist.NewLayout([]int{5, 7}, 0, 6), false},
		{dist.NewGridLayoutCounts([]int{4, 4}, [][]int{{4, 0}, {4}}), dist.NewGridLayoutCounts([]int{4, 4}, [][]int{{4}, {0, 4}}), false},
	}
	for _, q := range eq {
		if q.a.Equal(q.b) != q.want || q.b.Equal(q.a) != q.want {
			t.Errorf("%v Equal %v: %v, want %v", q.a, q.b, q.a.Equal(q.b), q.want)
		}
	}

	// A split layout is the grid with its ranks along the split axis.
	s := dist.NewLayout([]int{5, 7}, 1, 3)
	if !slices.Equal(s.GridDims(), []int{1, 3}) || !slices.Equal(s.GridCounts(0), []int{5}) || !slices.Equal(s.GridCounts(1), []int{3, 2, 2}) ||
		!slices.Equal(s.Coords(2), []int{0, 2}) || s.RankAt([]int{0, 1}) != 1 || s.Neighbor(0, []int{0, 1}, false) != 1 || s.Neighbor(0, []int{1, 0}, false) != -1 {
		t.Errorf("%v as a grid: %v %v %v %v", s, s.GridDims(), s.GridCounts(0), s.GridCounts(1), s.Coords(2))
	}
	if st, sh := s.Block(2); !slices.Equal(st, []int{0, 5}) || !slices.Equal(sh, []int{5, 2}) {
		t.Errorf("%v: Block(2) = %v %v", s, st, sh)
	}
	rep := dist.NewLayout([]int{5, 7}, dist.Replicated, 3)
	if rep.GridDims() != nil {
		t.Errorf("replicated GridDims %v", rep.GridDims())
	}
	if st, sh := rep.Block(1); !slices.Equal(st, []int{0, 0}) || !slices.Equal(sh, []int{5, 7}) {
		t.Errorf("replicated Block(1) = %v %v", st, sh)
	}
}

// mustPanic checks that f panics with a message that starts with "dist: "
// and contains every one of parts.
func mustPanic(t *testing.T, what string, f func(), parts ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		msg := fmt.Sprint(recover())
		if !strings.HasPrefix(msg, "dist: ") {
			t.Errorf("%s: panic %q, want one from dist", what, msg)
			return
		}
		for _, p := range parts {
			if !strings.Contains(msg, p) {
				t.Errorf("%s: panic %q does not say %q", what, msg, p)
			}
		}
	}()
	f()
}

// TestGridRefusals checks that what does not apply to a grid layout, and
// wrong grid arguments, panic with messages that name the function and
// the layout.
func TestGridRefusals(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	l := dist.NewGridLayout([]int{4, 5}, []int{2, 3})
	mustPanic(t, "Counts", func() { l.Counts() }, "Layout.Counts", "process grid [2 3]", "GridCounts")
	mustPanic(t, "Range", func() { l.Range(0) }, "Layout.Range", "process grid [2 3]", "Block")
	mustPanic(t, "Owner", func() { l.Owner(0) }, "Layout.Owner", "process grid [2 3]", "OwnerOf")
	mustPanic(t, "Coords of replicated", func() { dist.NewLayout([]int{3}, dist.Replicated, 2).Coords(0) }, "Layout.Coords", "replicated")
	mustPanic(t, "RankAt outside", func() { l.RankAt([]int{2, 0}) }, "RankAt", "[2 0]")
	mustPanic(t, "Neighbor", func() { l.Neighbor(0, []int{1}, false) }, "Neighbor", "[1]")
	mustPanic(t, "GridCounts axis", func() { l.GridCounts(2) }, "GridCounts", "axis 2")
	mustPanic(t, "NewGridLayout dims", func() { dist.NewGridLayout([]int{4, 5}, []int{2}) }, "NewGridLayout", "one grid dimension per axis")
	mustPanic(t, "NewGridLayout zero", func() { dist.NewGridLayout([]int{4, 5}, []int{0, 2}) }, "NewGridLayout", "DimsCreate")
	mustPanic(t, "NewGridLayoutCounts sum", func() { dist.NewGridLayoutCounts([]int{4, 5}, [][]int{{2, 2}, {4}}) }, "NewGridLayoutCounts", "[4]", "axis 1")
	mustPanic(t, "NewGridLayoutCounts negative", func() { dist.NewGridLayoutCounts([]int{4, 5}, [][]int{{5, -1}, {5}}) }, "negative")
	mustPanic(t, "NewLayout Grid", func() { dist.NewLayout([]int{4, 5}, dist.Grid, 2) }, "NewGridLayout")
	mustPanic(t, "NewLayoutCounts Grid", func() { dist.NewLayoutCounts([]int{4, 5}, dist.Grid, []int{4}) }, "NewGridLayoutCounts")

	mustPanic(t, "ProcessGrid with SplitAxis", func() { dist.Zeros[float64](c, []int{4, 5}, dist.SplitAxis(0), dist.ProcessGrid(0, 0)) }, "SplitAxis")
	mustPanic(t, "ProcessGrid with BlockSizes", func() { dist.Zeros[float64](c, []int{4}, dist.BlockSizes(make([]int, p)), dist.ProcessGrid(0)) }, "BlockSizes")
	mustPanic(t, "ProcessGrid with GridBlockSizes", func() {
		dist.Zeros[float64](c, []int{4}, dist.GridBlockSizes([]int{4}), dist.ProcessGrid(0))
	}, "GridBlockSizes")
	mustPanic(t, "ProcessGrid length", func() { dist.Zeros[float64](c, []int{4, 5}, dist.ProcessGrid(0)) }, "ProcessGrid[0]", "one grid dimension per axis")
	mustPanic(t, "ProcessGrid size", func() { dist.Zeros[float64](c, []int{4, 5}, dist.ProcessGrid(p+1, 1)) }, "ProcessGrid", "no grid of")
	mustPanic(t, "ProcessGrid negative", func() { dist.Zeros[float64](c, []int{4, 5}, dist.ProcessGrid(-1, 0)) }, "negative")
	mustPanic(t, "GridBlockSizes size", func() { dist.Zeros[float64](c, []int{4, 5}, dist.GridBlockSizes([]int{4}, []int{2, 3}, nil)) }, "GridBlockSizes")
	mustPanic(t, "GridBlockSizes ranks", func() { dist.Zeros[float64](c, []int{4}, dist.GridBlockSizes(append(make([]int, p), 4))) }, "GridBlockSizes", fmt.Sprintf("communicator of %d", p))
	mustPanic(t, "New with ProcessGrid", func() { dist.New[float64](c, dist.NewLayout([]int{4}, 0, p), dist.ProcessGrid(0)) }, "New", "ProcessGrid")

	x, err := dist.Zeros[float64](c, []int{7}, dist.ProcessGrid(0))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	mustPanic(t, "Array.Range", func() { x.Range() }, "Array.Range", "process grid", "Block")
	mustPanic(t, "Sort", func() { dist.Sort(x) }, "Sort", "process grid", "Redistribute")
	mustPanic(t, "HaloOf", func() { dist.HaloOf(x, 1) }, "HaloOf", "process grid")
	mustPanic(t, "NewHalo", func() { dist.NewHalo[float64](c, x.Layout(), 1) }, "NewHalo", "process grid")
}

// TestGridArrays checks creation, Get/Set, elementwise operations,
// reductions, Gather/Allgather/Scatter and random arrays on grid layouts
// against the serial array.
func TestGridArrays(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	for _, shape := range shapes {
		want := refValues(shape)
		for _, g := range gridCases(shape, p) {
			t.Run(fmt.Sprintf("%v/%s", shape, g.name), func(t *testing.T) {
				x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, g.opt)
				if err != nil {
					t.Fatal(err)
				}
				defer x.Free()
				checkGridArray(t, c, x, shape, g, want)
				if !x.Layout().Equal(dist.NewGridLayoutCounts(shape, g.counts)) {
					t.Fatalf("layout %v, want the counts %v", x.Layout(), g.counts)
				}

				// Gather at the last rank, Scatter from it.
				root := p - 1
				gathered, err := dist.Gather(x, root)
				mpitest.Check(t, c, err == nil && (me != root || slices.Equal(gathered, want)) && (me == root || gathered == nil),
					"Gather: %v (%v)", gathered, err)
				var data []float64
				if me == root {
					data = want
				}
				s, err := dist.Scatter(c, root, data, shape, g.opt)
				if err != nil {
					t.Fatal(err)
				}
				checkGridArray(t, c, s, shape, g, want)
				s.Free()

				// Zeros and Full.
				f, err := dist.Full(c, shape, 2.5, g.opt)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Free()
				twos := make([]float64, len(want))
				for i := range twos {
					twos[i] = 2.5
				}
				checkGridArray(t, c, f, shape, g, twos)

				// Elementwise: z = (x + f) * f - 1, then + the last index.
				z, err := dist.ZerosLike(x)
				if err != nil {
					t.Fatal(err)
				}
				defer z.Free()
				dist.Add(z, x, f)
				dist.Mul(z, z, f)
				dist.AddScalar(z, z, -1)
				if err := dist.MapIndex(z, func(idx []int, v float64) float64 { return v + float64(idx[len(idx)-1]) }); err != nil {
					t.Fatal(err)
				}
				wz := make([]float64, len(want))
				for i := range wz {
					idx := dist.Unravel(i, shape)
					wz[i] = (want[i]+2.5)*2.5 - 1 + float64(idx[len(idx)-1])
				}
				checkGridArray(t, c, z, shape, g, wz)

				// Reductions against the serial values.
				sum, err := dist.Sum(x)
				ws := 0.0
				for _, v := range want {
					ws += v
				}
				mpitest.Check(t, c, err == nil && math.Abs(sum-ws) <= 1e-12*(1+math.Abs(ws)), "Sum %v (%v), want %v", sum, err, ws)
				exact, err := dist.SumExact(x)
				mpitest.Check(t, c, err == nil && math.Abs(exact-ws) <= 1e-12*(1+math.Abs(ws)), "SumExact %v (%v), want %v", exact, err, ws)
				dot, err := dist.Dot(x, f)
				mpitest.Check(t, c, err == nil && math.Abs(dot-2.5*ws) <= 1e-12*(1+math.Abs(ws)), "Dot %v (%v), want %v", dot, err, 2.5*ws)
				if len(want) > 0 {
					imax, imin := 0, 0
					for i, v := range want {
						if v > want[imax] {
							imax = i
						}
						if v < want[imin] {
							imin = i
						}
					}
					mx, err1 := dist.Max(x)
					mn, err2 := dist.Min(x)
					am, err3 := dist.Argmax(x)
					an, err4 := dist.Argmin(x)
					mpitest.Check(t, c, mx == want[imax] && mn == want[imin] && am == imax && an == imin && err1 == nil && err2 == nil && err3 == nil && err4 == nil,
						"Max %v Min %v Argmax %d Argmin %d, want %v %v %d %d", mx, mn, am, an, want[imax], want[imin], imax, imin)

					// Get and Set of the first, middle and last elements.
					some := slices.Compact([]int{0, len(want) / 2, len(want) - 1})
					for _, i := range some {
						idx := dist.Unravel(i, shape)
						v, err := dist.Get(x, idx...)
						mpitest.Check(t, c, err == nil && v == want[i], "Get%v = %v (%v), want %v", idx, v, err, want[i])
						if err := dist.Set(x, -1000-float64(i), idx...); err != nil {
							t.Fatal(err)
						}
					}
					ws := slices.Clone(want)
					for _, i := range some {
						ws[i] = -1000 - float64(i)
					}
					checkGridArray(t, c, x, shape, g, ws)
				}

				// Random arrays: the values of row blocks, element for element.
				for _, normal := range []bool{false, true} {
					mk := dist.Uniform[float64]
					if normal {
						mk = dist.Normal[float64]
					}
					rows, err := mk(c, shape, 42, 3)
					if err != nil {
						t.Fatal(err)
					}
					wr, err := dist.Allgather(rows)
					rows.Free()
					if err != nil {
						t.Fatal(err)
					}
					r, err := mk(c, shape, 42, 3, g.opt)
					if err != nil {
						t.Fatal(err)
					}
					checkGridArray(t, c, r, shape, g, wr)
					r.Free()
				}
			})
		}
	}
}

// TestGridArange checks Arange and Linspace on a 1-D grid.
func TestGridArange(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{0, 1, 3, 10} {
		a, err := dist.Arange(c, 2, 2+float64(n)*0.5, 0.5, dist.ProcessGrid(0))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, n)
		for i := range want {
			want[i] = 2 + float64(i)*0.5
		}
		g := gridCase{counts: [][]int{even(n, c.Size())}}
		checkGridArray(t, c, a, []int{n}, g, want)
		a.Free()
	}
}

// layoutTargets returns the layouts of shape on p ranks that a grid array
// is redistributed to and from: every split axis, replicated, uneven
// blocks on each axis, and the grids of gridCases.
func layoutTargets(shape []int, p int) []dist.Layout {
	out := redistributeTargets(shape, p)
	for _, g := range gridCases(shape, p) {
		out = append(out, dist.NewGridLayoutCounts(shape, g.counts))
	}
	return out
}

// TestGridRedistribute checks Redistribute between grid layouts and every
// other kind of layout, both ways, against the serial array.
func TestGridRedistribute(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, shape := range shapes {
		want := refValues(shape)
		targets := layoutTargets(shape, p)
		for _, from := range targets {
			x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, optionsFor(from)...)
			if err != nil {
				t.Fatal(err)
			}
			if !x.Layout().Equal(from) {
				t.Fatalf("made %v, want %v", x.Layout(), from)
			}
			for _, to := range targets {
				if from.Axis() != dist.Grid && to.Axis() != dist.Grid {
					continue // TestRedistribute's
				}
				y, err := dist.Redistribute(x, to)
				if err != nil {
					t.Fatal(err)
				}
				if !y.Layout().Equal(to) {
					t.Fatalf("layout %v, want %v", y.Layout(), to)
				}
				st, sh := to.Block(c.Rank())
				local := y.LocalData()
				wb := boxOf(want, shape, st, sh)
				got, err := dist.Allgather(y)
				mpitest.Check(t, c, err == nil && slices.Equal(local, wb) && slices.Equal(got, want),
					"%v from %v: block %v, want %v; Allgather %v (%v), want %v", to, from, local, wb, got, err, want)
				y.Free()
			}
			x.Free()
		}
	}
}

// TestGridAxisReductions checks the axis reductions of grid arrays
// against the serial values.
func TestGridAxisReductions(t *testing.T) {
	c := mpitest.World(t)
	for _, shape := range shapes {
		want := refValues(shape)
		for _, g := range gridCases(shape, c.Size()) {
			x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, g.opt)
			if err != nil {
				t.Fatal(err)
			}
			for ax := range shape {
				n := shape[ax]
				outShape := slices.Delete(slices.Clone(shape), ax, ax+1)
				if len(outShape) == 0 {
					outShape = []int{1}
				}
				m := prod(outShape)
				sums, maxs, args := make([]float64, m), make([]float64, m), make([]int64, m)
				for o := 0; o < m; o++ {
					oi := dist.Unravel(o, outShape)
					if len(shape) == 1 {
						oi = nil
					}
					for k := 0; k < n; k++ {
						idx := slices.Insert(slices.Clone(oi), ax, k)
						v := want[flat(idx, shape)]
						sums[o] += v
						if k == 0 || v > maxs[o] {
							maxs[o], args[o] = v, int64(k)
						}
					}
				}
				s, err := dist.SumAxis(x, ax)
				if err != nil {
					t.Fatal(err)
				}
				gs, err := dist.Allgather(s)
				ok := err == nil && len(gs) == m
				for i := 0; ok && i < m; i++ {
					ok = math.Abs(gs[i]-sums[i]) <= 1e-12*(1+math.Abs(sums[i]))
				}
				mpitest.Check(t, c, ok && slices.Equal(s.Shape(), outShape), "%s: SumAxis(%d) of %v: %v %v (%v), want %v %v", g.name, ax, shape, s.Shape(), gs, err, outShape, sums)
				s.Free()
				if n == 0 {
					continue
				}
				mx, err := dist.MaxAxis(x, ax)
				if err != nil {
					t.Fatal(err)
				}
				am, err := dist.ArgmaxAxis(x, ax)
				if err != nil {
					t.Fatal(err)
				}
				gm, err1 := dist.Allgather(mx)
				ga, err2 := dist.Allgather(am)
				mpitest.Check(t, c, err1 == nil && err2 == nil && slices.Equal(gm, maxs) && slices.Equal(ga, args),
					"%s: MaxAxis/ArgmaxAxis(%d) of %v: %v %v, want %v %v", g.name, ax, shape, gm, ga, maxs, args)
				mx.Free()
				am.Free()
			}
			x.Free()
		}
	}
}

// TestGridSaveLoad checks Save, Load and LoadInto of grid arrays, and a
// checkpoint of one: the file holds the global array (read back on row
// blocks), and loads onto a grid again.
func TestGridSaveLoad(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	for i, shape := range [][]int{{7}, {5, 3}, {2, 9}, {1, 4}, {3, 4, 5}, {4, 0, 2}} {
		want := refValues(shape)
		for j, g := range gridCases(shape, c.Size()) {
			x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, g.opt)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, fmt.Sprintf("g%d-%d.npy", i, j))
			if err := dist.Save(x, path); err != nil {
				t.Fatal(err)
			}
			rows, err := dist.Load[float64](c, path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dist.Allgather(rows)
			mpitest.Check(t, c, err == nil && slices.Equal(got, want), "%v %s: saved %v (%v), want %v", shape, g.name, got, err, want)
			rows.Free()
			back, err := dist.Load[float64](c, path, g.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkGridArray(t, c, back, shape, g, want)
			// LoadInto an existing grid array.
			dist.Fill(back, -1)
			if err := dist.LoadInto(back, path); err != nil {
				t.Fatal(err)
			}
			checkGridArray(t, c, back, shape, g, want)
			back.Free()

			ck := filepath.Join(dir, fmt.Sprintf("ck%d-%d", i, j))
			if err := dist.SaveCheckpoint(c, ck, 1, nil, dist.Entry("x", x)); err != nil {
				t.Fatal(err)
			}
			r, err := dist.OpenCheckpoint(c, ck)
			if err != nil {
				t.Fatal(err)
			}
			y, err := dist.LoadArray[float64](r, "x", g.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkGridArray(t, c, y, shape, g, want)
			y.Free()
			x.Free()
		}
	}
	// A grid that does not fit the file is an error on every rank.
	x, err := dist.FromFunc(c, []int{5, 3}, func(idx []int) float64 { return ref(flat(idx, []int{5, 3})) })
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bad.npy")
	if err := dist.Save(x, path); err != nil {
		t.Fatal(err)
	}
	x.Free()
	_, err = dist.Load[float64](c, path, dist.ProcessGrid(0, 0, 0))
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "process grid of 3 dimensions"), "Load with a 3-D grid of a 2-D file: %v", err)
}

// TestGridEveryFunction checks, on grid layouts, the exported functions
// that the other grid tests do not: each against the serial values, or its
// refusal.
func TestGridEveryFunction(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	for _, shape := range [][]int{{7}, {5, 3}, {1, 4}, {3, 0}, {2, 5, 3}} {
		want := refValues(shape)
		for _, g := range gridCases(shape, c.Size()) {
			t.Run(fmt.Sprintf("%v/%s", shape, g.name), func(t *testing.T) {
				mk := func() *dist.Array[float64] {
					x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, g.opt)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(x.Free)
					return x
				}
				l := dist.NewGridLayoutCounts(shape, g.counts)
				serial := func(f func(i int, v float64) float64) []float64 {
					out := make([]float64, len(want))
					for i, v := range want {
						out[i] = f(i, v)
					}
					return out
				}
				elementwise := []struct {
					name string
					op   func(z, x, y *dist.Array[float64]) error
					want func(i int, v float64) float64
				}{
					{"Copy", func(z, x, _ *dist.Array[float64]) error { dist.Copy(z, x); return nil }, func(_ int, v float64) float64 { return v }},
					{"Fill", func(z, _, _ *dist.Array[float64]) error { dist.Fill(z, 4); return nil }, func(int, float64) float64 { return 4 }},
					{"Sub", func(z, x, y *dist.Array[float64]) error { dist.Sub(z, x, y); return nil }, func(i int, v float64) float64 { return v - float64(i%3+1) }},
					{"Div", func(z, x, y *dist.Array[float64]) error { dist.Div(z, x, y); return nil }, func(i int, v float64) float64 { return v / float64(i%3+1) }},
					{"SubScalar", func(z, x, _ *dist.Array[float64]) error { dist.SubScalar(z, x, 2); return nil }, func(_ int, v float64) float64 { return v - 2 }},
					{"MulScalar", func(z, x, _ *dist.Array[float64]) error { dist.MulScalar(z, x, 3); return nil }, func(_ int, v float64) float64 { return v * 3 }},
					{"DivScalar", func(z, x, _ *dist.Array[float64]) error { dist.DivScalar(z, x, 4); return nil }, func(_ int, v float64) float64 { return v / 4 }},
					{"Scale", func(z, x, _ *dist.Array[float64]) error { dist.Copy(z, x); dist.Scale(-2, z); return nil }, func(_ int, v float64) float64 { return -2 * v }},
					{"Axpy", func(z, x, y *dist.Array[float64]) error { dist.Copy(z, y); dist.Axpy(0.5, x, z); return nil }, func(i int, v float64) float64 { return 0.5*v + float64(i%3+1) }},
					{"Map", func(z, x, _ *dist.Array[float64]) error {
						dist.Copy(z, x)
						return dist.Map(z, func(v float64) float64 { return v * v })
					}, func(_ int, v float64) float64 { return v * v }},
					{"Array.Copy", func(z, x, _ *dist.Array[float64]) error {
						y, err := x.Copy()
						if err != nil {
							return err
						}
						dist.Copy(z, y)
						y.Free()
						return nil
					}, func(_ int, v float64) float64 { return v }},
				}
				x := mk()
				y, err := dist.FromFunc(c, shape, func(idx []int) float64 { return float64(flat(idx, shape)%3 + 1) }, g.opt)
				if err != nil {
					t.Fatal(err)
				}
				defer y.Free()
				for _, e := range elementwise {
					z, err := dist.New[float64](c, l)
					if err != nil {
						t.Fatal(err)
					}
					if err := e.op(z, x, y); err != nil {
						t.Fatal(err)
					}
					got, err := dist.Allgather(z)
					w := serial(e.want)
					mpitest.Check(t, c, err == nil && slices.Equal(got, w), "%s: %v (%v), want %v", e.name, got, err, w)
					z.Free()
				}

				// Norms and exact dots.
				ss, sxy := 0.0, 0.0
				for i, v := range want {
					ss += v * v
					sxy += v * float64(i%3+1)
				}
				near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }
				n1, err1 := dist.Norm(x)
				n2, err2 := dist.NormExact(x)
				d, err3 := dist.DotExact(x, y)
				mpitest.Check(t, c, err1 == nil && err2 == nil && err3 == nil && near(n1, math.Sqrt(ss)) && near(n2, math.Sqrt(ss)) && near(d, sxy),
					"Norm %v NormExact %v DotExact %v, want %v %v", n1, n2, d, math.Sqrt(ss), sxy)

				// The other axis reductions, along the first axis.
				n, m := shape[0], len(want)/max(shape[0], 1)
				if n > 0 {
					mins, args, norms, dots := make([]float64, m), make([]int64, m), make([]float64, m), make([]float64, m)
					for o := 0; o < m; o++ {
						for k := 0; k < n; k++ {
							i := k*m + o
							v := want[i]
							if k == 0 || v < mins[o] {
								mins[o], args[o] = v, int64(k)
							}
							norms[o] += v * v
							dots[o] += v * float64(i%3+1)
						}
						norms[o] = math.Sqrt(norms[o])
					}
					mn, err1 := dist.MinAxis(x, 0)
					an, err2 := dist.ArgminAxis(x, 0)
					nr, err3 := dist.NormAxis(x, 0)
					dt, err4 := dist.DotAxis(x, y, 0)
					if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
						t.Fatal(err1, err2, err3, err4)
					}
					gmn, _ := dist.Allgather(mn)
					gan, _ := dist.Allgather(an)
					gnr, _ := dist.Allgather(nr)
					gdt, _ := dist.Allgather(dt)
					ok := slices.Equal(gmn, mins) && slices.Equal(gan, args) && len(gnr) == m && len(gdt) == m
					for o := 0; ok && o < m; o++ {
						ok = near(gnr[o], norms[o]) && near(gdt[o], dots[o])
					}
					mpitest.Check(t, c, ok, "MinAxis %v ArgminAxis %v NormAxis %v DotAxis %v, want %v %v %v %v", gmn, gan, gnr, gdt, mins, args, norms, dots)
					for _, a := range []*dist.Array[float64]{mn, nr, dt} {
						a.Free()
					}
					an.Free()
				}

				// UniformInts: the values of row blocks.
				rows, err := dist.UniformInts[int64](c, shape, 7, 1, -5, 9)
				if err != nil {
					t.Fatal(err)
				}
				wr, _ := dist.Allgather(rows)
				rows.Free()
				ui, err := dist.UniformInts[int64](c, shape, 7, 1, -5, 9, g.opt)
				if err != nil {
					t.Fatal(err)
				}
				gu, err := dist.Allgather(ui)
				mpitest.Check(t, c, err == nil && ui.Layout().Equal(l) && slices.Equal(gu, wr), "UniformInts on %v: %v, want %v", ui.Layout(), gu, wr)
				ui.Free()

				// FromLocal over this rank's block of the grid.
				st, sh := l.Block(me)
				block := boxOf(want, shape, st, sh)
				if block == nil {
					block = []float64{}
				}
				f := dist.FromLocal(c, l, backend.Wrap(block))
				defer f.Free()
				checkGridArray(t, c, f, shape, g, want)

				// Resplit off the grid, to every axis and replicated.
				for _, a := range axes(shape) {
					r, err := dist.Resplit(x, a)
					if err != nil {
						t.Fatal(err)
					}
					got, err := dist.Allgather(r)
					mpitest.Check(t, c, err == nil && r.Layout().Equal(dist.NewLayout(shape, a, c.Size())) && slices.Equal(got, want), "Resplit(%d): %v %v", a, r.Layout(), got)
					r.Free()
				}

				if len(shape) == 1 {
					mustPanic(t, "SortWithIndex", func() { dist.SortWithIndex(x) }, "Sort", "process grid")
					mustPanic(t, "SortWithOptions", func() { dist.SortWithOptions(x, dist.SortOptions{}) }, "Sort", "process grid")
				}
			})
		}
	}
	// Linspace on a 1-D grid.
	for _, n := range []int{0, 1, 2, 9} {
		a, err := dist.Linspace(c, -1.0, 1.0, n, dist.ProcessGrid(0))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, n)
		for i := range want {
			want[i] = -1 + float64(i)*2/float64(max(n-1, 1))
		}
		got, err := dist.Allgather(a)
		ok := err == nil && len(got) == n && a.Layout().Axis() == dist.Grid
		for i := 0; ok && i < n; i++ {
			ok = math.Abs(got[i]-want[i]) <= 1e-15
		}
		mpitest.Check(t, c, ok, "Linspace(-1, 1, %d) on %v: %v, want %v", n, a.Layout(), got, want)
		a.Free()
	}
}

// TestGridChecking checks that the checking mode tells grid layouts
// apart: ranks that redistribute to different grids get an error, even
// for two grids whose block sizes, listed axis after axis, are the same.
func TestGridChecking(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	if p == 1 {
		t.Skip("ranks can disagree only at 2 ranks or more")
	}
	defer mpi.SetChecking(mpi.SetChecking(true))
	x, err := dist.Zeros[float64](c, []int{4, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	// p x 1 with everything on the first grid row, and 1 x p with
	// everything on the last grid column: [4 0 ... 0] [4] and [4] [0 ... 0 4].
	rows, cols := make([]int, p), make([]int, p)
	rows[0], cols[p-1] = 4, 4
	to := dist.NewGridLayoutCounts([]int{4, 4}, [][]int{rows, {4}})
	if c.Rank() == p-1 {
		to = dist.NewGridLayoutCounts([]int{4, 4}, [][]int{{4}, cols})
	}
	y, err := dist.Redistribute(x, to)
	mpitest.Check(t, c, err != nil && y == nil, "Redistribute to different grids: %v, %v", y, err)
}
