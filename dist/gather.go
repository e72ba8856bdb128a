package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// blockCounts returns the element count and the packed displacement of every
// rank's block.
func (l Layout) blockCounts() (counts, displs []int) {
	counts, displs = make([]int, l.ranks), make([]int, l.ranks)
	off := 0
	for r := range counts {
		counts[r] = l.LocalLen(r)
		displs[r] = off
		off += counts[r]
	}
	return counts, displs
}

// placeBlocks places the ranks' packed blocks into a global row-major
// array. With axis 0 (or one rank) the packed blocks already are the global
// array.
func placeBlocks[T backend.Element](l Layout, packed []T) []T {
	if l.axis <= 0 || l.ranks == 1 {
		return packed
	}
	out := make([]T, l.Len())
	_, displs := l.blockCounts()
	for r := 0; r < l.ranks; r++ {
		start, shape := l.box(r)
		src := packed[displs[r]:]
		boxRuns(make([]int, len(l.shape)), l.shape, start, shape, func(blockOff, packedOff, n int) {
			copy(out[blockOff:blockOff+n], src[packedOff:packedOff+n])
		})
	}
	return out
}

// Gather returns the whole array, in row-major order, at the root, and nil
// on the other ranks.
func Gather[T backend.Element](a *Array[T], root int) ([]T, error) {
	if err := check("Gather", a, mpi.Arg{Name: "root", Value: int64(root)}); err != nil {
		return nil, err
	}
	local, err := a.localHost()
	if err != nil {
		return nil, err
	}
	c, l := a.comm, a.layout
	if l.axis == Replicated {
		if c.Rank() == root {
			return slices.Clone(local), nil
		}
		return nil, nil
	}
	counts, displs := l.blockCounts()
	var packed []T
	if c.Rank() == root {
		packed = make([]T, l.Len())
	}
	if err := mpi.Gatherv(c, local, packed, counts, displs, root); err != nil {
		return nil, err
	}
	if c.Rank() != root {
		return nil, nil
	}
	return placeBlocks(l, packed), nil
}

// Allgather returns the whole array, in row-major order, on every rank.
func Allgather[T backend.Element](a *Array[T]) ([]T, error) {
	if err := check("Allgather", a); err != nil {
		return nil, err
	}
	local, err := a.localHost()
	if err != nil {
		return nil, err
	}
	l := a.layout
	if l.axis == Replicated {
		return slices.Clone(local), nil
	}
	counts, displs := l.blockCounts()
	packed := make([]T, l.Len())
	if err := mpi.Allgatherv(a.comm, local, packed, counts, displs); err != nil {
		return nil, err
	}
	return placeBlocks(l, packed), nil
}

// Scatter returns a new array of the global shape whose elements come from
// data, the whole array in row-major order at the root (ignored elsewhere).
// shape and the options must be the same on every rank.
func Scatter[T backend.Element](c mpi.Comm, root int, data []T, shape []int, opts ...Option) (_ *Array[T], err error) {
	a, err := Zeros[T](c, shape, opts...)
	if err != nil {
		return nil, err
	}
	// A failure after the allocation frees it (device memory is not
	// collected).
	defer func() {
		if err != nil {
			a.Free()
		}
	}()
	l := a.layout
	if err := check("Scatter", a, mpi.Arg{Name: "root", Value: int64(root)}); err != nil {
		return nil, err
	}
	if c.Rank() == root && len(data) != l.Len() {
		panic(fmt.Sprintf("dist: Scatter: %d elements for shape %v", len(data), shape))
	}
	if l.axis == Replicated {
		buf := make([]T, l.Len())
		if c.Rank() == root {
			copy(buf, data)
		}
		if err := mpi.Bcast(c, buf, root); err != nil {
			return nil, err
		}
		if err := backend.CopyFromHostSlice(a.local, buf); err != nil {
			return nil, err
		}
		return a, nil
	}
	counts, displs := l.blockCounts()
	send := data
	if c.Rank() == root && l.axis > 0 && l.ranks > 1 {
		send = make([]T, len(data))
		for r := 0; r < l.ranks; r++ {
			start, bshape := l.box(r)
			dst := send[displs[r]:]
			boxRuns(make([]int, len(shape)), l.shape, start, bshape, func(blockOff, packedOff, n int) {
				copy(dst[packedOff:packedOff+n], data[blockOff:blockOff+n])
			})
		}
	}
	// A block on a device receives on the host and is copied to the device
	// once, if the scatter succeeded.
	onHost := a.local.Device().IsHost()
	var host []T
	if onHost {
		host = a.local.Data()
	} else {
		host = make([]T, a.local.Len())
	}
	if err := mpi.Scatterv(c, send, counts, displs, host, root); err != nil {
		return nil, err
	}
	if !onHost {
		if err := backend.CopyFromHostSlice(a.local, host); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// checkIndex panics, saying what is wrong, unless idx is a valid
// multi-index of shape.
func checkIndex(op string, idx, shape []int) {
	if len(idx) != len(shape) {
		panic(fmt.Sprintf("dist: %s: %d indices %v for an array of shape %v: give one per dimension", op, len(idx), idx, shape))
	}
	for d, i := range idx {
		if i < 0 || i >= shape[d] {
			panic(fmt.Sprintf("dist: %s: index %d of dimension %d out of range [0, %d) of shape %v", op, i, d, shape[d], shape))
		}
	}
}

// Get returns the element at the global multi-index idx on every rank.
func Get[T backend.Element](a *Array[T], idx ...int) (T, error) {
	var v [1]T
	checkIndex("Get", idx, a.layout.shape)
	if err := check("Get", a, mpi.Arg{Name: "index", Value: int64(ravel(idx, a.layout.shape))}); err != nil {
		return v[0], err
	}
	owner := a.layout.OwnerOf(idx)
	me := a.comm.Rank()
	if owner == -1 || owner == me {
		start, shape := a.layout.box(me)
		local := make([]int, len(idx))
		for d := range idx {
			local[d] = idx[d] - start[d]
		}
		off := ravel(local, shape)
		if err := backend.CopyToHostSlice(v[:], a.local.Slice(off, off+1)); err != nil {
			return v[0], err
		}
	}
	if owner == -1 {
		return v[0], nil
	}
	err := mpi.Bcast(a.comm, v[:], owner)
	return v[0], err
}

// Set stores v at the global multi-index idx: the rank that holds the
// element (every rank, for a replicated array) writes it. It is collective
// in the sense of Get: every rank calls it with the same arguments, and
// the checking mode checks that they do.
func Set[T backend.Element](a *Array[T], v T, idx ...int) error {
	checkIndex("Set", idx, a.layout.shape)
	if err := check("Set", a, mpi.Arg{Name: "index", Value: int64(ravel(idx, a.layout.shape))}); err != nil {
		return err
	}
	owner := a.layout.OwnerOf(idx)
	me := a.comm.Rank()
	if owner != -1 && owner != me {
		return nil
	}
	start, shape := a.layout.box(me)
	local := make([]int, len(idx))
	for d := range idx {
		local[d] = idx[d] - start[d]
	}
	off := ravel(local, shape)
	return backend.CopyFromHostSlice(a.local.Slice(off, off+1), []T{v})
}
