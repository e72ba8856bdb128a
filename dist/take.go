package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// Integer is the set of the element types of index arrays (Take's
// indices): the integer types of Element.
type Integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

// TakeFlat returns the elements of the flattened a (row-major order) at
// the given indices, as NumPy's take(a, indices) without an axis: the
// result has the shape and the layout of indices (a process grid
// included, without ghost layers) and lives on a's backend. A negative
// index counts from the end; an index out of [-a.Len(), a.Len()) is an
// error that names it (NumPy's mode "raise"), returned on every rank. a
// and indices may have any layouts; they must share a communicator.
//
// The indices may point at other ranks' elements: no array is gathered.
// Each rank copies its block of indices to the host (a recorded copy for
// a device block), and sends each rank the distinct offsets it needs from
// that rank's block, in an all-to-all of the counts and one of the
// requests (8 bytes per distinct index); each rank gathers what it is
// asked for on its device and returns it in a third all-to-all (one
// element per distinct index), through package staging for device
// blocks. A replicated a needs no communication. Every rank does
// O(local indices · log) host work to find owners and remove duplicates.
// It is collective.
func TakeFlat[T backend.Numeric, I Integer](a *Array[T], indices *Array[I]) (_ *Array[T], err error) {
	const op = "TakeFlat"
	if a.freed || indices.freed {
		return nil, freedCollective(op, a.comm)
	}
	if indices.comm != a.comm {
		return nil, fmt.Errorf("dist: %s: the indices are on another communicator", op)
	}
	if err := check(op, a, mpi.Arg{Name: "indices", Value: indices.layout.hash(), Text: indices.layout.String()}); err != nil {
		return nil, err
	}
	n := a.Len()
	idx, err := hostIndices(indices.local, n, func(v string) error {
		return fmt.Errorf("dist: %s: index %s is out of bounds for size %d", op, v, n)
	})
	if err := mpi.Agree(a.comm, err); err != nil {
		return nil, err
	}
	out, err := newOn[T](a.comm, indices.layout, a.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	return out, gatherFlat(a, idx, out.local, "dist.TakeFlat")
}

// hostIndices returns the indices of block on the host as ints in [0, n),
// negative ones counted from the end, or the error oob makes of the first
// out of range.
func hostIndices[I Integer](block *backend.Array[I], n int, oob func(v string) error) ([]int, error) {
	h, err := blockToHost(block)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(h))
	for j, v := range h {
		i := int64(v)
		if v > 0 && i < 0 { // an unsigned index beyond int64
			return nil, oob(fmt.Sprint(v))
		}
		if i < 0 {
			i += int64(n)
		}
		if i < 0 || i >= int64(n) {
			return nil, oob(fmt.Sprint(v))
		}
		idx[j] = int(i)
	}
	return idx, nil
}

// gatherFlat sets dst[j] to the element of the flattened a at idx[j]
// (each in [0, a.Len())), dst on a's device: requests to the owners and
// their replies, in three all-to-alls (none for a replicated a). It is
// collective.
func gatherFlat[T backend.Numeric](a *Array[T], idx []int, dst *backend.Array[T], desc string) error {
	l := a.layout
	p := a.comm.Size()
	shape := l.shape
	if l.axis == Replicated {
		return exchanged(localTake(dst, a.local, idx, desc))
	}
	// The owner of every index and its offset in the owner's block.
	boxes := make([][2][]int, p)
	for q := range boxes {
		boxes[q][0], boxes[q][1] = l.box(q)
	}
	owner := make([]int, len(idx))
	key := make([]int64, len(idx))
	mi := make([]int, len(shape))
	for j, v := range idx {
		if l.axis == 0 {
			owner[j] = l.Owner(v / max(1, prod(shape[1:])))
			key[j] = int64(v - l.starts[owner[j]]*prod(shape[1:]))
			continue
		}
		unravel(v, shape, mi)
		q := l.OwnerOf(mi)
		st, sh := boxes[q][0], boxes[q][1]
		off := 0
		for d := range mi {
			off = off*sh[d] + mi[d] - st[d]
		}
		owner[j], key[j] = q, int64(off)
	}
	reqs, pos := dedupe(owner, key, p)
	replyLen := make([]int, p)
	for q := range reqs {
		replyLen[q] = len(reqs[q])
	}
	recv, rdispls, err := fetch(a, reqs, replyLen, func(r int, k int64, pos []int) []int { return append(pos, int(k)) })
	if err != nil {
		return err
	}
	defer recv.Free()
	for j := range pos {
		pos[j] += rdispls[owner[j]]
	}
	return exchanged(localTake(dst, recv, pos, desc))
}

// dedupe returns, per rank q, the distinct keys asked of q in ascending
// order, and for every request j the position of its key in its rank's
// list.
func dedupe(owner []int, key []int64, p int) (reqs [][]int64, pos []int) {
	order := make([]int, len(key))
	for j := range order {
		order[j] = j
	}
	slices.SortFunc(order, func(i, j int) int {
		if owner[i] != owner[j] {
			return owner[i] - owner[j]
		}
		switch {
		case key[i] < key[j]:
			return -1
		case key[i] > key[j]:
			return 1
		}
		return 0
	})
	reqs = make([][]int64, p)
	pos = make([]int, len(key))
	for _, j := range order {
		q := owner[j]
		if n := len(reqs[q]); n == 0 || reqs[q][n-1] != key[j] {
			reqs[q] = append(reqs[q], key[j])
		}
		pos[j] = len(reqs[q]) - 1
	}
	return reqs, pos
}

// fetch sends every rank q the keys reqs[q] (an all-to-all of the counts,
// one of the keys) and answers the keys it receives from each rank r with
// the elements of its block of a at expand(r, key) (appended to pos, in
// order), in one all-to-all through package staging. replyLen[q] is the
// number of elements q's answer has, which the asking rank knows. It
// returns the answers, a new array on a's backend, and the offset of each
// rank's answer in it. It is collective.
func fetch[T backend.Numeric](a *Array[T], reqs [][]int64, replyLen []int, expand func(r int, key int64, pos []int) []int) (_ *backend.Array[T], rdispls []int, err error) {
	c := a.comm
	p := c.Size()
	b := a.local.Backend()
	if p == 1 {
		// This rank's own block: no MPI, no staging.
		var pos []int
		for _, k := range reqs[0] {
			pos = expand(0, k, pos)
		}
		recv, err := backend.NewOn[T](b, len(pos))
		if err != nil {
			return nil, nil, err
		}
		if err := localTake(recv, a.local, pos, "dist.Take"); err != nil {
			recv.Free()
			return nil, nil, err
		}
		return recv, []int{0}, nil
	}
	sc := make([]int64, p)
	for q := range reqs {
		sc[q] = int64(len(reqs[q]))
	}
	rc := make([]int64, p)
	if err := mpi.Alltoall(c, sc, rc); err != nil {
		return nil, nil, err
	}
	scounts, rcounts := make([]int, p), make([]int, p)
	var flat []int64
	for q := range reqs {
		scounts[q] = len(reqs[q])
		flat = append(flat, reqs[q]...)
		rcounts[q] = int(rc[q])
	}
	asked := make([]int64, sum(rcounts))
	if err := mpi.Alltoallv(c, flat, scounts, displs(scounts), asked, rcounts, displs(rcounts)); err != nil {
		return nil, nil, err
	}
	// The answers: positions in this rank's block, per asking rank.
	var pos []int
	acounts := make([]int, p)
	off := 0
	for r := 0; r < p; r++ {
		begin := len(pos)
		for _, k := range asked[off : off+rcounts[r]] {
			pos = expand(r, k, pos)
		}
		off += rcounts[r]
		acounts[r] = len(pos) - begin
	}
	send, err := backend.NewOn[T](b, len(pos))
	var recv *backend.Array[T]
	if err == nil {
		if derr := localStep(func() { err = localTake(send, a.local, pos, "dist.Take pack") }); derr != nil {
			err = derr
		}
		if err == nil {
			recv, err = backend.NewOn[T](b, sum(replyLen))
		}
	}
	// A device fault of the packing, the one a synchronization of the
	// device takes before its memory goes to MPI, or one recorded earlier
	// fails the call on every rank (mpi.Agree keeps its kind).
	if err == nil {
		err = deviceSync(send)
	}
	if err := mpi.Agree(c, takeFault(err)); err != nil {
		if send != nil {
			send.Free()
		}
		if recv != nil {
			recv.Free()
		}
		return nil, nil, err
	}
	defer send.Free()
	rdispls = displs(replyLen)
	if err := exchanged(staging.Alltoallv(c, send, acounts, displs(acounts), recv, replyLen, rdispls)); err != nil {
		recv.Free()
		return nil, nil, err
	}
	return recv, rdispls, nil
}

// Take returns the elements of a at the given indices along axis, as
// NumPy's take(a, indices, axis): the result's shape is a's with the axis
// replaced by the indices' shape, and its element [i..., j..., k...] is
// a[i..., indices[j...], k...]. A negative index counts from the end; an
// index out of range of the axis is an error that names it (NumPy's mode
// "raise"), returned on every rank; a negative axis counts from the end.
// a and indices may have any layouts and must share a communicator; the
// result lives on a's backend, without ghost layers.
//
// The result's layout: where the indices are split (along one axis or
// over a process grid), the result is split as they are, along their axes
// in the result, the other axes whole, so that each rank's result block is
// the slabs a[..., v, ...] of its own indices v. Where they are
// replicated, the result is laid out as a (replicated, or a's blocks
// along a's other axes), with the indices' first axis split as a's axis
// was. A replicated a, and replicated indices with a not split along
// axis, need no communication.
//
// Otherwise no array is gathered: each rank sends the ranks that hold
// the slabs it needs the distinct indices it needs from each (an
// all-to-all of the counts, one of the requests, 8 bytes per distinct
// index and holding rank), and each answers with its part of those slabs,
// gathered on its device, in a third all-to-all (through package staging
// for device blocks): the data moved is the result, once. Each rank
// copies its block of indices to the host (recorded for a device block)
// and does O(result block + local indices · log) host work. It is
// collective.
func Take[T backend.Numeric, I Integer](a *Array[T], indices *Array[I], axis int) (_ *Array[T], err error) {
	const op = "Take"
	if a.freed || indices.freed {
		return nil, freedCollective(op, a.comm)
	}
	if indices.comm != a.comm {
		return nil, fmt.Errorf("dist: %s: the indices are on another communicator", op)
	}
	shape := a.layout.shape
	ax, err := axisArg(op, axis, len(shape))
	if err != nil {
		return nil, err
	}
	if err := check(op, a, mpi.Arg{Name: "axis", Value: int64(ax)}, mpi.Arg{Name: "indices", Value: indices.layout.hash(), Text: indices.layout.String()}); err != nil {
		return nil, err
	}
	il := indices.layout
	ki := len(il.shape)
	oshape := append(append(slices.Clone(shape[:ax]), il.shape...), shape[ax+1:]...)
	if _, err := ShapeLen(oshape); err != nil {
		return nil, fmt.Errorf("dist: %s: %w", op, err)
	}
	l := takeLayout(a.layout, il, ax, oshape)
	me, p := a.comm.Rank(), a.comm.Size()

	// This rank's result block: pre × indices × post.
	ost, osh := l.box(me)
	tst, tsh := ost[ax:ax+ki], osh[ax:ax+ki]
	nt := prod(tsh)
	// The index values of the block's indices.
	n := shape[ax]
	oob := func(v string) error {
		return fmt.Errorf("dist: %s: index %s is out of bounds for axis %d with size %d", op, v, ax, n)
	}
	var vals []int
	if il.axis == Replicated {
		all, err2 := hostIndices(indices.local, n, oob)
		if err2 == nil && nt > 0 {
			lo := ravel(tst, il.shape)
			vals = all[lo : lo+nt] // the indices' first axis is split: a contiguous range
		}
		err = err2
	} else {
		vals, err = hostIndices(indices.local, n, oob)
	}
	if err := mpi.Agree(a.comm, err); err != nil {
		return nil, err
	}
	out, err := newOn[T](a.comm, l, a.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	// The box of the other axes (pre and post) that this rank's block has.
	pst := append(slices.Clone(ost[:ax]), ost[ax+ki:]...)
	psh := append(slices.Clone(osh[:ax]), osh[ax+ki:]...)
	nd := len(shape)
	other := func(v []int) []int { return append(slices.Clone(v[:ax]), v[ax+1:]...) }
	npost := prod(psh[ax:])
	// Without communication: a replicated a, or replicated indices and a
	// whole along axis on every rank.
	local := a.layout.axis == Replicated || (il.axis == Replicated && !a.layout.isGrid() && a.layout.axis != ax) ||
		(il.axis == Replicated && a.layout.isGrid() && a.layout.grid[ax] == 1)
	if local {
		ast, ash := a.layout.box(me)
		pos := make([]int, out.local.Len())
		bi := make([]int, nd) // an index of a's block
		u := make([]int, len(psh))
		for o := range pos {
			// o = (preOff * nt + t) * npost + postOff
			postOff := o % max(npost, 1)
			t := (o / max(npost, 1)) % max(nt, 1)
			preOff := o / max(npost, 1) / max(nt, 1)
			unravel(preOff*max(npost, 1)+postOff, psh, u)
			for d := 0; d < nd; d++ {
				switch {
				case d < ax:
					bi[d] = pst[d] + u[d] - ast[d]
				case d == ax:
					bi[d] = vals[t] - ast[d]
				default:
					bi[d] = pst[d-1] + u[d-1] - ast[d]
				}
			}
			pos[o] = ravel(bi, ash)
		}
		return out, exchanged(localTake(out.local, a.local, pos, "dist.Take"))
	}

	// The distinct indices of the block, and each one's rank in them.
	uniq := slices.Clone(vals)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	// What each rank q holds of the slabs: its box along the other axes
	// met with this rank's, and its range along axis.
	reqs := make([][]int64, p)
	replyLen := make([]int, p)
	type src struct {
		st, sh []int // the part of the other axes, a box of them
		lo, hi int   // its range along axis
		first  int   // its first index in uniq
	}
	srcs := make([]src, p)
	for q := 0; q < p; q++ {
		qst, qsh := a.layout.box(q)
		st, sh, empty := intersect(other(qst), other(qsh), pst, psh)
		if empty || qsh[ax] == 0 || nt == 0 {
			continue
		}
		lo, hi := qst[ax], qst[ax]+qsh[ax]
		i, _ := slices.BinarySearch(uniq, lo)
		j, _ := slices.BinarySearch(uniq, hi)
		for _, v := range uniq[i:j] {
			reqs[q] = append(reqs[q], int64(v-lo))
		}
		replyLen[q] = (j - i) * prod(sh)
		srcs[q] = src{st, sh, lo, hi, i}
	}
	// The answer to a rank r's index k: this rank's part of r's box of the
	// other axes, at k along axis.
	myst, mysh := a.layout.box(me)
	expand := func(r int, k int64, pos []int) []int {
		rst, rsh := l.box(r)
		rp := append(slices.Clone(rst[:ax]), rst[ax+ki:]...)
		rs := append(slices.Clone(rsh[:ax]), rsh[ax+ki:]...)
		st, sh, empty := intersect(other(myst), other(mysh), rp, rs)
		if empty {
			return pos
		}
		full := insertAxes(st, ax, 1, int(k)+myst[ax])
		fsh := insertAxes(sh, ax, 1, 1)
		boxRuns(myst, mysh, full, fsh, func(blockOff, _, n int) {
			for i := 0; i < n; i++ {
				pos = append(pos, blockOff+i)
			}
		})
		return pos
	}
	recv, rdispls, err := fetch(a, reqs, replyLen, expand)
	if err != nil {
		return nil, err
	}
	defer recv.Free()
	// Where each element of the result block comes from in the answers.
	pos := make([]int, out.local.Len())
	u := make([]int, len(psh))
	e := make([]int, len(psh))
	for q := 0; q < p; q++ {
		s := srcs[q]
		if replyLen[q] == 0 {
			continue
		}
		m := prod(s.sh)
		for t, v := range vals {
			if v < s.lo || v >= s.hi {
				continue
			}
			iv, _ := slices.BinarySearch(uniq, v)
			base := rdispls[q] + (iv-s.first)*m
			for k := 0; k < m; k++ {
				unravel(k, s.sh, e)
				for d := range u {
					u[d] = s.st[d] + e[d] - pst[d]
				}
				po := ravel(u, psh) // (preOff, postOff) of the other axes
				preOff, postOff := po/max(npost, 1), po%max(npost, 1)
				pos[(preOff*nt+t)*npost+postOff] = base + k
			}
		}
	}
	return out, exchanged(localTake(out.local, recv, pos, "dist.Take"))
}

// takeLayout returns the layout of Take's result of shape oshape along
// axis ax of an array of layout al, by indices of layout il.
func takeLayout(al, il Layout, ax int, oshape []int) Layout {
	ki := len(il.shape)
	p := al.ranks
	ins := func(pre, ind, post [][]int) [][]int {
		return append(append(append([][]int{}, pre...), ind...), post...)
	}
	whole := func(s []int) [][]int {
		c := make([][]int, len(s))
		for i, n := range s {
			c[i] = []int{n}
		}
		return c
	}
	shape := al.shape
	if il.axis != Replicated {
		// Split as the indices are, the other axes whole.
		if !il.isGrid() {
			return NewLayoutCounts(oshape, ax+il.axis, il.counts)
		}
		return NewGridLayoutCounts(oshape, ins(whole(shape[:ax]), il.gcounts, whole(shape[ax+1:])))
	}
	if al.axis == Replicated {
		return NewLayout(oshape, Replicated, p)
	}
	if !al.isGrid() {
		switch {
		case al.axis < ax:
			return NewLayoutCounts(oshape, al.axis, al.counts)
		case al.axis > ax:
			return NewLayoutCounts(oshape, al.axis+ki-1, al.counts)
		}
		return NewLayout(oshape, ax, p)
	}
	ind := whole(il.shape)
	ind[0] = evenCounts(il.shape[0], al.grid[ax])
	return NewGridLayoutCounts(oshape, ins(al.gcounts[:ax], ind, al.gcounts[ax+1:]))
}
