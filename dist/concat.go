package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Concatenate returns the arrays joined along axis, as NumPy's
// concatenate: they must have the same number of dimensions and the same
// shape except along axis, the same communicator, and blocks on one
// device; each may have any layout (split on any axis, on a process grid,
// or replicated). The result is split evenly (NewLayout) along the split
// axis of arrays[0], or replicated if arrays[0] is, or on the process grid
// of arrays[0] with even blocks (NewGridLayout with its GridDims), on
// arrays[0]'s backend. Every rank sends
// the others the parts of its blocks that their new blocks hold, for all
// the arrays in one all-to-all. It is collective.
func Concatenate[T backend.Numeric](axis int, arrays ...*Array[T]) (_ *Array[T], err error) {
	if len(arrays) == 0 {
		panic("dist: Concatenate of no arrays")
	}
	for _, a := range arrays {
		if a.freed {
			return nil, freedCollective("Concatenate", a.comm)
		}
	}
	x := arrays[0]
	d := len(x.layout.shape)
	axis = normAxis("Concatenate", axis, x.layout.shape)
	shape := x.Shape()
	shape[axis] = 0
	offsets := make([]int, len(arrays))
	for i, a := range arrays {
		s := a.layout.shape
		if len(s) != d {
			panic(fmt.Sprintf("dist: Concatenate of shapes %v and %v: dimensions differ", x.layout.shape, s))
		}
		for k := range s {
			if k != axis && s[k] != shape[k] {
				panic(fmt.Sprintf("dist: Concatenate along axis %d of shapes %v and %v", axis, x.layout.shape, s))
			}
		}
		offsets[i] = shape[axis]
		shape[axis] += s[axis]
	}
	sameDevice("Concatenate", arrays...)
	extra := []mpi.Arg{{Name: "axis", Value: int64(axis)}, {Name: "arrays", Value: int64(len(arrays))}}
	for _, a := range arrays[1:] {
		extra = append(extra, mpi.Arg{Name: "layout", Value: a.layout.hash(), Text: a.layout.String()})
	}
	if err := check("Concatenate", x, extra...); err != nil {
		return nil, err
	}
	l := x.layout.evenLike(shape)
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
		ps := make([]piece, len(arrays))
		for i, a := range arrays {
			st, sh := a.layout.box(r)
			ps[i] = blockPiece(i, st, sh, axis, offsets[i])
			ps[i].local = a.layout.axis == Replicated
		}
		return ps
	}
	srcs := make([]*backend.Array[T], len(arrays))
	for i, a := range arrays {
		srcs[i] = a.local
	}
	m := move{send: send, recv: layoutPieces(l)}
	if err := moveDo(m, x.comm, x.local.Backend(), srcs, out.local, "dist.Concatenate"); err != nil {
		return nil, err
	}
	return out, nil
}
