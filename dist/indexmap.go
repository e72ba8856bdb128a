package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// This file holds what Roll, Flip, Tile, Repeat, Pad and Diff share: a
// gather by an index map per axis, done as one all-to-all by the pieces of
// slice_move.go. Element j of the result (a multi-index) is element
// (maps[0][j[0]], ..., maps[d-1][j[d-1]]) of the source; a map entry of -1
// marks an index that no source element fills (Pad's constant border).
// Each map is cut into runs where it is affine with slope -1, 0 or +1
// (a flip, a repeated edge or element, a shifted copy), and each rank's
// block becomes the pieces of the result's index space that its runs
// cover: the product of its runs along every axis.

// axisRun is a run of a map: result indices [j0, j1) come from source
// indices c + s*(j - j0).
type axisRun struct{ j0, j1, c, s int }

// mapRuns cuts a map into runs of slope -1, 0 or +1, skipping entries of
// -1.
func mapRuns(m []int) []axisRun {
	var runs []axisRun
	for j := 0; j < len(m); {
		if m[j] < 0 {
			j++
			continue
		}
		r := axisRun{j0: j, j1: j + 1, c: m[j]}
		if j+1 < len(m) && m[j+1] >= 0 {
			if d := m[j+1] - m[j]; d >= -1 && d <= 1 {
				r.s = d
				for r.j1 < len(m) && m[r.j1] >= 0 && m[r.j1]-m[r.j1-1] == d {
					r.j1++
				}
			}
		}
		runs = append(runs, r)
		j = r.j1
	}
	return runs
}

// clip returns the part of run whose source indices lie in [lo, hi), and
// whether there is one.
func (r axisRun) clip(lo, hi int) (axisRun, bool) {
	j0, j1 := r.j0, r.j1
	switch {
	case r.s == 0:
		if r.c < lo || r.c >= hi {
			return r, false
		}
	case r.s > 0: // c + (j-j0) in [lo, hi)
		j0, j1 = max(j0, r.j0+lo-r.c), min(j1, r.j0+hi-r.c)
	default: // c - (j-j0) in [lo, hi)
		j0, j1 = max(j0, r.j0+r.c-hi+1), min(j1, r.j0+r.c-lo+1)
	}
	if j0 >= j1 {
		return r, false
	}
	return axisRun{j0: j0, j1: j1, c: r.c + r.s*(j0-r.j0), s: r.s}, true
}

// mapPieces returns the send pieces of the gather by maps: rank r's block
// of src (as box gives it, in the source's index space of len(maps)
// dimensions) as pieces of the result's index space. A replicated
// source's pieces are local.
func mapPieces(maps [][]int, box func(r int) (start, shape []int), replicated bool) func(r int) []piece {
	runs := make([][]axisRun, len(maps))
	for a, m := range maps {
		runs[a] = mapRuns(m)
	}
	return func(r int) []piece {
		st, sh := box(r)
		d := len(maps)
		if prod(sh) == 0 {
			return nil
		}
		strides := make([]int, d)
		s := 1
		for a := d - 1; a >= 0; a-- {
			strides[a] = s
			s *= sh[a]
		}
		clipped := make([][]axisRun, d)
		for a := range runs {
			for _, run := range runs[a] {
				if c, ok := run.clip(st[a], st[a]+sh[a]); ok {
					clipped[a] = append(clipped[a], c)
				}
			}
			if len(clipped[a]) == 0 {
				return nil
			}
		}
		var ps []piece
		k := make([]int, d)
		for {
			pc := piece{start: make([]int, d), shape: make([]int, d), mul: make([]int, d), local: replicated}
			for a := range k {
				run := clipped[a][k[a]]
				pc.start[a], pc.shape[a] = run.j0, run.j1-run.j0
				pc.mul[a] = run.s * strides[a]
				pc.base += (run.c - run.s*run.j0 - st[a]) * strides[a]
			}
			ps = append(ps, pc)
			a := d - 1
			for a >= 0 {
				k[a]++
				if k[a] < len(clipped[a]) {
					break
				}
				k[a] = 0
				a--
			}
			if a < 0 {
				return ps
			}
		}
	}
}

// gatherMaps returns a new array of layout l whose elements are x's by the
// maps (one per axis of l; x's shape with leading 1s added where l has more
// axes), on x's backend, in one all-to-all; fill, where given, first sets
// every element to *fill (for the entries of -1). It is collective.
func gatherMaps[T backend.Numeric](x *Array[T], l Layout, maps [][]int, fill *T, desc string) (_ *Array[T], err error) {
	out, err := newOn[T](x.comm, l, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	if fill != nil {
		backend.Fill(out.local, *fill)
	}
	extra := len(maps) - len(x.layout.shape)
	box := func(r int) ([]int, []int) {
		st, sh := x.layout.box(r)
		for i := 0; i < extra; i++ {
			st, sh = append([]int{0}, st...), append([]int{1}, sh...)
		}
		return st, sh
	}
	m := move{send: mapPieces(maps, box, x.layout.axis == Replicated), recv: layoutPieces(l)}
	if err := moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{x.local}, out.local, desc); err != nil {
		return nil, err
	}
	return out, nil
}

// identityMap returns 0, 1, ..., n-1.
func identityMap(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// reshaped returns the layout of a result of shape made from an array of
// layout l, of the same kind: replicated if l is; split along axisOf(l's
// split axis) if l is split on one axis; on a process grid of l's
// dimensions (axisOf mapping each; 1 along the others) if l is a grid.
// Along an axis whose length is l's, the blocks are l's; along another,
// even (NewLayout's). axisOf returns -1 for an axis that has no
// counterpart: 1 along it on a grid, and a grid some of whose ranks lose
// their axis, or an array split along such an axis, gives an even split
// along axis 0.
func reshaped(l Layout, shape []int, axisOf func(a int) int) Layout {
	switch l.axis {
	case Replicated:
		return NewLayout(shape, Replicated, l.ranks)
	case Grid:
		counts := make([][]int, len(shape))
		used := 1
		for a, g := range l.grid {
			b := axisOf(a)
			if b < 0 {
				continue
			}
			used *= g
			if shape[b] == l.shape[a] {
				counts[b] = slices.Clone(l.gcounts[a])
			} else {
				counts[b] = evenCounts(shape[b], g)
			}
		}
		for b := range counts {
			if counts[b] == nil {
				counts[b] = []int{shape[b]}
			}
		}
		if used != l.ranks {
			return NewLayout(shape, 0, l.ranks)
		}
		return NewGridLayoutCounts(shape, counts)
	}
	a := axisOf(l.axis)
	if a < 0 {
		return NewLayout(shape, 0, l.ranks)
	}
	if shape[a] == l.shape[l.axis] {
		return NewLayoutCounts(shape, a, l.counts)
	}
	return NewLayout(shape, a, l.ranks)
}

// sameAxes is the axisOf of a result with the source's axes.
func sameAxes(a int) int { return a }

// axisArg returns axis counted from the end when negative, or an error
// naming op for an axis out of range of nd dimensions (NumPy's
// AxisError).
func axisArg(op string, axis, nd int) (int, error) {
	if axis < -nd || axis >= nd {
		return 0, fmt.Errorf("dist: %s: axis %d is out of bounds for an array of dimension %d", op, axis, nd)
	}
	if axis < 0 {
		axis += nd
	}
	return axis, nil
}

// checkLive returns the error of op on a freed array among xs (the
// checking mode's call joined, as freedCollective does), or nil.
func checkLive[T backend.Numeric](op string, c mpi.Comm, xs ...*Array[T]) error {
	for _, x := range xs {
		if x != nil && x.freed {
			return freedCollective(op, c)
		}
	}
	return nil
}

// localTake sets dst[j] = src[pos[j]] for every j on dst's device: one
// Take where the backend is a backend.Sorter, else on host copies
// (recorded).
func localTake[T backend.Numeric](dst, src *backend.Array[T], pos []int, desc string) error {
	if len(pos) == 0 {
		return nil
	}
	if dst.Device().IsHost() && src.Device().IsHost() {
		d, s := dst.Data(), src.Data()
		for j, p := range pos {
			d[j] = s[p]
		}
		return nil
	}
	if s, ok := dst.Backend().(backend.Sorter); ok {
		s.Take(dst.Buffer(), src.Buffer(), pos)
		recordDeviceCopy(desc, len(pos), dst.DType().Size())
		return nil
	}
	hs, err := blockToHost(src)
	if err != nil {
		return err
	}
	hd := make([]T, dst.Len())
	if err := backend.CopyToHostSlice(hd, dst); err != nil {
		return err
	}
	for j, p := range pos {
		hd[j] = hs[p]
	}
	return backend.CopyFromHostSlice(dst, hd)
}

// intsArg returns a copy of v, or an error naming op and what for a
// negative entry.
func nonNegative(op, what string, v []int) error {
	for _, n := range v {
		if n < 0 {
			return fmt.Errorf("dist: %s: %s %v may not contain negative values", op, what, v)
		}
	}
	return nil
}

// insertAxes returns s with n copies of v inserted at position at.
func insertAxes(s []int, at, n, v int) []int {
	out := slices.Clone(s[:at])
	for i := 0; i < n; i++ {
		out = append(out, v)
	}
	return append(out, s[at:]...)
}

// rowMajorPieces returns rank r's block of l as pieces of the flat
// (row-major) index space: one per contiguous run of the block in the
// global array (one for a split along axis 0), local if l is replicated.
func rowMajorPieces(l Layout) func(r int) []piece {
	return func(r int) []piece {
		st, sh := l.box(r)
		var ps []piece
		boxRuns(make([]int, len(l.shape)), l.shape, st, sh, func(g, local, n int) {
			ps = append(ps, piece{start: []int{g}, shape: []int{n}, base: local - g, mul: []int{1}, local: l.axis == Replicated})
		})
		return ps
	}
}

// flatten returns x's elements in row-major order as a new 1-D array,
// split evenly along its axis (replicated if x is), in one all-to-all
// (none where x is 1-D: a copy). It is collective.
func flatten[T backend.Numeric](x *Array[T], desc string) (_ *Array[T], err error) {
	axis := 0
	if x.layout.axis == Replicated {
		axis = Replicated
	}
	l := NewLayout([]int{x.Len()}, axis, x.layout.ranks)
	out, err := newOn[T](x.comm, l, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	m := move{send: rowMajorPieces(x.layout), recv: rowMajorPieces(l)}
	if err := moveDo(m, x.comm, x.local.Backend(), []*backend.Array[T]{x.local}, out.local, desc); err != nil {
		return nil, err
	}
	return out, nil
}
