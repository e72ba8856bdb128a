package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Roll returns x's elements shifted by shift along axis, those that leave
// one end entering at the other, as NumPy's roll(x, shift, axis): element
// i moves to (i + shift) mod n. A negative shift rolls the other way, and
// a shift beyond the axis's length wraps; a negative axis counts from the
// end. It takes every element type and every layout (process grids
// included). The result has x's layout (without ghost layers) and lives
// on x's backend. It is collective.
//
// Each rank sends every other rank the parts of its block that land in
// the other's block (at most two per rank along the axis), in one
// all-to-all of the elements that change rank; nothing is sent where no
// element does (one rank, a replicated x, a roll along an axis that is
// not split).
func Roll[T backend.Numeric](x *Array[T], shift, axis int) (*Array[T], error) {
	return RollAxes(x, []int{shift}, []int{axis})
}

// RollAxes rolls x along several axes at once, shifts[i] along axes[i],
// as NumPy's roll(x, shifts, axes); one shift applies to every axis, and
// an axis given twice is rolled by the sum of its shifts. It is Roll's
// single all-to-all, with at most 2^k parts per block for k rolled axes.
func RollAxes[T backend.Numeric](x *Array[T], shifts, axes []int) (*Array[T], error) {
	const op = "Roll"
	if err := checkLive(op, x.comm, x); err != nil {
		return nil, err
	}
	shape := x.layout.shape
	if len(shifts) != 1 && len(shifts) != len(axes) {
		return nil, fmt.Errorf("dist: %s: %d shifts for %d axes: give one shift, or one per axis", op, len(shifts), len(axes))
	}
	total := make([]int, len(shape))
	for i, ax := range axes {
		a, err := axisArg(op, ax, len(shape))
		if err != nil {
			return nil, err
		}
		s := shifts[0]
		if len(shifts) > 1 {
			s = shifts[i]
		}
		total[a] += s
	}
	maps := make([][]int, len(shape))
	var sh []int
	for a, n := range shape {
		maps[a] = identityMap(n)
		if n == 0 {
			sh = append(sh, 0)
			continue
		}
		s := ((total[a] % n) + n) % n
		sh = append(sh, s)
		for j := range maps[a] {
			maps[a][j] = ((j-s)%n + n) % n
		}
	}
	if err := check(op, x, mpi.Arg{Name: "shifts", Value: hashInts(sh...)}); err != nil {
		return nil, err
	}
	return gatherMaps(x, x.layout, maps, nil, "dist.Roll")
}

// RollFlat rolls the flattened x by shift and returns it in x's shape, as
// NumPy's roll(x, shift) without an axis: element i of x's row-major order
// moves to (i + shift) mod x.Len(). The result has x's layout (without
// ghost layers). It takes every element type and layout. It is
// collective: one all-to-all where x's blocks are contiguous in the
// row-major order (split along axis 0, replicated, or one rank), and
// otherwise one into an even split along axis 0 and one Redistribute back
// to x's layout.
func RollFlat[T backend.Numeric](x *Array[T], shift int) (_ *Array[T], err error) {
	const op = "RollFlat"
	if err := checkLive(op, x.comm, x); err != nil {
		return nil, err
	}
	n := x.Len()
	s := 0
	if n > 0 {
		s = ((shift % n) + n) % n
	}
	if err := check(op, x, mpi.Arg{Name: "shift", Value: int64(s)}); err != nil {
		return nil, err
	}
	l := x.layout
	contiguous := l.axis == 0 || l.axis == Replicated || l.ranks == 1
	mid := l
	if !contiguous {
		mid = NewLayout(l.shape, 0, l.ranks)
	}
	out, err := newOn[T](x.comm, mid, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	flat := rowMajorPieces(l)
	send := func(r int) []piece {
		var ps []piece
		for _, pc := range flat(r) {
			// The run [g, g+k) moves to [g+s, g+s+k) mod n: one piece, or
			// two where it wraps.
			g, k := pc.start[0], pc.shape[0]
			lo := g + s
			if lo >= n {
				lo -= n
			}
			first := min(k, n-lo)
			ps = append(ps, piece{start: []int{lo}, shape: []int{first}, base: pc.base + g - lo, mul: []int{1}, local: pc.local})
			if first < k {
				ps = append(ps, piece{start: []int{0}, shape: []int{k - first}, base: pc.base + g + first, mul: []int{1}, local: pc.local})
			}
		}
		return ps
	}
	m := move{send: send, recv: rowMajorPieces(mid)}
	if err := moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{x.local}, out.local, "dist.RollFlat"); err != nil {
		return nil, err
	}
	if contiguous {
		return out, nil
	}
	defer out.Free()
	return Redistribute(out, l)
}

// Flip returns x with the order of its elements reversed along the given
// axes, or along every axis when none is given, as NumPy's flip (negative
// axes count from the end; an axis given twice is an error, as in NumPy).
// It takes every element type and every layout (process grids included);
// the result has x's layout (without ghost layers). It is collective: one
// all-to-all in which each rank sends its block, reversed, to the ranks
// whose blocks hold the mirrored indices (along a split axis, a block's
// mirror on most ranks; nothing is sent for an axis that is not split).
func Flip[T backend.Numeric](x *Array[T], axes ...int) (*Array[T], error) {
	const op = "Flip"
	if err := checkLive(op, x.comm, x); err != nil {
		return nil, err
	}
	shape := x.layout.shape
	flip := make([]bool, len(shape))
	if len(axes) == 0 {
		for a := range flip {
			flip[a] = true
		}
	}
	for _, ax := range axes {
		a, err := axisArg(op, ax, len(shape))
		if err != nil {
			return nil, err
		}
		if flip[a] {
			return nil, fmt.Errorf("dist: %s: repeated axis %d in %v", op, a, axes)
		}
		flip[a] = true
	}
	maps := make([][]int, len(shape))
	var bits int64
	for a, n := range shape {
		maps[a] = identityMap(n)
		if flip[a] {
			bits |= 1 << a
			for j := range maps[a] {
				maps[a][j] = n - 1 - j
			}
		}
	}
	if err := check(op, x, mpi.Arg{Name: "axes", Value: bits}); err != nil {
		return nil, err
	}
	return gatherMaps(x, x.layout, maps, nil, "dist.Flip")
}
