package algorithms

import "fmt"

// Compact moves the elements a[i] with mask[i] true to the front of a,
// keeping their order, and returns their number m. a[:m] holds the selected
// elements; a[m:] is unspecified. It panics if mask and a differ in length.
//
// To compact several arrays by the same mask, compute the selected indices
// once and apply them to each array:
//
//	idx := algorithms.MaskIndex(mask)
//	m := algorithms.CompactByIndex(xs, idx)
//	algorithms.CompactByIndex(ys, idx)
//	xs, ys = xs[:m], ys[:m]
func Compact[T any](mask []bool, a []T) int {
	if len(mask) != len(a) {
		panic(fmt.Sprintf("algorithms: Compact mask length %d != array length %d", len(mask), len(a)))
	}
	m := 0
	for i, keep := range mask {
		if keep {
			a[m] = a[i]
			m++
		}
	}
	return m
}

// MaskIndex returns the indices i with mask[i] true, in increasing order.
func MaskIndex(mask []bool) []int {
	m := 0
	for _, keep := range mask {
		if keep {
			m++
		}
	}
	idx := make([]int, 0, m)
	for i, keep := range mask {
		if keep {
			idx = append(idx, i)
		}
	}
	return idx
}

// CompactByIndex moves a[index[k]] to a[k] for every k, in place, and
// returns len(index). index must be strictly increasing, as MaskIndex
// returns it, which makes the moves safe in place and keeps the order;
// a[len(index):] is unspecified. It panics if index is not strictly
// increasing or has an entry outside [0, len(a)), before moving anything.
func CompactByIndex[T any](a []T, index []int) int {
	prev := -1
	for k, i := range index {
		if i <= prev || i >= len(a) {
			panic(fmt.Sprintf("algorithms: CompactByIndex index[%d] = %d: indices must be strictly increasing and below %d", k, i, len(a)))
		}
		prev = i
	}
	for k, i := range index {
		a[k] = a[i]
	}
	return len(index)
}
