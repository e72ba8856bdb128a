package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Redistribute returns a new array with x's elements laid out by l: another
// split axis, other block sizes, or replicated. l must have x's shape and
// rank count. Each rank sends every other rank the part of its block that
// the other's new block covers, in one all-to-all.
func Redistribute[T backend.Element](x *Array[T], l Layout) (_ *Array[T], err error) {
	if !slices.Equal(l.shape, x.layout.shape) || l.ranks != x.layout.ranks {
		panic(fmt.Sprintf("dist: Redistribute from %v to %v: shapes or rank counts differ", x.layout, l))
	}
	if err := check("Redistribute", x, mpi.Arg{Name: "to", Value: l.hash(), Text: l.String()}); err != nil {
		return nil, err
	}
	out, err := New[T](x.comm, l, x.local.Backend())
	if err != nil {
		return nil, err
	}
	// A failure after the allocation frees it (device memory is not
	// collected).
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	src, err := x.localHost()
	if err != nil {
		return nil, err
	}
	me, p := x.comm.Rank(), x.comm.Size()
	dst := make([]T, out.local.Len())
	dStart, dShape := l.box(me)
	if x.layout.axis == Replicated {
		// Every rank already holds its new block: cut it out.
		boxRuns(make([]int, len(l.shape)), l.shape, dStart, dShape, func(blockOff, packedOff, n int) {
			copy(dst[packedOff:packedOff+n], src[blockOff:blockOff+n])
		})
		if err := backend.CopyFromHostSlice(out.local, dst); err != nil {
			return nil, err
		}
		return out, nil
	}
	sStart, sShape := x.layout.box(me)
	scounts, sdispls := make([]int, p), make([]int, p)
	rcounts, rdispls := make([]int, p), make([]int, p)
	soff, roff := 0, 0
	for r := 0; r < p; r++ {
		st, sh := l.box(r)
		_, ish, _ := intersect(sStart, sShape, st, sh)
		scounts[r], sdispls[r] = prod(ish), soff
		soff += scounts[r]
		rs, rsh := x.layout.box(r)
		_, jsh, _ := intersect(rs, rsh, dStart, dShape)
		rcounts[r], rdispls[r] = prod(jsh), roff
		roff += rcounts[r]
	}
	send := make([]T, soff)
	for r := 0; r < p; r++ {
		st, sh := l.box(r)
		is, ish, empty := intersect(sStart, sShape, st, sh)
		if empty {
			continue
		}
		buf := send[sdispls[r]:]
		boxRuns(sStart, sShape, is, ish, func(blockOff, packedOff, n int) {
			copy(buf[packedOff:packedOff+n], src[blockOff:blockOff+n])
		})
	}
	recv := make([]T, roff)
	if err := mpi.Alltoallv(x.comm, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, err
	}
	for s := 0; s < p; s++ {
		rs, rsh := x.layout.box(s)
		js, jsh, empty := intersect(rs, rsh, dStart, dShape)
		if empty {
			continue
		}
		buf := recv[rdispls[s]:]
		boxRuns(dStart, dShape, js, jsh, func(blockOff, packedOff, n int) {
			copy(dst[blockOff:blockOff+n], buf[packedOff:packedOff+n])
		})
	}
	if len(dst) == 0 {
		return out, nil
	}
	if err := backend.CopyFromHostSlice(out.local, dst); err != nil {
		return nil, err
	}
	return out, nil
}

// Resplit returns a new array with x's elements split evenly along axis (or
// replicated, with Replicated).
func Resplit[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	return Redistribute(x, NewLayout(x.layout.shape, axis, x.comm.Size()))
}
