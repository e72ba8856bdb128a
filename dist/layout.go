package dist

import (
	"fmt"
	"slices"
)

// Replicated, as a layout's axis, means every rank holds the whole array.
const Replicated = -1

// Layout says how a global array is divided among the ranks: the global
// shape, the split axis (or Replicated), and how many indices of the split
// axis each rank holds. Blocks are contiguous and in rank order. A Layout is
// a value; its methods do not communicate.
//
// A grid layout (axis Grid; NewGridLayout) instead splits the array along
// several axes over a process grid: each rank holds one box of the global
// index space (Block), at its coordinates in the grid (Coords).
type Layout struct {
	shape  []int
	axis   int   // the split axis, Replicated or Grid
	counts []int // per rank, along axis; nil when replicated or a grid
	starts []int // per rank, plus the total at the end
	ranks  int

	// A grid layout's process grid, one dimension per axis, and per axis
	// the block sizes along it and their starts (plus the total); nil for
	// other layouts.
	grid    []int
	gcounts [][]int
	gstarts [][]int
}

// NewLayout returns the block layout of shape over p ranks split on axis:
// the first n%p ranks get n/p+1 indices and the others n/p, where n is
// shape[axis]. Axis Replicated gives every rank the whole array. A zero
// dimension, and fewer indices than ranks, are legal: some blocks are then
// empty.
func NewLayout(shape []int, axis, p int) Layout {
	checkShape(shape)
	if p < 1 {
		panic(fmt.Sprintf("dist: layout over %d ranks", p))
	}
	if axis == Replicated {
		return Layout{shape: slices.Clone(shape), axis: Replicated, ranks: p}
	}
	if axis == Grid {
		panic("dist: NewLayout with axis Grid: NewGridLayout makes layouts split over a process grid")
	}
	if axis < 0 || axis >= len(shape) {
		panic(fmt.Sprintf("dist: split axis %d of a %d-dimensional shape %v", axis, len(shape), shape))
	}
	n := shape[axis]
	counts := make([]int, p)
	for r := range counts {
		counts[r] = n / p
		if r < n%p {
			counts[r]++
		}
	}
	return newLayout(shape, axis, counts)
}

// NewLayoutCounts returns the layout of shape split on axis with the given
// per-rank block sizes, which must sum to shape[axis].
func NewLayoutCounts(shape []int, axis int, counts []int) Layout {
	checkShape(shape)
	if axis == Grid {
		panic("dist: NewLayoutCounts with axis Grid: NewGridLayoutCounts makes layouts split over a process grid")
	}
	if axis < 0 || axis >= len(shape) {
		panic(fmt.Sprintf("dist: split axis %d of a %d-dimensional shape %v", axis, len(shape), shape))
	}
	sum := 0
	for _, c := range counts {
		if c < 0 {
			panic(fmt.Sprintf("dist: negative block size in %v", counts))
		}
		sum += c
	}
	if sum != shape[axis] || len(counts) == 0 {
		panic(fmt.Sprintf("dist: block sizes %v do not sum to %d, the length of axis %d of %v", counts, shape[axis], axis, shape))
	}
	return newLayout(shape, axis, slices.Clone(counts))
}

func newLayout(shape []int, axis int, counts []int) Layout {
	starts := make([]int, len(counts)+1)
	for r, c := range counts {
		starts[r+1] = starts[r] + c
	}
	return Layout{shape: slices.Clone(shape), axis: axis, counts: counts, starts: starts, ranks: len(counts)}
}

func checkShape(shape []int) {
	if len(shape) == 0 {
		panic("dist: empty shape: arrays have at least one dimension")
	}
	if _, err := ShapeLen(shape); err != nil {
		panic(err.Error())
	}
}

// Shape returns the global shape.
func (l Layout) Shape() []int { return slices.Clone(l.shape) }

// Dims returns the number of dimensions.
func (l Layout) Dims() int { return len(l.shape) }

// Axis returns the split axis, Replicated, or Grid for a layout split
// over a process grid.
func (l Layout) Axis() int { return l.axis }

// Ranks returns the number of ranks the layout is for.
func (l Layout) Ranks() int { return l.ranks }

// Len returns the number of elements of the global array: 0 for the zero
// Layout, which describes no array.
func (l Layout) Len() int {
	if l.ranks == 0 {
		return 0
	}
	return prod(l.shape)
}

// IsZero reports whether l is the zero Layout, which no array has: make
// layouts with NewLayout or NewLayoutCounts.
func (l Layout) IsZero() bool { return l.ranks == 0 }

// mustBeValid panics, saying so, on the zero Layout or one for another
// number of ranks than the communicator's.
func (l Layout) mustBeValid(op string, ranks int) {
	if l.ranks == 0 {
		panic(fmt.Sprintf("dist: %s with the zero Layout: make layouts with NewLayout or NewLayoutCounts", op))
	}
	if l.ranks != ranks {
		panic(fmt.Sprintf("dist: %s: %v for a communicator of %d ranks", op, l, ranks))
	}
}

// Counts returns the block size of every rank along the split axis, or nil
// for a replicated layout. It panics on a grid layout, whose block sizes
// GridCounts gives axis by axis.
func (l Layout) Counts() []int {
	l.mustNotBeGrid("Layout.Counts", "its blocks have sizes along several axes: use GridCounts")
	return slices.Clone(l.counts)
}

// Range returns the global indices [lo, hi) of the split axis that rank
// holds. For a replicated layout it is the whole axis 0. It panics on a
// grid layout, whose blocks Block gives.
func (l Layout) Range(rank int) (lo, hi int) {
	return l.rangeOf("Layout.Range", rank)
}

// rangeOf is Range, for op.
func (l Layout) rangeOf(op string, rank int) (lo, hi int) {
	l.mustNotBeGrid(op, "its blocks have a range along each axis: use Layout.Block")
	l.checkRank(rank)
	if l.axis == Replicated {
		return 0, l.shape[0]
	}
	return l.starts[rank], l.starts[rank+1]
}

// Owner returns the rank that holds global index i of the split axis. For a
// replicated layout every rank holds it: Owner returns -1. It panics on a
// grid layout, where OwnerOf finds the rank of an element.
func (l Layout) Owner(i int) int {
	l.mustNotBeGrid("Layout.Owner", "no single axis says which rank holds an element: use OwnerOf")
	if l.axis == Replicated {
		return -1
	}
	if i < 0 || i >= l.shape[l.axis] {
		panic(fmt.Sprintf("dist: index %d out of range [0, %d) of axis %d", i, l.shape[l.axis], l.axis))
	}
	// The last rank whose block starts at or before i and is not empty.
	r, _ := slices.BinarySearch(l.starts[1:], i+1)
	return r
}

// OwnerOf returns the rank that holds the element at the global
// multi-index idx (-1 for a replicated layout).
func (l Layout) OwnerOf(idx []int) int {
	if len(idx) != len(l.shape) {
		panic(fmt.Sprintf("dist: index %v for a %d-dimensional array", idx, len(l.shape)))
	}
	for a, i := range idx {
		if i < 0 || i >= l.shape[a] {
			panic(fmt.Sprintf("dist: index %v out of range of shape %v", idx, l.shape))
		}
	}
	switch l.axis {
	case Replicated:
		return -1
	case Grid:
		return l.gridOwner(idx)
	}
	return l.Owner(idx[l.axis])
}

// LocalShape returns the shape of rank's block.
func (l Layout) LocalShape(rank int) []int {
	if l.axis == Grid {
		l.checkRank(rank)
		_, s := l.gridBox(rank)
		return s
	}
	s := slices.Clone(l.shape)
	if l.axis != Replicated {
		lo, hi := l.Range(rank)
		s[l.axis] = hi - lo
	}
	return s
}

// LocalLen returns the number of elements in rank's block.
func (l Layout) LocalLen(rank int) int { return prod(l.LocalShape(rank)) }

// Equal reports whether two layouts have the same shape, split axis, block
// sizes and rank count (and, for grid layouts, the same process grid). A
// grid layout is never equal to a layout split on one axis, even where
// their blocks are the same (a grid of dims [p, 1]).
func (l Layout) Equal(o Layout) bool {
	return l.axis == o.axis && l.ranks == o.ranks && slices.Equal(l.shape, o.shape) && slices.Equal(l.counts, o.counts) &&
		slices.Equal(l.grid, o.grid) && slices.EqualFunc(l.gcounts, o.gcounts, slices.Equal[[]int])
}

func (l Layout) String() string {
	if l.axis == Grid {
		return fmt.Sprintf("shape %v on a process grid %v as %v", l.shape, l.grid, l.gcounts)
	}
	if l.axis == Replicated {
		return fmt.Sprintf("shape %v replicated on %d ranks", l.shape, l.ranks)
	}
	return fmt.Sprintf("shape %v split on axis %d over %d ranks as %v", l.shape, l.axis, l.ranks, l.counts)
}

func (l Layout) checkRank(rank int) {
	if rank < 0 || rank >= l.ranks {
		panic(fmt.Sprintf("dist: rank %d of a layout over %d ranks", rank, l.ranks))
	}
}

// box returns rank's block as a box of the global index space: its start
// and its shape.
func (l Layout) box(rank int) (start, shape []int) {
	if l.axis == Grid {
		return l.gridBox(rank)
	}
	start = make([]int, len(l.shape))
	if l.axis != Replicated {
		start[l.axis], _ = l.Range(rank)
	}
	return start, l.LocalShape(rank)
}

func prod(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}
