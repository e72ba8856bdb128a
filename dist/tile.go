package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Tile returns x repeated reps[a] times along each axis, as NumPy's
// tile(x, reps): with fewer reps than x has axes, reps is read with
// leading 1s; with more, x is read with leading axes of length 1, and
// the result has len(reps) axes. reps may not be negative. It takes every
// element type and layout.
//
// The result is laid out as x is (replicated, split along the same axis
// of x, counted from the end, or on the same process grid with 1 along
// the added axes), with x's blocks along an axis whose length does not
// change and even blocks (NewLayout's) along one that does; it has no
// ghost layers and lives on x's backend. It is collective: one
// all-to-all in which each rank sends every copy of its block to the
// ranks that hold it (prod(reps) parts per block, worked out on every
// rank from the layouts alone).
func Tile[T backend.Numeric](x *Array[T], reps ...int) (*Array[T], error) {
	const op = "Tile"
	if err := checkLive(op, x.comm, x); err != nil {
		return nil, err
	}
	if err := nonNegative(op, "reps", reps); err != nil {
		return nil, err
	}
	shape := x.layout.shape
	d := max(len(shape), len(reps))
	src := insertAxes(shape, 0, d-len(shape), 1)
	r := insertAxes(reps, 0, d-len(reps), 1)
	out := make([]int, d)
	for a := range out {
		if src[a] != 0 && r[a] > maxInt/src[a] {
			return nil, fmt.Errorf("dist: %s of %v by %v: the shape overflows int: %w", op, shape, reps, ErrTooLarge)
		}
		out[a] = src[a] * r[a]
	}
	if _, err := ShapeLen(out); err != nil {
		return nil, fmt.Errorf("dist: %s of %v by %v: %w", op, shape, reps, err)
	}
	maps := make([][]int, d)
	for a := range out {
		maps[a] = make([]int, out[a])
		for j := range maps[a] {
			maps[a][j] = j % src[a]
		}
	}
	if err := check(op, x, mpi.Arg{Name: "shape", Value: NewLayout(out, Replicated, 1).hash()}); err != nil {
		return nil, err
	}
	extra := d - len(shape)
	l := reshaped(x.layout, out, func(a int) int { return a + extra })
	return gatherMaps(x, l, maps, nil, "dist.Tile")
}

// Repeat returns x with each index along axis repeated, as NumPy's
// repeat(x, repeats, axis): repeats holds one count for every index, or
// one per index of the axis (the per-element form); none may be
// negative. A negative axis counts from the end. It takes every element
// type and layout.
//
// The result is laid out as x is (replicated, split along the same axis,
// or on the same process grid), with x's blocks along the axes whose
// length does not change and even blocks along axis; it has no ghost
// layers and lives on x's backend. It is collective: one all-to-all in
// which each rank sends each of its indices along axis to the ranks that
// hold its copies (a part per run of copies, worked out on every rank
// from the layouts and repeats alone: O(shape[axis]) host work per rank).
func Repeat[T backend.Numeric](x *Array[T], repeats []int, axis int) (*Array[T], error) {
	const op = "Repeat"
	if err := checkLive(op, x.comm, x); err != nil {
		return nil, err
	}
	a, err := axisArg(op, axis, len(x.layout.shape))
	if err != nil {
		return nil, err
	}
	m, err := repeatMap(op, repeats, x.layout.shape[a])
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(x.layout.shape)
	shape[a] = len(m)
	if _, err := ShapeLen(shape); err != nil {
		return nil, fmt.Errorf("dist: %s: %w", op, err)
	}
	if err := check(op, x, mpi.Arg{Name: "axis", Value: int64(a)}, mpi.Arg{Name: "shape", Value: NewLayout(shape, Replicated, 1).hash()}); err != nil {
		return nil, err
	}
	maps := make([][]int, len(shape))
	for b, n := range x.layout.shape {
		maps[b] = identityMap(n)
	}
	maps[a] = m
	return gatherMaps(x, reshaped(x.layout, shape, sameAxes), maps, nil, "dist.Repeat")
}

// RepeatFlat repeats the elements of the flattened x (row-major order),
// as NumPy's repeat(x, repeats) without an axis: repeats holds one count
// for every element, or one per element. The result is 1-D, split evenly
// along its axis (replicated if x is), on x's backend. It is collective:
// Repeat's all-to-all, after one that flattens x where it has more than
// one axis.
func RepeatFlat[T backend.Numeric](x *Array[T], repeats []int) (_ *Array[T], err error) {
	const op = "RepeatFlat"
	if err := checkLive(op, x.comm, x); err != nil {
		return nil, err
	}
	if _, err := repeatMap(op, repeats, x.Len()); err != nil {
		return nil, err
	}
	if len(x.layout.shape) == 1 && !x.layout.isGrid() {
		return Repeat(x, repeats, 0)
	}
	if err := check(op, x); err != nil {
		return nil, err
	}
	f, err := flatten(x, "dist.RepeatFlat")
	if err != nil {
		return nil, err
	}
	defer f.Free()
	return Repeat(f, repeats, 0)
}

// repeatMap returns the map of a repeat of n indices by repeats (one
// count, or n), or an error naming op.
func repeatMap(op string, repeats []int, n int) ([]int, error) {
	if len(repeats) != 1 && len(repeats) != n {
		return nil, fmt.Errorf("dist: %s: %d repeats for %d indices: give one count, or one per index (NumPy: operands could not be broadcast together)", op, len(repeats), n)
	}
	if err := nonNegative(op, "repeats", repeats); err != nil {
		return nil, err
	}
	total := 0
	for i := 0; i < n; i++ {
		k := repeats[0]
		if len(repeats) > 1 {
			k = repeats[i]
		}
		total += k
		if total < 0 || total > maxInt/2 {
			return nil, fmt.Errorf("dist: %s: %d indices repeated %v times overflow int", op, n, repeats)
		}
	}
	m := make([]int, 0, total)
	for i := 0; i < n; i++ {
		k := repeats[0]
		if len(repeats) > 1 {
			k = repeats[i]
		}
		for c := 0; c < k; c++ {
			m = append(m, i)
		}
	}
	return m, nil
}

const maxInt = int(^uint(0) >> 1)
