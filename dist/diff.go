package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// DiffOption adds values before or after x along Diff's axis, as NumPy's
// prepend and append arguments of diff.
type DiffOption[T backend.Numeric] func(*diffEnds[T])

type diffEnds[T backend.Numeric] struct {
	pre, app   *Array[T]
	preV, appV *T
}

// Prepend puts v before x along Diff's axis (one index: NumPy's scalar
// prepend, broadcast along the other axes).
func Prepend[T backend.Numeric](v T) DiffOption[T] {
	return func(e *diffEnds[T]) { e.preV, e.pre = &v, nil }
}

// Append puts v after x along Diff's axis (one index).
func Append[T backend.Numeric](v T) DiffOption[T] {
	return func(e *diffEnds[T]) { e.appV, e.app = &v, nil }
}

// PrependArray puts the array a before x along Diff's axis: a has x's
// shape but along the axis, x's communicator and its blocks on x's
// device; it may have any layout.
func PrependArray[T backend.Numeric](a *Array[T]) DiffOption[T] {
	return func(e *diffEnds[T]) { e.pre, e.preV = a, nil }
}

// AppendArray puts the array a after x along Diff's axis, as
// PrependArray.
func AppendArray[T backend.Numeric](a *Array[T]) DiffOption[T] {
	return func(e *diffEnds[T]) { e.app, e.appV = a, nil }
}

// Diff returns the n-th discrete difference of x along axis, as NumPy's
// diff(x, n, axis, prepend, append): out[i] = x[i+1] - x[i], n times, on
// x with the Prepend and Append values (or arrays) joined along the axis
// first. The result has n fewer indices along the axis (none when n is
// at least their number); n = 0 returns a copy of x, ignoring the ends, as
// NumPy does. n may not be negative; a negative axis counts from the end.
// Integers wrap, as NumPy's do (unsigned differences included). It takes
// every element type and layout.
//
// The result is laid out as x is (replicated, split along the same axis,
// or on the same process grid), with x's blocks along the other axes and
// even blocks along axis; it has no ghost layers and lives on x's
// backend. It is collective: one all-to-all in which every rank receives
// its result block's window (its block and the n indices after it along
// the axis, from x and the ends), then n subtractions of shifted slices
// of the window on the block's device.
func Diff[T backend.Numeric](x *Array[T], n, axis int, opts ...DiffOption[T]) (_ *Array[T], err error) {
	const op = "Diff"
	var ends diffEnds[T]
	for _, o := range opts {
		if o != nil {
			o(&ends)
		}
	}
	if err := checkLive(op, x.comm, x, ends.pre, ends.app); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("dist: %s: order must be non-negative but got %d", op, n)
	}
	shape := x.layout.shape
	a, err := axisArg(op, axis, len(shape))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if err := check(op, x, mpi.Arg{Name: "n", Value: 0}); err != nil {
			return nil, err
		}
		return x.Copy()
	}
	endLen := func(e *Array[T], v *T, which string) (int, error) {
		if v != nil {
			return 1, nil
		}
		if e == nil {
			return 0, nil
		}
		es := e.layout.shape
		if len(es) != len(shape) {
			return 0, fmt.Errorf("dist: %s: %s of shape %v for x of shape %v: the dimensions differ", op, which, es, shape)
		}
		for b := range es {
			if b != a && es[b] != shape[b] {
				return 0, fmt.Errorf("dist: %s: %s of shape %v for x of shape %v along axis %d: the shapes must match but along the axis", op, which, es, shape, a)
			}
		}
		if e.comm != x.comm {
			return 0, fmt.Errorf("dist: %s: %s is on another communicator", op, which)
		}
		if e.local.Device() != x.local.Device() {
			return 0, fmt.Errorf("dist: %s: %s's blocks are on %v, x's on %v: move one with ToHost or ToDevice", op, which, e.local.Device(), x.local.Device())
		}
		return es[a], nil
	}
	npre, err := endLen(ends.pre, ends.preV, "the prepended array")
	if err != nil {
		return nil, err
	}
	napp, err := endLen(ends.app, ends.appV, "the appended array")
	if err != nil {
		return nil, err
	}
	m := npre + shape[a] + napp
	oshape := slices.Clone(shape)
	oshape[a] = max(m-n, 0)
	hv := []int{n, a, npre, napp}
	for _, e := range []*Array[T]{ends.pre, ends.app} {
		if e != nil {
			hv = append(hv, int(e.layout.hash()))
		}
	}
	args := []mpi.Arg{{Name: "n, axis, ends", Value: hashInts(hv...)}}
	if err := check(op, x, args...); err != nil {
		return nil, err
	}
	b := x.local.Backend()
	l := reshaped(x.layout, oshape, sameAxes)
	out, err := newOn[T](x.comm, l, b)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()

	// The sources, as pieces of the index space of x joined with its ends
	// along the axis (m indices).
	srcs := []*backend.Array[T]{x.local}
	var consts []*backend.Array[T]
	defer func() {
		for _, c := range consts {
			c.Free()
		}
	}()
	type part struct {
		arr, at, n int
		e          *Array[T]
	}
	parts := []part{{0, npre, shape[a], x}}
	addEnd := func(e *Array[T], v *T, at int) error {
		switch {
		case v != nil:
			c, err := backend.NewOn[T](b, 1)
			if err != nil {
				return err
			}
			consts = append(consts, c)
			backend.Fill(c, *v)
			srcs = append(srcs, c)
			parts = append(parts, part{len(srcs) - 1, at, 1, nil})
		case e != nil:
			srcs = append(srcs, e.local)
			parts = append(parts, part{len(srcs) - 1, at, e.layout.shape[a], e})
		}
		return nil
	}
	err = addEnd(ends.pre, ends.preV, 0)
	if err == nil {
		err = addEnd(ends.app, ends.appV, npre+shape[a])
	}
	if err := mpi.Agree(x.comm, err); err != nil {
		return nil, err
	}
	joined := slices.Clone(shape)
	joined[a] = m
	send := func(r int) []piece {
		var ps []piece
		for _, p := range parts {
			if p.e == nil { // a value: every index of the end, from one element
				st := make([]int, len(shape))
				st[a] = p.at
				sh := slices.Clone(joined)
				sh[a] = 1
				ps = append(ps, piece{arr: p.arr, start: st, shape: sh, mul: make([]int, len(shape)), local: true})
				continue
			}
			st, sh := p.e.layout.box(r)
			pc := blockPiece(p.arr, st, sh, a, p.at)
			pc.local = p.e.layout.axis == Replicated
			ps = append(ps, pc)
		}
		return ps
	}
	// Every rank receives its result block's window: the block and the n
	// indices after it along the axis, with the axis outermost.
	window := func(r int) (st, sh []int, pc piece, ok bool) {
		st, sh = l.box(r)
		if prod(sh) == 0 {
			return nil, nil, piece{}, false
		}
		wsh := slices.Clone(sh)
		wsh[a] += n
		inner := prod(sh) / sh[a]
		mul := make([]int, len(sh))
		s := 1
		for d := len(sh) - 1; d >= 0; d-- {
			if d == a {
				continue
			}
			mul[d] = s
			s *= sh[d]
		}
		mul[a] = inner
		base := 0
		for d := range st {
			base -= st[d] * mul[d]
		}
		return st, sh, piece{start: slices.Clone(st), shape: wsh, base: base, mul: mul}, true
	}
	recv := func(r int) []piece {
		if _, _, pc, ok := window(r); ok {
			return []piece{pc}
		}
		return nil
	}
	me := x.comm.Rank()
	_, sh, _, ok := window(me)
	var w0, w1 *backend.Array[T]
	if ok {
		inner := prod(sh) / sh[a]
		w0, err = backend.NewOn[T](b, (sh[a]+n)*inner)
		if err == nil {
			if w1, err = backend.NewOn[T](b, (sh[a]+n-1)*inner); err != nil {
				w0.Free()
			}
		}
	}
	if err := mpi.Agree(x.comm, err); err != nil {
		return nil, err
	}
	if !ok {
		// An empty block still takes part in the all-to-all.
		empty, err := backend.NewOn[T](b, 0)
		if err != nil {
			return nil, err
		}
		defer empty.Free()
		return out, moveDo(move{send: send, recv: recv}, x.comm, b, srcs, empty, "dist.Diff")
	}
	defer w0.Free()
	defer w1.Free()
	if err := moveDo(move{send: send, recv: recv}, x.comm, b, srcs, w0, "dist.Diff"); err != nil {
		return nil, err
	}
	inner := prod(sh) / sh[a]
	cur, next := w0, w1
	for k := 1; k <= n; k++ {
		L := (sh[a] + n - k) * inner
		backend.Apply(backend.Sub, next.Slice(0, L), cur.Slice(inner, inner+L), cur.Slice(0, L))
		cur, next = next, cur
	}
	res := cur.Slice(0, prod(sh))
	if prod(sh[:a]) == 1 {
		backend.Copy(out.local, res)
		return out, nil
	}
	// From the axis-major window to the block's row-major order.
	pos := make([]int, prod(sh))
	idx := make([]int, len(sh))
	for i := range pos {
		unravel(i, sh, idx)
		off, s := 0, 1
		for d := len(sh) - 1; d >= 0; d-- {
			if d == a {
				continue
			}
			off += idx[d] * s
			s *= sh[d]
		}
		pos[i] = idx[a]*s + off
	}
	return out, localTake(out.local, res, pos, "dist.Diff")
}
