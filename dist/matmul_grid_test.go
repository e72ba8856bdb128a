package dist_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// mmGrids returns the 2-D process grids of p ranks the tests use: 1x1;
// 1x2 and 2x1; 1x3 and 3x1; 2x2, 1x4 and 4x1.
func mmGrids(p int) [][2]int {
	var gs [][2]int
	for pr := 1; pr <= p; pr++ {
		if p%pr == 0 {
			gs = append(gs, [2]int{pr, p / pr})
		}
	}
	return gs
}

// gridCounts returns block sizes of n over parts: even ("even", the first
// n%parts one larger), all on the last block ("last") or on the first
// ("first"), the others empty.
func gridCounts(n, parts int, kind string) []int {
	c := make([]int, parts)
	switch kind {
	case "last":
		c[parts-1] = n
	case "first":
		c[0] = n
	default:
		for i := range c {
			c[i] = n / parts
			if i < n%parts {
				c[i]++
			}
		}
	}
	return c
}

// mmGridBlocks are the block sizes of the operands on the grid: rows and
// columns of a, rows and columns of b. a's columns and b's rows are cut
// differently in all but the first, so that panels cross block boundaries
// of one operand and not the other, and blocks are empty.
var mmGridBlocks = [][4]string{
	{"even", "even", "even", "even"},
	{"even", "last", "first", "even"},
	{"last", "even", "last", "first"},
}

// gridMatrix returns test matrix seed of shape on the pr x pc grid with
// the block sizes kinds (rows, columns).
func gridMatrix[T backend.Element](t *testing.T, c mpi.Comm, seed int, shape []int, pr, pc int, rows, cols string, b backend.Backend) *dist.Array[T] {
	t.Helper()
	opts := []dist.Option{dist.GridBlockSizes(gridCounts(shape[0], pr, rows), gridCounts(shape[1], pc, cols))}
	if b != nil {
		opts = append(opts, dist.OnBackend(b))
	}
	x, err := dist.FromFunc(c, shape, func(idx []int) T { return mmValue[T](seed, idx[0], idx[1]) }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// mmGridSizes are (m, k, n): empty, fewer rows, inner indices or columns
// than grid rows or columns, k = 1, and sizes no grid divides.
var mmGridSizes = [][3]int{
	{0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {5, 1, 4}, {2, 5, 3},
	{7, 5, 3}, {5, 7, 9}, {13, 11, 6},
}

// TestMatMulGrid checks MatMul (SUMMA) of operands on every 2-D process
// grid of the ranks, at every size and block sizes, against a serial
// product to within 2k·ε·(|a||b|)ij (exactly for integers), with the
// default panel width and with panels of 1 and 2 columns (which cut the
// blocks and pack a's panels).
func TestMatMulGrid(t *testing.T) {
	c := mpitest.World(t)
	testMatMulGrid[float64](t, c, []int{0, 1, 2})
	testMatMulGrid[int64](t, c, []int{0, 2})
	testMatMulGrid[float32](t, c, []int{0})
	testMatMulGrid[uint32](t, c, []int{2})
}

func testMatMulGrid[T backend.Element](t *testing.T, c mpi.Comm, widths []int) {
	t.Helper()
	for _, g := range mmGrids(c.Size()) {
		pr, pc := g[0], g[1]
		for _, sz := range mmGridSizes {
			m, k, n := sz[0], sz[1], sz[2]
			for _, bs := range mmGridBlocks {
				for _, w := range widths {
					name := fmt.Sprintf("%v/%dx%d/%dx%dx%d/%v/w=%d", backend.DTypeOf[T](), pr, pc, m, k, n, bs, w)
					x := gridMatrix[T](t, c, 1, []int{m, k}, pr, pc, bs[0], bs[1], nil)
					y := gridMatrix[T](t, c, 2, []int{k, n}, pr, pc, bs[2], bs[3], nil)
					z, err := dist.MatMulWithOptions(x, y, dist.MatMulOptions{PanelWidth: w})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					wl := dist.NewGridLayoutCounts([]int{m, n}, [][]int{gridCounts(m, pr, bs[0]), gridCounts(n, pc, bs[3])})
					if !z.Layout().Equal(wl) {
						t.Fatalf("%s: result %v, want %v", name, z.Layout(), wl)
					}
					xs, err1 := dist.Allgather(x)
					ys, err2 := dist.Allgather(y)
					zs, err3 := dist.Allgather(z)
					if err1 != nil || err2 != nil || err3 != nil {
						t.Fatal(name, err1, err2, err3)
					}
					want, bound := serialProduct(xs, ys, m, k, n)
					i := within(zs, want, bound)
					mpitest.Check(t, c, i < 0, "%s: element %d: got %v, want %v", name, i, at(zs, i), at(want, i))
					x.Free()
					y.Free()
					z.Free()
				}
			}
		}
	}
}

// TestMatMulGridKnown checks one product on every grid against values
// computed by hand: [[1 2 3] [4 5 6]] times [[1 0] [0 1] [1 1]] is
// [[4 5] [10 11]].
func TestMatMulGridKnown(t *testing.T) {
	c := mpitest.World(t)
	for _, g := range mmGrids(c.Size()) {
		a, err := dist.FromFunc(c, []int{2, 3}, func(idx []int) float64 { return float64(3*idx[0] + idx[1] + 1) }, dist.ProcessGrid(g[0], g[1]))
		if err != nil {
			t.Fatal(err)
		}
		bv := []float64{1, 0, 0, 1, 1, 1}
		b, err := dist.FromFunc(c, []int{3, 2}, func(idx []int) float64 { return bv[2*idx[0]+idx[1]] }, dist.ProcessGrid(g[0], g[1]))
		if err != nil {
			t.Fatal(err)
		}
		z, err := dist.MatMul(a, b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dist.Allgather(z)
		ok := err == nil && fmt.Sprint(got) == "[4 5 10 11]"
		mpitest.Check(t, c, ok, "grid %v: got %v (%v), want [4 5 10 11]", g, got, err)
		a.Free()
		b.Free()
		z.Free()
	}
}

// TestMatMulInto checks that MatMulInto overwrites an existing result
// (twice, with different operands, so that nothing of the first product
// is left in the second) for every layout MatMul takes, grids included,
// and that it panics on a result of the wrong layout or one that is an
// operand.
func TestMatMulInto(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	const m, k, n = 7, 5, 6
	type pair struct {
		name string
		a, b func(seed int) *dist.Array[float64]
	}
	var pairs []pair
	for _, ls := range mmLayouts {
		pairs = append(pairs, pair{fmt.Sprintf("a=%v/b=%v", ls[0], ls[1]),
			func(seed int) *dist.Array[float64] { return mmMatrix[float64](t, c, seed, []int{m, k}, ls[0], nil) },
			func(seed int) *dist.Array[float64] { return mmMatrix[float64](t, c, seed+1, []int{k, n}, ls[1], nil) }})
	}
	for _, g := range mmGrids(p) {
		pairs = append(pairs, pair{fmt.Sprintf("grid %v", g),
			func(seed int) *dist.Array[float64] {
				return gridMatrix[float64](t, c, seed, []int{m, k}, g[0], g[1], "even", "last", nil)
			},
			func(seed int) *dist.Array[float64] {
				return gridMatrix[float64](t, c, seed+1, []int{k, n}, g[0], g[1], "first", "even", nil)
			}})
	}
	for _, pc := range pairs {
		var z *dist.Array[float64]
		for _, seed := range []int{1, 5} {
			x, y := pc.a(seed), pc.b(seed)
			if z == nil {
				var err error
				if z, err = dist.MatMul(x, y); err != nil {
					t.Fatal(err)
				}
				// Garbage in the result, which MatMulInto must overwrite.
				for i := range z.LocalData() {
					z.LocalData()[i] = 1e300
				}
			}
			if err := dist.MatMulInto(z, x, y); err != nil {
				t.Fatalf("%s: %v", pc.name, err)
			}
			xs, err1 := dist.Allgather(x)
			ys, err2 := dist.Allgather(y)
			zs, err3 := dist.Allgather(z)
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatal(pc.name, err1, err2, err3)
			}
			want, bound := serialProduct(xs, ys, m, k, n)
			i := within(zs, want, bound)
			mpitest.Check(t, c, i < 0, "%s seed %d: element %d: got %v, want %v", pc.name, seed, i, at(zs, i), at(want, i))
			// A result of another layout, and an operand as the result.
			wrong, err := dist.Zeros[float64](c, []int{m, n + 1}, dist.SplitAxis(dist.Replicated))
			if err != nil {
				t.Fatal(err)
			}
			sq := mmMatrix[float64](t, c, 1, []int{k, k}, mmLayout{dist.Replicated, false}, nil)
			for _, f := range []func(){
				func() { dist.MatMulInto(wrong, x, y) },
				func() { dist.MatMulInto(sq, sq, sq) },
			} {
				if msg := panicMessage(f); !strings.HasPrefix(msg, "dist: ") {
					t.Errorf("%s: panic %q, want one starting with \"dist: \"", pc.name, msg)
				}
			}
			wrong.Free()
			sq.Free()
			x.Free()
			y.Free()
		}
		z.Free()
	}
}

// panicMessage returns what f panics with, or "" if it returns.
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// TestMatMulGridPanics checks the operands on a grid that MatMul and
// MatVec cannot take: one operand on a grid and the other not, different
// grids, a method other than MatMulAuto, a negative panel width, and
// MatVec of a matrix or by a vector on a grid.
func TestMatMulGridPanics(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	mk := func(shape []int, opts ...dist.Option) *dist.Array[float64] {
		x, err := dist.Zeros[float64](c, shape, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	grid := dist.ProcessGrid(1, p)
	other := dist.ProcessGrid(p, 1)
	cases := []struct {
		name string
		f    func()
	}{
		{"grid by replicated", func() { dist.MatMul(mk([]int{2, 3}, grid), mk([]int{3, 3}, dist.SplitAxis(dist.Replicated))) }},
		{"split by grid", func() { dist.MatMul(mk([]int{2, 3}, dist.SplitAxis(0)), mk([]int{3, 3}, grid)) }},
		{"ring", func() {
			dist.MatMulWithOptions(mk([]int{2, 3}, grid), mk([]int{3, 3}, grid), dist.MatMulOptions{Method: dist.MatMulRing})
		}},
		{"panel width", func() {
			dist.MatMulWithOptions(mk([]int{2, 3}, grid), mk([]int{3, 3}, grid), dist.MatMulOptions{PanelWidth: -1})
		}},
		{"MatVec grid a", func() { dist.MatVec(mk([]int{2, 3}, grid), mk([]int{3}, dist.SplitAxis(0))) }},
		{"MatVec grid x", func() { dist.MatVec(mk([]int{2, 3}, dist.SplitAxis(0)), mk([]int{3}, dist.ProcessGrid(p))) }},
	}
	if p > 1 {
		cases = append(cases, struct {
			name string
			f    func()
		}{"grids differ", func() { dist.MatMul(mk([]int{2, 3}, grid), mk([]int{3, 3}, other)) }})
	}
	for _, tc := range cases {
		if msg := panicMessage(tc.f); !strings.HasPrefix(msg, "dist: ") {
			t.Errorf("%s: panic %q, want one starting with \"dist: \"", tc.name, msg)
		}
	}
}

// summaCopies returns the host/device copies that SUMMA's broadcasts make
// on rank me when MPI is not CUDA-aware: per panel, a to_host of the panel
// of a on the grid column that holds it and a to_device on the others of
// its grid row (for a grid of more than one column and a grid row with
// rows of a), and the same for b's panels along the grid's columns. The
// panels are the runs of inner indices that lie in one block of a's
// columns and one of b's rows, at most w long.
func summaCopies(al, bl dist.Layout, me, w int) transfers {
	dims := al.GridDims()
	pr, pc := dims[0], dims[1]
	i, j := me/pc, me%pc
	ac, br := al.GridCounts(1), bl.GridCounts(0)
	mr, nc := al.GridCounts(0)[i], bl.GridCounts(1)[j]
	owner := func(counts []int, l int) int {
		for q, s := 0, 0; ; q++ {
			if l < s+counts[q] {
				return q
			}
			s += counts[q]
		}
	}
	var tr transfers
	add := func(ja, ib, wp int) {
		if pc > 1 && mr > 0 {
			if j == ja {
				tr = tr.plus(toHost(int64(8 * mr * wp)))
			} else {
				tr = tr.plus(toDevice(int64(8 * mr * wp)))
			}
		}
		if pr > 1 && nc > 0 {
			if i == ib {
				tr = tr.plus(toHost(int64(8 * wp * nc)))
			} else {
				tr = tr.plus(toDevice(int64(8 * wp * nc)))
			}
		}
	}
	k := al.Shape()[1]
	lo := 0
	for l := 1; l <= k; l++ {
		if l == k || l-lo == w || owner(ac, l) != owner(ac, lo) || owner(br, l) != owner(br, lo) {
			add(owner(ac, lo), owner(br, lo), l-lo)
			lo = l
		}
	}
	return tr
}

// TestMatMulGridDevice checks SUMMA of fake-device arrays (MatMulInto,
// into a result on the device): the serial product's values, and between
// host and device nothing when MPI is CUDA-aware (the panels are packed
// and multiplied on the device and broadcast from device memory); exactly
// the staging copies of the broadcasts (summaCopies) when it is not; and,
// on a backend that cannot multiply, one copy of each operand's block to
// the host and one of the result's block back.
func TestMatMulGridDevice(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	slowDevice(t)
	for _, mode := range []string{"staged", "aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			for _, g := range mmGrids(c.Size()) {
				for _, sz := range [][3]int{{0, 3, 2}, {3, 0, 2}, {5, 1, 4}, {7, 5, 3}, {5, 7, 9}} {
					for _, bs := range mmGridBlocks {
						for _, w := range []int{0, 2} {
							m, k, n := sz[0], sz[1], sz[2]
							name := fmt.Sprintf("%v/%dx%dx%d/%v/w=%d", g, m, k, n, bs, w)
							x := gridMatrix[float64](t, c, 1, []int{m, k}, g[0], g[1], bs[0], bs[1], b)
							y := gridMatrix[float64](t, c, 2, []int{k, n}, g[0], g[1], bs[2], bs[3], b)
							z, err := dist.Zeros[float64](c, []int{m, n}, dist.GridBlockSizes(gridCounts(m, g[0], bs[0]), gridCounts(n, g[1], bs[3])), dist.OnBackend(b))
							if err != nil {
								t.Fatal(err)
							}
							xl, yl := x.Layout(), y.Layout()
							var want transfers
							switch mode {
							case "plain":
								want = toHost(int64(8 * xl.LocalLen(me))).plus(toHost(int64(8 * yl.LocalLen(me))))
								want = want.plus(toDevice(int64(8 * z.Layout().LocalLen(me))))
							case "staged":
								pw := w
								if pw == 0 {
									pw = dist.MatMulPanelWidth
								}
								want = summaCopies(xl, yl, me, pw)
							}
							expectCopies(t, name, want, func() error {
								return dist.MatMulIntoWithOptions(z, x, y, dist.MatMulOptions{PanelWidth: w})
							})
							if z.Device() != b.Device() {
								t.Fatalf("%s: result on %v", name, z.Device())
							}
							xs, err1 := dist.Allgather(x)
							ys, err2 := dist.Allgather(y)
							zs, err3 := dist.Allgather(z)
							if err1 != nil || err2 != nil || err3 != nil {
								t.Fatal(name, err1, err2, err3)
							}
							want2, bound := serialProduct(xs, ys, m, k, n)
							i := within(zs, want2, bound)
							mpitest.Check(t, c, i < 0, "%s: element %d: got %v, want %v", name, i, at(zs, i), at(want2, i))
							x.Free()
							y.Free()
							z.Free()
						}
					}
				}
			}
		})
	}
}
