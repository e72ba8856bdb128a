package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// Broadcast sets dst = x op y elementwise (op is backend.Add, Sub, Mul or
// Div) with NumPy's broadcasting of a replicated operand: one of x and y
// has dst's layout and communicator, and the other is replicated with a
// shape that broadcasts to dst's shape (aligned at the last axis, every
// dimension equal to dst's or 1, leading dimensions allowed to be
// missing): a row vector of shape [n1] against a split [n0, n1] array, a
// column [n0, 1], or a scalar-shaped [1] array. When both have dst's
// layout it is the plain elementwise operation. dst may be the operand
// with its layout.
//
// It needs no communication: each rank expands the part of the replicated
// operand that its block meets into a temporary block on the same device
// (a gather of the distinct part, then copies that double it along the
// broadcast leading axes) and applies op there; nothing goes through the
// host. It returns an error only if that temporary cannot be allocated.
// Every rank calls it, but it is not collective.
func Broadcast[T backend.Numeric](op backend.BinaryOp, dst, x, y *Array[T]) error {
	if dst.freed || x.freed || y.freed {
		return freedError("Broadcast")
	}
	singleAxis("Broadcast", dst.layout, x.layout, y.layout)
	sameDevice("Broadcast", dst, x, y)
	xs, ys := x.layout.Equal(dst.layout), y.layout.Equal(dst.layout)
	switch {
	case xs && ys:
		backend.Apply(op, dst.local, x.local, y.local)
		return nil
	case xs:
		e, err := expand("Broadcast", y, dst)
		if err != nil {
			return err
		}
		defer e.Free()
		backend.Apply(op, dst.local, x.local, e)
	case ys:
		e, err := expand("Broadcast", x, dst)
		if err != nil {
			return err
		}
		defer e.Free()
		backend.Apply(op, dst.local, e, y.local)
	default:
		panic(fmt.Sprintf("dist: Broadcast into %v: neither operand (%v, %v) has its layout", dst.layout, x.layout, y.layout))
	}
	return nil
}

// BroadcastShape reports whether shape broadcasts to the shape to, as
// NumPy broadcasts an operand to the other's shape. It does not
// communicate.
func BroadcastShape(shape, to []int) bool {
	if len(shape) > len(to) {
		return false
	}
	k := len(to) - len(shape)
	for a, d := range shape {
		if d != 1 && d != to[k+a] {
			return false
		}
	}
	return true
}

// expand returns y, a replicated array whose shape broadcasts to dst's,
// expanded to dst's block on this rank, on y's device.
func expand[T backend.Numeric](op string, y, dst *Array[T]) (*backend.Array[T], error) {
	if y.layout.axis != Replicated || !BroadcastShape(y.layout.shape, dst.layout.shape) {
		panic(fmt.Sprintf("dist: %s of %v against %v: an operand without the result's layout must be replicated and broadcast to its shape", op, y.layout, dst.layout))
	}
	bstart, bshape := dst.layout.box(dst.comm.Rank())
	d := len(bshape)
	// mul[a] is y's stride along axis a of the result, 0 where y is
	// broadcast.
	mul := make([]int, d)
	k := d - len(y.layout.shape)
	s := 1
	for a := d - 1; a >= k; a-- {
		if n := y.layout.shape[a-k]; n != 1 {
			mul[a] = s
			s *= n
		}
	}
	e, err := backend.NewOn[T](y.local.Backend(), prod(bshape))
	if err != nil {
		return nil, err
	}
	if e.Len() == 0 {
		return e, nil
	}
	// The trailing axes from t on are not broadcast (or of length 1 in the
	// block); if every axis before t is broadcast, the block is a tiling
	// of the part of y that the trailing axes cover.
	t := d
	for t > 0 && (mul[t-1] != 0 || bshape[t-1] == 1) {
		t--
	}
	tiled := true
	base := 0
	for a := 0; a < t; a++ {
		if mul[a] != 0 && bshape[a] != 1 {
			tiled = false
		}
		base += bstart[a] * mul[a]
	}
	if !tiled {
		var runs []prun
		off := 0
		runs = emitRuns(piece{start: bstart, shape: bshape, mul: mul}, bstart, bshape, runs, &off)
		gatherRuns(e, []*backend.Array[T]{y.local}, runs, "dist.Broadcast expand")
		return e, nil
	}
	period := prod(bshape[t:])
	var runs []prun
	if t == d {
		runs = []prun{{block: base, n: 1}}
	} else {
		off := 0
		pc := piece{start: bstart[t:], shape: bshape[t:], base: base, mul: mul[t:]}
		runs = emitRuns(pc, bstart[t:], bshape[t:], runs, &off)
	}
	gatherRuns(e.Slice(0, period), []*backend.Array[T]{y.local}, runs, "dist.Broadcast expand")
	for filled := period; filled < e.Len(); {
		n := min(filled, e.Len()-filled)
		backend.Copy(e.Slice(filled, filled+n), e.Slice(0, n))
		if !e.Device().IsHost() {
			recordDeviceCopy("dist.Broadcast tile", n, e.DType().Size())
		}
		filled += n
	}
	return e, nil
}
