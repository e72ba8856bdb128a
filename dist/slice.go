package dist

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Range selects global indices of one axis as NumPy's start:stop:step
// does: Start, Start+Step, ... while before Stop. Negative Start and Stop
// count from the end of the axis, and both are clamped to it, as in
// NumPy; math.MaxInt and math.MinInt stand for NumPy's omitted bounds
// (AllIndices is 0:MaxInt:1, and Range{math.MaxInt, math.MinInt, -1} is ::-1).
// A Step of 0 means 1 (so that Range{2, 5} is 2:5); negative steps walk
// the axis backwards.
type Range struct {
	Start, Stop, Step int
}

// AllIndices returns the Range of a whole axis, NumPy's ":".
func AllIndices() Range { return Range{0, math.MaxInt, 1} }

// Indices returns the normalized start, stop and step of r for an axis of
// length n and the number of indices it selects, as Python's
// slice.indices does: indices start, start+step, ... (length of them)
// all lie in [0, n).
func (r Range) Indices(n int) (start, stop, step, length int) {
	if n < 0 {
		panic(fmt.Sprintf("dist: Range.Indices of an axis of length %d", n))
	}
	step = r.Step
	if step == 0 {
		step = 1
	}
	lower, upper := 0, n
	if step < 0 {
		lower, upper = -1, n-1
	}
	clamp := func(i int) int {
		if i < 0 {
			i += n
			if i < lower {
				i = lower
			}
		} else if i > upper {
			i = upper
		}
		return i
	}
	start, stop = clamp(r.Start), clamp(r.Stop)
	if step > 0 {
		if stop > start {
			length = (stop - start + step - 1) / step
		}
	} else if start > stop {
		length = (start - stop - step - 1) / -step
	}
	return start, stop, step, length
}

func (r Range) String() string {
	b := func(i int) string {
		if i == math.MaxInt || i == math.MinInt {
			return ""
		}
		return fmt.Sprint(i)
	}
	step := r.Step
	if step == 0 {
		step = 1
	}
	return fmt.Sprintf("%s:%s:%d", b(r.Start), b(r.Stop), step)
}

// selection is a slice normalized for a shape: per axis the first index,
// the step and the number of indices.
type selection struct {
	start, step, n []int
}

// selectionOf normalizes ranges (at most one per axis; missing trailing
// axes are whole) for shape.
func selectionOf(op string, shape []int, ranges []Range) selection {
	if len(ranges) > len(shape) {
		panic(fmt.Sprintf("dist: %s: %d ranges for a %d-dimensional array", op, len(ranges), len(shape)))
	}
	d := len(shape)
	s := selection{make([]int, d), make([]int, d), make([]int, d)}
	for a := range shape {
		r := AllIndices()
		if a < len(ranges) {
			r = ranges[a]
		}
		s.start[a], _, s.step[a], s.n[a] = r.Indices(shape[a])
	}
	return s
}

// hash returns a hash of the selection, for the checking mode.
func (s selection) hash() int64 {
	var h int64 = 17
	for a := range s.n {
		for _, v := range []int{s.start[a], s.step[a], s.n[a]} {
			h = h*1000003 + int64(v)
		}
	}
	return h
}

// pieces returns the part of rank r's block of l (an array of the
// selection's source) that the selection covers, as a piece of the
// selection's index space.
func (s selection) pieces(l Layout) func(r int) []piece {
	return func(r int) []piece {
		bstart, bshape := l.box(r)
		d := len(bshape)
		pc := piece{start: make([]int, d), shape: make([]int, d), mul: make([]int, d), local: l.axis == Replicated}
		stride := 1
		for a := d - 1; a >= 0; a-- {
			lo, hi := s.within(a, bstart[a], bstart[a]+bshape[a])
			pc.start[a], pc.shape[a] = lo, hi-lo
			pc.mul[a] = s.step[a] * stride
			pc.base += (s.start[a] - bstart[a]) * stride
			stride *= bshape[a]
		}
		return []piece{pc}
	}
}

// within returns the indices [lo, hi) of the selection along axis a whose
// source indices lie in [blo, bhi).
func (s selection) within(a, blo, bhi int) (lo, hi int) {
	st, step, n := s.start[a], s.step[a], s.n[a]
	if step > 0 {
		lo, hi = ceilDiv(blo-st, step), ceilDiv(bhi-st, step)
	} else {
		// st + g*step in [blo, bhi) with step = -k: g in ((st-bhi)/k, (st-blo)/k].
		k := -step
		lo, hi = floorDiv(st-bhi, k)+1, floorDiv(st-blo, k)+1
	}
	lo, hi = max(lo, 0), min(hi, n)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }

// Slice returns a new array holding the elements of x that ranges select,
// one Range per axis from the first (missing trailing axes are whole), as
// NumPy's x[r0, r1, ...] with slices does; the result keeps every axis.
// The result is split evenly (NewLayout) along x's split axis, or
// replicated if x is, on x's backend. The result of an array on a process
// grid (ProcessGrid, GridBlockSizes; with or without ghost layers, which
// the result has not) is on a process grid of the same dimensions with
// even blocks: NewGridLayout(shape, x.Layout().GridDims()), so that a
// selection from one corner of the array is balanced again. Each rank
// sends every other the selected elements of its block that the other's
// new block holds, in one all-to-all: at most the selected elements cross
// the network, and none where every rank's new block lies in its old one
// (a replicated x, one rank); a block on a device stays there, packed on
// the device. It is collective.
func Slice[T backend.Numeric](x *Array[T], ranges ...Range) (_ *Array[T], err error) {
	if x.freed {
		return nil, freedCollective("Slice", x.comm)
	}
	sel := selectionOf("Slice", x.layout.shape, ranges)
	if err := check("Slice", x, mpi.Arg{Name: "ranges", Value: sel.hash()}); err != nil {
		return nil, err
	}
	l := x.layout.evenLike(sel.n)
	out, err := newOn[T](x.comm, l, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	m := move{send: sel.pieces(x.layout), recv: layoutPieces(l)}
	if err := moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{x.local}, out.local, "dist.Slice"); err != nil {
		return nil, err
	}
	return out, nil
}

// SetSlice copies v into the elements of x that ranges select (as Slice
// selects them), as NumPy's x[r0, r1, ...] = v. v must have the shape of
// the selection (Slice's result); x and v may each have any layout (split
// on any axis, on a process grid, or replicated) on the same
// communicator, and v's blocks must be on the device of x's. The elements
// move in one all-to-all, packed and unpacked on the device: each rank
// receives the part of the selection that its block of x holds from the
// ranks whose blocks of v hold it. v may be x itself (NumPy's x[::-1] =
// x): every element is read before any is written, as in NumPy. It is
// collective.
func SetSlice[T backend.Numeric](x *Array[T], ranges []Range, v *Array[T]) error {
	if x.freed || v.freed {
		return freedCollective("SetSlice", x.comm)
	}
	sel := selectionOf("SetSlice", x.layout.shape, ranges)
	if !equalInts(sel.n, v.layout.shape) {
		panic(fmt.Sprintf("dist: SetSlice of a selection of shape %v from an array of shape %v", sel.n, v.layout.shape))
	}
	sameDevice("SetSlice", x, v)
	if err := check("SetSlice", x, mpi.Arg{Name: "ranges", Value: sel.hash()}, mpi.Arg{Name: "v", Value: v.layout.hash(), Text: v.layout.String()}); err != nil {
		return err
	}
	m := move{send: layoutPieces(v.layout), recv: sel.pieces(x.layout)}
	return moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{v.local}, x.local, "dist.SetSlice")
}

// SetSliceScalar sets every element of x that ranges select (as Slice
// selects them) to s, as NumPy's x[r0, r1, ...] = s. It needs no
// communication: each rank sets the selected elements of its own block,
// on its device (one fill per contiguous run), on any layout (a process
// grid included). It is not collective, but every rank must call it for
// the whole selection to be set.
func SetSliceScalar[T backend.Numeric](x *Array[T], ranges []Range, s T) {
	if x.freed {
		panic(freedError("SetSliceScalar"))
	}
	sel := selectionOf("SetSliceScalar", x.layout.shape, ranges)
	pc := sel.pieces(x.layout)(x.comm.Rank())[0]
	var runs []prun
	off := 0
	runs = emitRuns(pc, pc.start, pc.shape, runs, &off)
	if x.local.Device().IsHost() {
		d := x.local.Data()
		for _, r := range runs {
			for i := r.block; i < r.block+r.n; i++ {
				d[i] = s
			}
		}
		return
	}
	for _, r := range runs {
		backend.Fill(x.local.Slice(r.block, r.block+r.n), s)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
