package dist

import (
	"fmt"
	"slices"
	"sort"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Helpers of the order operations (Unique, Argsort, Searchsorted, Median,
// Percentile, Quantile).
//
// These operations compute on host copies of the blocks: a block on a
// device is copied to the host (backend.CopyToHostSlice, recorded as a
// transfer) and the results are copied back to the device of the input
// (recorded too), as sortArray does for a backend that cannot sort. The
// backends have no kernels for the merges, searches and selections these
// need.

// isNaN reports whether v is a NaN (never for an integer type).
func isNaN[T backend.Element](v T) bool { return v != v }

// npCompare orders as NumPy's sort does: ascending, NaNs last and equal to
// each other, -0 equal to +0.
func npCompare[T backend.Element](a, b T) int {
	switch an, bn := isNaN(a), isNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// hostCopy returns a new host slice with a's elements, copied from its
// device (a recorded transfer) if it lives on one.
//
// It waits for a's device even for an empty a, so that the fault a device
// kept is reported here (the callers agree on it with the other ranks).
func hostCopy[T backend.Numeric](a *backend.Array[T]) ([]T, error) {
	h := make([]T, a.Len())
	if len(h) == 0 {
		return h, deviceSync(a)
	}
	if err := backend.CopyToHostSlice(h, a); err != nil {
		return nil, err
	}
	return h, nil
}

// fromHost returns a new array of layout l on c and backend b whose block
// is data (copied to the device, a recorded transfer, if b has one). It is
// collective (the allocation is agreed on).
func fromHost[U backend.Numeric](c mpi.Comm, l Layout, b backend.Backend, data []U) (*Array[U], error) {
	out, err := newOn[U](c, l, b)
	if err != nil {
		return nil, err
	}
	if len(data) != out.local.Len() {
		out.Free()
		panic(fmt.Sprintf("dist: internal: block of %d elements for a layout block of %d", len(data), out.local.Len()))
	}
	if len(data) == 0 {
		return out, nil
	}
	if err := backend.CopyFromHostSlice(out.local, data); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// route sends item i of items to rank dest[i] and returns the items this
// rank received, in the order of the sending ranks (and, from one rank, in
// the order it sent them), with how many came from each rank. Every rank
// calls it: one all-to-all of counts and one of the items (w elements of
// items per item).
func route[U mpi.Number](c mpi.Comm, dest []int, items []U, w int) (recv []U, from []int, err error) {
	p := c.Size()
	sc := make([]int64, p)
	for _, r := range dest {
		sc[r]++
	}
	// Pack by destination, keeping the order within one.
	sdispls := make([]int, p)
	for r := 1; r < p; r++ {
		sdispls[r] = sdispls[r-1] + int(sc[r-1])*w
	}
	packed := make([]U, len(items))
	next := slices.Clone(sdispls)
	for i, r := range dest {
		copy(packed[next[r]:next[r]+w], items[i*w:(i+1)*w])
		next[r] += w
	}
	rc := make([]int64, p)
	if err := mpi.Alltoall(c, sc, rc); err != nil {
		return nil, nil, err
	}
	scounts, rcounts, rdispls := make([]int, p), make([]int, p), make([]int, p)
	from = make([]int, p)
	m := 0
	for r := range p {
		scounts[r] = int(sc[r]) * w
		rcounts[r], rdispls[r], from[r] = int(rc[r])*w, m, int(rc[r])
		m += rcounts[r]
	}
	recv = make([]U, m)
	if err := mpi.Alltoallv(c, packed, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, nil, err
	}
	return recv, from, nil
}

// routeBack returns to every rank the replies to the items it sent with
// route: reply[i] answers the i-th item received (w elements each), and
// the result answers dest's items in their order.
func routeBack[U mpi.Number](c mpi.Comm, dest []int, from []int, reply []U, w int) ([]U, error) {
	p := c.Size()
	scounts, sdispls := make([]int, p), make([]int, p)
	m := 0
	for r := range p {
		scounts[r], sdispls[r] = from[r]*w, m
		m += scounts[r]
	}
	rcounts, rdispls := make([]int, p), make([]int, p)
	for _, r := range dest {
		rcounts[r] += w
	}
	for r := 1; r < p; r++ {
		rdispls[r] = rdispls[r-1] + rcounts[r-1]
	}
	packed := make([]U, len(dest)*w)
	if err := mpi.Alltoallv(c, reply, scounts, sdispls, packed, rcounts, rdispls); err != nil {
		return nil, err
	}
	out := make([]U, len(dest)*w)
	next := slices.Clone(rdispls)
	for i, r := range dest {
		copy(out[i*w:(i+1)*w], packed[next[r]:next[r]+w])
		next[r] += w
	}
	return out, nil
}

// ownerOf returns the rank whose range [starts[r], starts[r+1]) holds
// position i (the last such rank of equal starts is never chosen for an
// empty range).
func ownerOf(starts []int, i int) int {
	// The first r with starts[r+1] > i.
	return sort.Search(len(starts)-1, func(r int) bool { return starts[r+1] > i })
}

// prefix returns the starts of ranges of the given lengths: p+1 values.
func prefix(counts []int) []int {
	s := make([]int, len(counts)+1)
	for r, c := range counts {
		s[r+1] = s[r] + c
	}
	return s
}

// localLens returns the number of elements of every rank's block of l.
func localLens(l Layout) []int {
	n := make([]int, l.ranks)
	for r := range n {
		n[r] = l.LocalLen(r)
	}
	return n
}

// lineLayout returns the layout in which every rank's block holds whole
// lines along axis, for an array of layout l (not replicated): l itself if
// it is split along another axis, and otherwise (split along axis, or a
// process grid) the even layout split along the other axis with the most
// grid ranks (a grid) or the longest (a split), the first of equals. A 1-D
// layout has no such layout: the caller handles it.
func lineLayout(l Layout, axis int) Layout {
	if l.axis == Replicated || (l.axis >= 0 && l.axis != axis) {
		return l
	}
	if l.isGrid() {
		return NewLayout(l.shape, l.offGridAxis(axis), l.ranks)
	}
	best := -1
	for a, d := range l.shape {
		if a != axis && (best < 0 || d > l.shape[best]) {
			best = a
		}
	}
	return NewLayout(l.shape, best, l.ranks)
}

// alongLines calls f for every line along axis of a block of shape, with
// the offsets of its elements in the row-major block: the line's elements
// are at base, base+stride, ... (m of them).
func alongLines(shape []int, axis int, f func(line, base, stride, m int)) {
	pre, m, post := view3(shape, axis)
	line := 0
	for i := range pre {
		for k := range post {
			f(line, i*m*post+k, post, m)
			line++
		}
	}
}
