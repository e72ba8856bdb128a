package dist

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// This file holds the one all-to-all that Slice, SetSlice, Concatenate,
// Transpose and Reshape move elements with. Each works in a target index
// space (the slice's, the concatenation's, the transpose's, the flat
// index of a reshape): every rank's sending side and receiving side are
// lists of pieces, boxes of that space with an affine map from the box's
// multi-index to an offset in a local block. The part that rank r sends
// rank s is the intersection of r's sending pieces with s's receiving
// pieces, in the order (sending piece, receiving piece, row-major in the
// intersection), which both sides compute from the layouts alone.

// piece is a box (start, shape) of a target index space held by local
// array arr: the element at multi-index g of the space is at offset
// base + sum_d g[d]*mul[d] of the array. A local piece (a replicated
// array's, which every rank holds) is sent only to its own rank.
type piece struct {
	arr          int
	start, shape []int
	base         int
	mul          []int
	local        bool
}

// blockPiece returns the piece of a row-major block (bstart, bshape) of a
// space of the same dimensions, moved by shift along axis (shift 0: not
// moved), as local array arr.
func blockPiece(arr int, bstart, bshape []int, axis, shift int) piece {
	d := len(bshape)
	st := make([]int, d)
	copy(st, bstart)
	if axis >= 0 {
		st[axis] += shift
	}
	mul := make([]int, d)
	s, base := 1, 0
	for a := d - 1; a >= 0; a-- {
		mul[a] = s
		base -= st[a] * s
		s *= bshape[a]
	}
	return piece{arr: arr, start: st, shape: append([]int(nil), bshape...), base: base, mul: mul}
}

// layoutPieces returns rank r's block of layout l as its one piece, local
// if l is replicated.
func layoutPieces(l Layout) func(r int) []piece {
	return func(r int) []piece {
		st, sh := l.box(r)
		pc := blockPiece(0, st, sh, -1, 0)
		pc.local = l.axis == Replicated
		return []piece{pc}
	}
}

// prun is a contiguous run of n elements at offset block of local array
// arr and at offset packed of a packed buffer.
type prun struct{ arr, block, packed, n int }

// emitRuns appends the runs of the box (start, shape), which lies inside
// pc, in row-major order from packed offset *off, merging runs that are
// contiguous in the array.
func emitRuns(pc piece, start, shape []int, runs []prun, off *int) []prun {
	d := len(shape)
	if prod(shape) == 0 {
		return runs
	}
	idx := make([]int, d)
	last := shape[d-1]
	ml := pc.mul[d-1]
	for {
		o := pc.base
		for a := 0; a < d-1; a++ {
			o += (start[a] + idx[a]) * pc.mul[a]
		}
		o += start[d-1] * ml
		if ml == 1 {
			runs = appendRun(runs, prun{pc.arr, o, *off, last})
			*off += last
		} else {
			for k := 0; k < last; k++ {
				runs = appendRun(runs, prun{pc.arr, o + k*ml, *off, 1})
				*off++
			}
		}
		a := d - 2
		for a >= 0 {
			idx[a]++
			if idx[a] < shape[a] {
				break
			}
			idx[a] = 0
			a--
		}
		if a < 0 {
			return runs
		}
	}
}

func appendRun(runs []prun, r prun) []prun {
	if k := len(runs) - 1; k >= 0 {
		p := &runs[k]
		if p.arr == r.arr && p.block+p.n == r.block && p.packed+p.n == r.packed {
			p.n += r.n
			return runs
		}
	}
	return append(runs, r)
}

// move is a plan: the pieces every rank sends and receives.
type move struct {
	send, recv func(r int) []piece
}

// runs returns rank me's send runs and counts per destination, and its
// receive runs and counts per source.
func (m move) runs(me, p int) (sruns []prun, scounts []int, rruns []prun, rcounts []int) {
	scounts, rcounts = make([]int, p), make([]int, p)
	mine := m.send(me)
	into := m.recv(me)
	soff, roff := 0, 0
	for s := 0; s < p; s++ {
		theirs := m.recv(s)
		begin := soff
		for _, sp := range mine {
			if sp.local && s != me {
				continue
			}
			for _, rp := range theirs {
				if st, sh, empty := intersect(sp.start, sp.shape, rp.start, rp.shape); !empty {
					sruns = emitRuns(sp, st, sh, sruns, &soff)
				}
			}
		}
		scounts[s] = soff - begin
	}
	for r := 0; r < p; r++ {
		from := m.send(r)
		begin := roff
		for _, sp := range from {
			if sp.local && r != me {
				continue
			}
			for _, rp := range into {
				if st, sh, empty := intersect(sp.start, sp.shape, rp.start, rp.shape); !empty {
					rruns = emitRuns(rp, st, sh, rruns, &roff)
				}
			}
		}
		rcounts[r] = roff - begin
	}
	return sruns, scounts, rruns, rcounts
}

// selfOnly reports whether no rank sends another rank anything.
func (m move) selfOnly(p int) bool {
	if p == 1 {
		return true
	}
	work := 0
	for r := 0; r < p; r++ {
		for _, sp := range m.send(r) {
			if sp.local {
				continue
			}
			for s := 0; s < p; s++ {
				if s == r {
					continue
				}
				for _, rp := range m.recv(s) {
					if work++; work > maxSelfCheck {
						return false // too long to find out: use MPI
					}
					if _, _, empty := intersect(sp.start, sp.shape, rp.start, rp.shape); !empty {
						return false
					}
				}
			}
		}
	}
	return true
}

// maxSelfCheck bounds the piece intersections that selfOnly tries.
const maxSelfCheck = 1 << 16

// displs returns the offsets of consecutive parts of the given sizes.
func displs(counts []int) []int {
	d := make([]int, len(counts))
	for i := 1; i < len(counts); i++ {
		d[i] = d[i-1] + counts[i-1]
	}
	return d
}

// identity reports whether runs copy all of an array of n elements to the
// same offsets of a packed buffer of n elements.
func identity(runs []prun, total, n int) bool {
	if total != n {
		return false
	}
	for _, r := range runs {
		if r.arr != 0 || r.block != r.packed {
			return false
		}
	}
	return true
}

// moveDo moves the elements of the local arrays srcs (all on b's device)
// into dst by plan m, in one all-to-all. The parts are packed and unpacked
// on the device (not at all when they already lie in packed order), and
// package staging hands MPI device memory when it is CUDA-aware.
func moveDo[T backend.Numeric](m move, c mpi.Comm, b backend.Backend, srcs []*backend.Array[T], dst *backend.Array[T], desc string) error {
	me, p := c.Rank(), c.Size()
	sruns, scounts, rruns, rcounts := m.runs(me, p)
	stotal, rtotal := sum(scounts), sum(rcounts)
	self := m.selfOnly(p)
	alias := overlaps(dst, srcs)
	if self && !alias && identity(rruns, rtotal, dst.Len()) {
		// Only this rank's own part, which is all of dst in order: gather
		// it straight into dst.
		gatherRuns(dst, srcs, sruns, desc)
		return nil
	}
	// The buffers are allocated before MPI is called; a failure on one
	// rank is agreed on by all (unless no rank communicates), so that no
	// rank waits in the all-to-all for one that left.
	sendIdent := !alias && len(srcs) == 1 && identity(sruns, stotal, srcs[0].Len())
	recvIdent := identity(rruns, rtotal, dst.Len())
	sd, rd := displs(scounts), displs(rcounts)
	// On the host, this rank's own part goes straight from srcs into dst
	// (own), not through the send buffer, MPI's copy and the receive
	// buffer: its runs leave sruns and rruns, its count the all-to-all,
	// and its room the buffers. Where dst overlaps srcs (a move in place)
	// it goes through ownTmp instead, saved before the exchange and put in
	// place after it: two copies, where the buffers and MPI make three.
	host := onHost(dst, srcs)
	var own []ownCopy
	var ownTmp *backend.Array[T]
	if n := scounts[me]; !self && n > 0 && host {
		var sIn, rIn []prun
		sIn, sruns = splitRuns(sruns, sd[me], sd[me]+n, !sendIdent)
		rIn, rruns = splitRuns(rruns, rd[me], rd[me]+n, !recvIdent)
		own = pairRuns(sIn, rIn, sd[me], rd[me])
		scounts, rcounts = slices.Clone(scounts), slices.Clone(rcounts)
		scounts[me], rcounts[me] = 0, 0
		if !sendIdent {
			stotal -= n
			sd = displs(scounts)
		}
		if !recvIdent {
			rtotal -= n
			rd = displs(rcounts)
		}
		if alias {
			var put func()
			ownTmp, put = hostScratch[T](n)
			defer put()
		}
	}
	// On the host, a part that is one run of its block, for every peer,
	// goes between MPI and the block without the send or receive buffer
	// (its displacement the run's offset): the received parts of a
	// transpose from rows to columns, the sent ones of the way back.
	// MPI must not read and write overlapping memory, so where the move
	// is in place only one side goes so, the receive first; the rank's
	// own part has left both sides above.
	if host && !self {
		if !recvIdent {
			if d, ok := directDispls(rruns, rcounts, rd); ok {
				recvIdent, rd, rruns = true, d, nil
			}
		}
		if !sendIdent && len(srcs) == 1 && (!alias || !recvIdent) {
			if d, ok := directDispls(sruns, scounts, sd); ok {
				sendIdent, sd, sruns = true, d, nil
			}
		}
	}
	send, recv := srcs[0], dst
	var err error
	if !sendIdent {
		if host {
			var put func()
			send, put = hostScratch[T](stotal)
			defer put()
		} else if send, err = backend.NewOn[T](b, stotal); err == nil {
			defer send.Free()
		}
	}
	if err == nil && !recvIdent {
		if host {
			var put func()
			recv, put = hostScratch[T](rtotal)
			defer put()
		} else if recv, err = backend.NewOn[T](b, rtotal); err == nil {
			defer recv.Free()
		}
	}
	// The parts are packed before the agreement, under localStep: a
	// device fault that the packing, or a synchronization of the device
	// before its memory goes to MPI, reports on one rank fails the call on
	// every rank (an error wrapping backend.ErrDevice; mpi.Agree keeps its
	// kind), with the fault recorded earlier (takeFault). Without MPI
	// (self) a device fault is recorded for the next call that agrees.
	pack := func() {
		if send != srcs[0] {
			gatherRuns(send, srcs, sruns, desc+" pack")
		}
		switch {
		case ownTmp != nil:
			tmp, t := ownTmp.Data(), 0
			for _, c := range own {
				copy(tmp[t:t+c.n], srcs[c.arr].Data()[c.from:c.from+c.n])
				t += c.n
			}
		case len(own) > 0:
			d := dst.Data()
			for _, c := range own {
				copy(d[c.to:c.to+c.n], srcs[c.arr].Data()[c.from:c.from+c.n])
			}
		}
	}
	if self {
		if err != nil {
			return err
		}
		stickyStep(pack)
	} else {
		if err == nil {
			err = localStep(pack)
		}
		if err == nil {
			err = deviceSync(send)
		}
		if err := mpi.Agree(c, takeFault(err)); err != nil {
			return err
		}
	}
	if self {
		// No rank sends another anything (a replicated source, one
		// rank), as every rank finds: each copies its own part on the
		// device, without MPI (which would stage it through the host).
		if n := scounts[me]; n > 0 {
			backend.Copy(recv.Slice(rd[me], rd[me]+n), send.Slice(sd[me], sd[me]+n))
			if !recv.Device().IsHost() {
				recordDeviceCopy(desc+" local", n, recv.DType().Size())
			}
		}
	} else if err := exchanged(staging.Alltoallv(c, send, scounts, sd, recv, rcounts, rd)); err != nil {
		return err
	}
	if ownTmp != nil {
		// The own part's room in dst is not the received parts': the
		// order of the two does not matter.
		d, tmp, t := dst.Data(), ownTmp.Data(), 0
		for _, c := range own {
			copy(d[c.to:c.to+c.n], tmp[t:t+c.n])
			t += c.n
		}
	}
	if recv != dst {
		var err error
		if uerr := localStep(func() { err = scatterRuns(dst, recv, rruns, desc+" unpack") }); uerr != nil {
			err = uerr
		}
		return exchanged(err)
	}
	return nil
}

// scratchPools holds, per element type (backend.DType), a sync.Pool of
// host buffers (*[]T) for the packed parts of moves.
var scratchPools sync.Map

// hostScratch returns a host array of n elements, not zeroed, for a move's
// packed parts, and the function that gives it back. The buffers are
// pooled: a move repeated in a loop (the transposes of W8's FFTs) reuses
// its memory instead of faulting fresh pages in each time, 12,000 page
// faults per forward and inverse transform of 2048 x 2048 at 2 ranks
// (each rank's buffers: 32 MiB); the pool lets the garbage collector
// take them back.
func hostScratch[T backend.Numeric](n int) (*backend.Array[T], func()) {
	v, ok := scratchPools.Load(backend.DTypeOf[T]())
	if !ok {
		v, _ = scratchPools.LoadOrStore(backend.DTypeOf[T](), new(sync.Pool))
	}
	pool := v.(*sync.Pool)
	var s []T
	if p, ok := pool.Get().(*[]T); ok && cap(*p) >= n {
		s = (*p)[:n]
	} else {
		s = make([]T, n)
	}
	return backend.Wrap(s), func() { pool.Put(&s) }
}

// ownCopy is a copy of n elements of a rank's own part, from offset from
// of srcs[arr] to offset to of dst.
type ownCopy struct{ arr, from, to, n int }

// onHost reports whether dst and every array of srcs are in host memory.
func onHost[T backend.Numeric](dst *backend.Array[T], srcs []*backend.Array[T]) bool {
	if !dst.Device().IsHost() {
		return false
	}
	for _, s := range srcs {
		if !s.Device().IsHost() {
			return false
		}
	}
	return true
}

// overlaps reports whether the memory of dst overlaps that of any of srcs
// (all on one device). SetSlice(x, r, x), NumPy's x[::-1] = x, moves a
// block onto itself: MPI must not read and write the same buffer, and
// copying a rank's own part run by run would overwrite elements before
// they are read. Packing the parts first does neither.
func overlaps[T backend.Numeric](dst *backend.Array[T], srcs []*backend.Array[T]) bool {
	if dst.Len() == 0 {
		return false
	}
	size := uintptr(dst.DType().Size())
	dlo := uintptr(dst.Ptr())
	dhi := dlo + uintptr(dst.Len())*size
	for _, s := range srcs {
		if s.Len() == 0 {
			continue
		}
		lo := uintptr(s.Ptr())
		if hi := lo + uintptr(s.Len())*size; lo < dhi && dlo < hi {
			return true
		}
	}
	return false
}

// splitRuns splits runs, in order of their packed offsets, into the parts
// whose packed offsets lie in [lo, hi) and the parts outside; with
// compact, the parts outside that lie above hi move down by hi-lo, as in a
// packed buffer without that range.
func splitRuns(runs []prun, lo, hi int, compact bool) (in, out []prun) {
	for _, r := range runs {
		end := r.packed + r.n
		if r.packed < lo {
			k := min(end, lo) - r.packed
			out = append(out, prun{r.arr, r.block, r.packed, k})
		}
		if a, b := max(r.packed, lo), min(end, hi); a < b {
			in = append(in, prun{r.arr, r.block + a - r.packed, a, b - a})
		}
		if end > hi {
			a := max(r.packed, hi)
			q := prun{r.arr, r.block + a - r.packed, a, end - a}
			if compact {
				q.packed -= hi - lo
			}
			out = append(out, q)
		}
	}
	return in, out
}

// pairRuns matches the send runs src of a rank's own part, which cover
// packed offsets [s0, s0+n), with its receive runs dst, which cover [r0,
// r0+n) in the same order, as copies from the source block to the
// destination block.
func pairRuns(src, dst []prun, s0, r0 int) []ownCopy {
	var out []ownCopy
	i, j := 0, 0
	for i < len(src) && j < len(dst) {
		s, d := src[i], dst[j]
		a, b := s.packed-s0, d.packed-r0
		lo, hi := max(a, b), min(a+s.n, b+d.n)
		if hi > lo {
			out = append(out, ownCopy{arr: s.arr, from: s.block + lo - a, to: d.block + lo - b, n: hi - lo})
		}
		if a+s.n <= b+d.n {
			i++
		} else {
			j++
		}
	}
	return out
}

// directDispls reports whether each peer's part, packed offsets [d[s],
// d[s]+counts[s]) of runs (in packed order) of one array, is one run of
// it, and returns the parts' offsets in it.
func directDispls(runs []prun, counts, d []int) ([]int, bool) {
	for k := 1; k < len(runs); k++ {
		if runs[k].packed < runs[k-1].packed+runs[k-1].n {
			return nil, false
		}
	}
	out := make([]int, len(counts))
	for s, n := range counts {
		if n == 0 {
			continue
		}
		k := sort.Search(len(runs), func(k int) bool { return runs[k].packed+runs[k].n > d[s] })
		if k == len(runs) || runs[k].arr != 0 || runs[k].packed > d[s] || d[s]+n > runs[k].packed+runs[k].n {
			return nil, false
		}
		out[s] = runs[k].block + d[s] - runs[k].packed
	}
	return out, true
}

func sum(s []int) int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

// shortRuns is the mean run length below which a device gather is one
// Take (where the backend is a backend.Sorter) instead of a copy per run.
const shortRuns = 8

// gatherRuns copies the runs of srcs into the packed buffer dst, which
// they cover, on dst's device. A device's copies are recorded as one
// DeviceCopy event.
func gatherRuns[T backend.Numeric](dst *backend.Array[T], srcs []*backend.Array[T], runs []prun, desc string) {
	if len(runs) == 0 {
		return
	}
	if dst.Device().IsHost() {
		d := dst.Data()
		for _, r := range runs {
			copy(d[r.packed:r.packed+r.n], srcs[r.arr].Data()[r.block:r.block+r.n])
		}
		return
	}
	total := 0
	for _, r := range runs {
		total += r.n
	}
	if s, ok := dst.Backend().(backend.Sorter); ok && len(srcs) == 1 && total == dst.Len() && total < shortRuns*len(runs) {
		pos := make([]int, total)
		for _, r := range runs {
			for k := 0; k < r.n; k++ {
				pos[r.packed+k] = r.block + k
			}
		}
		s.Take(dst.Buffer(), srcs[0].Buffer(), pos)
	} else {
		for _, r := range runs {
			backend.Copy(dst.Slice(r.packed, r.packed+r.n), srcs[r.arr].Slice(r.block, r.block+r.n))
		}
	}
	recordDeviceCopy(desc, total, dst.DType().Size())
}

// scatterRuns copies the packed buffer src into the runs of dst, on dst's
// device; a device's copies are recorded as one DeviceCopy event. Many
// short runs on a backend.Sorter are one Take from dst and src side by
// side in a temporary, instead of a copy per run.
func scatterRuns[T backend.Numeric](dst, src *backend.Array[T], runs []prun, desc string) error {
	if len(runs) == 0 {
		return nil
	}
	if dst.Device().IsHost() {
		d, s := dst.Data(), src.Data()
		for _, r := range runs {
			copy(d[r.block:r.block+r.n], s[r.packed:r.packed+r.n])
		}
		return nil
	}
	total := 0
	for _, r := range runs {
		total += r.n
	}
	if s, ok := dst.Backend().(backend.Sorter); ok && total < shortRuns*len(runs) {
		n := dst.Len()
		both, err := backend.NewOn[T](dst.Backend(), n+src.Len())
		if err != nil {
			return err
		}
		defer both.Free()
		backend.Copy(both.Slice(0, n), dst)
		backend.Copy(both.Slice(n, n+src.Len()), src)
		pos := make([]int, n)
		for i := range pos {
			pos[i] = i
		}
		for _, r := range runs {
			for k := 0; k < r.n; k++ {
				pos[r.block+k] = n + r.packed + k
			}
		}
		s.Take(dst.Buffer(), both.Buffer(), pos)
		recordDeviceCopy(desc, 2*n+src.Len(), dst.DType().Size())
		return nil
	}
	for _, r := range runs {
		backend.Copy(dst.Slice(r.block, r.block+r.n), src.Slice(r.packed, r.packed+r.n))
	}
	recordDeviceCopy(desc, total, dst.DType().Size())
	return nil
}

func recordDeviceCopy(desc string, n, size int) {
	if profiling.Active() {
		profiling.Record(profiling.Event{Kind: profiling.DeviceCopy, Desc: desc, Bytes: int64(n * size)})
	}
}

// sameDevice panics unless every local array is on the device of the
// first.
func sameDevice[T backend.Numeric](op string, arrays ...*Array[T]) {
	for _, a := range arrays[1:] {
		if a.local.Device() != arrays[0].local.Device() {
			panic(fmt.Sprintf("dist: %s: blocks on %v and %v; move one with ToHost or ToDevice", op, arrays[0].local.Device(), a.local.Device()))
		}
		if a.comm != arrays[0].comm {
			panic(fmt.Sprintf("dist: %s: arrays on different communicators", op))
		}
	}
}
