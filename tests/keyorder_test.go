package tests

import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

// inKeyOrder yields m's entries in the order of their keys: a map's own
// order differs from run to run, and under MPI from rank to rank.
func inKeyOrder[K cmp.Ordered, V any](m map[K]V) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}
