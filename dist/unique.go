package dist

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// UniqueOptions configures UniqueWithOptions. The zero value asks for the
// distinct values only. Every rank must pass the same options.
type UniqueOptions struct {
	// Counts asks for the number of times each distinct value occurs
	// (NumPy's return_counts).
	Counts bool
	// Inverse asks for the index in the distinct values of every element
	// of the input (NumPy's return_inverse): x == values[inverse].
	Inverse bool
}

// UniqueResult is what UniqueWithOptions returns.
type UniqueResult[T backend.Element] struct {
	// Values holds the distinct values of the input in ascending order, a
	// 1-D array with the even block layout of NewLayout([]int{m}, 0, p)
	// (replicated if the input is).
	Values *Array[T]
	// Counts, if asked for, holds the number of occurrences of each value,
	// with Values' layout; nil otherwise.
	Counts *Array[int64]
	// Inverse, if asked for, holds for every element of the input the index
	// of its value in Values, with the input's shape and layout (without
	// ghost layers); nil otherwise.
	Inverse *Array[int64]
}

// Free frees the result's arrays. It is not collective.
func (r UniqueResult[T]) Free() {
	if r.Values != nil {
		r.Values.Free()
	}
	if r.Counts != nil {
		r.Counts.Free()
	}
	if r.Inverse != nil {
		r.Inverse.Free()
	}
}

// Unique returns the sorted distinct values of x, of any shape and layout,
// flattened, as NumPy's unique: a 1-D array with the even block layout
// (see UniqueWithOptions). It is collective.
func Unique[T backend.Element](x *Array[T]) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("Unique", x.comm)
	}
	r, err := UniqueWithOptions(x, UniqueOptions{})
	return r.Values, err
}

// UniqueWithOptions returns the sorted distinct values of x (of any shape
// and layout, flattened) and, if asked for, their counts and the inverse
// index, as NumPy's unique (version 1.21 and later): NaNs count as one
// value, placed last, whose count is the number of NaNs; -0 and +0 are one
// value. It is collective.
//
// The values are found without gathering x: the elements are sorted by the
// distributed sample sort of SortWithOptions (its all-to-alls move each
// rank's block, about n/p elements, once, and its indices too if the
// inverse is asked for), and each rank then finds the first element of
// every run of equal values in its sorted block (the last element of the
// previous rank, from an all-gather of p values, decides the first). Two
// all-gathers of p counts number the distinct values; one all-to-all moves
// them (at most a block each) to the even layout of the result, and, for
// the inverse, one all-to-all of (position, index) pairs sends each
// element's index back to the rank and place that holds it in x (about 2n/p
// integers per rank). A replicated x is handled on every rank without
// communication and gives replicated results.
func UniqueWithOptions[T backend.Element](x *Array[T], o UniqueOptions) (_ UniqueResult[T], err error) {
	if x.freed {
		return UniqueResult[T]{}, freedCollective("UniqueWithOptions", x.comm)
	}
	if err := check("Unique", x, mpi.Arg{Name: "counts", Value: b2i(o.Counts)}, mpi.Arg{Name: "inverse", Value: b2i(o.Inverse)}); err != nil {
		return UniqueResult[T]{}, err
	}
	c, l := x.comm, x.layout
	n := l.Len()
	b := x.local.Backend()

	// The flattened array: each rank's block, in block order, as a 1-D
	// array with the blocks' lengths (its global indices are not x's flat
	// indices on every layout, but the inverse goes back by them to the
	// same places). A replicated x is sorted on one rank of its own, by
	// the serial stand-in of MPI, on every rank.
	cc := c
	var flat Layout
	if l.axis == Replicated {
		cc = mpi.NewSerial()
		flat = NewLayout([]int{n}, 0, 1)
	} else {
		flat = NewLayoutCounts([]int{n}, 0, localLens(l))
	}
	fx := &Array[T]{comm: cc, layout: flat, local: x.local}
	sr, err := sortNaNFirst(fx, SortOptions{WithIndex: o.Inverse})
	if err != nil {
		return UniqueResult[T]{}, err
	}
	defer sr.free()
	// A failure of the copies goes in the allreduce of the NaN counts.
	s, cerr := hostCopy(sr.Sorted.local)
	var perm []int64
	if o.Inverse && cerr == nil {
		perm, cerr = hostCopy(sr.Index.local)
	}
	if l.axis != Replicated {
		cerr = takeFault(cerr)
	}
	p, me := cc.Size(), cc.Rank()
	lo, _ := sr.Sorted.layout.Range(me)

	// The sort puts the NaNs first: positions [0, nan).
	var myNaN int64
	for _, v := range s {
		if isNaN(v) {
			myNaN++
		}
	}
	nan, err := allreduceCount(cc, "Unique", myNaN, cerr)
	if err != nil {
		return UniqueResult[T]{}, err
	}

	// The last element of every rank's block decides whether the first
	// element of the next one starts a run.
	lasts, lens := make([]T, p), make([]int64, p)
	var last T
	if len(s) > 0 {
		last = s[len(s)-1]
	}
	if err := mpi.Allgather(cc, []T{last}, lasts); err != nil {
		return UniqueResult[T]{}, err
	}
	if err := mpi.Allgather(cc, []int64{int64(len(s))}, lens); err != nil {
		return UniqueResult[T]{}, err
	}
	var prev T
	havePrev := false
	for r := me - 1; r >= 0; r-- {
		if lens[r] > 0 {
			prev, havePrev = lasts[r], true
			break
		}
	}
	// starts: the local positions of the first elements of the runs of
	// numbers (not NaN).
	var starts []int
	for i, v := range s {
		g := int64(lo + i)
		if g < nan {
			continue
		}
		if g == nan || !havePrev || v != prev {
			starts = append(starts, i)
		}
		prev, havePrev = v, true
	}
	// Number the runs: each rank's first run's number, and where the first
	// run of the ranks after it starts (for the counts).
	info := []int64{int64(len(starts)), int64(n)}
	if len(starts) > 0 {
		info[1] = int64(lo + starts[0])
	}
	all := make([]int64, 2*p)
	if err := mpi.Allgather(cc, info, all); err != nil {
		return UniqueResult[T]{}, err
	}
	first, distinct := int64(0), int64(0)
	for r := range p {
		if r == me {
			first = distinct
		}
		distinct += all[2*r]
	}
	nextStart := int64(n) // the first run of the ranks after me
	for r := me + 1; r < p; r++ {
		if all[2*r] > 0 {
			nextStart = all[2*r+1]
			break
		}
	}
	m := int(distinct)
	if nan > 0 {
		m++
	}

	// The distinct values and their counts, to the even layout of m.
	out := NewLayout([]int{m}, 0, p)
	outStarts := prefix(localLens(out))
	var dest []int
	var vals []T
	var cnts []int64 // (number, count) pairs
	for j, i := range starts {
		id := first + int64(j)
		end := nextStart
		if j+1 < len(starts) {
			end = int64(lo + starts[j+1])
		}
		dest = append(dest, ownerOf(outStarts, int(id)))
		vals = append(vals, s[i])
		cnts = append(cnts, id, end-int64(lo+i))
	}
	if nan > 0 && lo == 0 && len(s) > 0 {
		dest = append(dest, ownerOf(outStarts, m-1))
		vals = append(vals, s[0])
		cnts = append(cnts, int64(m-1), nan)
	}
	rv, _, err := route(cc, dest, vals, 1)
	if err != nil {
		return UniqueResult[T]{}, err
	}
	rc, _, err := route(cc, dest, cnts, 2)
	if err != nil {
		return UniqueResult[T]{}, err
	}
	myLo := outStarts[me]
	values := make([]T, outStarts[me+1]-myLo)
	counts := make([]int64, len(values))
	for k := range rv {
		at := int(rc[2*k]) - myLo
		values[at], counts[at] = rv[k], rc[2*k+1]
	}

	// The inverse: each sorted element's number, back to its place in x.
	var inverse []int64
	if o.Inverse {
		fStarts := prefix(localLens(flat))
		dest = dest[:0]
		pairs := make([]int64, 0, 2*len(s))
		run, id := 0, first-1
		for i := range s {
			g := int64(lo + i)
			num := int64(m - 1) // a NaN
			if g >= nan {
				if run < len(starts) && starts[run] == i {
					id++
					run++
				}
				num = id
			}
			dest = append(dest, ownerOf(fStarts, int(perm[i])))
			pairs = append(pairs, perm[i], num)
		}
		rp, _, err := route(cc, dest, pairs, 2)
		if err != nil {
			return UniqueResult[T]{}, err
		}
		inverse = make([]int64, x.local.Len())
		for k := 0; k < len(rp); k += 2 {
			inverse[int(rp[k])-fStarts[me]] = rp[k+1]
		}
	}

	// The results, on x's communicator and backend.
	if l.axis == Replicated {
		out = NewLayout([]int{m}, Replicated, c.Size())
	}
	var res UniqueResult[T]
	defer func() {
		if err != nil {
			res.Free()
		}
	}()
	if res.Values, err = fromHost(c, out, b, values); err != nil {
		return UniqueResult[T]{}, err
	}
	if o.Counts {
		if res.Counts, err = fromHost(c, out, b, counts); err != nil {
			return UniqueResult[T]{}, err
		}
	}
	if o.Inverse {
		if res.Inverse, err = fromHost(c, l, b, inverse); err != nil {
			return UniqueResult[T]{}, err
		}
	}
	return res, nil
}
