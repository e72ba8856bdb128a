package dist

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Distributed sort.
//
// Sort, SortWithIndex and SortWithOptions sort a 1-D array with a sample
// sort:
//
//  1. every rank sorts its block (algorithms.SortByKey, an LSD radix sort
//     for long blocks);
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
// input. The sort is therefore stable, the permutation is unique, and the
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
	r, err := SortWithOptions(x, SortOptions{})
	return r.Sorted, err
}

// SortWithIndex returns x's elements in ascending order and, with the same
// layout, the global index in x of each of them: sorted[i] == x[perm[i]].
// x must be 1-D; it is not modified.
func SortWithIndex[T backend.Element](x *Array[T]) (sorted *Array[T], perm *Array[int64], err error) {
	r, err := SortWithOptions(x, SortOptions{WithIndex: true})
	return r.Sorted, r.Index, err
}

// SortWithOptions sorts the 1-D array x by a distributed sample sort and
// returns the sorted array, the permutation if asked for, and the load
// balance of the exchange. It is collective.
//
// The order is that of cmp.Compare on the keys, ties broken by the global
// index in x: the sort is stable, and the result does not depend on the
// number of ranks or on x's block sizes. The result has the even block
// layout of NewLayout([]int{n}, 0, p), on x's backend; a replicated x is
// sorted on every rank without communication and the result is
// replicated. x may have any block sizes, empty blocks included. It panics
// if x is not 1-D.
func SortWithOptions[T backend.Element](x *Array[T], o SortOptions) (SortResult[T], error) {
	if d := x.layout.Dims(); d != 1 {
		panic(fmt.Sprintf("dist: Sort of a %d-dimensional array %v: only 1-D arrays are sorted", d, x.layout))
	}
	if o.Oversampling < 0 {
		panic(fmt.Sprintf("dist: Sort with Oversampling %d", o.Oversampling))
	}
	c := x.comm
	p, me := c.Size(), c.Rank()
	n := x.layout.Len()
	src, err := x.localHost()
	if err != nil {
		return SortResult[T]{}, err
	}

	// Step 1: sort the local block. Equal keys keep their local order,
	// which is their global order.
	keys := slices.Clone(src)
	perm := algorithms.SortByKey(keys)
	lo, _ := x.Range()

	if x.layout.axis == Replicated || p == 1 {
		stats := SortStats{Received: []int{n}, MaxReceived: n, MeanReceived: float64(n), Imbalance: 1}
		if x.layout.axis == Replicated {
			stats.Received = slices.Repeat([]int{n}, p)
		}
		return newSortResult(x, x.layout, o.WithIndex, stats,
			func(dst []T) error { copy(dst, keys); return nil },
			func(idx []int64) error {
				for i, j := range perm {
					idx[i] = int64(lo + j)
				}
				return nil
			})
	}

	even := NewLayout([]int{n}, 0, p)
	if n == 0 {
		stats := SortStats{Received: make([]int, p), Imbalance: 1}
		return newSortResult(x, even, o.WithIndex, stats, nil, nil)
	}

	// Step 2: splitters from a regular sample.
	splitKeys, splitIdx, err := splitters(x, keys, o.Oversampling)
	if err != nil {
		return SortResult[T]{}, err
	}

	// Step 3: cut the sorted block at the splitters and exchange. The
	// pieces for rank r are the elements e with splitter[r-1] <= e <
	// splitter[r] in (key, lo+i) order (see splitters).
	scounts, sdispls := make([]int, p), make([]int, p)
	prev := 0
	for r := 0; r < p-1; r++ {
		sk, si := splitKeys[r], splitIdx[r]
		cut := prev + sort.Search(len(keys)-prev, func(i int) bool {
			i += prev
			if d := cmp.Compare(keys[i], sk); d != 0 {
				return d > 0
			}
			return int64(lo+i) >= si
		})
		sdispls[r], scounts[r] = prev, cut-prev
		prev = cut
	}
	sdispls[p-1], scounts[p-1] = prev, len(keys)-prev

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
	recvKeys := make([]T, m)
	if err := mpi.Alltoallv(c, keys, scounts, sdispls, recvKeys, rcounts, rdispls); err != nil {
		return SortResult[T]{}, err
	}
	var recvIdx []int64
	if o.WithIndex {
		sendIdx := make([]int64, len(perm))
		for i, j := range perm {
			sendIdx[i] = int64(lo + j)
		}
		recvIdx = make([]int64, m)
		if err := mpi.Alltoallv(c, sendIdx, scounts, sdispls, recvIdx, rcounts, rdispls); err != nil {
			return SortResult[T]{}, err
		}
	}

	// Step 4: merge. The piece from rank s holds global indices below those
	// of rank s+1, so a merge that prefers the lower rank on equal keys
	// orders ties by global index.
	bounds := append(rdispls, m)
	mergedKeys, mergedIdx := mergeRuns(recvKeys, recvIdx, bounds)

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
	plan := rebalancePlan(even, starts, me)
	return newSortResult(x, even, o.WithIndex, stats,
		func(dst []T) error { return exchangeRebalance(c, plan, mergedKeys, dst) },
		func(dst []int64) error { return exchangeRebalance(c, plan, mergedIdx, dst) })
}

// newSortResult returns the result arrays of layout l on x's backend, with
// their local blocks written on the host by fillKeys and, if withIndex,
// fillIdx (which are collective: every rank calls them, also with an empty
// block). Nil functions leave the blocks zero.
func newSortResult[T backend.Element](x *Array[T], l Layout, withIndex bool, stats SortStats, fillKeys func([]T) error, fillIdx func([]int64) error) (SortResult[T], error) {
	b := x.local.Backend()
	sorted, err := New[T](x.comm, l, b)
	if err != nil {
		return SortResult[T]{}, err
	}
	if err := fillWith(sorted, fillKeys); err != nil {
		return SortResult[T]{}, err
	}
	res := SortResult[T]{Sorted: sorted, Stats: stats}
	if !withIndex {
		return res, nil
	}
	if res.Index, err = New[int64](x.comm, l, b); err != nil {
		return SortResult[T]{}, err
	}
	if err := fillWith(res.Index, fillIdx); err != nil {
		return SortResult[T]{}, err
	}
	return res, nil
}

// fillWith runs fill (if not nil) on a's local block on the host, and
// returns its error or that of the copy to the device.
func fillWith[T backend.Element](a *Array[T], fill func([]T) error) error {
	if fill == nil {
		return nil
	}
	var ferr error
	err := a.hostFill(func(host []T) { ferr = fill(host) })
	if ferr != nil {
		return ferr
	}
	return err
}

// defaultOversampling is the number of samples per splitter per rank when
// SortOptions leaves it zero.
const defaultOversampling = 128

// maxDefaultSamples limits the size of the default sample.
const maxDefaultSamples = 1 << 20

// splitters returns the p-1 splitters, in ascending order, from a regular
// sample of every rank's sorted block keys.
//
// A splitter is a pair (key, lo+i): the key of the element at position i of
// the sorted block of the rank whose block starts at global index lo.
// Ordered by key and then by lo+i, the elements of all ranks are in
// exactly the (key, global index) order: among equal keys, the stable
// local sort keeps the order of the global indices, and the ranks' values
// of lo+i lie in [lo, lo+len(keys)), which ascend with the rank as the
// global indices do. So the permutation of the local sort is not needed.
func splitters[T backend.Element](x *Array[T], keys []T, oversampling int) ([]T, []int64, error) {
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
	sampleKeys := make([]T, mine)
	sampleIdx := make([]int64, mine)
	for j := range mine {
		// The middle of the j-th of mine equal parts of the block.
		i := int((int64(2*j+1) * int64(len(keys))) / int64(2*mine))
		sampleKeys[j] = keys[i]
		sampleIdx[j] = int64(lo + i)
	}
	allKeys := make([]T, ns)
	allIdx := make([]int64, ns)
	if err := mpi.Allgatherv(c, sampleKeys, allKeys, counts, displs); err != nil {
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

// mergeRuns merges the sorted runs keys[bounds[k]:bounds[k+1]] into one
// sorted slice, taking from the earlier run on equal keys, and moves the
// indices idx (nil: none) with their keys. It merges adjacent runs
// pairwise, in log2(runs) passes, and may reuse the memory of its
// arguments.
func mergeRuns[T backend.Element](keys []T, idx []int64, bounds []int) ([]T, []int64) {
	// Drop empty runs.
	b := []int{0}
	for k := 1; k < len(bounds); k++ {
		if bounds[k] > b[len(b)-1] {
			b = append(b, bounds[k])
		}
	}
	if len(b) <= 2 {
		return keys, idx
	}
	keys2 := make([]T, len(keys))
	var idx2 []int64
	if idx != nil {
		idx2 = make([]int64, len(idx))
	}
	for len(b) > 2 {
		nb := []int{0}
		for k := 0; k+1 < len(b); k += 2 {
			lo, mid := b[k], b[k+1]
			if k+2 >= len(b) { // an odd run out: copy it
				copy(keys2[lo:mid], keys[lo:mid])
				if idx != nil {
					copy(idx2[lo:mid], idx[lo:mid])
				}
				nb = append(nb, mid)
				continue
			}
			hi := b[k+2]
			if idx != nil {
				merge2Idx(keys2[lo:hi], idx2[lo:hi], keys[lo:mid], keys[mid:hi], idx[lo:mid], idx[mid:hi])
			} else {
				merge2(keys2[lo:hi], keys[lo:mid], keys[mid:hi])
			}
			nb = append(nb, hi)
		}
		keys, keys2 = keys2, keys
		idx, idx2 = idx2, idx
		b = nb
	}
	return keys, idx
}

// merge2 merges the sorted slices a and b into dst, taking from a on equal
// keys.
func merge2[T backend.Element](dst, a, b []T) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp.Less(b[j], a[i]) {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// merge2Idx is merge2 that also moves the indices ia and ib with their
// keys into idst.
func merge2Idx[T backend.Element](dst []T, idst []int64, a, b []T, ia, ib []int64) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp.Less(b[j], a[i]) {
			dst[k], idst[k] = b[j], ib[j]
			j++
		} else {
			dst[k], idst[k] = a[i], ia[i]
			i++
		}
		k++
	}
	copy(idst[k:], ia[i:])
	k += copy(dst[k:], a[i:])
	copy(idst[k:], ib[j:])
	copy(dst[k:], b[j:])
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

// exchangeRebalance moves send, this rank's merged piece, into recv, its
// block of the even layout.
func exchangeRebalance[T mpi.Number](c mpi.Comm, pl rebalance, send, recv []T) error {
	return mpi.Alltoallv(c, send, pl.scounts, pl.sdispls, recv, pl.rcounts, pl.rdispls)
}
