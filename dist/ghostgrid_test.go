package dist_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// gridGhostCase is an exchange of the ghost layers of an array on a
// process grid.
type gridGhostCase struct {
	shape  []int
	dims   []int   // ProcessGrid, or nil
	counts [][]int // GridBlockSizes, or nil
	w      int
	per    []int // PeriodicAxes
}

func (gc gridGhostCase) String() string {
	s := fmt.Sprintf("%v/w%d/per%v", gc.shape, gc.w, gc.per)
	if gc.counts != nil {
		return s + fmt.Sprintf("/counts%v", gc.counts)
	}
	return s + fmt.Sprintf("/dims%v", gc.dims)
}

func (gc gridGhostCase) options(extra ...dist.Option) []dist.Option {
	opts := append([]dist.Option{dist.Ghosts(gc.w), dist.PeriodicAxes(gc.per...)}, extra...)
	if gc.counts != nil {
		return append(opts, dist.GridBlockSizes(gc.counts...))
	}
	return append(opts, dist.ProcessGrid(gc.dims...))
}

// gridGhostCases are exchanges on 2-D and 3-D grids: uneven blocks, empty
// blocks, widths larger than a neighbour's block (and than the whole axis),
// periodic along no axis, one or every one.
func gridGhostCases(p int) []gridGhostCase {
	var cs []gridGhostCase
	add := func(shape []int, dims []int, counts [][]int) {
		d := len(shape)
		pers := [][]int{{}, {0}, {d - 1}}
		all := make([]int, d)
		for a := range all {
			all[a] = a
		}
		pers = append(pers, all)
		for _, w := range []int{0, 1, 2, 3} {
			for _, per := range pers {
				cs = append(cs, gridGhostCase{shape: shape, dims: dims, counts: counts, w: w, per: per})
			}
		}
	}
	for _, shape := range [][]int{{7, 5}, {2, 3}, {1, 4}, {0, 3}} {
		add(shape, []int{0, 0}, nil)
		add(shape, []int{1, p}, nil)
	}
	add([]int{4, 3, 5}, []int{0, 0, 0}, nil)
	add([]int{3, 2, 2}, []int{1, 0, 0}, nil)
	// Empty blocks inside the grid.
	switch p {
	case 2:
		add([]int{4, 5}, nil, [][]int{{4}, {0, 5}})
		add([]int{4, 5}, nil, [][]int{{3, 1}, {5}})
	case 3:
		add([]int{4, 5}, nil, [][]int{{1, 0, 3}, {5}})
	case 4:
		add([]int{3, 4}, nil, [][]int{{3, 0}, {1, 3}})
		add([]int{5, 4}, nil, [][]int{{1, 4}, {0, 4}})
		add([]int{3, 2, 4}, nil, [][]int{{0, 3}, {2}, {1, 3}})
	}
	return cs
}

// gridGhostWant returns what rank me's ghosted storage holds after an
// exchange of the case: the block's elements, ghosts with the values of
// the global array at their (wrapped) index, and mark where a ghost lies
// outside a non-periodic axis, or the block is empty. val gives the
// global array's values. It also returns how many elements me receives and
// sends, worked out from every rank's ghosts.
func gridGhostWant(l dist.Layout, gc gridGhostCase, me int, mark float64, val func(idx []int) float64) (want []float64, recvN, sendN int) {
	shape := l.Shape()
	per := make([]bool, len(shape))
	for _, a := range gc.per {
		per[a] = true
	}
	// ghosts calls f with the ghosted index, the wrapped global index (nil
	// outside the array) and whether it is in the block, for each element
	// of rank r's ghosted storage.
	ghosts := func(r int, f func(pos int, g []int, inBlock bool)) {
		start, bs := l.Block(r)
		gs := make([]int, len(bs))
		for a := range bs {
			gs[a] = bs[a] + 2*gc.w
		}
		empty := prod(bs) == 0
		for i := range prod(gs) {
			if empty {
				f(i, nil, false)
				continue
			}
			idx := dist.Unravel(i, gs)
			g := make([]int, len(idx))
			in := true
			for a := range idx {
				g[a] = start[a] - gc.w + idx[a]
				if g[a] < start[a] || g[a] >= start[a]+bs[a] {
					in = false
				}
				n := shape[a]
				switch {
				case g != nil && g[a] >= 0 && g[a] < n:
				case g != nil && per[a]:
					g[a] = (g[a]%n + n) % n
				default:
					g = nil
				}
				if g == nil {
					break
				}
			}
			f(i, g, in)
		}
	}
	owner := func(g []int) int {
		for q := range l.Ranks() {
			s, sh := l.Block(q)
			ok := true
			for a := range g {
				ok = ok && g[a] >= s[a] && g[a] < s[a]+sh[a]
			}
			if ok {
				return q
			}
		}
		panic("no owner")
	}
	for r := range l.Ranks() {
		ghosts(r, func(pos int, g []int, in bool) {
			if g == nil || in {
				return
			}
			if owner(g) == me {
				sendN++
			}
		})
	}
	start, bs := l.Block(me)
	gs := make([]int, len(bs))
	for a := range bs {
		gs[a] = bs[a] + 2*gc.w
	}
	want = make([]float64, prod(gs))
	ghosts(me, func(pos int, g []int, in bool) {
		switch {
		case g == nil:
			want[pos] = mark
		default:
			want[pos] = val(g)
			if !in {
				recvN++
			}
		}
	})
	_ = start
	return want, recvN, sendN
}

func TestGridGhostExchange(t *testing.T) {
	c := mpitest.World(t)
	for _, gc := range gridGhostCases(c.Size()) {
		t.Run(gc.String(), func(t *testing.T) { checkGridGhosts(t, c, gc, cpu.Default, -1) })
	}
}

// TestDeviceGridGhostExchange checks exchanges of fake-device arrays on a
// grid: the same values, and between host and device only the staging
// copies of the messages (as many bytes as the rank sends and receives)
// when MPI is not CUDA-aware, none when it is.
func TestDeviceGridGhostExchange(t *testing.T) {
	c := mpitest.World(t)
	for _, mode := range []awareMode{staged, aware} {
		t.Run(mode.String(), func(t *testing.T) {
			setAware(t, mode)
			for _, gc := range gridGhostCases(c.Size()) {
				t.Run(gc.String(), func(t *testing.T) { checkGridGhosts(t, c, gc, fakedev.Default, mode) })
			}
		})
	}
}

// checkGridGhosts exchanges the case's array on b twice (Exchange, then
// Start and Finish after the block changed) and checks the ghosted storage
// against the global array; with mode >= 0 (a fake device) it checks the
// copies between host and device too.
func checkGridGhosts(t *testing.T, c mpi.Comm, gc gridGhostCase, b backend.Backend, mode awareMode) {
	shape := gc.shape
	val := func(round int) func(idx []int) float64 {
		return func(idx []int) float64 { return ref(flat(idx, shape)) + float64(1000*round) }
	}
	x, err := dist.FromFunc(c, shape, val(0), gc.options(dist.OnBackend(b))...)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	if x.Layout().Axis() != dist.Grid || x.Ghosts() != gc.w || x.IsPeriodic() != (len(gc.per) > 0) {
		t.Fatalf("layout %v, ghosts %d, periodic %v", x.Layout(), x.Ghosts(), x.IsPeriodic())
	}
	start, bs := x.Layout().Block(c.Rank())
	if !slices.Equal(x.LocalShape(), bs) || x.Local().Len() != prod(bs) {
		t.Fatalf("block shape %v, want %v", x.LocalShape(), bs)
	}
	gs := x.GhostedShape()
	for a := range gs {
		if gs[a] != bs[a]+2*gc.w {
			t.Fatalf("ghosted shape %v for block %v, width %d", gs, bs, gc.w)
		}
	}
	marks := make([]float64, x.Ghosted().Len())
	for i := range marks {
		marks[i] = ghostMark
	}
	if err := backend.CopyFromHostSlice(x.Ghosted(), marks); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if round == 1 {
			block := make([]float64, x.Local().Len())
			for i := range block {
				idx := dist.Unravel(i, bs)
				for a := range idx {
					idx[a] += start[a]
				}
				block[i] = val(1)(idx)
			}
			if err := backend.CopyFromHostSlice(x.Local(), block); err != nil {
				t.Fatal(err)
			}
		}
		cnt := profiling.Count()
		if round == 0 {
			err = x.Exchange()
		} else if err = x.Start(); err == nil {
			err = x.Finish()
		}
		cnt.Stop()
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, x.Ghosted().Len())
		if err := backend.CopyToHostSlice(got, x.Ghosted()); err != nil {
			t.Fatal(err)
		}
		want, recvN, sendN := gridGhostWant(x.Layout(), gc, c.Rank(), ghostMark, val(round))
		mpitest.Check(t, c, slices.Equal(got, want), "exchange %d: ghosted storage %v, want %v", round+1, got, want)
		if mode < 0 {
			continue
		}
		g := got2(cnt)
		switch mode {
		case aware:
			if g.toHost != 0 || g.toDevice != 0 {
				t.Errorf("exchange %d, CUDA-aware: %d copies to the host, %d to the device, want none", round+1, g.toHost, g.toDevice)
			}
		default:
			if g.toHostBytes != int64(8*sendN) || g.toDeviceBytes != int64(8*recvN) || (g.toHost == 0) != (sendN == 0) || (g.toDevice == 0) != (recvN == 0) {
				t.Errorf("exchange %d, staged: %d copies (%d bytes) to the host, %d (%d bytes) to the device; want %d and %d bytes", round+1, g.toHost, g.toHostBytes, g.toDevice, g.toDeviceBytes, 8*sendN, 8*recvN)
			}
		}
	}
}

// TestGridFillBoundary checks that FillBoundary on a grid sets the whole
// slabs of ghosts outside axis 0, corners included, and nothing else.
func TestGridFillBoundary(t *testing.T) {
	c := mpitest.World(t)
	for _, shape := range [][]int{{5, 4}, {1, 3}, {3, 2, 4}} {
		d := len(shape)
		dims := make([]int, d)
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			x, err := dist.Zeros[float64](c, shape, dist.Ghosts(2), dist.ProcessGrid(dims...))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Free()
			dist.FillBoundary(x, 7, -3)
			start, bs := x.Layout().Block(c.Rank())
			gs := x.GhostedShape()
			want := make([]float64, prod(gs))
			if prod(bs) > 0 {
				for i := range want {
					g0 := start[0] - 2 + dist.Unravel(i, gs)[0]
					switch {
					case g0 < 0:
						want[i] = 7
					case g0 >= shape[0]:
						want[i] = -3
					}
				}
			}
			got := x.Ghosted().Data()
			mpitest.Check(t, c, slices.Equal(got, want), "ghosted storage %v, want %v", got, want)
		})
	}
}

// gridStencilGrids are the process grids the stencils run on.
func gridStencilGrids(d, p int) [][]int {
	if d == 2 {
		return [][]int{{0, 0}, {1, p}}
	}
	return [][]int{{0, 0, 0}, {1, 0, 0}}
}

// runGrid is sc.run on a process grid of dims: periodic along axis 0 only,
// as on row blocks, so that the results are the row blocks' ones.
func (sc stencilCase) runGrid(t *testing.T, b backend.Backend, dims []int, op func(dst, src *dist.Array[float64]) error, want func(idx []int) (float64, bool)) {
	t.Helper()
	c := mpitest.World(t)
	opts := []dist.Option{dist.Ghosts(sc.w), dist.OnBackend(b), dist.ProcessGrid(dims...)}
	if sc.periodic {
		opts = append(opts, dist.PeriodicAxes(0))
	}
	src, err := dist.FromFunc(c, sc.shape, stencilValue, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free()
	dst, err := dist.Full(c, sc.shape, float64(untouched), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free()
	dist.FillBoundary(src, lowBoundary, highBoundary)
	if err := src.Exchange(); err != nil {
		t.Fatal(err)
	}
	if err := op(dst, src); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, dst.Local().Len())
	if err := backend.CopyToHostSlice(got, dst.Local()); err != nil {
		t.Fatal(err)
	}
	start, bs := dst.Layout().Block(c.Rank())
	exp := make([]float64, len(got))
	for i := range exp {
		idx := dist.Unravel(i, bs)
		for a := range idx {
			idx[a] += start[a]
		}
		v, ok := want(idx)
		if !ok {
			v = untouched
		}
		exp[i] = v
	}
	mpitest.Check(t, c, slices.Equal(got, exp), "block %v, want %v", got, exp)
}

func TestGridStencils(t *testing.T) {
	c := mpitest.World(t)
	w9 := [3][3]float64{{1, -2, 3}, {0.5, -4, 2}, {-1, 6, 0.25}}
	w7 := [7]float64{-6, 1, 2, 0.5, -1, 3, 0.25}
	// In one order on every rank: the subtests communicate.
	for _, bname := range []string{"cpu", "fakedev", "plain"} {
		b := map[string]backend.Backend{"cpu": cpu.Default, "fakedev": fakedev.Default, "plain": plainBackend{fakedev.Default}}[bname]
		for _, dims := range gridStencilGrids(2, c.Size()) {
			for _, sc := range stencilCases(2) {
				t.Run(fmt.Sprintf("%s/dims%v/%v", bname, dims, sc), func(t *testing.T) {
					laplace := func(idx []int) (float64, bool) {
						return 4*sc.at(idx) - sc.near(idx, 0, -1) - sc.near(idx, 0, 1) - sc.near(idx, 1, -1) - sc.near(idx, 1, 1), sc.interior(idx)
					}
					if bname != "plain" { // no 5-point stencils: as Stencil9's fallback, only weighted ones are copied to the host
						sc.runGrid(t, b, dims, func(d, s *dist.Array[float64]) error { dist.Jacobi5(d, s); return nil }, func(idx []int) (float64, bool) {

							return 0.25 * (sc.near(idx, 0, -1) + sc.near(idx, 0, 1) + sc.near(idx, 1, -1) + sc.near(idx, 1, 1)), sc.interior(idx)
						})
						sc.runGrid(t, b, dims, func(d, s *dist.Array[float64]) error { dist.Laplace5(d, s); return nil }, laplace)
						sc.runGrid(t, b, dims, func(d, s *dist.Array[float64]) error {
							return dist.ApplyStencil(d, s, 1, func(dv, sv *backend.Array[float64], rows, cols int) error {
								return kernels.Laplace5Kernel.Call(kernels.Int(rows), kernels.Int(cols), kernels.Array(dv), kernels.Array(sv))
							})
						}, laplace)
					}
					sc.runGrid(t, b, dims, func(d, s *dist.Array[float64]) error { return dist.Stencil9(d, s, w9) }, func(idx []int) (float64, bool) {
						sum := 0.0
						for a := range 3 {
							for bb := range 3 {
								sum += w9[a][bb] * sc.at([]int{idx[0] + a - 1, idx[1] + bb - 1})
							}
						}
						return sum, sc.interior(idx)
					})
				})
			}
		}
		for _, dims := range gridStencilGrids(3, c.Size()) {
			for _, sc := range stencilCases(3) {
				t.Run(fmt.Sprintf("%s/dims%v/%v", bname, dims, sc), func(t *testing.T) {
					sc.runGrid(t, b, dims, func(d, s *dist.Array[float64]) error { return dist.Stencil7(d, s, w7) }, func(idx []int) (float64, bool) {
						v := w7[0] * sc.at(idx)
						k := 1
						for d := range 3 {
							v += w7[k]*sc.near(idx, d, -1) + w7[k+1]*sc.near(idx, d, 1)
							k += 2
						}
						return v, sc.interior(idx)
					})
				})
			}
		}
	}
}

func TestGridGhostPanics(t *testing.T) {
	c := mpitest.World(t)
	mustPanic := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil {
				t.Errorf("%s: no panic", name)
				return
			}
			if s := fmt.Sprint(r); !strings.Contains(s, want) {
				t.Errorf("%s: panic %q, want it to mention %q", name, s, want)
			}
		}()
		f()
	}
	mustPanic("PeriodicAxes(1) on rows", "PeriodicAxes[1]", func() {
		dist.Zeros[float64](c, []int{4, 3}, dist.Ghosts(1), dist.PeriodicAxes(1))
	})
	mustPanic("PeriodicAxes(2) of 2-D", "PeriodicAxes[2]", func() {
		dist.Zeros[float64](c, []int{4, 3}, dist.Ghosts(1), dist.PeriodicAxes(2), dist.ProcessGrid(0, 0))
	})
	a, err := dist.Zeros[float64](c, []int{4, 3}, dist.Ghosts(1), dist.ProcessGrid(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	b, err := dist.Zeros[float64](c, []int{4, 3}, dist.Ghosts(2), dist.ProcessGrid(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	plain, err := dist.Zeros[float64](c, []int{4, 3}, dist.ProcessGrid(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Free()
	mustPanic("widths differ", "widths 2 and 1", func() { dist.Jacobi5(b, a) })
	mustPanic("no ghosts", "without ghost layers", func() { dist.ApplyStencil(plain, a, 0, nil) })
}
