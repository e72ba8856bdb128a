package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// FillWhere sets the elements of x whose mask element is nonzero to v, as
// NumPy's x[mask] = v. mask must have x's layout and its blocks x's
// device; it takes every element type and layout (the ghost layers are
// left as they are). It needs no communication and is not collective: the
// selection runs on the block's device (Where's).
func FillWhere[T backend.Numeric](x *Array[T], mask *Array[uint8], v T) error {
	const op = "FillWhere"
	if x.freed || mask.freed {
		return freedError(op)
	}
	if err := maskArgs(op, x, mask); err != nil {
		return err
	}
	fill, err := backend.NewOn[T](x.local.Backend(), x.local.Len())
	if err != nil {
		return err
	}
	defer fill.Free()
	backend.Fill(fill, v)
	return Where(x, mask, &Array[T]{comm: x.comm, layout: x.layout, local: fill}, x)
}

// AssignWhere sets the elements of x whose mask element is nonzero to the
// elements of values, in x's row-major order, as NumPy's
// x[mask] = values: the k-th selected element (counted over the whole
// array) gets values[k]. values is 1-D with as many elements as the mask
// selects, or one (which every selected element gets); any other length
// is an error, as in NumPy. mask must have x's layout; values may have any
// 1-D layout; the blocks must be on one device. It takes every element
// type and layout.
//
// Each rank counts the selected elements of each contiguous run of its
// block in the row-major order (one run for a split along axis 0, one
// per row of the leading axes otherwise), and one all-gather of these
// counts gives every rank the global rank of each of its selected
// elements (the distributed prefix count); the values are then fetched
// from their owners as TakeFlat fetches (three all-to-alls: counts,
// requests, values; none where values is replicated) and written on the
// block's device. The mask is copied to the host (a recorded copy for a
// device block). It is collective.
func AssignWhere[T backend.Numeric](x *Array[T], mask *Array[uint8], values *Array[T]) error {
	return assignMasked("AssignWhere", x, mask, values, false)
}

// Place sets the elements of x whose mask element is nonzero to the
// elements of values in order, repeating values when the mask selects
// more, as NumPy's place(x, mask, values): the k-th selected element gets
// values[k mod values.Len()]. values may be empty only where the mask
// selects nothing (NumPy: "Cannot insert from an empty array!"). It is
// AssignWhere otherwise, with its cost.
func Place[T backend.Numeric](x *Array[T], mask *Array[uint8], values *Array[T]) error {
	return assignMasked("Place", x, mask, values, true)
}

// maskArgs checks a mask against x.
func maskArgs[T backend.Numeric](op string, x *Array[T], mask *Array[uint8]) error {
	if !x.layout.Equal(mask.layout) {
		return fmt.Errorf("dist: %s: layouts differ: %v and the mask's %v: make the mask from x (a comparison of x), or Redistribute it", op, x.layout, mask.layout)
	}
	if x.comm != mask.comm {
		return fmt.Errorf("dist: %s: the mask is on another communicator", op)
	}
	if x.local.Device() != mask.local.Device() {
		return fmt.Errorf("dist: %s: blocks on %v and the mask's on %v: move one with ToHost or ToDevice", op, x.local.Device(), mask.local.Device())
	}
	return nil
}

func assignMasked[T backend.Numeric](op string, x *Array[T], mask *Array[uint8], values *Array[T], cycle bool) error {
	if x.freed || mask.freed || values.freed {
		return freedCollective(op, x.comm)
	}
	if err := maskArgs(op, x, mask); err != nil {
		return err
	}
	if len(values.layout.shape) != 1 {
		return fmt.Errorf("dist: %s: values of shape %v: give a 1-D array (Reshape it)", op, values.layout.shape)
	}
	if values.comm != x.comm {
		return fmt.Errorf("dist: %s: the values are on another communicator", op)
	}
	if values.local.Device() != x.local.Device() {
		return fmt.Errorf("dist: %s: blocks on %v and the values' on %v: move one with ToHost or ToDevice", op, x.local.Device(), values.local.Device())
	}
	if err := check(op, x, mpi.Arg{Name: "values", Value: values.layout.hash(), Text: values.layout.String()}); err != nil {
		return err
	}
	c := x.comm
	l := x.layout
	me, p := c.Rank(), c.Size()
	m, err := blockToHost(mask.local)
	if err := mpi.Agree(c, err); err != nil {
		return err
	}
	// The selected elements of this rank's block, and the counts of its
	// runs in the row-major order.
	type run struct{ g, n, count int }
	runsOf := func(r int) []run {
		st, sh := l.box(r)
		var rs []run
		boxRuns(make([]int, len(l.shape)), l.shape, st, sh, func(g, _, n int) { rs = append(rs, run{g: g, n: n}) })
		return rs
	}
	mine := runsOf(me)
	var sel []int // offsets in the block
	for i := range mine {
		begin := len(sel)
		off := 0
		for _, pr := range mine[:i] {
			off += pr.n
		}
		for k := off; k < off+mine[i].n; k++ {
			if m[k] != 0 {
				sel = append(sel, k)
			}
		}
		mine[i].count = len(sel) - begin
	}
	// Every run's count, and so the global rank of each selected element.
	var start []int // per run of this rank: the selected elements before it
	total := 0
	if l.axis == Replicated {
		start = make([]int, len(mine))
		for i := range mine {
			start[i] = total
			total += mine[i].count
		}
	} else {
		all := make([][]run, p)
		counts := make([]int, p)
		for r := range all {
			if r == me {
				all[r] = mine
			} else {
				all[r] = runsOf(r)
			}
			counts[r] = len(all[r])
		}
		send := make([]int64, len(mine))
		for i, rn := range mine {
			send[i] = int64(rn.count)
		}
		got := make([]int64, sum(counts))
		if err := mpi.Allgatherv(c, send, got, counts, displs(counts)); err != nil {
			return err
		}
		type grun struct{ g, count, rank, i int }
		var g []grun
		k := 0
		for r := range all {
			for i, rn := range all[r] {
				g = append(g, grun{rn.g, int(got[k]), r, i})
				k++
			}
		}
		slices.SortFunc(g, func(a, b grun) int { return a.g - b.g })
		start = make([]int, len(mine))
		for _, rn := range g {
			if rn.rank == me {
				start[rn.i] = total
			}
			total += rn.count
		}
	}
	nv := values.Len()
	switch {
	case cycle && nv == 0 && total > 0:
		return fmt.Errorf("dist: %s: cannot insert from an empty array (the mask selects %d elements)", op, total)
	case !cycle && nv != total && nv != 1:
		return fmt.Errorf("dist: %s: cannot assign %d input values to the %d output values where the mask is true", op, nv, total)
	}
	// The index in values of each selected element of the block.
	idx := make([]int, 0, len(sel))
	for i, rn := range mine {
		for k := 0; k < rn.count; k++ {
			v := start[i] + k
			if nv > 0 {
				v %= nv
			}
			idx = append(idx, v)
		}
	}
	b := x.local.Backend()
	got, err := backend.NewOn[T](values.local.Backend(), len(idx))
	if err := mpi.Agree(c, err); err != nil {
		return err
	}
	defer got.Free()
	if err := gatherFlat(values, idx, got, "dist."+op); err != nil {
		return err
	}
	if len(sel) == 0 {
		return nil
	}
	if x.local.Device().IsHost() {
		d, s := x.local.Data(), got.Data()
		for j, o := range sel {
			d[o] = s[j]
		}
		return nil
	}
	// On the device: one Take from the block and the values side by side.
	n := x.local.Len()
	both, err := backend.NewOn[T](b, n+len(sel))
	if err != nil {
		return err
	}
	defer both.Free()
	backend.Copy(both.Slice(0, n), x.local)
	backend.Copy(both.Slice(n, n+len(sel)), got)
	pos := make([]int, n)
	for i := range pos {
		pos[i] = i
	}
	for j, o := range sel {
		pos[o] = n + j
	}
	return localTake(x.local, both, pos, "dist."+op)
}
