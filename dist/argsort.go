package dist

import (
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Argsort returns the indices that sort x along axis, as NumPy's
// argsort(x, axis, kind="stable"): an int64 array of x's shape and layout
// (without ghost layers) whose lines along axis hold, for each position of
// the sorted line, the index along axis of the element of x that goes
// there. Pass axis -1 for NumPy's default, the last axis; negative axes
// count from the end. The order is NumPy's: ascending, NaNs last, equal
// elements (and all NaNs, and -0 with +0) in the order of their indices.
// It is collective.
//
// Where every rank holds whole lines along axis (x split along another
// axis, or replicated) each rank sorts its own lines, without
// communication. Otherwise, for an N-D x (split along axis, or on a
// process grid), x is redistributed (one all-to-all of its elements) to
// the even layout split along another axis (the longest, or for a grid the
// one with the most grid ranks), each rank sorts its lines, and the
// indices are redistributed back to x's layout (one all-to-all). A 1-D x is
// sorted by the distributed sample sort of SortWithIndex (all-to-alls of
// about n/p keys and indices per rank), in its own order with the NaNs
// first; one all-to-all of (position, index) pairs then moves the NaNs to
// the end and the indices to x's blocks. It panics for an axis out of range.
func Argsort[T backend.Element](x *Array[T], axis int) (_ *Array[int64], err error) {
	if x.freed {
		return nil, freedCollective("Argsort", x.comm)
	}
	l := x.layout
	axis = normAxis("Argsort", axis, l.shape)
	if err := check("Argsort", x, mpi.Arg{Name: "axis", Value: int64(axis)}); err != nil {
		return nil, err
	}
	b := x.local.Backend()
	if len(l.shape) == 1 && l.axis != Replicated {
		return argsort1D(x)
	}
	work := lineLayout(l, axis)
	xw := x
	if !work.Equal(l) {
		if xw, err = Redistribute(x, work); err != nil {
			return nil, err
		}
		defer xw.Free()
	}
	block, err := hostCopy(xw.local)
	if err := agreeStep(x.comm, "Argsort", err); err != nil {
		return nil, err
	}
	idx := make([]int64, len(block))
	perm := []int64{}
	alongLines(work.LocalShape(x.comm.Rank()), axis, func(_, base, stride, m int) {
		perm = perm[:0]
		for j := range m {
			perm = append(perm, int64(j))
		}
		slices.SortStableFunc(perm, func(a, c int64) int {
			return npCompare(block[base+int(a)*stride], block[base+int(c)*stride])
		})
		for j, v := range perm {
			idx[base+j*stride] = v
		}
	})
	res, err := fromHost(x.comm, work, b, idx)
	if err != nil || work.Equal(l) {
		return res, err
	}
	defer res.Free()
	return Redistribute(res, l)
}

// argsort1D is Argsort of a 1-D x split along its axis: the sample sort's
// permutation (sortNaNFirst), with the NaNs moved to the end, in x's
// blocks.
func argsort1D[T backend.Element](x *Array[T]) (*Array[int64], error) {
	c, l := x.comm, x.layout
	n := l.Len()
	sr, err := sortNaNFirst(x, SortOptions{WithIndex: true})
	if err != nil {
		return nil, err
	}
	defer sr.free()
	// A failure of the copies goes in the allreduce of the NaN counts.
	s, err := hostCopy(sr.Sorted.local)
	var perm []int64
	if err == nil {
		perm, err = hostCopy(sr.Index.local)
	}
	var myNaN int64
	for _, v := range s {
		if isNaN(v) {
			myNaN++
		}
	}
	nan, err := allreduceCount(c, "Argsort", myNaN, takeFault(err))
	if err != nil {
		return nil, err
	}
	// Position g of the sorted order goes to (g - nan) mod n.
	lo, _ := sr.Sorted.layout.Range(c.Rank())
	starts := prefix(l.counts)
	dest := make([]int, len(perm))
	pairs := make([]int64, 0, 2*len(perm))
	for i, v := range perm {
		g := (int64(lo+i) - nan + int64(n)) % int64(n)
		dest[i] = ownerOf(starts, int(g))
		pairs = append(pairs, g, v)
	}
	rp, _, err := route(c, dest, pairs, 2)
	if err != nil {
		return nil, err
	}
	mine := make([]int64, x.local.Len())
	myLo := starts[c.Rank()]
	for k := 0; k < len(rp); k += 2 {
		mine[int(rp[k])-myLo] = rp[k+1]
	}
	return fromHost(c, l, x.local.Backend(), mine)
}
