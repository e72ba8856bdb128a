package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Grid, as a layout's axis (Layout.Axis), means the array is split along
// several axes at once over a process grid, as PETSc's DMDA splits it:
// NewGridLayout, NewGridLayoutCounts and the ProcessGrid and
// GridBlockSizes options make such layouts. A grid layout has no single
// split axis: Layout.Counts, Range and Owner, and Array.Range, panic on
// it; Block, Coords, GridDims and GridCounts describe its blocks instead.
const Grid = -2

// NewGridLayout returns the layout of shape split over a process grid of
// dims, one entry per dimension of shape (1 for an axis that is not split),
// on prod(dims) ranks. Rank r holds the block at grid coordinates
// Coords(r): ranks are ordered row-major over the grid, the last grid
// axis varying fastest, as MPI_Cart_create orders them without
// reordering. Along each axis a, the first shape[a]%dims[a] grid
// coordinates get shape[a]/dims[a]+1 indices and the others
// shape[a]/dims[a]; blocks may be empty. mpi.DimsCreate chooses balanced
// dims for a rank count; the ProcessGrid option does it for the array
// constructors.
func NewGridLayout(shape, dims []int) Layout {
	checkShape(shape)
	if len(dims) != len(shape) {
		panic(fmt.Sprintf("dist: NewGridLayout: process grid %v for a %d-dimensional shape %v: give one grid dimension per axis (1 for an axis that is not split)", dims, len(shape), shape))
	}
	counts := make([][]int, len(dims))
	for a, p := range dims {
		if p < 1 {
			panic(fmt.Sprintf("dist: NewGridLayout: process grid %v has a dimension below 1 (mpi.DimsCreate, or the ProcessGrid option, chooses the zeros)", dims))
		}
		counts[a] = evenCounts(shape[a], p)
	}
	return newGridLayout(shape, counts)
}

// NewGridLayoutCounts returns the layout of shape split over a process
// grid with the given block sizes: counts[a] holds the sizes of the blocks
// along axis a, one per grid coordinate, and sums to shape[a]. The grid's
// dimensions are the lengths of the counts; ranks are ordered as in
// NewGridLayout.
func NewGridLayoutCounts(shape []int, counts [][]int) Layout {
	checkShape(shape)
	if len(counts) != len(shape) {
		panic(fmt.Sprintf("dist: NewGridLayoutCounts: block sizes for %d axes of a %d-dimensional shape %v", len(counts), len(shape), shape))
	}
	cc := make([][]int, len(counts))
	for a, cs := range counts {
		sum := 0
		for _, n := range cs {
			if n < 0 {
				panic(fmt.Sprintf("dist: NewGridLayoutCounts: negative block size in %v", cs))
			}
			sum += n
		}
		if len(cs) == 0 || sum != shape[a] {
			panic(fmt.Sprintf("dist: NewGridLayoutCounts: block sizes %v do not sum to %d, the length of axis %d of %v", cs, shape[a], a, shape))
		}
		cc[a] = slices.Clone(cs)
	}
	return newGridLayout(shape, cc)
}

func newGridLayout(shape []int, counts [][]int) Layout {
	dims := make([]int, len(counts))
	starts := make([][]int, len(counts))
	p := 1
	for a, cs := range counts {
		dims[a] = len(cs)
		p *= len(cs)
		starts[a] = make([]int, len(cs)+1)
		for i, n := range cs {
			starts[a][i+1] = starts[a][i] + n
		}
	}
	return Layout{shape: slices.Clone(shape), axis: Grid, ranks: p, grid: dims, gcounts: counts, gstarts: starts}
}

// evenCounts returns the even block sizes of n indices over p blocks: the
// first n%p get one more.
func evenCounts(n, p int) []int {
	counts := make([]int, p)
	for r := range counts {
		counts[r] = n / p
		if r < n%p {
			counts[r]++
		}
	}
	return counts
}

// ProcessGrid lays a new array out over a process grid of dims, one entry
// per dimension of its shape, as NewGridLayout does (even blocks along each
// axis). A zero lets mpi.DimsCreate choose that dimension, as
// MPI_Dims_create does: ProcessGrid(0, 0) is the most balanced 2-D grid of
// the communicator's ranks, ProcessGrid(0, 0, 1) splits a 3-D array along
// its first two axes only. The product of dims (with the zeros chosen)
// must be the communicator's size. It cannot be combined with SplitAxis,
// BlockSizes or GridBlockSizes.
func ProcessGrid(dims ...int) Option {
	d := slices.Clone(dims)
	if d == nil {
		d = []int{}
	}
	return func(o *options) { o.grid = d }
}

// GridBlockSizes lays a new array out over a process grid with the given
// block sizes, as NewGridLayoutCounts does: counts[a] are the sizes of the
// blocks along axis a. The grid's size must be the communicator's. It
// cannot be combined with SplitAxis, BlockSizes or ProcessGrid.
func GridBlockSizes(counts ...[]int) Option {
	cc := make([][]int, len(counts))
	for a, cs := range counts {
		cc[a] = slices.Clone(cs)
	}
	return func(o *options) { o.gridCounts = cc }
}

// gridOptions reports whether the options ask for a grid layout, and
// panics on a combination that makes no sense.
func (o *options) gridOptions() bool {
	if o.grid == nil && o.gridCounts == nil {
		return false
	}
	if o.axisSet || o.counts != nil {
		panic("dist: ProcessGrid or GridBlockSizes with SplitAxis or BlockSizes: a layout is split over a process grid or along one axis, not both")
	}
	if o.grid != nil && o.gridCounts != nil {
		panic("dist: ProcessGrid with GridBlockSizes: the block sizes already fix the grid; give one of them")
	}
	return true
}

// gridFits returns an error if the grid options do not fit a shape read
// from a file (Load).
func (o *options) gridFits(shape []int) error {
	if !o.gridOptions() {
		return nil
	}
	n := len(o.grid)
	if o.gridCounts != nil {
		n = len(o.gridCounts)
	}
	if n != len(shape) {
		return fmt.Errorf("a process grid of %d dimensions for the file's %d-dimensional shape %v", n, len(shape), shape)
	}
	return nil
}

// gridLayout returns the grid layout the options ask for, for shape on c.
func (o *options) gridLayout(c mpi.Comm, shape []int) Layout {
	p := c.Size()
	if o.gridCounts != nil {
		if len(o.gridCounts) != len(shape) {
			panic(fmt.Sprintf("dist: GridBlockSizes for %d axes of a %d-dimensional shape %v: give the block sizes along every axis", len(o.gridCounts), len(shape), shape))
		}
		l := NewGridLayoutCounts(shape, o.gridCounts)
		if l.ranks != p {
			panic(fmt.Sprintf("dist: GridBlockSizes: a process grid %v of %d ranks for a communicator of %d", l.grid, l.ranks, p))
		}
		return l
	}
	if len(o.grid) != len(shape) {
		panic(fmt.Sprintf("dist: ProcessGrid%v for a %d-dimensional shape %v: give one grid dimension per axis (1 for an axis that is not split, 0 to let mpi.DimsCreate choose)", o.grid, len(shape), shape))
	}
	fixed := 1
	for _, d := range o.grid {
		if d < 0 {
			panic(fmt.Sprintf("dist: ProcessGrid%v: negative grid dimension", o.grid))
		}
		if d > 0 {
			fixed *= d
		}
	}
	if p%fixed != 0 || (!slices.Contains(o.grid, 0) && fixed != p) {
		panic(fmt.Sprintf("dist: ProcessGrid%v: no grid of %d ranks has those dimensions", o.grid, p))
	}
	dims, err := mpi.DimsCreate(p, len(shape), slices.Clone(o.grid))
	if err != nil {
		panic(fmt.Sprintf("dist: ProcessGrid%v on %d ranks: %v", o.grid, p, err))
	}
	return NewGridLayout(shape, dims)
}

// isGrid reports whether l is a grid layout.
func (l Layout) isGrid() bool { return l.axis == Grid }

// mustNotBeGrid panics, naming op, on a grid layout.
func (l Layout) mustNotBeGrid(op, hint string) {
	if l.axis == Grid {
		panic(fmt.Sprintf("dist: %s of an array on a process grid (%v): %s", op, l, hint))
	}
}

// gridView returns l's blocks as a process grid: the grid's dimensions and,
// per axis, the block sizes and starts (plus the total) along it. A layout
// split on one axis is the grid with its ranks along that axis and 1
// elsewhere. ok is false for a replicated layout, which is no grid.
func (l Layout) gridView() (dims []int, counts, starts [][]int, ok bool) {
	switch l.axis {
	case Replicated:
		return nil, nil, nil, false
	case Grid:
		return l.grid, l.gcounts, l.gstarts, true
	}
	dims = make([]int, len(l.shape))
	counts, starts = make([][]int, len(l.shape)), make([][]int, len(l.shape))
	for a, n := range l.shape {
		if a == l.axis {
			dims[a], counts[a], starts[a] = l.ranks, l.counts, l.starts
			continue
		}
		dims[a], counts[a], starts[a] = 1, []int{n}, []int{0, n}
	}
	return dims, counts, starts, true
}

func (l Layout) mustGridView(op string) (dims []int, counts, starts [][]int) {
	dims, counts, starts, ok := l.gridView()
	if !ok {
		if l.ranks == 0 {
			panic(fmt.Sprintf("dist: Layout.%s of the zero Layout", op))
		}
		panic(fmt.Sprintf("dist: Layout.%s of a replicated layout (%v): every rank holds the whole array, there is no process grid", op, l))
	}
	return dims, counts, starts
}

// GridDims returns the dimensions of the process grid, one per axis: those
// of a grid layout; for a layout split on one axis, the rank count on that
// axis and 1 elsewhere (the same blocks, seen as a grid); nil for a
// replicated layout.
func (l Layout) GridDims() []int {
	dims, _, _, ok := l.gridView()
	if !ok {
		return nil
	}
	return slices.Clone(dims)
}

// GridCounts returns the block sizes along axis, one per grid coordinate
// of that axis (see GridDims): for a layout split on one axis, Counts on
// the split axis and the whole length elsewhere. It panics on a replicated
// layout.
func (l Layout) GridCounts(axis int) []int {
	_, counts, _ := l.mustGridView("GridCounts")
	if axis < 0 || axis >= len(l.shape) {
		panic(fmt.Sprintf("dist: Layout.GridCounts: axis %d of a %d-dimensional shape %v", axis, len(l.shape), l.shape))
	}
	return slices.Clone(counts[axis])
}

// Coords returns rank's coordinates in the process grid (see GridDims):
// ranks are ordered row-major over the grid, as MPI_Cart_coords orders
// them. It panics on a replicated layout.
func (l Layout) Coords(rank int) []int {
	dims, _, _ := l.mustGridView("Coords")
	l.checkRank(rank)
	c := make([]int, len(dims))
	unravel(rank, dims, c)
	return c
}

// RankAt returns the rank at coordinates coords of the process grid, as
// MPI_Cart_rank does. It panics on coordinates outside the grid and on a
// replicated layout.
func (l Layout) RankAt(coords []int) int {
	dims, _, _ := l.mustGridView("RankAt")
	if len(coords) != len(dims) {
		panic(fmt.Sprintf("dist: Layout.RankAt: coordinates %v on a %d-dimensional process grid %v", coords, len(dims), dims))
	}
	for a, c := range coords {
		if c < 0 || c >= dims[a] {
			panic(fmt.Sprintf("dist: Layout.RankAt: coordinates %v outside the process grid %v", coords, dims))
		}
	}
	return ravel(coords, dims)
}

// Neighbor returns the rank whose grid coordinates are rank's plus offset
// (one entry per axis), or -1 when they fall outside the grid. With
// periodic, coordinates wrap around every axis instead. It is what a halo
// exchange on the grid asks: an offset with one nonzero entry (±1) names a
// face neighbor, one with several nonzero entries an edge or corner
// neighbor. Neighbors are grid neighbors: a neighbor's block may be empty
// (GridCounts says so), in which case the data next to rank's block
// belongs to a block further on. It panics on a replicated layout.
func (l Layout) Neighbor(rank int, offset []int, periodic bool) int {
	dims, _, _ := l.mustGridView("Neighbor")
	if len(offset) != len(dims) {
		panic(fmt.Sprintf("dist: Layout.Neighbor: offset %v on a %d-dimensional process grid %v", offset, len(dims), dims))
	}
	c := l.Coords(rank)
	for a := range c {
		c[a] += offset[a]
		if periodic {
			c[a] = ((c[a] % dims[a]) + dims[a]) % dims[a]
		} else if c[a] < 0 || c[a] >= dims[a] {
			return -1
		}
	}
	return ravel(c, dims)
}

// Block returns rank's block as a box of the global index space: the
// global index of its first element along each axis, and its shape (that
// of LocalShape). For a replicated layout it is the whole array.
//
// A halo plan on a grid is computed from Block, Neighbor and GridCounts
// alone, for every rank without communicating: the face of rank's block
// on the low side of axis a, w wide, is the box that starts at start and
// has shape[a] replaced by w; rank's ghost layer there is that box moved
// by -w along a, which lies in the block of Neighbor(rank, -e_a) when that
// block is at least w wide along a (GridCounts(a)), and otherwise spans
// the blocks further on. An edge or corner is the box whose extent along
// each axis with a nonzero offset is the w-wide slab and along the others
// the block's, exchanged with Neighbor(rank, offset). The box
// intersections that Redistribute uses compute the same pieces for any
// widths.
func (l Layout) Block(rank int) (start, shape []int) {
	l.checkRank(rank)
	return l.box(rank)
}

// gridBox returns rank's block of a grid layout.
func (l Layout) gridBox(rank int) (start, shape []int) {
	c := make([]int, len(l.grid))
	unravel(rank, l.grid, c)
	start, shape = make([]int, len(c)), make([]int, len(c))
	for a, i := range c {
		start[a], shape[a] = l.gstarts[a][i], l.gcounts[a][i]
	}
	return start, shape
}

// gridOwner returns the rank of a grid layout that holds the element at
// the global multi-index idx, which is in range.
func (l Layout) gridOwner(idx []int) int {
	c := make([]int, len(idx))
	for a, i := range idx {
		// The last grid coordinate whose block starts at or before i and
		// is not empty.
		c[a], _ = slices.BinarySearch(l.gstarts[a][1:], i+1)
	}
	return ravel(c, l.grid)
}

// offGridAxis returns the axis that an axis reduction along axis of a grid
// layout redistributes to: the axis other than axis with the most grid
// ranks (the first of equals), or 0 for a 1-D layout.
func (l Layout) offGridAxis(axis int) int {
	if axis < 0 || axis >= len(l.shape) {
		panic(fmt.Sprintf("dist: reduction along axis %d of shape %v", axis, l.shape))
	}
	best := -1
	for a, d := range l.grid {
		if a != axis && (best < 0 || d > l.grid[best]) {
			best = a
		}
	}
	return max(best, 0)
}

// offGrid returns x, an array on a process grid, redistributed to the even
// layout split on offGridAxis(axis), for a reduction along axis. It is
// collective.
func offGrid[T backend.Numeric](x *Array[T], axis int) (*Array[T], error) {
	return Redistribute(x, NewLayout(x.layout.shape, x.layout.offGridAxis(axis), x.layout.ranks))
}

// evenLike returns the even layout of the same kind as l for shape, which
// has l's number of dimensions: split evenly along l's split axis (NewLayout),
// replicated if l is, or on a process grid of l's dimensions with even
// blocks (NewGridLayout).
func (l Layout) evenLike(shape []int) Layout {
	if l.axis == Grid {
		return NewGridLayout(shape, l.grid)
	}
	return NewLayout(shape, l.axis, l.ranks)
}
