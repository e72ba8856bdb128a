package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// Distributed sort.
//
// Sort, SortWithIndex and SortWithOptions sort a 1-D array with a sample
// sort:
//
//  1. every rank sorts its block (algorithms.SortByKey, an LSD radix sort
//     for long blocks, or, when no permutation is asked for, the keys
//     alone, with the same result: on the host straight from x's block
//     into the result's or the send buffer, algorithms.SortKeysTo);
//  2. every rank takes evenly spaced samples of its sorted block, as many as
//     its share of the elements asks for; the samples are gathered on every
//     rank and sorted, and p-1 evenly spaced samples become the splitters;
//  3. every rank cuts its sorted block at the splitters and sends piece r to
//     rank r (one all-to-all of counts, one of keys, and one of indices if
//     they were asked for);
//  4. every rank merges the p sorted pieces it received;
//  5. a last all-to-all moves the merged pieces, which differ in length, to
//     the even block layout of NewLayout([]int{n}, 0, p).
//
// Elements are ordered by (key, global index): keys in the order of
// cmp.Compare (for floats, NaNs first, all equal to each other, then -Inf
// ... +Inf, with -0 equal to +0), and equal keys by their index in the
// input. That is the order of the steps above (backend.Sorter's); the
// exported sorts then move the NaNs to the end (nanLast), which gives
// NumPy's order: -Inf ... +Inf, then the NaNs in the order of their
// indices. The sort is therefore stable, the permutation is unique, and the
// result is the same at any number of ranks and with any input block
// sizes. Splitters are (key, index) pairs too, so that many equal keys, or
// all keys equal, are still divided evenly among the ranks.

// SortOptions configures SortWithOptions. The zero value asks for the
// sorted array only, with the default sampling. Every rank must pass the
// same options.
type SortOptions struct {
	// WithIndex asks for the permutation's global indices in
	// SortResult.Index.
	WithIndex bool
	// Oversampling is the number of samples per splitter per rank: the
	// ranks take about Oversampling*p*(p-1) samples in all, spread over the
	// ranks in proportion to their block sizes. More samples cost a larger
	// all-gather and give pieces of more even sizes in step 3, whose
	// imbalance is at most about 2p^2/(number of samples) of the mean. Zero
	// means 128, or fewer from about 90 ranks on, where the default sample
	// is limited to 2^20 elements.
	Oversampling int
}

// SortResult is what SortWithOptions returns.
type SortResult[T backend.Element] struct {
	// Sorted holds x's elements in ascending order, with the even block
	// layout of NewLayout([]int{n}, 0, p) (or replicated, if x is).
	Sorted *Array[T]
	// Index holds, if SortOptions.WithIndex was set, the global index in x
	// of each element of Sorted: Sorted[i] == x[Index[i]]. It has Sorted's
	// layout; it is nil otherwise.
	Index *Array[int64]
	// Stats describes the load balance of the exchange.
	Stats SortStats
}

// SortStats describes how evenly the splitters divided the elements among
// the ranks, before the final rebalancing step moved them to the even
// layout. It is the same on every rank. For a replicated array, which
// every rank sorts whole, Received is n for every rank and MeanReceived is
// n.
type SortStats struct {
	// Received is the number of elements each rank received and merged.
	Received []int
	// MaxReceived is the largest of Received.
	MaxReceived int
	// MeanReceived is n/p, the number of elements per rank of a perfect
	// split.
	MeanReceived float64
	// Imbalance is MaxReceived/MeanReceived: 1 for a perfect split, p when
	// one rank received everything. It is 1 for an empty array.
	Imbalance float64
}

// Sort returns a new array with x's elements in ascending order (see
// SortWithOptions). x must be 1-D; it is not modified.
func Sort[T backend.Element](x *Array[T]) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("Sort", x.comm)
	}
	r, err := SortWithOptions(x, SortOptions{})
	return r.Sorted, err
}

// SortWithIndex returns x's elements in ascending order and, with the same
// layout, the global index in x of each of them: sorted[i] == x[perm[i]].
// x must be 1-D; it is not modified.
func SortWithIndex[T backend.Element](x *Array[T]) (sorted *Array[T], perm *Array[int64], err error) {
	if x.freed {
		return nil, nil, freedCollective("SortWithIndex", x.comm)
	}
	r, err := SortWithOptions(x, SortOptions{WithIndex: true})
	return r.Sorted, r.Index, err
}

// SortInto sets dst to x's elements in ascending order, as Sort orders
// them, in dst's existing blocks, and returns the load balance of the
// exchange. dst must have the layout Sort gives its result (the even block
// layout of NewLayout([]int{n}, 0, p), or x's if x is replicated) and be on
// x's communicator and device; it may be x itself, which is then sorted in
// place. The result is not allocated, so a loop of sorts into one array
// reuses that array's memory. The sort's scratch space is Sort's (on more
// than one rank, a buffer of about 1.1 times the block for the sorted
// block and the merged pieces, and one for the pieces received; on one
// rank, that of algorithms.SortKeysTo for keys on the host: a buffer of
// the block's length in place, usually only cache-sized ones out of
// place), but on the host SortInto keeps it with dst for the next
// SortInto into dst, which then allocates no scratch of the block's size
// and touches no fresh memory for it: the space kept is what one sort
// needed (about a block at one rank in place, up to two and a quarter
// blocks on more ranks), released when dst becomes unreachable. It is
// collective.
//
// It panics if x is not 1-D, or if dst does not have that layout or is on
// another communicator or device.
func SortInto[T backend.Element](dst, x *Array[T]) (SortStats, error) {
	if x.freed || dst.freed {
		return SortStats{}, freedCollective("SortInto", x.comm)
	}
	mustSortable(x)
	want := NewLayout([]int{x.layout.Len()}, 0, x.comm.Size())
	if x.layout.axis == Replicated {
		want = x.layout
	}
	if !dst.layout.Equal(want) {
		panic(fmt.Sprintf("dist: SortInto a result of %v: the sort of %v has %v", dst.layout, x.layout, want))
	}
	sameCommDevice("SortInto", dst, x)
	r, err := sortArray(x, SortOptions{}, dst)
	if err != nil {
		return SortStats{}, err
	}
	r, err = nanLast(x, r, dst)
	return r.Stats, err
}

// SortWithOptions sorts the 1-D array x by a distributed sample sort and
// returns the sorted array, the permutation if asked for, and the load
// balance of the exchange. It is collective.
//
// The order is NumPy's (numpy.sort): ascending, -0 equal to +0, and the
// NaNs last, all equal to each other; ties are broken by the global index
// in x: the sort is stable, and the result does not depend on the number
// of ranks or on x's block sizes. (Before this order, the NaNs came
// first, as in cmp.Compare; the CHANGELOG says how to get that order.) The result has the even block
// layout of NewLayout([]int{n}, 0, p), on x's backend; a replicated x is
// sorted on every rank without communication and the result is
// replicated. x may have any block sizes, empty blocks included. It panics
// if x is not 1-D.
func SortWithOptions[T backend.Element](x *Array[T], o SortOptions) (_ SortResult[T], err error) {
	if x.freed {
		return SortResult[T]{}, freedCollective("SortWithOptions", x.comm)
	}
	r, err := sortNaNFirst(x, o)
	if err != nil {
		return SortResult[T]{}, err
	}
	return nanLast(x, r, nil)
}

// sortNaNFirst is SortWithOptions in the sample sort's own order, the NaNs
// first (cmp.Compare's), for the callers that place the NaNs themselves
// (Unique, Argsort).
func sortNaNFirst[T backend.Element](x *Array[T], o SortOptions) (SortResult[T], error) {
	mustSortable(x)
	if o.Oversampling < 0 {
		panic(fmt.Sprintf("dist: Sort with Oversampling %d", o.Oversampling))
	}
	return sortArray(x, o, nil)
}

// nanLast moves the NaNs of r, which the sample sort puts first, to the
// end of r.Sorted and of r.Index, keeping their order: NumPy's order.
// Every rank counts the NaNs at the start of its sorted block (a block is
// read whole only where its first element is a NaN); one allreduce of the
// counts, which also agrees on a device fault in those reads, tells every
// rank how many there are; where there are any, the sorted array (into's
// blocks, if into is not nil) and the permutation are rolled back by that
// many (RollFlat). Integer keys have no NaNs, and nothing is done for
// them. On an error r's arrays are freed (but not into).
func nanLast[T backend.Element](x *Array[T], r SortResult[T], into *Array[T]) (_ SortResult[T], err error) {
	if !backend.DTypeOf[T]().IsFloat() {
		return r, nil
	}
	defer func() {
		if err == nil {
			return
		}
		if r.Index != nil {
			r.Index.Free()
		}
		if into == nil && r.Sorted != nil {
			r.Sorted.Free()
		}
	}()
	nan, err := leadingNaNs(r.Sorted.local)
	if r.Sorted.layout.axis != Replicated && x.comm.Size() > 1 {
		nan, err = allreduceCount(x.comm, "Sort", nan, takeFault(err))
	}
	if err != nil {
		return SortResult[T]{}, err
	}
	if nan == 0 {
		return r, nil
	}
	rolled, err := RollFlat(r.Sorted, -int(nan))
	if err != nil {
		return SortResult[T]{}, err
	}
	if into != nil {
		Copy(into, rolled)
		rolled.Free()
	} else {
		r.Sorted.Free()
		r.Sorted = rolled
	}
	if r.Index != nil {
		ix, err := RollFlat(r.Index, -int(nan))
		if err != nil {
			return SortResult[T]{}, err
		}
		r.Index.Free()
		r.Index = ix
	}
	return r, nil
}

// leadingNaNs returns the number of NaNs at the start of b: 0 after one
// element is read, unless that element is a NaN; then b is read whole. A
// block on a device costs one recorded copy of one element (and one of the
// block where it starts with a NaN).
func leadingNaNs[T backend.Element](b *backend.Array[T]) (int64, error) {
	if b.Len() == 0 {
		return 0, nil
	}
	var all []T
	if b.Device().IsHost() {
		all = b.Data()
	} else {
		first, err := hostCopy(b.Slice(0, 1))
		if err != nil || !isNaN(first[0]) {
			return 0, err
		}
		if all, err = hostCopy(b); err != nil {
			return 0, err
		}
	}
	k := 0
	for k < len(all) && isNaN(all[k]) {
		k++
	}
	return int64(k), nil
}

// mustSortable panics unless x is a 1-D array split on axis 0 or
// replicated.
func mustSortable[T backend.Element](x *Array[T]) {
	if d := x.layout.Dims(); d != 1 {
		panic(fmt.Sprintf("dist: Sort of a %d-dimensional array %v: only 1-D arrays are sorted", d, x.layout))
	}
	x.layout.mustNotBeGrid("Sort", "Redistribute it to a layout split on axis 0 first")
}

// sortArray is SortWithOptions, into the sorted array into if it is not
// nil (then o asks for no permutation, and into has the result's layout
// and x's device).
func sortArray[T backend.Element](x *Array[T], o SortOptions, into *Array[T]) (_ SortResult[T], err error) {
	b := x.local.Backend()
	if _, ok := b.(backend.Sorter); ok {
		return sampleSort(x, x.local, o, into)
	}
	// The backend cannot sort on its device: sort a host copy of the block
	// and copy the results to the device (each copy recorded).
	h := backend.Wrap([]T{})
	if x.local.Len() > 0 {
		if h, err = backend.ToHost(x.local); err != nil {
			// Where the sort communicates, the ranks agree on the
			// failure in the agreement that splitters makes.
			return SortResult[T]{}, blockFailed(x.comm, x.layout.axis != Replicated && x.comm.Size() > 1, "Sort", err)
		}
	}
	res, err := sampleSort(x, h, o, nil)
	if err != nil {
		return SortResult[T]{}, err
	}
	defer func() {
		res.Sorted.Free()
		if res.Index != nil {
			res.Index.Free()
		}
	}()
	var out SortResult[T]
	out.Stats = res.Stats
	if into != nil {
		out.Sorted = into
		if n := res.Sorted.local.Len(); n > 0 {
			if err := backend.CopyFromHostSlice(into.local, res.Sorted.local.Data()); err != nil {
				return SortResult[T]{}, err
			}
		}
		return out, nil
	}
	if out.Sorted, err = onBackend(res.Sorted, b); err != nil {
		return SortResult[T]{}, err
	}
	if res.Index != nil {
		if out.Index, err = onBackend(res.Index, b); err != nil {
			out.Sorted.Free()
			return SortResult[T]{}, err
		}
	}
	return out, nil
}

// onBackend returns a new array with a's layout and elements on backend b.
func onBackend[T backend.Element](a *Array[T], b backend.Backend) (*Array[T], error) {
	out, err := newOn[T](a.comm, a.layout, b)
	if err != nil {
		return nil, err
	}
	if a.local.Len() == 0 {
		return out, nil
	}
	if err := backend.CopyFromHostSlice(out.local, a.local.Data()); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// sampleSort is the sample sort of x, whose block is given as block (x's
// own, or a host copy), on block's backend, which is a backend.Sorter. The
// keys stay on that backend's device: package staging hands them to MPI.
// The sorted keys go into into's blocks if into is not nil (see
// sortArray), into new arrays otherwise.
func sampleSort[T backend.Element](x *Array[T], block *backend.Array[T], o SortOptions, into *Array[T]) (_ SortResult[T], err error) {
	c := x.comm
	p, me := c.Size(), c.Rank()
	n := x.layout.Len()
	b := block.Backend()
	s := b.(backend.Sorter)
	lo, _ := x.Range()
	var scratch []interface{ Free() }
	defer func() {
		for _, a := range scratch {
			a.Free()
		}
	}()
	newKeys := func(m int) (*backend.Array[T], error) {
		a, err := backend.NewOn[T](b, m)
		if err == nil {
			scratch = append(scratch, a)
		}
		return a, err
	}
	// A host sort of keys alone into an existing array uses the scratch
	// space kept with that array (sort_scratch.go).
	var kept *sortScratch[T]
	if into != nil && !o.WithIndex && b.Device().IsHost() {
		if kept = lockSortScratch(into); kept != nil {
			defer kept.unlock()
		}
	}
	hostKeys := func(k []T) *backend.Array[T] { return backend.FromBuffer[T](b, backend.HostBufferOf(k)) }
	newIdx := func(m int) (*backend.Array[int64], error) {
		if !o.WithIndex {
			return nil, nil
		}
		a, err := backend.NewOn[int64](b, m)
		if err == nil {
			scratch = append(scratch, a)
		}
		return a, err
	}

	if x.layout.axis == Replicated || p == 1 {
		// Step 1 is the whole sort: into the result's own blocks.
		stats := SortStats{Received: []int{n}, MaxReceived: n, MeanReceived: float64(n), Imbalance: 1}
		if x.layout.axis == Replicated {
			stats.Received = slices.Repeat([]int{n}, p)
		}
		res, err := newSortResult[T](x, b, x.layout, o.WithIndex, stats, into)
		if err != nil {
			return SortResult[T]{}, err
		}
		// In place, the sort needs a buffer of the block's length: the
		// one kept with into, if any (out of place it needs none).
		var work []T
		if kept != nil && n > 0 && res.Sorted.local.Buffer().Ptr() == block.Buffer().Ptr() {
			work = kept.bufA(n, n)
		}
		sortBlock(s, res.Sorted.local, indexBuffer(res.Index), block, int64(lo), work)
		return res, nil
	}

	even := NewLayout([]int{n}, 0, p)
	if n == 0 {
		stats := SortStats{Received: make([]int, p), Imbalance: 1}
		return newSortResult[T](x, b, even, o.WithIndex, stats, into)
	}

	// Step 1: sort the local block. Equal keys keep their local order,
	// which is their global order. Keys alone on the host are sorted into
	// a buffer with room to spare, which holds the merged pieces of step 4
	// too: the sorted block is sent in step 3 before the merge. With
	// scratch space kept with into, that buffer is its buffer a, and its
	// buffer b is the sort's scratch and then receives the pieces.
	var keys, work *backend.Array[T]
	var blockWork []T
	bl := block.Len()
	room := bl + bl/8 + 1024
	switch {
	case kept != nil && bl > 0:
		keys = hostKeys(kept.bufA(bl, room))
		blockWork = kept.bufB(bl, room)
	case !o.WithIndex && b.Device().IsHost() && bl > 0:
		if work, err = newKeys(room); err != nil {
			return SortResult[T]{}, err
		}
		keys = work.Slice(0, bl)
	default:
		if keys, err = newKeys(bl); err != nil {
			return SortResult[T]{}, err
		}
	}
	idx, err := newIdx(bl)
	if err != nil {
		return SortResult[T]{}, err
	}
	serr := localStep(func() { sortBlock(s, keys, arrayBuffer(idx), block, int64(lo), blockWork) })

	// Step 2: splitters from a regular sample.
	splitKeys, splitIdx, err := splitters(x, keys, o.Oversampling, serr)
	if err != nil {
		return SortResult[T]{}, err
	}

	// Step 3: cut the sorted block at the splitters and exchange. The
	// pieces for rank r are the elements e with splitter[r-1] <= e <
	// splitter[r] in (key, lo+i) order (see splitters).
	sk := make([]backend.Scalar, len(splitKeys))
	for j, v := range splitKeys {
		sk[j] = backend.ScalarOf(v)
	}
	cuts := s.Cut(keys.Buffer(), int64(lo), sk, splitIdx)
	scounts, sdispls := make([]int, p), make([]int, p)
	prev := 0
	for r := 0; r < p-1; r++ {
		sdispls[r], scounts[r] = prev, cuts[r]-prev
		prev = cuts[r]
	}
	sdispls[p-1], scounts[p-1] = prev, keys.Len()-prev

	sc := make([]int64, p)
	for r := range sc {
		sc[r] = int64(scounts[r])
	}
	rc := make([]int64, p)
	if err := mpi.Alltoall(c, sc, rc); err != nil {
		return SortResult[T]{}, err
	}
	rcounts, rdispls := make([]int, p), make([]int, p)
	m := 0
	for r := range rc {
		rcounts[r], rdispls[r] = int(rc[r]), m
		m += rcounts[r]
	}
	var recvKeys *backend.Array[T]
	if kept != nil {
		recvKeys = hostKeys(kept.bufB(m, m+m/8+1024))
	} else if recvKeys, err = newKeys(m); err != nil {
		return SortResult[T]{}, err
	}
	if err := staging.Alltoallv(c, keys, scounts, sdispls, recvKeys, rcounts, rdispls); err != nil {
		return SortResult[T]{}, err
	}
	recvIdx, err := newIdx(m)
	if err != nil {
		return SortResult[T]{}, err
	}
	if o.WithIndex {
		if err := staging.Alltoallv(c, idx, scounts, sdispls, recvIdx, rcounts, rdispls); err != nil {
			return SortResult[T]{}, err
		}
	}

	// Step 4: merge. The piece from rank s holds global indices below those
	// of rank s+1, so a merge that prefers the lower rank on equal keys
	// orders ties by global index.
	var merged *backend.Array[T]
	if kept != nil {
		merged = hostKeys(kept.bufA(m, m+m/8+1024))
	} else if work != nil && work.Len() >= m {
		merged = work.Slice(0, m)
	} else if merged, err = newKeys(m); err != nil {
		return SortResult[T]{}, err
	}
	mergedIdx, err := newIdx(m)
	if err != nil {
		return SortResult[T]{}, err
	}
	s.MergeRuns(merged.Buffer(), arrayBuffer(mergedIdx), recvKeys.Buffer(), arrayBuffer(recvIdx), append(rdispls, m))

	// Step 5: rebalance to the even layout.
	received := []int64{int64(m)}
	all := make([]int64, p)
	if err := mpi.Allgather(c, received, all); err != nil {
		return SortResult[T]{}, err
	}
	stats := SortStats{Received: make([]int, p), MeanReceived: float64(n) / float64(p)}
	starts := make([]int, p+1) // where each rank's merged piece starts in the sorted order
	for r, v := range all {
		stats.Received[r] = int(v)
		stats.MaxReceived = max(stats.MaxReceived, int(v))
		starts[r+1] = starts[r] + int(v)
	}
	stats.Imbalance = float64(stats.MaxReceived) / stats.MeanReceived
	if starts[p] != n {
		return SortResult[T]{}, fmt.Errorf("dist: Sort: rank %d: the ranks received %d elements in all, want %d", me, starts[p], n)
	}
	res, err := newSortResult[T](x, b, even, o.WithIndex, stats, into)
	if err != nil {
		return SortResult[T]{}, err
	}
	defer func() {
		if err != nil && into == nil {
			res.free()
		}
	}()
	pl := rebalancePlan(even, starts, me)
	if err := staging.Alltoallv(c, merged, pl.scounts, pl.sdispls, res.Sorted.local, pl.rcounts, pl.rdispls); err != nil {
		return SortResult[T]{}, err
	}
	if o.WithIndex {
		if err := staging.Alltoallv(c, mergedIdx, pl.scounts, pl.sdispls, res.Index.local, pl.rcounts, pl.rdispls); err != nil {
			return SortResult[T]{}, err
		}
	}
	return res, nil
}

// sortBlock sorts the block src into dst, a block of its length on its
// backend (or src itself), and, if index is not nil, sets index to base
// plus the positions in src. Keys alone on the host are sorted straight
// from src into dst (algorithms.SortKeysTo, with work, nil or of src's
// length, as its scratch space); otherwise src is copied to dst and
// sorted there by the backend.
func sortBlock[T backend.Element](s backend.Sorter, dst *backend.Array[T], index backend.Buffer, src *backend.Array[T], base int64, work []T) {
	if src.Len() == 0 {
		return
	}
	if index == nil && dst.Device().IsHost() {
		algorithms.SortKeysTo(dst.Data(), src.Data(), work)
		return
	}
	if dst != src {
		copyBlock(dst, src, "dist.Sort")
	}
	s.SortByKey(dst.Buffer(), index, base)
}

// arrayBuffer returns a's buffer, or a nil Buffer for a nil array.
func arrayBuffer[T backend.Element](a *backend.Array[T]) backend.Buffer {
	if a == nil {
		return nil
	}
	return a.Buffer()
}

// indexBuffer returns the buffer of a's block, or a nil Buffer for a nil
// array.
func indexBuffer(a *Array[int64]) backend.Buffer {
	if a == nil {
		return nil
	}
	return a.local.Buffer()
}

// copyBlock copies src into dst, two arrays on one device, recording a copy
// within device memory.
func copyBlock[T backend.Element](dst, src *backend.Array[T], desc string) {
	if src.Len() == 0 {
		return
	}
	backend.Copy(dst, src)
	if !dst.Device().IsHost() && profiling.Active() {
		profiling.Record(profiling.Event{Kind: profiling.DeviceCopy, Desc: desc, Bytes: int64(src.Len() * src.DType().Size())})
	}
}

// newSortResult returns the result arrays of layout l on backend b: the
// sorted keys (into, if it is not nil, or a new zeroed array) and, if
// withIndex, the indices.
func newSortResult[T backend.Element](x *Array[T], b backend.Backend, l Layout, withIndex bool, stats SortStats, into *Array[T]) (SortResult[T], error) {
	if into != nil {
		return SortResult[T]{Sorted: into, Stats: stats}, nil
	}
	sorted, err := newOn[T](x.comm, l, b)
	if err != nil {
		return SortResult[T]{}, err
	}
	res := SortResult[T]{Sorted: sorted, Stats: stats}
	if !withIndex {
		return res, nil
	}
	if res.Index, err = newOn[int64](x.comm, l, b); err != nil {
		sorted.Free()
		return SortResult[T]{}, err
	}
	return res, nil
}

// free frees the result's arrays.
func (r SortResult[T]) free() {
	if r.Sorted != nil {
		r.Sorted.Free()
	}
	if r.Index != nil {
		r.Index.Free()
	}
}

// defaultOversampling is the number of samples per splitter per rank when
// SortOptions leaves it zero.
const defaultOversampling = 128

// maxDefaultSamples limits the size of the default sample.
const maxDefaultSamples = 1 << 20

// splitters returns the p-1 splitters, in ascending order, from a regular
// sample of every rank's sorted block keys, which live on their backend's
// device: the samples are taken there and handed to MPI by staging.
//
// A splitter is a pair (key, lo+i): the key of the element at position i of
// the sorted block of the rank whose block starts at global index lo.
// Ordered by key and then by lo+i, the elements of all ranks are in
// exactly the (key, global index) order: among equal keys, the stable
// local sort keeps the order of the global indices, and the ranks' values
// of lo+i lie in [lo, lo+len(keys)), which ascend with the rank as the
// global indices do. So the permutation of the local sort is not needed.
//
// derr is the device failure of the local sort before it, or nil: the
// ranks agree on the local steps' outcome (agreeStep) before the samples
// on the device go to MPI, so that a device fault is an error on every
// rank.
func splitters[T backend.Element](x *Array[T], keys *backend.Array[T], oversampling int, derr error) ([]T, []int64, error) {
	c, l := x.comm, x.layout
	p, me := c.Size(), c.Rank()
	n := l.Len()
	total := oversampling * p * (p - 1)
	if oversampling == 0 {
		total = min(defaultOversampling*p*(p-1), max(maxDefaultSamples, p))
	}
	// One sample per step elements, so that each rank's share of the sample
	// is its share of the elements; every non-empty block gives at least
	// one sample. Every rank computes every rank's count from the layout.
	step := max(1, (n+total-1)/total)
	counts := make([]int, p)
	displs := make([]int, p)
	ns := 0
	for r := range counts {
		counts[r] = (l.counts[r] + step - 1) / step
		displs[r] = ns
		ns += counts[r]
	}
	lo, _ := x.Range()
	mine := counts[me]
	pos := make([]int, mine)
	sampleIdx := make([]int64, mine)
	for j := range mine {
		// The middle of the j-th of mine equal parts of the block.
		i := int((int64(2*j+1) * int64(keys.Len())) / int64(2*mine))
		pos[j] = i
		sampleIdx[j] = int64(lo + i)
	}
	sample, err := backend.NewOn[T](keys.Backend(), mine)
	if err != nil {
		return nil, nil, err
	}
	defer sample.Free()
	if derr == nil && mine > 0 {
		derr = localStep(func() { keys.Backend().(backend.Sorter).Take(sample.Buffer(), keys.Buffer(), pos) })
	}
	if derr == nil {
		derr = deviceSync(keys)
	}
	if err := agreeStep(c, "Sort", derr); err != nil {
		return nil, nil, err
	}
	allKeys := make([]T, ns)
	allIdx := make([]int64, ns)
	if err := staging.Allgatherv(c, sample, backend.Wrap(allKeys), counts, displs); err != nil {
		return nil, nil, err
	}
	if err := mpi.Allgatherv(c, sampleIdx, allIdx, counts, displs); err != nil {
		return nil, nil, err
	}
	// Each rank's samples are in (key, lo+i) order and the ranks' ranges
	// of lo+i ascend with the rank, so a stable sort by key of the
	// concatenation orders the samples by (key, index).
	order := algorithms.SortByKey(allKeys)
	splitKeys := make([]T, p-1)
	splitIdx := make([]int64, p-1)
	for r := 1; r < p; r++ {
		q := r * ns / p
		splitKeys[r-1] = allKeys[q]
		splitIdx[r-1] = allIdx[order[q]]
	}
	return splitKeys, splitIdx, nil
}

// rebalance is the all-to-all that moves the ranks' merged pieces, which
// hold the sorted positions [starts[r], starts[r+1]), to the blocks of an
// even layout. Both sides are contiguous, so nothing is packed.
type rebalance struct {
	scounts, sdispls, rcounts, rdispls []int
}

// rebalancePlan returns the counts and displacements of the rebalancing
// all-to-all for rank me.
func rebalancePlan(l Layout, starts []int, me int) rebalance {
	p := l.ranks
	pl := rebalance{make([]int, p), make([]int, p), make([]int, p), make([]int, p)}
	myLo, myHi := starts[me], starts[me+1]
	dLo, dHi := l.Range(me)
	for r := 0; r < p; r++ {
		// What rank r's new block takes from my piece.
		rlo, rhi := l.Range(r)
		if a, b := max(myLo, rlo), min(myHi, rhi); b > a {
			pl.scounts[r], pl.sdispls[r] = b-a, a-myLo
		}
		// What my new block takes from rank r's piece.
		if a, b := max(starts[r], dLo), min(starts[r+1], dHi); b > a {
			pl.rcounts[r], pl.rdispls[r] = b-a, a-dLo
		}
	}
	return pl
}
