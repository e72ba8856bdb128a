package algorithms

import (
	"cmp"
	"fmt"
)

// Number is the set of element types that SegmentSum adds.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// SegmentKey is the set of key types of SegmentSum: signed, so that a
// negative key can drop a row.
type SegmentKey interface {
	~int | ~int32 | ~int64
}

// Integer is the set of cell types of CellOffsets.
type Integer interface {
	~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64
}

// SegmentSum sums rows of values by key. values holds len(keys) rows of
// width elements and out holds n = len(out)/width rows; SegmentSum sets
//
//	out[k*width+j] = sum of values[i*width+j] over the rows i with keys[i] == k
//
// for every k in [0, n) and j in [0, width): out is overwritten, and a
// segment with no rows is zero. Rows with a negative key are dropped. The
// keys need not be sorted.
//
// The sum is deterministic: each output element adds its rows in increasing
// row order, serially, so the result has the same bits on every run and for
// any GOMAXPROCS (unlike a GPU version built on atomics).
//
// SegmentSum panics if width < 1, if len(out) is not a multiple of width, if
// len(values) != len(keys)*width, if a key is n or more (before writing
// anything), or if out and values share memory.
func SegmentSum[T Number, K SegmentKey](out []T, keys []K, values []T, width int) {
	if width < 1 {
		panic(fmt.Sprintf("algorithms: SegmentSum width %d < 1", width))
	}
	if len(out)%width != 0 {
		panic(fmt.Sprintf("algorithms: SegmentSum out length %d is not a multiple of width %d", len(out), width))
	}
	if len(values) != len(keys)*width {
		panic(fmt.Sprintf("algorithms: SegmentSum values length %d != %d keys * width %d", len(values), len(keys), width))
	}
	if overlap(out, values) {
		panic("algorithms: SegmentSum out and values share memory")
	}
	n := len(out) / width
	for i, k := range keys {
		if k >= 0 && int64(k) >= int64(n) {
			panic(fmt.Sprintf("algorithms: SegmentSum key %d of row %d >= number of segments %d", k, i, n))
		}
	}
	clear(out)
	if width == 1 {
		for i, k := range keys {
			if k >= 0 {
				out[k] += values[i]
			}
		}
		return
	}
	for i, k := range keys {
		if k < 0 {
			continue
		}
		dst := out[int(k)*width : int(k)*width+width]
		src := values[i*width : i*width+width]
		for j, v := range src {
			dst[j] += v
		}
	}
}

// SegmentBounds returns the runs of equal keys in sorted: unique[s] is the
// key of run s, which covers sorted[starts[s]:stops[s]]. The runs are in
// order, starts[0] = 0, stops[s] = starts[s+1] and the last stop is
// len(sorted); all three are empty for an empty input.
//
// Keys are equal and ordered as by cmp.Compare, the order of Argsort: for
// floats all NaNs form one run, and -0 and +0 form one run whose key is the
// first of them. SegmentBounds panics if sorted is not in ascending order.
func SegmentBounds[K cmp.Ordered](sorted []K) (unique []K, starts, stops []int) {
	for i := 1; i < len(sorted); i++ {
		c := cmp.Compare(sorted[i-1], sorted[i])
		if c > 0 {
			panic(fmt.Sprintf("algorithms: SegmentBounds keys not sorted at %d: %v > %v", i, sorted[i-1], sorted[i]))
		}
		if c < 0 {
			starts = append(starts, i)
		}
	}
	if len(sorted) == 0 {
		return nil, nil, nil
	}
	starts = append([]int{0}, starts...)
	unique = make([]K, len(starts))
	stops = make([]int, len(starts))
	for s, b := range starts {
		unique[s] = sorted[b]
		if s+1 < len(starts) {
			stops[s] = starts[s+1]
		} else {
			stops[s] = len(sorted)
		}
	}
	return unique, starts, stops
}

// CellOffsets returns the nCells+1 offsets of the cells in sortedCells, a
// sorted list of cell indices in [0, nCells): the entries of cell c are
// sortedCells[offsets[c]:offsets[c+1]], empty for a cell that does not
// occur, with offsets[0] = 0 and offsets[nCells] = len(sortedCells).
// CellOffsets panics if nCells < 0, if a cell is outside [0, nCells), or if
// sortedCells is not in ascending order.
func CellOffsets[C Integer](sortedCells []C, nCells int) []int {
	if nCells < 0 {
		panic(fmt.Sprintf("algorithms: CellOffsets nCells %d < 0", nCells))
	}
	offsets := make([]int, nCells+1)
	next := 0 // the next cell whose offset is unknown
	for i, c := range sortedCells {
		if c < 0 || uint64(c) >= uint64(nCells) {
			panic(fmt.Sprintf("algorithms: CellOffsets cell %d at %d outside [0, %d)", c, i, nCells))
		}
		if int(c) < next-1 {
			panic(fmt.Sprintf("algorithms: CellOffsets cells not sorted at %d: %d > %d", i, sortedCells[i-1], c))
		}
		for ; next <= int(c); next++ {
			offsets[next] = i
		}
	}
	for ; next <= nCells; next++ {
		offsets[next] = len(sortedCells)
	}
	return offsets
}
