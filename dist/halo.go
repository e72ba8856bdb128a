package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// haloTag is the MPI tag of halo messages. At most one message goes from a
// rank to another in one exchange, and MPI keeps messages between two ranks
// in order, so one tag serves every exchange.
const haloTag = 0x4841

// Halo is a rank's block of a distributed array with ghost layers: width
// extra indices on each side of the split axis that Exchange fills with
// copies of the neighbouring ranks' elements. Its local storage has the
// block's shape with the split axis extended by 2*width; the block itself
// sits at indices [width, width+n) of that axis.
//
// Ghost indices that fall outside the global array are never written: they
// hold whatever the caller puts there (boundary values). Where a neighbour's
// block is narrower than width, the ghost layer gathers from as many ranks
// as it takes; ranks with an empty block send and receive nothing.
//
// A block on a device exchanges through package staging, which makes the
// MPI calls: MPI is handed the device memory when it is CUDA-aware
// (mpi.CUDAAware), after the device is synchronized; otherwise (not aware,
// or nobody knows) each message goes through a pinned host buffer,
// allocated once per message of the Halo at its first exchange, with one
// copy to the host per message sent and one to the device per message
// received (recorded with package profiling). Slabs that are not
// contiguous (split axis > 0) are packed into, and unpacked from, a
// contiguous buffer on the device first.
type Halo[T backend.Element] struct {
	comm     mpi.Comm
	layout   Layout
	width    int
	local    *backend.Array[T]
	shape    []int // ghosted local shape
	pre      int   // product of the dimensions before the split axis
	post     int   // product of the dimensions after it
	ext      int   // extent of the split axis in local storage
	sends    []haloMsg[T]
	recvs    []haloMsg[T]
	inFlight bool // between Start and Finish
}

// haloMsg is one message of an exchange: k indices of the split axis,
// starting at index at of the local storage, to or from peer.
type haloMsg[T backend.Element] struct {
	peer, at, k int
	n           int                 // elements: pre*k*post
	scratch     *backend.Array[T]   // packing buffer on the block's backend, when the slab is not contiguous
	stage       *staging.Staging[T] // makes the MPI call on the message's buffer
	op          *staging.Op[T]      // while the exchange is in flight
}

// NewHalo returns a zeroed halo block for arrays of layout l on c with
// ghost layers of width w, on the backend OnBackend gives (the selected one
// by default; SplitAxis and BlockSizes panic). It is not collective. l must
// be split (not replicated).
func NewHalo[T backend.Element](c mpi.Comm, l Layout, w int, opts ...Option) (*Halo[T], error) {
	return newHalo[T](c, l, w, backendOption("NewHalo", opts))
}

func newHalo[T backend.Element](c mpi.Comm, l Layout, w int, b backend.Backend) (*Halo[T], error) {
	l.mustBeValid("NewHalo", c.Size())
	if l.axis == Replicated {
		panic("dist: NewHalo of a replicated layout: every rank already holds every element")
	}
	l.mustNotBeGrid("NewHalo or HaloOf", "halo exchange is along one split axis only")
	if w < 0 {
		panic(fmt.Sprintf("dist: NewHalo with negative width %d", w))
	}
	if l.Ranks() != c.Size() {
		panic(fmt.Sprintf("dist: %v for a communicator of %d ranks", l, c.Size()))
	}
	me := c.Rank()
	shape := l.LocalShape(me)
	h := &Halo[T]{comm: c, layout: l, width: w, pre: prod(shape[:l.axis]), post: prod(shape[l.axis+1:])}
	shape[l.axis] += 2 * w
	h.shape, h.ext = shape, shape[l.axis]
	var err error
	if h.local, err = backend.NewOn[T](b, prod(shape)); err != nil {
		return nil, fmt.Errorf("dist: rank %d: %w", me, err)
	}
	if err := h.plan(); err != nil {
		h.Free()
		return nil, fmt.Errorf("dist: rank %d: %w", me, err)
	}
	return h, nil
}

// HaloOf returns a halo block of width w for x's layout, holding a copy of
// x's block (ghosts zero). It is not collective.
func HaloOf[T backend.Element](x *Array[T], w int) (*Halo[T], error) {
	h, err := newHalo[T](x.comm, x.layout, w, x.local.Backend())
	if err != nil {
		return nil, err
	}
	h.CopyFrom(x)
	return h, nil
}

// ghosts returns the global ranges of the low and high ghost layers of
// rank r, clipped to the array; none for an empty block.
func (h *Halo[T]) ghosts(r int) [2][2]int {
	lo, hi := h.layout.Range(r)
	n := h.layout.shape[h.layout.axis]
	if lo == hi || h.width == 0 {
		return [2][2]int{}
	}
	return [2][2]int{{max(lo-h.width, 0), lo}, {hi, min(hi+h.width, n)}}
}

// plan works out the messages of an exchange from the layout alone, so
// that every rank agrees on them, and makes each message's packing buffer
// and staging, once.
func (h *Halo[T]) plan() error {
	me, p := h.comm.Rank(), h.comm.Size()
	mlo, mhi := h.layout.Range(me)
	for r := 0; r < p; r++ {
		if r == me {
			continue
		}
		rlo, rhi := h.layout.Range(r)
		// What r needs of my block.
		for _, g := range h.ghosts(r) {
			if lo, hi := max(g[0], mlo), min(g[1], mhi); lo < hi {
				m, err := h.msg(r, lo-mlo+h.width, hi-lo)
				if err != nil {
					return err
				}
				h.sends = append(h.sends, m)
			}
		}
		// What I need of r's block.
		for _, g := range h.ghosts(me) {
			if lo, hi := max(g[0], rlo), min(g[1], rhi); lo < hi {
				m, err := h.msg(r, lo-mlo+h.width, hi-lo)
				if err != nil {
					return err
				}
				h.recvs = append(h.recvs, m)
			}
		}
	}
	return nil
}

func (h *Halo[T]) msg(peer, at, k int) (haloMsg[T], error) {
	m := haloMsg[T]{peer: peer, at: at, k: k, n: h.pre * k * h.post}
	b := h.local.Backend()
	if h.pre > 1 && m.n > 0 {
		var err error
		if m.scratch, err = backend.NewOn[T](b, m.n); err != nil {
			return m, err
		}
	}
	m.stage = staging.NewStaging[T](b, m.n)
	return m, nil
}

// array returns the contiguous array whose memory MPI reads or writes for
// m: its packing buffer, or the slab itself.
func (h *Halo[T]) array(m *haloMsg[T]) *backend.Array[T] {
	switch {
	case m.n == 0:
		return h.local.Slice(0, 0)
	case m.scratch != nil:
		return m.scratch
	}
	return h.slab(m.at, m.k, 0)
}

// pack copies the slab of m into its packing buffer, on the block's
// device.
func (h *Halo[T]) pack(m *haloMsg[T]) {
	n := m.k * h.post
	for i := 0; i < h.pre; i++ {
		backend.Copy(m.scratch.Slice(i*n, (i+1)*n), h.slab(m.at, m.k, i))
	}
	h.recordDeviceCopy("dist.Halo pack", m.n)
}

// unpack copies m's packing buffer into its slab, on the block's device.
func (h *Halo[T]) unpack(m *haloMsg[T]) {
	n := m.k * h.post
	for i := 0; i < h.pre; i++ {
		backend.Copy(h.slab(m.at, m.k, i), m.scratch.Slice(i*n, (i+1)*n))
	}
	h.recordDeviceCopy("dist.Halo unpack", m.n)
}

// recordDeviceCopy records a copy of n elements within a device block.
func (h *Halo[T]) recordDeviceCopy(desc string, n int) {
	if !h.local.Device().IsHost() && profiling.Active() {
		profiling.Record(profiling.Event{Kind: profiling.DeviceCopy, Desc: desc, Bytes: int64(n * h.local.DType().Size())})
	}
}

// slab returns the k indices of the split axis at index at, for each of the
// pre outer positions, as views of the local storage.
func (h *Halo[T]) slab(at, k, i int) *backend.Array[T] {
	off := (i*h.ext + at) * h.post
	return h.local.Slice(off, off+k*h.post)
}

// Start begins an exchange: it posts the receives and the sends of the
// ghost layers, and returns at once. Finish completes it; the block must not
// change in between, and ghosts must not be read.
//
// For a block on a device, each message goes through its Staging (see
// Halo): with an MPI that is not known to be CUDA-aware, Start copies each
// message sent to the host before posting it.
func (h *Halo[T]) Start() error {
	if h.inFlight {
		panic("dist: Halo.Start while an exchange is in flight")
	}
	dt := backend.DTypeOf[T]()
	if err := mpi.CheckCollective(h.comm, "Halo.Exchange", mpi.Arg{Name: "dtype", Value: int64(dt), Text: dt.String()},
		mpi.Arg{Name: "layout", Value: h.layout.hash(), Text: h.layout.String()}, mpi.Arg{Name: "width", Value: int64(h.width)}); err != nil {
		return err
	}
	// Posting returns at once: between Start and Finish the rank computes,
	// and a watchdog must not say it is in the exchange.
	defer mpi.Leave()
	h.inFlight = true
	for i := range h.recvs {
		m := &h.recvs[i]
		op, err := m.stage.Irecv(h.comm, h.array(m), m.peer, haloTag)
		if err != nil {
			return h.abandon(err)
		}
		m.op = op
	}
	for i := range h.sends {
		m := &h.sends[i]
		if m.scratch != nil {
			h.pack(m)
		}
		op, err := m.stage.Isend(h.comm, h.array(m), m.peer, haloTag)
		if err != nil {
			return h.abandon(err)
		}
		m.op = op
	}
	return nil
}

// abandon waits for the operations already posted without copying anything
// into the block, and returns err.
func (h *Halo[T]) abandon(err error) error {
	for _, msgs := range [][]haloMsg[T]{h.recvs, h.sends} {
		for i := range msgs {
			if m := &msgs[i]; m.op != nil {
				m.op.Abandon()
				m.op = nil
			}
		}
	}
	h.inFlight = false
	return err
}

// Finish waits for the exchange begun by Start and fills the ghosts. For a
// block on a device staged through the host, it copies each message
// received to the device.
func (h *Halo[T]) Finish() error {
	if !h.inFlight {
		panic("dist: Halo.Finish without Start")
	}
	mpi.Enter("Halo.Finish")
	defer mpi.Leave()
	// Waiting for an operation waits for its request, then copies a staged
	// receive to the device. Every operation is waited for, even after a
	// failure.
	var first error
	for _, msgs := range [][]haloMsg[T]{h.recvs, h.sends} {
		for i := range msgs {
			m := &msgs[i]
			if m.op == nil {
				continue
			}
			if err := m.op.Wait(); err != nil && first == nil {
				first = err
			}
			m.op = nil
		}
	}
	h.inFlight = false
	if first != nil {
		return first
	}
	for i := range h.recvs {
		if m := &h.recvs[i]; m.scratch != nil {
			h.unpack(m)
		}
	}
	return nil
}

// Exchange fills the ghost layers with the neighbouring ranks' elements.
func (h *Halo[T]) Exchange() error {
	if err := h.Start(); err != nil {
		return err
	}
	return h.Finish()
}

// Free releases the local storage, the packing buffers and the pinned
// staging memory. The Halo must not be used afterwards; no exchange may be
// in flight. It is not collective.
func (h *Halo[T]) Free() {
	if h.inFlight {
		panic("dist: Halo.Free while an exchange is in flight")
	}
	for _, msgs := range [][]haloMsg[T]{h.recvs, h.sends} {
		for i := range msgs {
			m := &msgs[i]
			if m.scratch != nil {
				m.scratch.Free()
			}
			m.stage.Close()
		}
	}
	h.local.Free()
}

// Local returns the local storage, ghosts included, in row-major order of
// LocalShape. It is not collective.
func (h *Halo[T]) Local() *backend.Array[T] { return h.local }

// LocalShape returns the shape of the local storage: the block's shape with
// the split axis extended by 2*Width.
func (h *Halo[T]) LocalShape() []int { return append([]int(nil), h.shape...) }

// Width returns the ghost width.
func (h *Halo[T]) Width() int { return h.width }

// Layout returns the layout of the array the block belongs to.
func (h *Halo[T]) Layout() Layout { return h.layout }

// CopyFrom copies x's block into the block of h, leaving the ghosts. It is
// not collective.
func (h *Halo[T]) CopyFrom(x *Array[T]) { h.copyBlock(x, true) }

// CopyTo copies the block of h, without ghosts, into x's block. It is not
// collective.
func (h *Halo[T]) CopyTo(x *Array[T]) { h.copyBlock(x, false) }

func (h *Halo[T]) copyBlock(x *Array[T], in bool) {
	if !x.layout.Equal(h.layout) {
		panic(fmt.Sprintf("dist: Halo copy: layouts differ: %v and %v", h.layout, x.layout))
	}
	n := h.ext - 2*h.width
	for i := 0; i < h.pre; i++ {
		ghosted := h.slab(h.width, n, i)
		plain := x.local.Slice(i*n*h.post, (i+1)*n*h.post)
		if in {
			backend.Copy(ghosted, plain)
		} else {
			backend.Copy(plain, ghosted)
		}
	}
	if in {
		h.recordDeviceCopy("dist.Halo.CopyFrom", x.local.Len())
	} else {
		h.recordDeviceCopy("dist.Halo.CopyTo", x.local.Len())
	}
}

// Swap exchanges the storage of h and o, two halo blocks of the same layout
// and width: the double-buffer step of an iteration. It is not collective.
func (h *Halo[T]) Swap(o *Halo[T]) {
	if !h.layout.Equal(o.layout) || h.width != o.width || h.comm != o.comm {
		panic(fmt.Sprintf("dist: Halo.Swap of blocks of %v width %d and %v width %d", h.layout, h.width, o.layout, o.width))
	}
	if h.inFlight || o.inFlight {
		panic("dist: Halo.Swap while an exchange is in flight")
	}
	if h.local.Device() != o.local.Device() {
		panic(fmt.Sprintf("dist: Halo.Swap of blocks on %v and %v", h.local.Device(), o.local.Device()))
	}
	h.local, o.local = o.local, h.local
}
