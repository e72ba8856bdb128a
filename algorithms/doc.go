// Package algorithms provides the data-parallel building blocks of particle
// and mesh codes on the host: Morton keys, stable sorting by key, segment
// sums, segment and cell boundaries, and compaction by mask.
//
// Every function here is serial and deterministic: the same inputs give the
// same bits for any GOMAXPROCS, on every run. Callers that want
// parallelism split their data (for example, one block per rank) and merge.
//
// # Morton keys
//
// Morton2 and Morton3 interleave cell coordinates so that bit ndim*b+a of
// the key holds bit b of axis a; MortonKeys2 and MortonKeys3 compute keys
// from positions in a box, with the cell rule of CellIndex. Host and CUDA
// implementations that follow the documented formulas give identical keys.
//
// # Sorting by key
//
// Argsort returns the stable sorting permutation of a key slice and
// SortByKey also sorts the keys in place. Companion arrays take the
// permutation one by one, with ApplyPermutation (in place) or Gather (into
// another slice):
//
//	perm := algorithms.SortByKey(keys)
//	algorithms.ApplyPermutation(xs, perm)
//	algorithms.ApplyPermutation(ys, perm)
//
// Long inputs are sorted by an LSD radix sort over only the digits that the
// span of the keys needs; the result is always that of a stable comparison
// sort with cmp.Compare. Without companion arrays, SortKeys (in place) and
// SortKeysTo (into another slice, with caller-provided scratch space) sort
// the keys alone, with the same result, moving 4 or 8 bytes per key in
// each of at most 3 or 6 passes.
//
// # Segments
//
// SegmentSum adds rows of values by key, SegmentBounds finds the runs of
// equal keys in a sorted slice, and CellOffsets gives the start of each
// cell in a sorted list of cell indices.
//
// # Compaction
//
// Compact moves the selected elements of one slice to its front. For
// several slices with one mask, MaskIndex computes the selected indices
// once and CompactByIndex applies them to each slice.
//
// # Errors
//
// Arguments that the caller can check (mismatched lengths, keys out of
// range, unsorted input where sorted input is required, aliasing) cause a
// panic whose message starts with "algorithms: ".
package algorithms
