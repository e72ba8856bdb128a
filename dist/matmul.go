package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// matmulTag is the tag of the messages of MatMul's ring.
const matmulTag = 0x4d4d

// MatMulMethod says how MatMul multiplies a row-split matrix by a split one.
type MatMulMethod int

const (
	// MatMulAuto allgathers b when the whole of it takes at most
	// MatMulGatherBytes, and passes its blocks around a ring otherwise.
	MatMulAuto MatMulMethod = iota
	// MatMulRing passes b's blocks around a ring of the ranks: at each of
	// the p steps a rank multiplies its rows of a by the block of b it
	// holds while it sends that block to the previous rank and receives
	// the next from the following one (Isend/Irecv, overlapped with the
	// local product). Each rank holds at most two blocks of b besides its
	// own: memory of about 2*k*n/p elements.
	MatMulRing
	// MatMulAllgather gathers the whole of b on every rank (one
	// Allgatherv), then multiplies: memory of k*n elements on every rank,
	// one collective and one large local product.
	MatMulAllgather
)

func (m MatMulMethod) String() string {
	switch m {
	case MatMulAuto:
		return "auto"
	case MatMulRing:
		return "ring"
	case MatMulAllgather:
		return "allgather"
	}
	return fmt.Sprintf("MatMulMethod(%d)", int(m))
}

// MatMulGatherBytes is the size of b, in bytes, up to which MatMulAuto
// allgathers it: 32 MiB.
const MatMulGatherBytes = 32 << 20

// MatMulOptions are the options of MatMulWithOptions.
type MatMulOptions struct {
	// Method is how a row-split a is multiplied by a split b; it does not
	// matter for a replicated b, which needs no communication.
	Method MatMulMethod
	// PanelWidth is the width, in columns of a (rows of b), of the panels
	// that SUMMA broadcasts for operands on a process grid; 0 means
	// MatMulPanelWidth. It does not matter for other layouts.
	PanelWidth int
}

// panelWidth returns the panel width the options ask for.
func (o MatMulOptions) panelWidth() int {
	if o.PanelWidth > 0 {
		return o.PanelWidth
	}
	return MatMulPanelWidth
}

// MatMul returns the matrix product a*b of an m x k matrix a and a k x n
// matrix b, two 2-D arrays on one communicator and one device: the
// product of their local blocks on that device (backend.GEMM), or, on a
// backend that cannot multiply (none of xpmpi's; a backend of the caller's), on host copies of the blocks
// with the result copied back, each copy recorded. It is collective.
//
// The layouts it takes, and the result's:
//
//   - a split on axis 0 (rows), b replicated: each rank multiplies its rows
//     of a by b, with no communication; the result is split on axis 0 with
//     a's block sizes.
//   - a split on axis 0, b split on axis 0 or 1: the result is split on
//     axis 0 with a's block sizes. b's blocks travel as MatMulAuto decides
//     (see MatMulWithOptions): b is allgathered if the whole of it takes at
//     most MatMulGatherBytes, else its blocks pass around a ring.
//   - a replicated, b replicated: every rank computes the whole product;
//     the result is replicated.
//   - a replicated, b split on axis 1: each rank computes its columns, with
//     no communication; the result is split on axis 1 with b's block sizes.
//   - a and b on the same 2-D process grid of pr x pc ranks (NewGridLayout,
//     the ProcessGrid option), with any block sizes: SUMMA (see
//     MatMulPanelWidth), the panels of a's columns broadcast along the
//     grid's rows and those of b's rows along its columns. The result is
//     on the same grid, with a's block sizes along axis 0 and b's along
//     axis 1. a's column blocks and b's row blocks need not match.
//
// Other layouts (a split on axis 1; a replicated and b split on axis 0;
// one operand on a grid and the other not, or on another grid) panic:
// Resplit or Redistribute an operand first. So do operands that are not
// 2-D, inner dimensions that differ, different communicators and different
// devices.
//
// The method follows from the layouts, and each moves, to each rank, in
// elements:
//
//   - b replicated, or a replicated and b split on axis 1: nothing.
//   - a split on axis 0, b split (ring or allgather): (p-1)/p of b,
//     k·n·(p-1)/p, whatever the method; see MatMulWithOptions.
//   - a and b on a pr x pc grid (SUMMA): its grid row's share of a and its
//     grid column's share of b, (m/pr)·k·(pc-1)/pc + k·(n/pc)·(pr-1)/pr;
//     for square matrices on a square grid of p ranks about 2n²/√p, where
//     the row-split methods move about n². SUMMA moves as much on a 1 x 2
//     grid, half a matrix, and less from a 2 x 2 grid on (n²/2 against
//     3n²/4), so a program that multiplies large matrices on many ranks
//     should lay them out on a grid (ProcessGrid(0, 0)).
//
// Floating-point results agree with a serial product (gonum's Dgemm or
// Sgemm of the whole matrices) to within 2k·ε·(|a||b|)ij in each element
// ij, where ε is the unit roundoff of T (2^-53, 2^-24): each product is
// within k·ε·(|a||b|)ij of the exact one, and the local products and the
// order in which the ring and SUMMA add b's blocks or panels change only
// the order of the sums, so results may differ in the last bits with the
// number of ranks.
// Integer products are exact, wrapping as Go's arithmetic does.
//
// Complex matrices (complex64, complex128) are multiplied alike, with the
// CPU backend's complex GEMM (OpenBLAS's cblas_cgemm and cblas_zgemm, or
// gonum's Cgemm and Zgemm) or the fake device's; the tests hold each part
// of each element to within 4k·ε·(|a||b|)ij of NumPy's a @ b, ε the unit
// roundoff of the part type. On CUDA complex blocks are multiplied by
// its GEMM kernel, which sums over k in order (see backend/cuda's
// Backend.Gemm for its bound against the CPU's BLAS). Complex blocks on a
// backend whose GEMM is real-only (one that is not a
// backend.ComplexKernels) are multiplied on host copies, recorded. MatVec
// and MatMulInto take complex arrays too.
func MatMul[T backend.Numeric](a, b *Array[T]) (*Array[T], error) {
	return MatMulWithOptions(a, b, MatMulOptions{})
}

// MatMulWithOptions is MatMul with a choice of method for a row-split a by
// a split b, and of SUMMA's panel width for operands on a process grid
// (whose method must be MatMulAuto). It is collective; every rank must pass
// the same options.
//
// Both methods move the same data, (p-1)/p of b to every rank. The ring
// needs memory for two blocks of b (about 2*k*n/p elements) and overlaps
// each message with the product of the block at hand, but takes p steps
// of point-to-point messages and p smaller local products. Allgather
// needs the whole of b (k*n elements) on every rank and does not overlap,
// but it is one collective, which MPI implements well for small messages,
// followed by one large product, which the local GEMM runs faster than p
// small ones. MatMulAuto therefore allgathers a b of at most
// MatMulGatherBytes, where the memory does not matter and the latency of
// p steps would, and uses the ring above it, where the memory does and
// the overlap hides the transfers. The choice depends on the global
// shapes only, so every rank makes the same one.
func MatMulWithOptions[T backend.Numeric](a, b *Array[T], o MatMulOptions) (_ *Array[T], err error) {
	if a.freed || b.freed {
		return nil, freedCollective("MatMul", a.comm)
	}
	ol := matmulLayout(a, b, o)
	if err := check("MatMul", a, mpi.Arg{Name: "b layout", Value: b.layout.hash(), Text: b.layout.String()},
		mpi.Arg{Name: "method", Value: int64(o.Method), Text: o.Method.String()}); err != nil {
		return nil, err
	}
	out, err := newOn[T](a.comm, ol, a.local.Backend())
	if err != nil {
		return nil, err
	}
	if err := matmulInto(out, a, b, o); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// matmulLayout returns the layout of a*b, panicking on operands MatMul
// does not take.
func matmulLayout[T backend.Numeric](a, b *Array[T], o MatMulOptions) Layout {
	if len(a.layout.shape) != 2 || len(b.layout.shape) != 2 {
		panic(fmt.Sprintf("dist: MatMul of shapes %v and %v: both must be 2-D", a.layout.shape, b.layout.shape))
	}
	m, k, n := a.layout.shape[0], a.layout.shape[1], b.layout.shape[1]
	if b.layout.shape[0] != k {
		panic(fmt.Sprintf("dist: MatMul of shapes %v and %v: inner dimensions differ", a.layout.shape, b.layout.shape))
	}
	sameCommDevice("MatMul", a, b)
	if o.Method < MatMulAuto || o.Method > MatMulAllgather {
		panic(fmt.Sprintf("dist: MatMul with unknown method %v", o.Method))
	}
	if o.PanelWidth < 0 {
		panic(fmt.Sprintf("dist: MatMul with panel width %d", o.PanelWidth))
	}
	if a.layout.isGrid() || b.layout.isGrid() {
		return summaLayout(a.layout, b.layout, o)
	}
	switch {
	case a.layout.axis == 0:
		return NewLayoutCounts([]int{m, n}, 0, a.layout.counts)
	case a.layout.axis == Replicated && b.layout.axis == Replicated:
		return NewLayout([]int{m, n}, Replicated, a.layout.ranks)
	case a.layout.axis == Replicated && b.layout.axis == 1:
		return NewLayoutCounts([]int{m, n}, 1, b.layout.counts)
	}
	panic(fmt.Sprintf("dist: MatMul of a %v by b %v: a must be split on axis 0 or replicated, and a replicated a needs a replicated b or one split on axis 1", a.layout, b.layout))
}

// MatMulInto sets c to the matrix product a*b, as MatMul computes it,
// into c's existing blocks: c must have the layout MatMul would give the
// result (for the same a and b), be on their communicator and device, and
// be neither a nor b. Nothing the size of c is allocated, so that a loop
// of products allocates only what the method needs for b's blocks in
// transit (see MatMulWithOptions). It is collective.
func MatMulInto[T backend.Numeric](c, a, b *Array[T]) error {
	return MatMulIntoWithOptions(c, a, b, MatMulOptions{})
}

// MatMulIntoWithOptions is MatMulInto with MatMulWithOptions's options.
// It is collective; every rank must pass the same options.
func MatMulIntoWithOptions[T backend.Numeric](c, a, b *Array[T], o MatMulOptions) error {
	if a.freed || b.freed || c.freed {
		return freedCollective("MatMulInto", a.comm)
	}
	ol := matmulLayout(a, b, o)
	if !c.layout.Equal(ol) {
		panic(fmt.Sprintf("dist: MatMulInto a result of %v: the product of a %v by b %v has %v", c.layout, a.layout, b.layout, ol))
	}
	sameCommDevice("MatMulInto", c, a)
	if c == a || c == b {
		panic("dist: MatMulInto: the result is one of the operands")
	}
	if err := check("MatMulInto", a, mpi.Arg{Name: "b layout", Value: b.layout.hash(), Text: b.layout.String()},
		mpi.Arg{Name: "method", Value: int64(o.Method), Text: o.Method.String()}); err != nil {
		return err
	}
	return matmulInto(c, a, b, o)
}

// matmulInto computes a*b into out, whose layout matmulLayout checked.
func matmulInto[T backend.Numeric](out, a, b *Array[T], o MatMulOptions) error {
	m, k, n := a.layout.shape[0], a.layout.shape[1], b.layout.shape[1]
	ab, bb, g, err := gemmBlocks(a.local, b.local)
	var res *backend.Array[T]
	if err == nil {
		if res, err = resultOn(out.local, ab); err == nil && res != out.local {
			defer res.Free()
		}
	}
	// Where device blocks go to MPI (SUMMA, a row-split a by a split b
	// at more than one rank), the ranks agree first, in one allreduce of
	// two counts: a host copy of a block that failed, or a device fault
	// (the one a synchronization of the device takes, or one recorded
	// earlier), on one rank fails the call on every rank, before any
	// block goes to MPI. The paths without communication, and host
	// blocks, add nothing: a fault stays on the device for the next call
	// that agrees.
	comm := a.layout.isGrid() || (a.layout.axis == 0 && b.layout.axis != Replicated && a.comm.Size() > 1)
	if comm && onDevice(a.local) {
		err = agreeBlocks(a.comm, "MatMul", err, a.local, b.local)
	}
	if err != nil {
		return err
	}
	me := a.comm.Rank()
	mr := a.layout.LocalShape(me)[0]
	switch {
	case a.layout.isGrid():
		err = summa(a.comm, g, ab, bb, res, a.layout, b.layout, o.panelWidth())
	case b.layout.axis == Replicated:
		g.Gemm(res.Buffer(), ab.Buffer(), bb.Buffer(), mr, n, k, max(k, 1), max(n, 1), max(n, 1), false)
	case a.layout.axis == Replicated: // b split on axis 1
		nq := b.layout.LocalShape(me)[1]
		g.Gemm(res.Buffer(), ab.Buffer(), bb.Buffer(), m, nq, k, max(k, 1), max(nq, 1), max(nq, 1), false)
	default:
		method := o.Method
		if method == MatMulAuto {
			method = MatMulRing
			if bytes, err := MulBytes(int64(k)*int64(n), int64(backend.DTypeOf[T]().Size())); err == nil && bytes <= MatMulGatherBytes {
				method = MatMulAllgather
			}
		}
		p := panelProduct[T]{c: a.comm, g: g, a: ab, res: res, bl: b.layout, mr: mr}
		if method == MatMulAllgather || a.comm.Size() == 1 {
			err = p.allgather(bb)
		} else {
			err = p.ring(bb)
		}
	}
	if err != nil {
		return err
	}
	return copyResult(out.local, res)
}

// MatVec returns the matrix-vector product a*x of an m x k matrix a, split
// on axis 0 or replicated, and a vector x of length k, split on axis 0 or
// replicated, on one communicator and one device. A split x is allgathered
// first (k elements on every rank); then each rank multiplies its rows of a
// by x on the device (backend.GEMM), or on host copies as MatMul does. The
// result, of length m, is split with a's block sizes, or replicated if a
// is. It is collective. Tolerances are MatMul's; other shapes panic.
func MatVec[T backend.Numeric](a, x *Array[T]) (_ *Array[T], err error) {
	if a.freed || x.freed {
		return nil, freedCollective("MatVec", a.comm)
	}
	if len(a.layout.shape) != 2 || len(x.layout.shape) != 1 {
		panic(fmt.Sprintf("dist: MatVec of shapes %v and %v: a matrix and a vector", a.layout.shape, x.layout.shape))
	}
	m, k := a.layout.shape[0], a.layout.shape[1]
	if x.layout.shape[0] != k {
		panic(fmt.Sprintf("dist: MatVec of shapes %v and %v: inner dimensions differ", a.layout.shape, x.layout.shape))
	}
	if a.layout.axis != 0 && a.layout.axis != Replicated {
		panic(fmt.Sprintf("dist: MatVec of a %v: a must be split on axis 0 or replicated (for a on a process grid, MatMul by a k x 1 matrix on the same grid)", a.layout))
	}
	if x.layout.isGrid() {
		panic(fmt.Sprintf("dist: MatVec by an x %v: x must be split on axis 0 or replicated", x.layout))
	}
	sameCommDevice("MatVec", a, x)
	if err := check("MatVec", a, mpi.Arg{Name: "x layout", Value: x.layout.hash(), Text: x.layout.String()}); err != nil {
		return nil, err
	}
	ol := NewLayout([]int{m}, Replicated, a.layout.ranks)
	if a.layout.axis == 0 {
		ol = NewLayoutCounts([]int{m}, 0, a.layout.counts)
	}
	out, err := newOn[T](a.comm, ol, a.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	ab, xb, g, err := gemmBlocks(a.local, x.local)
	if x.layout.axis == 0 && x.comm.Size() > 1 {
		var full *backend.Array[T]
		if err == nil {
			if full, err = backend.NewOn[T](xb.Backend(), k); err == nil {
				defer full.Free()
			}
		}
		if onDevice(x.local) {
			// A failure on one rank (a host copy, the allocation, a
			// device fault a synchronization takes or one recorded
			// earlier) fails the call on every rank before x goes to
			// MPI: one allreduce of two counts.
			err = agreeBlocks(x.comm, "MatVec", err, a.local, x.local)
		}
		if err != nil {
			return nil, err
		}
		counts, displs := x.layout.counts, x.layout.starts[:len(x.layout.counts)]
		if err := exchanged(staging.Allgatherv(x.comm, xb, full, counts, displs)); err != nil {
			return nil, err
		}
		xb = full
	} else if err != nil {
		return nil, err
	}
	res, err := resultOn(out.local, ab)
	if err != nil {
		return nil, err
	}
	if res != out.local {
		defer res.Free()
	}
	mr := a.layout.LocalShape(a.comm.Rank())[0]
	g.Gemm(res.Buffer(), ab.Buffer(), xb.Buffer(), mr, 1, k, max(k, 1), 1, 1, false)
	if err := copyResult(out.local, res); err != nil {
		return nil, err
	}
	return out, nil
}

// sameCommDevice panics unless a and b share a communicator and a device.
func sameCommDevice[T backend.Numeric](op string, a, b *Array[T]) {
	if a.comm != b.comm {
		panic(fmt.Sprintf("dist: %s: arrays on different communicators", op))
	}
	if a.local.Device() != b.local.Device() {
		panic(fmt.Sprintf("dist: %s of arrays on %v and %v", op, a.local.Device(), b.local.Device()))
	}
}

// gemmBlocks returns a's and b's blocks on a backend that multiplies
// matrices (backend.GEMM): the blocks themselves, or, on a backend that
// cannot, host copies (recorded), with the CPU backend. Complex blocks
// count as ones the backend cannot multiply unless the backend is also a
// backend.ComplexKernels (the CPU backend, the fake device and CUDA are).
func gemmBlocks[T backend.Numeric](a, b *backend.Array[T]) (ab, bb *backend.Array[T], g backend.GEMM, err error) {
	if ab, g, err = capableBlock[backend.GEMM](a); err != nil || ab == a {
		return ab, b, g, err
	}
	bb = backend.Wrap([]T{})
	if b.Len() > 0 {
		if bb, err = backend.ToHost(b); err != nil {
			return nil, nil, nil, err
		}
	}
	return ab, bb, g, nil
}

// resultOn returns the array the product is computed into: out's block
// when the blocks are on its backend, else a new array on the blocks'
// backend (the host) that copyResult copies into out.
func resultOn[T backend.Numeric](out, blocks *backend.Array[T]) (*backend.Array[T], error) {
	if blocks.Backend() == out.Backend() {
		return out, nil
	}
	return backend.NewOn[T](blocks.Backend(), out.Len())
}

// copyResult copies res to out (recorded) unless they are one array.
func copyResult[T backend.Numeric](out, res *backend.Array[T]) error {
	if res == out || out.Len() == 0 {
		return nil
	}
	return backend.CopyFromHostSlice(out, res.Data())
}

// panelProduct multiplies this rank's rows of a (mr x k, on g's backend)
// by a b split on axis 0 or 1 (layout bl), one block of b at a time, into
// res (mr x n).
type panelProduct[T backend.Numeric] struct {
	c   mpi.Comm
	g   backend.GEMM
	a   *backend.Array[T]
	res *backend.Array[T]
	bl  Layout
	mr  int
}

// multiply adds (or sets, if first) the product of a and block q of b,
// held in panel, to res: for b split on axis 0, a's columns of block q
// times the block; for b split on axis 1, a times the block into the
// block's columns of res.
func (p *panelProduct[T]) multiply(panel *backend.Array[T], q int, first bool) {
	k, n := p.bl.shape[0], p.bl.shape[1]
	lo, hi := p.bl.Range(q)
	if p.mr == 0 {
		return
	}
	if p.bl.axis == 0 {
		p.g.Gemm(p.res.Buffer(), p.a.Slice(lo, p.a.Len()).Buffer(), panel.Buffer(), p.mr, n, hi-lo, max(k, 1), max(n, 1), max(n, 1), !first)
		return
	}
	if hi == lo {
		return
	}
	p.g.Gemm(p.res.Slice(lo, p.res.Len()).Buffer(), p.a.Buffer(), panel.Buffer(), p.mr, hi-lo, k, max(k, 1), hi-lo, max(n, 1), false)
}

// allgather gathers the whole of b, then multiplies by each block.
func (p *panelProduct[T]) allgather(own *backend.Array[T]) error {
	ranks := p.c.Size()
	counts, displs := make([]int, ranks), make([]int, ranks)
	total := 0
	for q := range counts {
		counts[q], displs[q] = p.bl.LocalLen(q), total
		total += counts[q]
	}
	full := own
	if ranks > 1 {
		var err error
		if full, err = backend.NewOn[T](own.Backend(), total); err != nil {
			return err
		}
		defer full.Free()
		if err := exchanged(staging.Allgatherv(p.c, own, full, counts, displs)); err != nil {
			return err
		}
	}
	if p.bl.axis == 0 {
		// The gathered blocks of rows are b itself: one product.
		if k, n := p.bl.shape[0], p.bl.shape[1]; p.mr > 0 {
			p.g.Gemm(p.res.Buffer(), p.a.Buffer(), full.Buffer(), p.mr, n, k, max(k, 1), max(n, 1), max(n, 1), false)
		}
		return nil
	}
	for q := range ranks {
		p.multiply(full.Slice(displs[q], displs[q]+counts[q]), q, q == 0)
	}
	return nil
}

// ring passes b's blocks around the ranks: at step s this rank holds the
// block of rank me+s (mod p), sends it to rank me-1 and receives the next
// from rank me+1 while it multiplies.
func (p *panelProduct[T]) ring(own *backend.Array[T]) (err error) {
	ranks, me := p.c.Size(), p.c.Rank()
	be := own.Backend()
	maxLen := 0
	for q := range ranks {
		maxLen = max(maxLen, p.bl.LocalLen(q))
	}
	// The two blocks in transit, allocated when first received into: at
	// two ranks the one step needs one (the first sends the rank's own).
	var panels [2]*backend.Array[T]
	defer func() {
		for _, x := range panels {
			if x != nil {
				x.Free()
			}
		}
	}()
	// A Staging per message length: blocks differ by a row or a column.
	stages := map[[2]int]*staging.Staging[T]{}
	stage := func(n int, send bool) *staging.Staging[T] {
		key := [2]int{n, int(b2i(send))}
		s, ok := stages[key]
		if !ok {
			s = staging.NewStaging[T](be, n)
			stages[key] = s
		}
		return s
	}
	defer func() {
		for _, s := range stages {
			s.Close()
		}
	}()
	// A device fault that a step's products raise appears on this rank
	// alone, in the next step's staging or in a copy of what arrived:
	// the rank goes on with the ring (sending zeros from host memory for
	// what it could not read, receiving into host memory what it could
	// not receive into the device), so that no neighbour waits for it, and
	// the fault is recorded for the next call that agrees (the ring adds
	// no message to find out).
	var fault error
	faulted := func(err error) bool {
		if err == nil || !isDeviceFault(err) {
			return false
		}
		if fault == nil {
			fault = err
		}
		return true
	}
	defer func() {
		if fault != nil {
			recordFault(fault)
		}
	}()
	next, prev := (me+1)%ranks, (me+ranks-1)%ranks
	cur := own
	for s := range ranks {
		q := (me + s) % ranks
		var send, recv *staging.Op[T]
		var into *backend.Array[T]
		if s < ranks-1 {
			r := (q + 1) % ranks
			if panels[s%2] == nil {
				if panels[s%2], err = backend.NewOn[T](be, maxLen); err != nil {
					return err
				}
			}
			into = panels[s%2].Slice(0, p.bl.LocalLen(r))
			if recv, err = stage(into.Len(), false).Irecv(p.c, into, next, matmulTag); faulted(err) {
				recv, err = stage(into.Len(), false).Irecv(p.c, backend.Wrap(make([]T, into.Len())), next, matmulTag)
			}
			if err != nil {
				return err
			}
			if send, err = stage(cur.Len(), true).Isend(p.c, cur, prev, matmulTag); faulted(err) {
				send, err = stage(cur.Len(), true).Isend(p.c, backend.Wrap(make([]T, cur.Len())), prev, matmulTag)
			}
			if err != nil {
				recv.Abandon()
				return err
			}
		}
		faulted(localStep(func() { p.multiply(cur, q, s == 0) })) // recorded; the ring goes on
		if s == ranks-1 {
			break
		}
		mpi.Enter("MatMul ring")
		err = recv.Wait()
		if faulted(err) {
			err = nil
		}
		if e := send.Wait(); err == nil {
			err = e
		}
		mpi.Leave()
		if err != nil {
			return err
		}
		cur = into
	}
	return nil
}
