package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Ghosts gives a new array ghost layers of width w: w extra indices on each
// side of the split axis, around the rank's block, that Exchange fills
// with copies of the neighbouring ranks' elements. The block itself (Local,
// and what every other operation of the package sees) is unchanged: a
// contiguous view of the middle of the ghosted storage (Ghosted). Ghosts
// need split axis 0, the default, or a process grid (a block split along a
// later axis alone would not be contiguous in its ghosted storage; use
// Halo there): another axis, or a replicated array, panics. Ghosts(0)
// makes an array whose exchanges do nothing, for code that takes the width
// as a parameter.
//
// On a process grid (ProcessGrid, NewGridLayout), the array gets w ghost
// indices on each side of every axis, split by the grid or not, so that
// stencils treat every axis alike, and the block is not contiguous in the
// ghosted storage: Local is then a separate array, the block, which every
// other operation uses as it uses any block, and Exchange first copies it
// into the middle of the ghosted storage (one copy of the block per
// exchange, as PETSc's DMGlobalToLocal), then fills the ghosts of the
// faces, edges and corners. The stencils read the ghosted storage and
// write the block.
//
// Ghost indices that fall outside the global array (not Periodic) are
// never written by an exchange: they hold boundary values, zero at first,
// which FillBoundary or the caller (through Ghosted) sets.
func Ghosts(w int) Option {
	if w < 0 {
		panic(fmt.Sprintf("dist: Ghosts with negative width %d", w))
	}
	return func(o *options) { o.ghosts, o.ghosted = w, true }
}

// Periodic makes the ghost layers of a new array wrap around the ends of
// the split axis: the ghosts before index 0 are copies of the last
// elements, the ghosts after the last index copies of the first ones (with
// a width larger than the axis, the array repeats). It goes with Ghosts.
// On a process grid it wraps every axis; PeriodicAxes chooses some.
func Periodic() Option { return func(o *options) { o.periodic = true } }

// ghostSpec is what Ghosts and Periodic asked for.
type ghostSpec struct {
	width    int
	periodic bool
	on       bool  // Ghosts or Periodic given
	axes     []int // PeriodicAxes, or nil
}

// ghostOptions returns the ghost layers that opts ask for.
func ghostOptions(opts []Option) ghostSpec {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	g := ghostSpec{o.ghosts, o.periodic || o.paxes != nil, o.ghosted || o.periodic || o.paxes != nil, o.paxes}
	if o.periodic {
		g.axes = nil // every axis
	}
	return g
}

// ghostSpec returns the ghost layers of a.
func (a *Array[T]) ghostSpec() ghostSpec {
	if a.gh == nil {
		return ghostSpec{}
	}
	g := ghostSpec{a.gh.width, a.gh.periodic, true, nil}
	if a.gh.grid != nil {
		g.axes = []int{}
		for ax, p := range a.gh.grid.periodic {
			if p {
				g.axes = append(g.axes, ax)
			}
		}
	}
	return g
}

// newGhosted is New on backend b with ghost layers g (none: newOn).
func newGhosted[T backend.Numeric](c mpi.Comm, l Layout, b backend.Backend, g ghostSpec) (*Array[T], error) {
	if !g.on {
		return newOn[T](c, l, b)
	}
	if l.Axis() == Replicated {
		panic("dist: Ghosts of a replicated array: every rank already holds every element")
	}
	if l.Axis() == Grid {
		return newGridGhosted[T](c, l, b, g)
	}
	if l.Axis() != 0 {
		panic(fmt.Sprintf("dist: Ghosts need split axis 0 or a process grid, not axis %d (the block must be contiguous in its ghosted storage; NewHalo takes any axis)", l.Axis()))
	}
	for _, ax := range g.axes {
		if ax != 0 {
			panic(fmt.Sprintf("dist: PeriodicAxes%v of an array split along axis 0: its ghost layers are along axis 0 only (a process grid has them along every axis)", g.axes))
		}
	}
	periodic := g.periodic && (g.axes == nil || len(g.axes) > 0)
	a := &Array[T]{comm: c, layout: l, gh: &exchange[T]{}}
	_, err := a.gh.init("Array", c, l, g.width, periodic, b)
	if err == nil {
		lo, hi := l.Range(c.Rank())
		w, post := a.gh.width, a.gh.post
		a.local = a.gh.local.Slice(w*post, (w+hi-lo)*post)
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

// Ghosts returns the width of a's ghost layers: 0 for an array made without
// Ghosts. It is not collective.
func (a *Array[T]) Ghosts() int {
	if a.gh == nil {
		return 0
	}
	return a.gh.width
}

// IsPeriodic reports whether a's ghost layers wrap around (Periodic, or
// PeriodicAxes with at least one axis). It is not collective.
func (a *Array[T]) IsPeriodic() bool { return a.gh != nil && a.gh.periodic }

// Ghosted returns this rank's ghosted storage: the block with Ghosts()
// indices of the split axis (on a process grid, of every axis) on either
// side, in row-major order of GhostedShape, for kernels that read across
// the block's edges. Local is the middle of it; on a process grid Local is
// a separate array, which Exchange copies into the middle. For an array
// without ghosts it is Local. It is not collective.
func (a *Array[T]) Ghosted() *backend.Array[T] {
	if a.gh == nil {
		return a.local
	}
	return a.gh.local
}

// GhostedShape returns the shape of Ghosted: LocalShape with the split
// axis (on a process grid, every axis) extended by 2*Ghosts(). It is not
// collective.
func (a *Array[T]) GhostedShape() []int {
	s := a.LocalShape()
	if a.gh != nil && a.gh.grid != nil {
		return slices.Clone(a.gh.grid.gshape)
	}
	if a.gh != nil {
		s[0] += 2 * a.gh.width
	}
	return s
}

// mustGhosts panics unless a was made with ghost layers.
func (a *Array[T]) mustGhosts(op string) *exchange[T] {
	if a.gh == nil {
		panic(fmt.Sprintf("dist: %s of an array without ghost layers (make it with the Ghosts option)", op))
	}
	return a.gh
}

// Exchange fills a's ghost layers with copies of the neighbouring ranks'
// elements (wrapping around with Periodic): Start, then Finish. Where a
// neighbour's block is narrower than the width, the layer gathers from as
// many ranks as it takes; ranks with an empty block send and receive
// nothing, and their ghosts are not written. It panics for an array
// without ghosts.
//
// A block on a device exchanges as a Halo does, through package staging:
// the device memory goes to a CUDA-aware MPI as it is; otherwise each
// message goes through a pinned host buffer (allocated once per message at
// the first exchange), with one copy to the host per message sent and one
// to the device per message received, recorded with package profiling.
// Nothing else is copied.
//
// On a process grid, Start first copies the block (Local) into the middle
// of the ghosted storage, then the ghosts of every face, edge and corner
// come as boxes from the ranks that hold them (several where a
// neighbour's block is narrower than the width), wrapping around the
// periodic axes; a box that is not one contiguous run of memory is packed
// into, and unpacked from, a buffer on the block's device. These copies on
// a device are recorded with package profiling as device copies.
//
// A device fault (backend.ErrDevice) that keeps a rank from copying a
// message does not fail the exchange, which adds no message to agree on
// it: the rank sends zeros for what it could not read, the exchange
// completes on every rank, and the fault is recorded and returned by the
// next call that agrees (Sum, Dot, Norm, ...), on every rank.
func (a *Array[T]) Exchange() error {
	if a.freed {
		return freedError("Exchange")
	}
	if err := a.Start(); err != nil {
		return err
	}
	return a.Finish()
}

// Start begins an exchange of a's ghost layers (see Exchange): it posts
// the messages and returns at once, so that the rank can compute on its
// block's inside meanwhile. Until Finish, a's elements must not change and
// its ghosts must not be read. It is collective.
func (a *Array[T]) Start() error {
	if a.freed {
		return freedError("Start")
	}
	return a.mustGhosts("Start").start()
}

// Finish completes the exchange that Start began and fills the ghosts. It
// is collective.
func (a *Array[T]) Finish() error {
	if a.freed {
		return freedError("Finish")
	}
	return a.mustGhosts("Finish").finish()
}

// FillBoundary sets the ghosts that lie outside the global array, which
// no exchange writes: those before index 0 of the split axis to low, those
// after its last index to high. Only the ranks whose ghost layers reach
// past an end have any. A periodic array has none; an array without ghosts
// panics. It is not collective.
//
// On a process grid it sets the ghosts outside the array along axis 0:
// the whole slabs before index 0 and after the last index, corners
// included (none if axis 0 is periodic). The ghosts outside the other axes
// keep what they hold (zero at first; the caller sets them through
// Ghosted): the package's stencils never use them, since they leave the
// first and last index of those axes as they are.
func FillBoundary[T backend.Element](a *Array[T], low, high T) {
	if a.freed {
		panic(freedError("FillBoundary"))
	}
	e := a.mustGhosts("FillBoundary")
	if e.grid != nil {
		gridFillBoundary(e, low, high)
		return
	}
	if e.periodic {
		return
	}
	lo, hi := a.Range()
	n := a.layout.Shape()[0]
	if lo == hi {
		return
	}
	w, post := e.width, e.post
	if k := min(w, w-lo); k > 0 {
		backend.Fill(e.local.Slice(0, k*post), low)
	}
	if k := min(w, hi+w-n); k > 0 {
		backend.Fill(e.local.Slice((e.ext-k)*post, e.ext*post), high)
	}
}
