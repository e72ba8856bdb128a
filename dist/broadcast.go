package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Broadcast sets dst = x op y elementwise (op is backend.Add, Sub, Mul or
// Div) with NumPy's broadcasting: each of x and y has dst's layout, or has
// a shape that broadcasts to dst's shape (aligned at the last axis, every
// dimension equal to dst's or 1, leading dimensions allowed to be
// missing), as NumPy's np.add(x, y, out=dst) takes them: a row vector of
// shape [n1] against an [n0, n1] array, a column [n0, 1], or a
// scalar-shaped [1] array. dst may have any layout (split on any axis, on
// a process grid with or without ghost layers, or replicated); dst may be
// the operand with its layout. All must be on one communicator and device.
//
// An operand with dst's layout is used as it is, and a replicated one is
// expanded on each rank: the part that its block meets is copied into a
// temporary block on the same device (a gather of the distinct part, then
// copies that double it along the broadcast leading axes); nothing goes
// through the host. When every operand is one of these, Broadcast needs
// no communication, returns an error only if that temporary cannot be
// allocated, and is not collective (every rank calls it).
//
// An operand of another layout (split on an axis, or on a process grid,
// other than dst's) is first fetched: each rank receives, in one
// all-to-all, the part of it that its block of dst meets, at most its
// own block's worth of elements (for a row vector of n1 elements against
// an array on a pr x pc process grid, n1/pc elements per rank), and then
// expands it as a replicated operand. Broadcast is then collective.
func Broadcast[T backend.Numeric](op backend.BinaryOp, dst, x, y *Array[T]) error {
	if dst.freed || x.freed || y.freed {
		return freedError("Broadcast")
	}
	sameDevice("Broadcast", dst, x, y)
	operands := [2]*Array[T]{x, y}
	fetch := false
	for _, a := range operands {
		switch {
		case a.layout.Equal(dst.layout):
		case !BroadcastShape(a.layout.shape, dst.layout.shape):
			panic(fmt.Sprintf("dist: Broadcast into %v of an operand of shape %v: it does not broadcast to the result's shape %v (every dimension, aligned at the last axis, must be the result's or 1)", dst.layout, a.layout.shape, dst.layout.shape))
		case a.layout.axis != Replicated:
			fetch = true
		}
	}
	if fetch {
		if err := check("Broadcast", dst, mpi.Arg{Name: "x", Value: x.layout.hash(), Text: x.layout.String()}, mpi.Arg{Name: "y", Value: y.layout.hash(), Text: y.layout.String()}); err != nil {
			return err
		}
	}
	// The fetches first, which are collective and agree on failures; then
	// the expansions, which are not.
	var local [2]*backend.Array[T]
	var box [2][2][]int // the part of each fetched operand that local holds: start, shape
	defer func() {
		for i, l := range local {
			if l != nil && l != operands[i].local {
				l.Free()
			}
		}
	}()
	for i, a := range operands {
		if a.layout.Equal(dst.layout) {
			local[i] = a.local
			continue
		}
		if a.layout.axis == Replicated {
			continue
		}
		l, st, sh, err := fetchPart(a, dst)
		if err != nil {
			return err
		}
		local[i], box[i] = l, [2][]int{st, sh}
	}
	for i, a := range operands {
		if local[i] == a.local {
			continue
		}
		src, st, sh := a.local, make([]int, len(a.layout.shape)), a.layout.shape
		if local[i] != nil {
			src, st, sh = local[i], box[i][0], box[i][1]
		}
		e, err := expand(src, st, sh, a.layout.shape, dst)
		if local[i] != nil {
			local[i].Free()
		}
		local[i] = e
		if err != nil {
			local[i] = nil
			return err
		}
	}
	backend.Apply(op, dst.local, local[0], local[1])
	return nil
}

// needBox returns the part of an operand of shape ys, which broadcasts to
// dst's shape, that rank r's block of dst meets: its start and shape in
// the operand's index space (every length 0 for an empty block).
func needBox(ys []int, dst Layout, r int) (start, shape []int) {
	bstart, bshape := dst.box(r)
	k := len(bshape) - len(ys)
	start, shape = make([]int, len(ys)), make([]int, len(ys))
	if prod(bshape) == 0 {
		return start, shape
	}
	for a, n := range ys {
		if n == 1 {
			shape[a] = 1
			continue
		}
		start[a], shape[a] = bstart[a+k], bshape[a+k]
	}
	return start, shape
}

// fetchPart returns the part of y (of any layout) that this rank's block
// of dst meets, on y's device, and its start and shape in y's index
// space: one all-to-all. It is collective.
func fetchPart[T backend.Numeric](y, dst *Array[T]) (_ *backend.Array[T], start, shape []int, err error) {
	ys := y.layout.shape
	start, shape = needBox(ys, dst.layout, dst.comm.Rank())
	b := y.local.Backend()
	part, err := backend.NewOn[T](b, prod(shape))
	if err := mpi.Agree(y.comm, err); err != nil {
		if part != nil {
			part.Free()
		}
		return nil, nil, nil, fmt.Errorf("dist: Broadcast: allocating the part of an operand of %v: %w", y.layout, err)
	}
	recv := func(r int) []piece {
		st, sh := needBox(ys, dst.layout, r)
		return []piece{blockPiece(0, st, sh, -1, 0)}
	}
	m := move{send: layoutPieces(y.layout), recv: recv}
	if err := moveDo(m, y.comm, b, []*backend.Array[T]{y.local}, part, "dist.Broadcast fetch"); err != nil {
		part.Free()
		return nil, nil, nil, err
	}
	return part, start, shape, nil
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

// expand returns an operand of global shape ys, which broadcasts to
// dst's shape, expanded to dst's block on this rank, on src's device: src
// holds the part of the operand that starts at sstart and has shape
// sshape (the whole operand for a replicated one; a fetched part
// otherwise), row-major.
func expand[T backend.Numeric](src *backend.Array[T], sstart, sshape, ys []int, dst *Array[T]) (*backend.Array[T], error) {
	bstart, bshape := dst.layout.box(dst.comm.Rank())
	d := len(bshape)
	// mul[a] is src's stride along axis a of the result, 0 where the
	// operand is broadcast; base0 moves global indices to src's box.
	mul := make([]int, d)
	k := d - len(ys)
	s, base0 := 1, 0
	for a := d - 1; a >= k; a-- {
		if ys[a-k] != 1 {
			mul[a] = s
			base0 -= sstart[a-k] * s
			s *= sshape[a-k]
		}
	}
	e, err := backend.NewOn[T](src.Backend(), prod(bshape))
	if err != nil {
		return nil, err
	}
	if e.Len() == 0 {
		return e, nil
	}
	// The trailing axes from t on are not broadcast (or of length 1 in the
	// block); if every axis before t is broadcast, the block is a tiling
	// of the part of the operand that the trailing axes cover.
	t := d
	for t > 0 && (mul[t-1] != 0 || bshape[t-1] == 1) {
		t--
	}
	tiled := true
	base := base0
	for a := 0; a < t; a++ {
		if mul[a] != 0 && bshape[a] != 1 {
			tiled = false
		}
		base += bstart[a] * mul[a]
	}
	if !tiled {
		var runs []prun
		off := 0
		runs = emitRuns(piece{start: bstart, shape: bshape, base: base0, mul: mul}, bstart, bshape, runs, &off)
		gatherRuns(e, []*backend.Array[T]{src}, runs, "dist.Broadcast expand")
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
	gatherRuns(e.Slice(0, period), []*backend.Array[T]{src}, runs, "dist.Broadcast expand")
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
