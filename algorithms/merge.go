package algorithms

import (
	"cmp"
	"fmt"
	"sort"
)

// MergeRuns merges the sorted runs keys[bounds[k]:bounds[k+1]] into dst,
// taking from the earlier run on equal keys (so that a merge of runs in
// index order is stable), and moves the indices idx with their keys into
// dstIdx (both nil: none). It merges adjacent runs pairwise, in log2(runs)
// passes, using keys and idx as scratch space: their contents are lost.
// Keys compare as cmp.Compare orders them.
//
// bounds must ascend from 0 to len(keys); dst must have keys' length, and
// dstIdx idx's. It panics otherwise.
func MergeRuns[K Key](dst []K, dstIdx []int64, keys []K, idx []int64, bounds []int) {
	n := len(keys)
	if len(dst) != n || len(dstIdx) != len(idx) || (idx != nil && len(idx) != n) {
		panic(fmt.Sprintf("algorithms: MergeRuns of %d keys and %d indices into %d and %d", n, len(idx), len(dst), len(dstIdx)))
	}
	if len(bounds) == 0 || bounds[0] != 0 || bounds[len(bounds)-1] != n || !sortedInts(bounds) {
		panic(fmt.Sprintf("algorithms: MergeRuns with bounds %v for %d keys", bounds, n))
	}
	// Drop empty runs.
	b := []int{0}
	for k := 1; k < len(bounds); k++ {
		if bounds[k] > b[len(b)-1] {
			b = append(b, bounds[k])
		}
	}
	if n == 0 {
		return
	}
	// The passes alternate between the two buffers; start so that the last
	// one writes dst, copying first if the number of passes is even.
	passes := 0
	for r := len(b) - 1; r > 1; r = (r + 1) / 2 {
		passes++
	}
	src, srcIdx, out, outIdx := keys, idx, dst, dstIdx
	if passes%2 == 0 {
		copy(dst, keys)
		copy(dstIdx, idx)
		if passes == 0 {
			return
		}
		src, srcIdx, out, outIdx = dst, dstIdx, keys, idx
	}
	for len(b) > 2 {
		nb := []int{0}
		for k := 0; k+1 < len(b); k += 2 {
			lo, mid := b[k], b[k+1]
			if k+2 >= len(b) { // an odd run out: copy it
				copy(out[lo:mid], src[lo:mid])
				if srcIdx != nil {
					copy(outIdx[lo:mid], srcIdx[lo:mid])
				}
				nb = append(nb, mid)
				continue
			}
			hi := b[k+2]
			if srcIdx != nil {
				merge2Idx(out[lo:hi], outIdx[lo:hi], src[lo:mid], src[mid:hi], srcIdx[lo:mid], srcIdx[mid:hi])
			} else {
				merge2(out[lo:hi], src[lo:mid], src[mid:hi])
			}
			nb = append(nb, hi)
		}
		src, out = out, src
		srcIdx, outIdx = outIdx, srcIdx
		b = nb
	}
}

func sortedInts(s []int) bool {
	for i := 1; i < len(s); i++ {
		if s[i] < s[i-1] {
			return false
		}
	}
	return true
}

// merge2 merges the sorted slices a and b into dst, taking from a on equal
// keys.
func merge2[K Key](dst, a, b []K) {
	// NaNs sort first: runs that do not start with one hold none, and
	// their keys compare with <, without branches.
	if len(a) > 0 && len(b) > 0 && a[0] == a[0] && b[0] == b[0] {
		merge2Ordered(dst, a, b)
		return
	}
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

// merge2Ordered is merge2 of keys without NaNs. The next key is chosen
// by arithmetic on the outcome of the comparison, which is unpredictable
// on random keys, rather than by a branch.
//
//go:noinline
func merge2Ordered[K Key](dst, a, b []K) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) && k < len(dst) {
		x, y := a[i], b[j]
		t := 0
		if y < x {
			t = 1
		}
		v := [2]K{x, y}
		dst[k] = v[t]
		j += t
		i += 1 - t
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// merge2Idx is merge2 that also moves the indices ia and ib with their
// keys into idst.
func merge2Idx[K Key](dst []K, idst []int64, a, b []K, ia, ib []int64) {
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

// Cut returns, for each splitter j, the number of leading elements of the
// sorted keys that come before it in (key, index) order, where element i
// has index base+i and splitter j is (splitKeys[j], splitIdx[j]): the
// positions at which keys is cut into the pieces between consecutive
// splitters. The splitters must ascend in that order, and keys must be
// sorted, with equal keys in index order.
func Cut[K Key](keys []K, base int64, splitKeys []K, splitIdx []int64) []int {
	if len(splitKeys) != len(splitIdx) {
		panic(fmt.Sprintf("algorithms: Cut with %d splitter keys and %d indices", len(splitKeys), len(splitIdx)))
	}
	cuts := make([]int, len(splitKeys))
	prev := 0
	for j, sk := range splitKeys {
		si := splitIdx[j]
		cut := prev + sort.Search(len(keys)-prev, func(i int) bool {
			i += prev
			if d := cmp.Compare(keys[i], sk); d != 0 {
				return d > 0
			}
			return base+int64(i) >= si
		})
		cuts[j] = cut
		prev = cut
	}
	return cuts
}
