package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Ghosts gives a new array ghost layers of width w: w extra indices on each
// side of the split axis, around the rank's block, that Exchange fills
// with copies of the neighbouring ranks' elements. The block itself (Local,
// and what every other operation of the package sees) is unchanged: a
// contiguous view of the middle of the ghosted storage (Ghosted). Ghosts
// need split axis 0, the default (a block split along a later axis would
// not be contiguous in its ghosted storage; use Halo there): another axis,
// or a replicated array, panics. Ghosts(0) makes an array whose exchanges
// do nothing, for code that takes the width as a parameter.
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
func Periodic() Option { return func(o *options) { o.periodic = true } }

// ghostSpec is what Ghosts and Periodic asked for.
type ghostSpec struct {
	width    int
	periodic bool
	on       bool // Ghosts or Periodic given
}

// ghostOptions returns the ghost layers that opts ask for.
func ghostOptions(opts []Option) ghostSpec {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return ghostSpec{o.ghosts, o.periodic, o.ghosted || o.periodic}
}

// ghostSpec returns the ghost layers of a.
func (a *Array[T]) ghostSpec() ghostSpec {
	if a.gh == nil {
		return ghostSpec{}
	}
	return ghostSpec{a.gh.width, a.gh.periodic, true}
}

// newGhosted is New on backend b with ghost layers g (none: newOn).
func newGhosted[T backend.Element](c mpi.Comm, l Layout, b backend.Backend, g ghostSpec) (*Array[T], error) {
	if !g.on {
		return newOn[T](c, l, b)
	}
	if l.Axis() == Replicated {
		panic("dist: Ghosts of a replicated array: every rank already holds every element")
	}
	if l.Axis() != 0 {
		panic(fmt.Sprintf("dist: Ghosts need split axis 0, not %d (the block must be contiguous in its ghosted storage; NewHalo takes any axis)", l.Axis()))
	}
	a := &Array[T]{comm: c, layout: l, gh: &exchange[T]{}}
	_, err := a.gh.init("Array", c, l, g.width, g.periodic, b)
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

// IsPeriodic reports whether a's ghost layers wrap around (Periodic). It is
// not collective.
func (a *Array[T]) IsPeriodic() bool { return a.gh != nil && a.gh.periodic }

// Ghosted returns this rank's ghosted storage: the block with Ghosts()
// indices of the split axis on either side, in row-major order of
// GhostedShape, for kernels that read across the block's edges. Local is
// the middle of it. For an array without ghosts it is Local. It is not
// collective.
func (a *Array[T]) Ghosted() *backend.Array[T] {
	if a.gh == nil {
		return a.local
	}
	return a.gh.local
}

// GhostedShape returns the shape of Ghosted: LocalShape with the split
// axis extended by 2*Ghosts(). It is not collective.
func (a *Array[T]) GhostedShape() []int {
	s := a.LocalShape()
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
func (a *Array[T]) Exchange() error {
	if err := a.Start(); err != nil {
		return err
	}
	return a.Finish()
}

// Start begins an exchange of a's ghost layers (see Exchange): it posts
// the messages and returns at once, so that the rank can compute on its
// block's inside meanwhile. Until Finish, a's elements must not change and
// its ghosts must not be read. It is collective.
func (a *Array[T]) Start() error { return a.mustGhosts("Start").start() }

// Finish completes the exchange that Start began and fills the ghosts. It
// is collective.
func (a *Array[T]) Finish() error { return a.mustGhosts("Finish").finish() }

// FillBoundary sets the ghosts that lie outside the global array, which
// no exchange writes: those before index 0 of the split axis to low, those
// after its last index to high. Only the ranks whose ghost layers reach
// past an end have any. A periodic array has none; an array without ghosts
// panics. It is not collective.
func FillBoundary[T backend.Element](a *Array[T], low, high T) {
	e := a.mustGhosts("FillBoundary")
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
