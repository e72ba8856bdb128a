package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Reshape returns x's elements with a new global shape of as many
// elements, in row-major order as NumPy's reshape: one dimension may be
// -1, which is inferred.
//
// Where no element has to move, the result is a view that shares x's
// memory and nothing is copied or sent: when x is replicated (the result
// is), and when x is split along axis 0 and every rank's block is whole
// rows of the new shape (blocks of x that start and end at multiples of
// the product of shape[1:]; the result is split along axis 0 with those
// blocks). A view's Free releases nothing, and it is valid while x's
// memory is.
//
// An array on a process grid whose grid splits axis 0 alone (a grid of
// dims [p, 1, ...], as ProcessGrid chooses for some shapes and rank
// counts) is taken as split along axis 0 with the grid's blocks.
//
// Otherwise the result is a new array split evenly along axis 0 (NewLayout)
// on x's backend, and the elements move in one all-to-all of contiguous
// runs of the row-major order (one run per block for x split along axis
// 0, one per row of the block's leading axes for x split along another
// axis or over a process grid, whose blocks are boxes: a rank's runs are
// its block's rows along the last axis). Every element not already in its
// new block crosses the network once. Blocks on a device stay there,
// packed and unpacked on the device. It is collective.
func Reshape[T backend.Numeric](x *Array[T], shape ...int) (_ *Array[T], err error) {
	if x.freed {
		return nil, freedCollective("Reshape", x.comm)
	}
	shape = inferShape(x.layout.shape, shape)
	if err := check("Reshape", x, mpi.Arg{Name: "shape", Value: NewLayout(shape, Replicated, 1).hash()}); err != nil {
		return nil, err
	}
	p := x.comm.Size()
	if x.layout.axis == Replicated {
		return &Array[T]{comm: x.comm, layout: NewLayout(shape, Replicated, p), local: x.local.Slice(0, x.local.Len())}, nil
	}
	row := prod(shape[1:])
	if xcounts, xstarts, ok := x.layout.rowBlocks(); ok {
		xrow := prod(x.layout.shape[1:])
		counts := make([]int, p)
		whole := true
		for r := 0; r < p && whole; r++ {
			n := xcounts[r] * xrow
			if row == 0 || n%row != 0 || (xstarts[r]*xrow)%row != 0 {
				whole = false
			} else {
				counts[r] = n / row
			}
		}
		if row == 0 && prod(shape) == 0 && x.Len() == 0 {
			// No elements: every block is empty whatever the split.
			return &Array[T]{comm: x.comm, layout: NewLayout(shape, 0, p), local: x.local.Slice(0, 0)}, nil
		}
		if whole {
			return &Array[T]{comm: x.comm, layout: NewLayoutCounts(shape, 0, counts), local: x.local.Slice(0, x.local.Len())}, nil
		}
	}
	l := NewLayout(shape, 0, p)
	out, err := newOn[T](x.comm, l, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	m := move{send: flatPieces(x.layout), recv: flatPieces(l)}
	if err := moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{x.local}, out.local, "dist.Reshape"); err != nil {
		return nil, err
	}
	return out, nil
}

// rowBlocks returns the block sizes and starts along axis 0, rank by rank,
// of a layout whose blocks are whole rows in rank order: split along axis
// 0, or on a process grid that splits axis 0 alone (ranks are row-major
// over the grid, so rank r is at grid coordinate r along axis 0). ok is
// false for the other layouts.
func (l Layout) rowBlocks() (counts, starts []int, ok bool) {
	switch l.axis {
	case 0:
		return l.counts, l.starts, true
	case Grid:
		for _, d := range l.grid[1:] {
			if d != 1 {
				return nil, nil, false
			}
		}
		return l.gcounts[0], l.gstarts[0], true
	}
	return nil, nil, false
}

// flatPieces returns rank r's block of l as pieces of the flat
// (row-major) index space: one per contiguous run of the block in the
// global array (one for a split along axis 0).
func flatPieces(l Layout) func(r int) []piece {
	return func(r int) []piece {
		st, sh := l.box(r)
		var ps []piece
		boxRuns(make([]int, len(l.shape)), l.shape, st, sh, func(g, local, n int) {
			ps = append(ps, piece{start: []int{g}, shape: []int{n}, base: local - g, mul: []int{1}, local: l.axis == Replicated})
		})
		return ps
	}
}

// inferShape returns shape with a -1 replaced by what makes its size old's,
// and panics if that cannot be done.
func inferShape(old, shape []int) []int {
	shape = slices.Clone(shape)
	n := prod(old)
	if len(shape) == 0 {
		panic("dist: Reshape to an empty shape: arrays have at least one dimension")
	}
	free, known := -1, 1
	for a, d := range shape {
		switch {
		case d == -1 && free < 0:
			free = a
		case d < 0:
			panic(fmt.Sprintf("dist: Reshape of %v to %v: bad dimension %d", old, shape, d))
		default:
			known *= d
		}
	}
	if free >= 0 {
		if known == 0 || n%known != 0 {
			panic(fmt.Sprintf("dist: Reshape of %v (%d elements) to %v", old, n, shape))
		}
		shape[free] = n / known
	}
	if prod(shape) != n {
		panic(fmt.Sprintf("dist: Reshape of %v (%d elements) to %v (%d elements)", old, n, shape, prod(shape)))
	}
	return shape
}

// Transpose returns x with its axes permuted, as NumPy's
// x.transpose(axes): axis i of the result is axis axes[i] of x (negative
// axes count from the end). Without axes it reverses them, as NumPy's x.T:
// the transpose of a 2-D array, and a copy of a 1-D one. The result is a
// new array on x's backend:
//
//   - x replicated: replicated, with no communication;
//   - x split along one axis: split evenly along axis 0 (NewLayout);
//   - x on a process grid (with or without ghost layers, which the result
//     has not): on the process grid with its dimensions permuted as the
//     axes are, each block keeping its sizes (NewGridLayoutCounts of the
//     permuted GridCounts). Each block is transposed locally and goes to
//     the rank at its permuted grid coordinates: no communication where
//     that is the same rank (the grid splits one axis, as a p x 1 grid
//     does, or the permutation keeps the order of the split axes), and
//     otherwise each rank sends its whole block to one rank.
//
// Each rank packs the transposed parts of its block that the other ranks'
// new blocks hold (a local transpose, on the device for a device block)
// and sends them in one all-to-all. It is collective.
func Transpose[T backend.Numeric](x *Array[T], axes ...int) (_ *Array[T], err error) {
	if x.freed {
		return nil, freedCollective("Transpose", x.comm)
	}
	xl := x.layout
	d := len(xl.shape)
	perm := transposeAxes(xl.shape, axes)
	if err := check("Transpose", x, mpi.Arg{Name: "axes", Value: NewLayout(perm, Replicated, 1).hash()}); err != nil {
		return nil, err
	}
	shape := make([]int, d)
	for i, a := range perm {
		shape[i] = xl.shape[a]
	}
	var l Layout
	switch xl.axis {
	case Replicated:
		l = NewLayout(shape, Replicated, x.comm.Size())
	case Grid:
		counts := make([][]int, d)
		for i, a := range perm {
			counts[i] = xl.gcounts[a]
		}
		l = NewGridLayoutCounts(shape, counts)
	default:
		l = NewLayout(shape, 0, x.comm.Size())
	}
	out, err := newOn[T](x.comm, l, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	send := func(r int) []piece {
		bs, bsh := xl.box(r)
		stride := make([]int, d)
		s := 1
		for a := d - 1; a >= 0; a-- {
			stride[a] = s
			s *= bsh[a]
		}
		pc := piece{start: make([]int, d), shape: make([]int, d), mul: make([]int, d), local: xl.axis == Replicated}
		for i, a := range perm {
			pc.start[i], pc.shape[i], pc.mul[i] = bs[a], bsh[a], stride[a]
			pc.base -= bs[a] * stride[a]
		}
		return []piece{pc}
	}
	m := move{send: send, recv: layoutPieces(l)}
	if err := moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{x.local}, out.local, "dist.Transpose"); err != nil {
		return nil, err
	}
	return out, nil
}

// transposeAxes returns the permutation that axes give for an array of
// shape (the reversed axes when there are none), and panics on one that is
// not a permutation of its axes.
func transposeAxes(shape, axes []int) []int {
	d := len(shape)
	if len(axes) == 0 {
		perm := make([]int, d)
		for i := range perm {
			perm[i] = d - 1 - i
		}
		return perm
	}
	if len(axes) != d {
		panic(fmt.Sprintf("dist: Transpose of a %d-dimensional array with axes %v: give one axis per dimension", d, axes))
	}
	perm := make([]int, d)
	seen := make([]bool, d)
	for i, a := range axes {
		if a < -d || a >= d {
			panic(fmt.Sprintf("dist: Transpose of a %d-dimensional array with axes %v: axis %d out of range", d, axes, a))
		}
		if a < 0 {
			a += d
		}
		if seen[a] {
			panic(fmt.Sprintf("dist: Transpose with axes %v: repeated axis %d", axes, a))
		}
		seen[a] = true
		perm[i] = a
	}
	return perm
}
