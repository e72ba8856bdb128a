package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
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
// array; split on another axis or over a process grid, they are placed box
// by box.
func placeBlocks[T backend.Numeric](l Layout, packed []T) []T {
	if l.axis == 0 || l.ranks == 1 {
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
// on the other ranks. It is collective. A block on a device is handed to
// MPI directly when MPI is CUDA-aware, and copied to the host first when
// not (package staging).
func Gather[T backend.Numeric](a *Array[T], root int) ([]T, error) {
	if a.freed {
		return nil, freedCollective("Gather", a.comm)
	}
	if err := check("Gather", a, mpi.Arg{Name: "root", Value: int64(root)}); err != nil {
		return nil, err
	}
	c, l := a.comm, a.layout
	if l.axis == Replicated {
		if c.Rank() != root {
			return nil, nil
		}
		return blockToHost(a.local)
	}
	counts, displs := l.blockCounts()
	var packed []T
	var recv *backend.Array[T]
	if c.Rank() == root {
		packed = make([]T, l.Len())
		recv = backend.Wrap(packed)
	}
	if err := agreeStep(c, "Gather", deviceSync(a.local)); err != nil {
		return nil, err
	}
	if err := staging.Gatherv(c, a.local, recv, counts, displs, root); err != nil {
		return nil, err
	}
	if c.Rank() != root {
		return nil, nil
	}
	return placeBlocks(l, packed), nil
}

// Allgather returns the whole array, in row-major order, on every rank. It
// is collective; a block on a device goes to MPI as in Gather.
func Allgather[T backend.Numeric](a *Array[T]) ([]T, error) {
	if a.freed {
		return nil, freedCollective("Allgather", a.comm)
	}
	if err := check("Allgather", a); err != nil {
		return nil, err
	}
	l := a.layout
	if l.axis == Replicated {
		return blockToHost(a.local)
	}
	counts, displs := l.blockCounts()
	packed := make([]T, l.Len())
	if err := agreeStep(a.comm, "Allgather", deviceSync(a.local)); err != nil {
		return nil, err
	}
	if err := staging.Allgatherv(a.comm, a.local, backend.Wrap(packed), counts, displs); err != nil {
		return nil, err
	}
	return placeBlocks(l, packed), nil
}

// Scatter returns a new array of the global shape whose elements come from
// data, the whole array in row-major order at the root (ignored elsewhere).
// shape and the options must be the same on every rank. It is collective.
// A block on a device receives from MPI directly when MPI is CUDA-aware,
// and through host memory when not (package staging).
func Scatter[T backend.Numeric](c mpi.Comm, root int, data []T, shape []int, opts ...Option) (_ *Array[T], err error) {
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
	if onDevice(a.local) {
		// A device fault on one rank (the fault a synchronization of the
		// device takes, or one recorded earlier) fails the call on every
		// rank before MPI is called; a device fault in the copy of what
		// arrived to the device is recorded for the next call that agrees
		// (exchanged).
		if err := agreeBlocks(c, "Scatter", nil, a.local); err != nil {
			return nil, err
		}
	}
	if l.axis == Replicated {
		// The root broadcasts from its host data, and copies it into its
		// own block; the others receive into theirs.
		target := a.local
		if c.Rank() == root {
			target = backend.Wrap(data) // MPI only reads the root's buffer
		}
		if err := exchanged(staging.Bcast(c, target, root)); err != nil {
			return nil, err
		}
		if c.Rank() == root && len(data) > 0 {
			return a, exchanged(backend.CopyFromHostSlice(a.local, data))
		}
		return a, nil
	}
	counts, displs := l.blockCounts()
	var send *backend.Array[T]
	if c.Rank() == root {
		s := data
		if l.axis != 0 && l.ranks > 1 {
			s = make([]T, len(data))
			for r := 0; r < l.ranks; r++ {
				start, bshape := l.box(r)
				dst := s[displs[r]:]
				boxRuns(make([]int, len(shape)), l.shape, start, bshape, func(blockOff, packedOff, n int) {
					copy(dst[packedOff:packedOff+n], data[blockOff:blockOff+n])
				})
			}
		}
		send = backend.Wrap(s)
	}
	if err := exchanged(staging.Scatterv(c, send, counts, displs, a.local, root)); err != nil {
		return nil, err
	}
	return a, nil
}

// blockToHost returns a new host copy of block (no copy is made, or
// recorded, for an empty block).
func blockToHost[T backend.Numeric](block *backend.Array[T]) ([]T, error) {
	out := make([]T, block.Len())
	if len(out) == 0 {
		return out, nil
	}
	return out, backend.CopyToHostSlice(out, block)
}

// checkIndex returns idx with its negative indices counted from the end
// of their dimension, as NumPy reads them (-1 the last): idx itself when
// none is negative, else a copy. It panics, naming op, for a count of
// indices other than the dimensions' or an index out of [-n, n).
func checkIndex(op string, idx, shape []int) []int {
	if len(idx) != len(shape) {
		panic(fmt.Sprintf("dist: %s: %d indices %v for an array of shape %v: give one per dimension", op, len(idx), idx, shape))
	}
	out, cloned := idx, false
	for d, i := range idx {
		if i < -shape[d] || i >= shape[d] {
			panic(fmt.Sprintf("dist: %s: index %d of dimension %d out of range [-%d, %d) of shape %v", op, i, d, shape[d], shape[d], shape))
		}
		if i < 0 {
			if !cloned {
				out, cloned = slices.Clone(idx), true
			}
			out[d] = i + shape[d]
		}
	}
	return out
}

// Get returns the element at the global multi-index idx on every rank. A
// negative index counts from the end of its dimension, as in NumPy (-1 is
// the last).
func Get[T backend.Numeric](a *Array[T], idx ...int) (T, error) {
	if a.freed {
		return *new(T), freedCollective("Get", a.comm)
	}
	var v [1]T
	idx = checkIndex("Get", idx, a.layout.shape)
	if err := check("Get", a, mpi.Arg{Name: "index", Value: int64(ravel(idx, a.layout.shape))}); err != nil {
		return v[0], err
	}
	owner := a.layout.OwnerOf(idx)
	me := a.comm.Rank()
	var rerr error
	if owner == -1 || owner == me {
		start, shape := a.layout.box(me)
		local := make([]int, len(idx))
		for d := range idx {
			local[d] = idx[d] - start[d]
		}
		off := ravel(local, shape)
		rerr = backend.CopyToHostSlice(v[:], a.local.Slice(off, off+1))
	}
	if owner == -1 {
		return v[0], rerr
	}
	// The value and the owner's failure (1 on its device, 2 otherwise),
	// in one broadcast.
	w := []T{v[0], 0}
	if owner == me {
		rerr = takeFault(rerr)
		if dev, _ := failFlag(rerr); dev > 0 {
			w = []T{0, 1}
		} else if rerr != nil {
			w = []T{0, 2}
		}
	}
	if err := mpi.Bcast(a.comm, w, owner); err != nil {
		return w[0], err
	}
	switch {
	case rerr != nil:
		return w[0], fmt.Errorf("dist.Get: %w", rerr)
	case w[1] == 1:
		return w[0], fmt.Errorf("dist.Get: reading the element failed on rank %d: %w", owner, backend.ErrDevice)
	case w[1] != 0:
		return w[0], fmt.Errorf("dist.Get: reading the element failed on rank %d", owner)
	}
	return w[0], nil
}

// Set stores v at the global multi-index idx (negative indices counted
// from the end, as Get's): the rank that holds the element (every rank,
// for a replicated array) writes it. It is collective
// in the sense of Get: every rank calls it with the same arguments, and
// the checking mode checks that they do.
func Set[T backend.Numeric](a *Array[T], v T, idx ...int) error {
	if a.freed {
		return freedCollective("Set", a.comm)
	}
	idx = checkIndex("Set", idx, a.layout.shape)
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
