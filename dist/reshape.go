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
// Otherwise the result is a new array split evenly along axis 0 (NewLayout)
// on x's backend, and the elements move in one all-to-all of contiguous
// runs of the row-major order (one run per block for x split along axis
// 0, one per row of the block's leading axes for x split along another
// axis). Blocks on a device stay there, packed and unpacked on the
// device. It is collective.
func Reshape[T backend.Numeric](x *Array[T], shape ...int) (_ *Array[T], err error) {
	if x.freed {
		return nil, freedCollective("Reshape", x.comm)
	}
	singleAxis("Reshape", x.layout)
	shape = inferShape(x.layout.shape, shape)
	if err := check("Reshape", x, mpi.Arg{Name: "shape", Value: NewLayout(shape, Replicated, 1).hash()}); err != nil {
		return nil, err
	}
	p := x.comm.Size()
	if x.layout.axis == Replicated {
		return &Array[T]{comm: x.comm, layout: NewLayout(shape, Replicated, p), local: x.local.Slice(0, x.local.Len())}, nil
	}
	row := prod(shape[1:])
	if x.layout.axis == 0 {
		xrow := prod(x.layout.shape[1:])
		counts := make([]int, p)
		whole := true
		for r := 0; r < p && whole; r++ {
			n := x.layout.counts[r] * xrow
			if row == 0 || n%row != 0 || (x.layout.starts[r]*xrow)%row != 0 {
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

// Transpose returns the transpose of a 2-D array, as NumPy's x.T: a new
// array of shape [n1, n0] split evenly along axis 0 (NewLayout), or
// replicated if x is, on x's backend. Each rank packs the transposed parts
// of its block that the other ranks' new blocks hold (a local transpose,
// on the device for a device block) and sends them in one all-to-all. It
// is collective.
func Transpose[T backend.Numeric](x *Array[T]) (_ *Array[T], err error) {
	if x.freed {
		return nil, freedCollective("Transpose", x.comm)
	}
	singleAxis("Transpose", x.layout)
	if len(x.layout.shape) != 2 {
		panic(fmt.Sprintf("dist: Transpose of a %d-dimensional array: only 2-D arrays", len(x.layout.shape)))
	}
	if err := check("Transpose", x); err != nil {
		return nil, err
	}
	shape := []int{x.layout.shape[1], x.layout.shape[0]}
	axis := 0
	if x.layout.axis == Replicated {
		axis = Replicated
	}
	l := NewLayout(shape, axis, x.comm.Size())
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
		bs, bsh := x.layout.box(r)
		return []piece{{
			start: []int{bs[1], bs[0]}, shape: []int{bsh[1], bsh[0]},
			base: -bs[0]*bsh[1] - bs[1], mul: []int{1, bsh[1]},
			local: x.layout.axis == Replicated,
		}}
	}
	m := move{send: send, recv: layoutPieces(l)}
	if err := moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{x.local}, out.local, "dist.Transpose"); err != nil {
		return nil, err
	}
	return out, nil
}
