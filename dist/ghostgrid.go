package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// Ghost layers on a process grid.
//
// An array laid out on a process grid (NewGridLayout, ProcessGrid) with
// Ghosts(w) gets w ghost indices on each side of every axis, split by the
// grid or not, so that stencils treat all axes alike. Its block is then not
// contiguous in the ghosted storage, so the two are kept apart, as PETSc's
// DMDA keeps a global and a local vector: Local is the block, a separate
// contiguous array that every operation of the package uses as it uses any
// block, and Ghosted is the block with its ghost layers, which Exchange
// fills: it copies the block into the middle of the ghosted storage (as
// DMGlobalToLocal does) and the neighbouring blocks' faces, edges and
// corners into the ghosts. The stencils read the ghosted storage and write
// the block. Arrays split along axis 0 keep the block inside the ghosted
// storage, with no copy.

// gridGhosts is what an exchange on a process grid adds: the block apart
// from the ghosted storage, and the ghosted storage's place.
type gridGhosts[T backend.Numeric] struct {
	block    *backend.Array[T] // the block: the array's Local
	start    []int             // the block's first global index along each axis
	shape    []int             // the block's shape
	gshape   []int             // the ghosted storage's shape: shape + 2*width
	periodic []bool            // wrap around, per axis
}

// boxRun is a contiguous run of a box: n elements at off in the storage,
// at packed in the box packed row-major.
type boxRun struct{ off, packed, n int }

// PeriodicAxes makes the ghost layers of a new array wrap around the ends
// of the given axes only (Periodic: of every axis that has ghost layers).
// It goes with Ghosts. An array split along axis 0 has ghost layers along
// axis 0 only, and takes PeriodicAxes(0) or PeriodicAxes(); an array on a
// process grid has them along every axis and takes any axes. An axis
// outside the array's dimensions panics when the array is made.
func PeriodicAxes(axes ...int) Option {
	a := slices.Clone(axes)
	if a == nil {
		a = []int{}
	}
	return func(o *options) { o.paxes = a }
}

// periodicMask returns the periodic axes as a bit mask, for the collective
// check.
func (g *gridGhosts[T]) periodicMask() int64 {
	var m int64
	for a, p := range g.periodic {
		if p {
			m |= 1 << a
		}
	}
	return m
}

// periodicAxesOf returns which axes of a d-dimensional array g wraps
// around.
func (g ghostSpec) periodicAxesOf(d int) []bool {
	per := make([]bool, d)
	if g.axes == nil {
		for a := range per {
			per[a] = g.periodic
		}
		return per
	}
	for _, a := range g.axes {
		if a < 0 || a >= d {
			panic(fmt.Sprintf("dist: PeriodicAxes%v of a %d-dimensional array", g.axes, d))
		}
		per[a] = true
	}
	return per
}

// newGridGhosted is New with ghost layers g on a grid layout l.
func newGridGhosted[T backend.Numeric](c mpi.Comm, l Layout, b backend.Backend, g ghostSpec) (*Array[T], error) {
	per := g.periodicAxesOf(len(l.shape))
	a := &Array[T]{comm: c, layout: l, gh: &exchange[T]{}}
	err := a.gh.initGrid(c, l, g.width, per, b)
	if err == nil {
		a.local = a.gh.grid.block
	} else {
		a = nil
	}
	if err := mpi.Agree(c, err); err != nil {
		if a != nil {
			a.Free()
		}
		return nil, fmt.Errorf("dist: allocating %v with ghosts of width %d: %w", l, g.width, err)
	}
	return a, nil
}

// initGrid allocates the block and the ghosted storage of this rank's
// block of grid layout l on backend b and plans the exchange. It does not
// communicate.
func (e *exchange[T]) initGrid(c mpi.Comm, l Layout, w int, per []bool, b backend.Backend) error {
	if l.Ranks() != c.Size() {
		panic(fmt.Sprintf("dist: %v for a communicator of %d ranks", l, c.Size()))
	}
	me := c.Rank()
	start, shape := l.Block(me)
	g := &gridGhosts[T]{start: start, shape: shape, gshape: make([]int, len(shape)), periodic: per}
	for a, n := range shape {
		g.gshape[a] = n + 2*w
	}
	*e = exchange[T]{name: "Array", comm: c, layout: l, width: w, periodic: slices.Contains(per, true), grid: g}
	var err error
	if g.block, err = backend.NewOn[T](b, prod(shape)); err != nil {
		return fmt.Errorf("dist: rank %d: %w", me, err)
	}
	if e.alloc, err = backend.NewOn[T](b, prod(g.gshape)); err != nil {
		g.block.Free()
		return fmt.Errorf("dist: rank %d: %w", me, err)
	}
	e.local = e.alloc
	if err := e.planGrid(); err != nil {
		e.free()
		return fmt.Errorf("dist: rank %d: %w", me, err)
	}
	return nil
}

// gridPiece is a box of rank r's ghost layers that one rank holds: the
// global box (src, shape), owned by owner, lands at index at of r's
// ghosted storage.
type gridPiece struct {
	owner          int
	src, shape, at []int
}

// segment is a run of one axis of a ghost region: global indices [src,
// src+k), at index at of the ghosted storage.
type segment struct{ src, k, at int }

// gridPieces returns the ghost layers of rank r: for each offset in
// {-1, 0, 1}^d but zero, in row-major order (the face, edge or corner
// region there), cut where it wraps around a periodic axis and where the
// owner changes. None for an empty block; ghosts outside a non-periodic
// axis are left out.
func (e *exchange[T]) gridPieces(r int) []gridPiece {
	l := e.layout
	start, shape := l.Block(r)
	d, w := len(shape), e.width
	if prod(shape) == 0 || w == 0 {
		return nil
	}
	per := e.grid.periodic
	// segs[a][o+1] are the segments of axis a at offset o.
	segs := make([][3][]segment, d)
	for a := range d {
		n, lo, hi := l.shape[a], start[a], start[a]+shape[a]
		for o, rg := range [3][2]int{{lo - w, lo}, {lo, hi}, {hi, hi + w}} {
			x, y := rg[0], rg[1]
			if !per[a] {
				x, y = max(x, 0), min(y, n)
			}
			for g := x; g < y; {
				gm := ((g % n) + n) % n
				k := min(y-g, n-gm)
				segs[a][o] = append(segs[a][o], segment{src: gm, k: k, at: g - lo + w})
				g += k
			}
		}
	}
	var ps []gridPiece
	off := make([]int, d)
	for i := range pow3(d) {
		unravel(i, threes(d), off)
		if allOnes(off) {
			continue // the block itself
		}
		// Every combination of the segments of the region.
		lists := make([][]segment, d)
		empty := false
		for a := range d {
			lists[a] = segs[a][off[a]]
			empty = empty || len(lists[a]) == 0
		}
		if empty {
			continue
		}
		idx := make([]int, d)
		for {
			src, sh, at := make([]int, d), make([]int, d), make([]int, d)
			for a := range d {
				s := lists[a][idx[a]]
				src[a], sh[a], at[a] = s.src, s.k, s.at
			}
			for q := range l.ranks {
				qs, qsh := l.Block(q)
				is, ish, none := intersect(src, sh, qs, qsh)
				if none {
					continue
				}
				qat := make([]int, d)
				for a := range d {
					qat[a] = at[a] + is[a] - src[a]
				}
				ps = append(ps, gridPiece{owner: q, src: is, shape: ish, at: qat})
			}
			a := d - 1
			for ; a >= 0; a-- {
				if idx[a]++; idx[a] < len(lists[a]) {
					break
				}
				idx[a] = 0
			}
			if a < 0 {
				break
			}
		}
	}
	return ps
}

func pow3(d int) int {
	p := 1
	for range d {
		p *= 3
	}
	return p
}

func threes(d int) []int {
	t := make([]int, d)
	for a := range t {
		t[a] = 3
	}
	return t
}

func allOnes(x []int) bool {
	for _, v := range x {
		if v != 1 {
			return false
		}
	}
	return true
}

// planGrid works out the messages of an exchange on a grid from the layout
// alone, as plan does.
func (e *exchange[T]) planGrid() error {
	me, p := e.comm.Rank(), e.comm.Size()
	g := e.grid
	zero := make([]int, len(g.shape))
	for r := range p {
		for _, pc := range e.gridPieces(r) {
			if pc.owner != me {
				continue
			}
			m, err := e.gridMsg(r, pc.shape, true, func(f func(off, packed, n int)) {
				boxRuns(g.start, g.shape, pc.src, pc.shape, f)
			})
			if err != nil {
				return err
			}
			e.sends = append(e.sends, m)
		}
	}
	for _, pc := range e.gridPieces(me) {
		m, err := e.gridMsg(pc.owner, pc.shape, false, func(f func(off, packed, n int)) {
			boxRuns(zero, g.gshape, pc.at, pc.shape, f)
		})
		if err != nil {
			return err
		}
		e.recvs = append(e.recvs, m)
	}
	return nil
}

// gridMsg makes the message of a box of shape with peer, whose runs each
// calls f with; a box of several runs gets a packing buffer.
func (e *exchange[T]) gridMsg(peer int, shape []int, send bool, each func(func(off, packed, n int))) (haloMsg[T], error) {
	m := haloMsg[T]{peer: peer, n: prod(shape), send: send}
	each(func(off, packed, n int) { m.runs = append(m.runs, boxRun{off, packed, n}) })
	b := e.local.Backend()
	if len(m.runs) > 1 {
		var err error
		if m.scratch, err = backend.NewOn[T](b, m.n); err != nil {
			return m, err
		}
	}
	m.stage = staging.NewStaging[T](b, m.n)
	return m, nil
}

// gridArray returns the memory of a message of one run: a view of the
// block (a send) or of the ghosted storage (a receive).
func (e *exchange[T]) gridArray(m *haloMsg[T]) *backend.Array[T] {
	r := m.runs[0]
	if m.send {
		return e.grid.block.Slice(r.off, r.off+r.n)
	}
	return e.local.Slice(r.off, r.off+r.n)
}

// gridPack copies the box of a send from the block into its packing
// buffer, on the block's device.
func (e *exchange[T]) gridPack(m *haloMsg[T]) {
	for _, r := range m.runs {
		backend.Copy(m.scratch.Slice(r.packed, r.packed+r.n), e.grid.block.Slice(r.off, r.off+r.n))
	}
	e.recordDeviceCopy("dist ghost pack", m.n)
}

// gridUnpack copies a receive's packing buffer into the ghosts, on the
// block's device.
func (e *exchange[T]) gridUnpack(m *haloMsg[T]) {
	for _, r := range m.runs {
		backend.Copy(e.local.Slice(r.off, r.off+r.n), m.scratch.Slice(r.packed, r.packed+r.n))
	}
	e.recordDeviceCopy("dist ghost unpack", m.n)
}

// gridCopyIn copies the block into the middle of the ghosted storage.
func (e *exchange[T]) gridCopyIn() {
	g := e.grid
	w := e.width
	at := make([]int, len(g.shape))
	for a := range at {
		at[a] = w
	}
	copyBox(e.local, g.gshape, at, g.block, g.shape, make([]int, len(g.shape)), g.shape)
	e.recordDeviceCopy("dist ghost copy-in", g.block.Len())
}

// copyBox copies the box of shape at index src of a row-major array s of
// shape sshape to index dst of a row-major array d of shape dshape, one
// copy per run along the last axis.
func copyBox[T backend.Numeric](d *backend.Array[T], dshape, dst []int, s *backend.Array[T], sshape, src []int, shape []int) {
	k := len(shape)
	if prod(shape) == 0 {
		return
	}
	run := shape[k-1]
	outer := shape[:k-1]
	idx := make([]int, k-1)
	di, si := make([]int, k), make([]int, k)
	for i := range prod(outer) {
		unravel(i, outer, idx)
		for a := range k - 1 {
			di[a], si[a] = dst[a]+idx[a], src[a]+idx[a]
		}
		di[k-1], si[k-1] = dst[k-1], src[k-1]
		do, so := ravel(di, dshape), ravel(si, sshape)
		backend.Copy(d.Slice(do, do+run), s.Slice(so, so+run))
	}
}

// gridFillBoundary is FillBoundary on a grid: the ghosts before index 0
// of axis 0 (the whole slab, corners included) to low, those after its
// last index to high.
func gridFillBoundary[T backend.Element](e *exchange[T], low, high T) {
	g := e.grid
	if g.periodic[0] || prod(g.shape) == 0 {
		return
	}
	w, n := e.width, e.layout.shape[0]
	slab := prod(g.gshape[1:])
	lo, hi := g.start[0], g.start[0]+g.shape[0]
	if k := min(w, w-lo); k > 0 {
		backend.Fill(e.local.Slice(0, k*slab), low)
	}
	if k := min(w, hi+w-n); k > 0 {
		ext := g.gshape[0]
		backend.Fill(e.local.Slice((ext-k)*slab, ext*slab), high)
	}
}

// gridStencil checks the arguments of a stencil on grid arrays and
// returns their ghosted storages and shape; ok is false for an empty
// block.
func gridStencil[T backend.Element](op string, dst, src *Array[T]) (dv, sv *backend.Array[T], gshape []int, ok bool) {
	if dst.Ghosts() != src.Ghosts() {
		panic(fmt.Sprintf("dist: %s on a process grid of arrays with ghost layers of widths %d and %d: give both the same width (the stencil runs over the whole ghosted storage)", op, dst.Ghosts(), src.Ghosts()))
	}
	g := src.gh.grid
	if prod(g.shape) == 0 {
		return nil, nil, nil, false
	}
	return dst.gh.local, src.gh.local, slices.Clone(g.gshape), true
}

// gridStencilDone copies the result of a stencil on grid arrays, in dst's
// ghosted storage, into dst's block: every index of axis 0, and along the
// other axes all but the first and last halo indices of the global array,
// which are left as they are.
func gridStencilDone[T backend.Element](dst *Array[T], halo int) {
	g := dst.gh.grid
	d := len(g.shape)
	start, shape := slices.Clone(g.start), slices.Clone(g.shape)
	for a := 1; a < d; a++ {
		lo := max(start[a], halo)
		hi := min(start[a]+shape[a], dst.layout.shape[a]-halo)
		start[a], shape[a] = lo, max(hi-lo, 0)
	}
	if prod(shape) == 0 {
		return
	}
	at, bat := make([]int, d), make([]int, d)
	for a := range d {
		bat[a] = start[a] - g.start[a]
		at[a] = bat[a] + dst.gh.width
	}
	copyBox(g.block, g.shape, bat, dst.gh.local, g.gshape, at, shape)
	dst.gh.recordDeviceCopy("dist stencil copy-out", prod(shape))
}
