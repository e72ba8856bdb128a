package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// haloTag is the MPI tag of ghost messages. Where several messages go from
// one rank to another in one exchange (periodic wrap, or a ghost layer
// wider than the blocks), both sides post them in the same order, and MPI
// keeps messages between two ranks in order, so one tag serves every
// exchange.
const haloTag = 0x4841

// Halo is a rank's block of a distributed array with ghost layers, split
// along any axis: width extra indices on each side of the split axis that
// Exchange fills with copies of the neighbouring ranks' elements. Its local
// storage has the block's shape with the split axis extended by 2*width;
// the block itself sits at indices [width, width+n) of that axis.
//
// An Array made with the Ghosts option is the same thing without the
// copies in and out (its block is the middle of the ghosted storage), and
// is what solvers use; Halo remains for arrays split along an axis other
// than the first, whose block is not contiguous in ghosted storage.
//
// Ghost indices that fall outside the global array are never written: they
// hold whatever the caller puts there (boundary values). Where a neighbour's
// block is narrower than width, the ghost layer gathers from as many ranks
// as it takes; ranks with an empty block send and receive nothing.
//
// A block on a device exchanges through package staging, which makes the
// MPI calls: MPI is handed the device memory when it is CUDA-aware
// (staging.CUDAAware), after the device is synchronized; otherwise (not aware,
// or nobody knows) each message goes through a pinned host buffer,
// allocated once per message of the Halo at its first exchange, with one
// copy to the host per message sent and one to the device per message
// received (recorded with package profiling). Slabs that are not
// contiguous (split axis > 0) are packed into, and unpacked from, a
// contiguous buffer on the device first. A device fault during an exchange
// is recorded and returned by the next call that agrees, as for an
// Array's Exchange.
type Halo[T backend.Element] struct {
	ex    exchange[T]
	shape []int // ghosted local shape
}

// exchange is the ghost exchange of one rank's ghosted storage: the plan of
// its messages, worked out once from the layout, and their buffers. Halo
// and ghosted Arrays both exchange through it.
type exchange[T backend.Numeric] struct {
	name     string // "Halo" or "Array", for messages
	comm     mpi.Comm
	layout   Layout
	width    int
	periodic bool
	local    *backend.Array[T] // the ghosted storage: a view of alloc
	alloc    *backend.Array[T] // the allocation, with padding before local
	pre      int               // product of the dimensions before the split axis
	post     int               // product of the dimensions after it
	ext      int               // extent of the split axis in local storage
	sends    []haloMsg[T]
	recvs    []haloMsg[T]
	inFlight bool // between Start and Finish
	freed    bool // free has run
	// On a process grid (ghostgrid.go), the block is a separate array and
	// local holds it with ghost layers along every axis.
	grid *gridGhosts[T]
}

// haloMsg is one message of an exchange: k indices of the split axis,
// starting at index at of the local storage, to or from peer.
type haloMsg[T backend.Numeric] struct {
	peer, at, k int
	n           int                 // elements: pre*k*post
	scratch     *backend.Array[T]   // packing buffer on the block's backend, when the slab is not contiguous
	stage       *staging.Staging[T] // makes the MPI call on the message's buffer
	op          *staging.Op[T]      // while the exchange is in flight
	// On a process grid: the contiguous runs of the message's box, in the
	// block (a send) or in the ghosted storage (a receive).
	runs []boxRun
	send bool
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
	h := &Halo[T]{}
	var err error
	if h.shape, err = h.ex.init("Halo", c, l, w, false, b); err != nil {
		return nil, err
	}
	return h, nil
}

// init allocates the ghosted storage of this rank's block of layout l on
// backend b and plans the exchange, and returns the ghosted shape. It does
// not communicate.
func (e *exchange[T]) init(name string, c mpi.Comm, l Layout, w int, periodic bool, b backend.Backend) ([]int, error) {
	if l.Ranks() != c.Size() {
		panic(fmt.Sprintf("dist: %v for a communicator of %d ranks", l, c.Size()))
	}
	me := c.Rank()
	shape := l.LocalShape(me)
	ax := l.Axis()
	*e = exchange[T]{name: name, comm: c, layout: l, width: w, periodic: periodic, pre: prod(shape[:ax]), post: prod(shape[ax+1:])}
	shape[ax] += 2 * w
	e.ext = shape[ax]
	// The block starts pad elements into the allocation, so that it is
	// aligned as a fresh allocation is (to 64 bytes past the allocation's
	// start): a reduction over it then rounds as it would over a plain
	// array's block (the CPU Sum's assembly sums the elements before a
	// 16-byte boundary on their own). A large block starts on a 4 KiB
	// boundary, as Go places a large plain array: with the block 64 bytes
	// into a page, CG's vector updates over four such arrays measured
	// 10-20% slower on the AMD EPYC VM (docs/PERFORMANCE.md, W4F).
	size, n := backend.DTypeOf[T]().Size(), prod(shape)
	align := 64
	if n*size >= pageAlignAbove {
		align = 4096
	}
	pad := ((align - (w*e.post*size)%align) % align) / size
	var err error
	if e.alloc, err = backend.NewOn[T](b, pad+n); err != nil {
		return nil, fmt.Errorf("dist: rank %d: %w", me, err)
	}
	e.local = e.alloc.Slice(pad, pad+n)
	if err := e.plan(); err != nil {
		e.free()
		return nil, fmt.Errorf("dist: rank %d: %w", me, err)
	}
	return shape, nil
}

// HaloOf returns a halo block of width w for x's layout, holding a copy of
// x's block (ghosts zero). It is not collective.
func HaloOf[T backend.Element](x *Array[T], w int) (*Halo[T], error) {
	if x.freed {
		return nil, freedError("HaloOf")
	}
	h, err := newHalo[T](x.comm, x.layout, w, x.local.Backend())
	if err != nil {
		return nil, err
	}
	h.CopyFrom(x)
	return h, nil
}

// ghostPiece is a run of k indices of rank r's ghost layers that one rank
// holds: global indices [src, src+k) of the split axis, owned by owner,
// which land at index at of r's ghosted storage.
type ghostPiece struct{ owner, src, at, k int }

// pieces returns the ghost layers of rank r, low side first, cut where
// the owner changes (and, periodic, where they wrap around the array);
// none for an empty block. Ghosts outside the array are left out unless the
// exchange is periodic.
func (e *exchange[T]) pieces(r int) []ghostPiece {
	lo, hi := e.layout.Range(r)
	n := e.layout.Shape()[e.layout.Axis()]
	w := e.width
	if lo == hi || w == 0 {
		return nil
	}
	var ps []ghostPiece
	for _, side := range [2][2]int{{lo - w, lo}, {hi, hi + w}} {
		a, b := side[0], side[1]
		if !e.periodic {
			a, b = max(a, 0), min(b, n)
		}
		for g := a; g < b; {
			gm := ((g % n) + n) % n
			owner, ohi := e.owner(gm)
			k := min(b-g, ohi-gm)
			ps = append(ps, ghostPiece{owner: owner, src: gm, at: g - lo + w, k: k})
			g += k
		}
	}
	return ps
}

// owner returns the rank that holds global index g of the split axis (the
// one with a non-empty block that holds it) and the end of its block.
func (e *exchange[T]) owner(g int) (int, int) {
	for r := 0; r < e.layout.Ranks(); r++ {
		if lo, hi := e.layout.Range(r); lo <= g && g < hi {
			return r, hi
		}
	}
	panic(fmt.Sprintf("dist: internal error: no rank holds index %d of %v", g, e.layout))
}

// plan works out the messages of an exchange from the layout alone, so
// that every rank agrees on them, and makes each message's packing buffer
// and staging, once. Between two ranks, the sender lists its messages in
// the receiver's order of pieces, and so does the receiver.
func (e *exchange[T]) plan() error {
	me, p := e.comm.Rank(), e.comm.Size()
	mlo, _ := e.layout.Range(me)
	for r := 0; r < p; r++ {
		// What r needs of my block.
		for _, pc := range e.pieces(r) {
			if pc.owner == me {
				m, err := e.msg(r, pc.src-mlo+e.width, pc.k)
				if err != nil {
					return err
				}
				e.sends = append(e.sends, m)
			}
		}
	}
	// What I need of the others' blocks (of mine too, periodic).
	for _, pc := range e.pieces(me) {
		m, err := e.msg(pc.owner, pc.at, pc.k)
		if err != nil {
			return err
		}
		e.recvs = append(e.recvs, m)
	}
	return nil
}

func (e *exchange[T]) msg(peer, at, k int) (haloMsg[T], error) {
	m := haloMsg[T]{peer: peer, at: at, k: k, n: e.pre * k * e.post}
	b := e.local.Backend()
	if e.pre > 1 && m.n > 0 {
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
func (e *exchange[T]) array(m *haloMsg[T]) *backend.Array[T] {
	switch {
	case m.n == 0:
		return e.local.Slice(0, 0)
	case m.scratch != nil:
		return m.scratch
	case e.grid != nil:
		return e.gridArray(m)
	}
	return e.slab(m.at, m.k, 0)
}

// pack copies the slab of m into its packing buffer, on the block's
// device.
func (e *exchange[T]) pack(m *haloMsg[T]) {
	if e.grid != nil {
		e.gridPack(m)
		return
	}
	n := m.k * e.post
	for i := 0; i < e.pre; i++ {
		backend.Copy(m.scratch.Slice(i*n, (i+1)*n), e.slab(m.at, m.k, i))
	}
	e.recordDeviceCopy("dist.Halo pack", m.n)
}

// unpack copies m's packing buffer into its slab, on the block's device.
func (e *exchange[T]) unpack(m *haloMsg[T]) {
	if e.grid != nil {
		e.gridUnpack(m)
		return
	}
	n := m.k * e.post
	for i := 0; i < e.pre; i++ {
		backend.Copy(e.slab(m.at, m.k, i), m.scratch.Slice(i*n, (i+1)*n))
	}
	e.recordDeviceCopy("dist.Halo unpack", m.n)
}

// recordDeviceCopy records a copy of n elements within a device block.
func (e *exchange[T]) recordDeviceCopy(desc string, n int) {
	if !e.local.Device().IsHost() && profiling.Active() {
		profiling.Record(profiling.Event{Kind: profiling.DeviceCopy, Desc: desc, Bytes: int64(n * e.local.DType().Size())})
	}
}

// slab returns the k indices of the split axis at index at, for each of the
// pre outer positions, as views of the local storage.
func (e *exchange[T]) slab(at, k, i int) *backend.Array[T] {
	off := (i*e.ext + at) * e.post
	return e.local.Slice(off, off+k*e.post)
}

// start posts the receives and the sends of an exchange.
func (e *exchange[T]) start() error {
	if e.freed {
		return freedError(e.name + ".Start")
	}
	if e.inFlight {
		panic(fmt.Sprintf("dist: %s.Start while an exchange is in flight", e.name))
	}
	dt := backend.DTypeOf[T]()
	periodic := int64(0)
	if e.periodic {
		periodic = 1
	}
	if e.grid != nil {
		periodic = e.grid.periodicMask()
	}
	// The layout's hash and text only where the checking mode compares
	// them: without it, formatting the layout on every exchange cost 6 of
	// an exchange's 8 allocations and most of its time at one rank.
	var layoutHash int64
	var layoutText string
	if mpi.Checking() {
		layoutHash, layoutText = e.layout.hash(), e.layout.String()
	}
	if err := mpi.CheckCollective(e.comm, e.name+".Exchange", mpi.Arg{Name: "dtype", Value: int64(dt), Text: dt.String()},
		mpi.Arg{Name: "layout", Value: layoutHash, Text: layoutText}, mpi.Arg{Name: "width", Value: int64(e.width)},
		mpi.Arg{Name: "periodic", Value: periodic}); err != nil {
		return err
	}
	// Posting returns at once: between Start and Finish the rank computes,
	// and a watchdog must not say it is in the exchange.
	defer mpi.Leave()
	e.inFlight = true
	for i := range e.recvs {
		m := &e.recvs[i]
		op, err := m.stage.Irecv(e.comm, e.array(m), m.peer, haloTag)
		if err != nil && isDeviceFault(err) {
			// The device failed: receive into host memory, so that the
			// peer's send completes, and keep the fault (see faulted).
			op, err = e.faulted(m, false, err)
		}
		if err != nil {
			return e.abandon(err)
		}
		m.op = op
	}
	for i := range e.sends {
		m := &e.sends[i]
		if m.scratch != nil {
			e.pack(m)
		}
		op, err := m.stage.Isend(e.comm, e.array(m), m.peer, haloTag)
		if err != nil && isDeviceFault(err) {
			// The device failed: send zeros from host memory, so that the
			// peer's receive completes, and keep the fault (see faulted).
			op, err = e.faulted(m, true, err)
		}
		if err != nil {
			return e.abandon(err)
		}
		m.op = op
	}
	if e.grid != nil {
		e.gridCopyIn()
	}
	return nil
}

// faulted posts m's message (a send of zeros, or a receive that is
// dropped) on host memory in place of m's array, after a device fault
// (err) kept this rank from posting it on its array: the exchange is on
// the hot path of every solver iteration and adds no message to agree on
// its outcome, so it completes with what it has, and the fault is
// recorded for the next call that agrees (Sum, Dot, Norm, ...), which
// returns it on every rank as an error wrapping backend.ErrDevice.
func (e *exchange[T]) faulted(m *haloMsg[T], send bool, err error) (*staging.Op[T], error) {
	recordFault(fmt.Errorf("%s exchange: %w", e.name, err))
	h := backend.Wrap(make([]T, m.n))
	if send {
		return m.stage.Isend(e.comm, h, m.peer, haloTag)
	}
	return m.stage.Irecv(e.comm, h, m.peer, haloTag)
}

// abandon waits for the operations already posted without copying anything
// into the block, and returns err.
func (e *exchange[T]) abandon(err error) error {
	for _, msgs := range [][]haloMsg[T]{e.recvs, e.sends} {
		for i := range msgs {
			if m := &msgs[i]; m.op != nil {
				m.op.Abandon()
				m.op = nil
			}
		}
	}
	e.inFlight = false
	return err
}

// finish waits for the exchange begun by start and fills the ghosts.
func (e *exchange[T]) finish() error {
	if e.freed {
		return freedError(e.name + ".Finish")
	}
	if !e.inFlight {
		panic(fmt.Sprintf("dist: %s.Finish without Start", e.name))
	}
	mpi.Enter(e.name + ".Finish")
	defer mpi.Leave()
	// Waiting for an operation waits for its request, then copies a staged
	// receive to the device. Every operation is waited for, even after a
	// failure.
	var first error
	for _, msgs := range [][]haloMsg[T]{e.recvs, e.sends} {
		for i := range msgs {
			m := &msgs[i]
			if m.op == nil {
				continue
			}
			err := m.op.Wait()
			if err != nil && isDeviceFault(err) {
				// The message arrived; its copy to the device failed:
				// kept for the next call that agrees (see faulted).
				recordFault(fmt.Errorf("%s exchange: %w", e.name, err))
				err = nil
			}
			if err != nil && first == nil {
				first = err
			}
			m.op = nil
		}
	}
	e.inFlight = false
	if first != nil {
		return first
	}
	for i := range e.recvs {
		if m := &e.recvs[i]; m.scratch != nil {
			e.unpack(m)
		}
	}
	return nil
}

// free releases the storage, the packing buffers and the pinned staging
// memory.
func (e *exchange[T]) free() {
	if e.freed {
		return
	}
	if e.inFlight {
		panic(fmt.Sprintf("dist: %s.Free while an exchange is in flight", e.name))
	}
	e.freed = true
	for _, msgs := range [][]haloMsg[T]{e.recvs, e.sends} {
		for i := range msgs {
			m := &msgs[i]
			if m.scratch != nil {
				m.scratch.Free()
			}
			m.stage.Close()
		}
	}
	e.alloc.Free()
	e.local.Free() // a view of alloc: marked freed, releasing nothing
	if e.grid != nil {
		e.grid.block.Free()
	}
}

// Start begins an exchange: it posts the receives and the sends of the
// ghost layers, and returns at once. Finish completes it; the block must not
// change in between, and ghosts must not be read.
//
// For a block on a device, each message goes through its Staging (see
// Halo): with an MPI that is not known to be CUDA-aware, Start copies each
// message sent to the host before posting it.
func (h *Halo[T]) Start() error { return h.ex.start() }

// Finish waits for the exchange begun by Start and fills the ghosts. For a
// block on a device staged through the host, it copies each message
// received to the device.
func (h *Halo[T]) Finish() error { return h.ex.finish() }

// Exchange fills the ghost layers with the neighbouring ranks' elements.
func (h *Halo[T]) Exchange() error {
	if err := h.Start(); err != nil {
		return err
	}
	return h.Finish()
}

// Free releases the local storage, the packing buffers and the pinned
// staging memory. No exchange may be in flight. It is not collective.
// Freeing a Halo again does nothing; using it afterwards fails as using a
// freed Array does (ErrFreed): Start, Finish and Exchange return the
// error, CopyFrom, CopyTo and Swap panic with it, and Local is a freed
// backend.Array.
func (h *Halo[T]) Free() { h.ex.free() }

// Local returns the local storage, ghosts included, in row-major order of
// LocalShape. It is not collective.
func (h *Halo[T]) Local() *backend.Array[T] { return h.ex.local }

// LocalShape returns the shape of the local storage: the block's shape with
// the split axis extended by 2*Width.
func (h *Halo[T]) LocalShape() []int { return append([]int(nil), h.shape...) }

// Width returns the ghost width.
func (h *Halo[T]) Width() int { return h.ex.width }

// Layout returns the layout of the array the block belongs to.
func (h *Halo[T]) Layout() Layout { return h.ex.layout }

// CopyFrom copies x's block into the block of h, leaving the ghosts. It is
// not collective.
func (h *Halo[T]) CopyFrom(x *Array[T]) {
	if x.freed {
		panic(freedError("Halo.CopyFrom"))
	}
	h.copyBlock(x, true)
}

// CopyTo copies the block of h, without ghosts, into x's block. It is not
// collective.
func (h *Halo[T]) CopyTo(x *Array[T]) {
	if x.freed {
		panic(freedError("Halo.CopyTo"))
	}
	h.copyBlock(x, false)
}

func (h *Halo[T]) copyBlock(x *Array[T], in bool) {
	e := &h.ex
	if e.freed {
		panic(freedError("Halo copy"))
	}
	if !x.layout.Equal(e.layout) {
		panic(fmt.Sprintf("dist: Halo copy: layouts differ: %v and %v", e.layout, x.layout))
	}
	n := e.ext - 2*e.width
	for i := 0; i < e.pre; i++ {
		ghosted := e.slab(e.width, n, i)
		plain := x.local.Slice(i*n*e.post, (i+1)*n*e.post)
		if in {
			backend.Copy(ghosted, plain)
		} else {
			backend.Copy(plain, ghosted)
		}
	}
	if in {
		e.recordDeviceCopy("dist.Halo.CopyFrom", x.local.Len())
	} else {
		e.recordDeviceCopy("dist.Halo.CopyTo", x.local.Len())
	}
}

// Swap exchanges the storage of h and o, two halo blocks of the same layout
// and width: the double-buffer step of an iteration. It is not collective.
func (h *Halo[T]) Swap(o *Halo[T]) {
	if h.ex.freed || o.ex.freed {
		panic(freedError("Halo.Swap"))
	}
	if !h.ex.layout.Equal(o.ex.layout) || h.ex.width != o.ex.width || h.ex.comm != o.ex.comm {
		panic(fmt.Sprintf("dist: Halo.Swap of blocks of %v width %d and %v width %d", h.ex.layout, h.ex.width, o.ex.layout, o.ex.width))
	}
	if h.ex.inFlight || o.ex.inFlight {
		panic("dist: Halo.Swap while an exchange is in flight")
	}
	if h.ex.local.Device() != o.ex.local.Device() {
		panic(fmt.Sprintf("dist: Halo.Swap of blocks on %v and %v", h.ex.local.Device(), o.ex.local.Device()))
	}
	h.ex.local, o.ex.local = o.ex.local, h.ex.local
	h.ex.alloc, o.ex.alloc = o.ex.alloc, h.ex.alloc
}

// pageAlignAbove is the size in bytes from which a ghosted block starts on
// a 4 KiB boundary of its allocation rather than a 64-byte one.
const pageAlignAbove = 1 << 20
