package cpu

import (
	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CPU backend is a driver.Sorter, with the algorithms package's sort
// (an LSD radix sort for long blocks) and merge.
var _ driver.Sorter = (*Backend)(nil)

// sorter is the type-erased form of the sort steps for one element type.
type sorter interface {
	sortByKey(keys, index driver.Buffer, base int64)
	take(dst, src driver.Buffer, pos []int)
	cut(keys driver.Buffer, base int64, splitKeys []driver.Scalar, splitIdx []int64) []int
	mergeRuns(dst, dstIndex, keys, index driver.Buffer, bounds []int)
}

func sorterFor(dt backend.DType) sorter {
	switch dt {
	case backend.Float32:
		return sortImpl[float32]{}
	case backend.Float64:
		return sortImpl[float64]{}
	case backend.Int32:
		return sortImpl[int32]{}
	case backend.Int64:
		return sortImpl[int64]{}
	case backend.Uint32:
		return sortImpl[uint32]{}
	case backend.Int8:
		return sortImpl[int8]{}
	case backend.Int16:
		return sortImpl[int16]{}
	case backend.Uint8:
		return sortImpl[uint8]{}
	case backend.Uint16:
		return sortImpl[uint16]{}
	}
	return sortImpl[uint64]{}
}

type sortImpl[T backend.Element] struct{}

// indices returns the Int64 elements of b, nil for a nil buffer.
func indices(b driver.Buffer) []int64 {
	if b == nil {
		return nil
	}
	return hs[int64](b)
}

func (sortImpl[T]) sortByKey(keys, index driver.Buffer, base int64) {
	if index == nil {
		algorithms.SortKeys(hs[T](keys)) // no permutation to compute or carry
		return
	}
	perm := algorithms.SortByKey(hs[T](keys))
	if idx := indices(index); idx != nil {
		for i, j := range perm {
			idx[i] = base + int64(j)
		}
	}
}

func (sortImpl[T]) take(dst, src driver.Buffer, pos []int) {
	d, s := hs[T](dst), hs[T](src)
	for j, i := range pos {
		d[j] = s[i]
	}
}

func (sortImpl[T]) cut(keys driver.Buffer, base int64, splitKeys []driver.Scalar, splitIdx []int64) []int {
	sk := make([]T, len(splitKeys))
	for j, s := range splitKeys {
		sk[j] = driver.ValueOf[T](s)
	}
	return algorithms.Cut(hs[T](keys), base, sk, splitIdx)
}

func (sortImpl[T]) mergeRuns(dst, dstIndex, keys, index driver.Buffer, bounds []int) {
	algorithms.MergeRuns(hs[T](dst), indices(dstIndex), hs[T](keys), indices(index), bounds)
}

// SortByKey sorts keys stably and sets index (if not nil) to base plus the
// positions before the sort. Without index it sorts the keys alone
// (algorithms.SortKeys), with the same result.
func (*Backend) SortByKey(keys, index driver.Buffer, base int64) {
	sorterFor(keys.DType()).sortByKey(keys, index, base)
}

// Take sets dst[j] = src[pos[j]].
func (*Backend) Take(dst, src driver.Buffer, pos []int) {
	switch src.DType() {
	case backend.Complex64:
		take(hs[complex64](dst), hs[complex64](src), pos)
	case backend.Complex128:
		take(hs[complex128](dst), hs[complex128](src), pos)
	default:
		sorterFor(src.DType()).take(dst, src, pos)
	}
}

// take sets d[j] = s[pos[j]]: Take of the complex types, which have no
// order but move as the others do.
func take[T backend.Numeric](d, s []T, pos []int) {
	for j, p := range pos {
		d[j] = s[p]
	}
}

// Cut returns where the sorted keys are cut by the splitters.
func (*Backend) Cut(keys driver.Buffer, base int64, splitKeys []driver.Scalar, splitIdx []int64) []int {
	return sorterFor(keys.DType()).cut(keys, base, splitKeys, splitIdx)
}

// MergeRuns merges the sorted runs of keys (and index) into dst (and
// dstIndex).
func (*Backend) MergeRuns(dst, dstIndex, keys, index driver.Buffer, bounds []int) {
	sorterFor(keys.DType()).mergeRuns(dst, dstIndex, keys, index, bounds)
}
