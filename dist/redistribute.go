package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// Redistribute returns a new array with x's elements laid out by l: another
// split axis, other block sizes, or replicated. l must have x's shape and
// rank count. Each rank sends every other rank the part of its block that
// the other's new block covers, in one all-to-all (to a replicated layout,
// one all-gather). Where no rank sends another anything (one rank, the same
// layout, a replicated source) no MPI call is made; a failed allocation of
// the packing buffers on one rank fails the call on every rank, before the
// all-to-all. It is collective.
//
// A block on a device stays there: the parts are packed and unpacked on
// the device (not at all where they are contiguous in the block, as with
// a split along axis 0 on both sides), and package staging hands MPI the
// device memory when it is CUDA-aware, or stages it through host memory.
func Redistribute[T backend.Numeric](x *Array[T], l Layout) (_ *Array[T], err error) {
	if err := redistributeCheck("Redistribute", x, l); err != nil {
		return nil, err
	}
	out, err := newOn[T](x.comm, l, x.local.Backend())
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
	return out, redistributeTo(x, out, "dist.Redistribute")
}

// redistributeCheck is the start of Redistribute and RedistributeInPlace
// (op): x not freed, l a layout of x's shape and ranks (else a panic), and
// the checking mode's comparison of the calls.
func redistributeCheck[T backend.Numeric](op string, x *Array[T], l Layout) error {
	if x.freed {
		return freedCollective(op, x.comm)
	}
	if !slices.Equal(l.shape, x.layout.shape) || l.ranks != x.layout.ranks {
		panic(fmt.Sprintf("dist: %s from %v to %v: shapes or rank counts differ", op, x.layout, l))
	}
	return check(op, x, mpi.Arg{Name: "to", Value: l.hash(), Text: l.String()})
}

// redistributeTo moves x's elements into out, of another layout of x's
// shape; desc names the copies for the profiler.
func redistributeTo[T backend.Numeric](x, out *Array[T], desc string) error {
	b := x.local.Backend()
	if out.layout.axis == Replicated && x.layout.axis != Replicated {
		return replicate(x, out, b)
	}
	// Every rank's block is one piece of the array's index space on both
	// sides; a replicated source's pieces are local (each rank cuts its
	// new block out of its own copy, without MPI).
	m := move{send: layoutPieces(x.layout), recv: layoutPieces(out.layout)}
	return moveDo(m, x.comm, b, []*backend.Array[T]{x.local}, out.local, desc)
}

// replicate gathers every rank's block of x into out's block, the whole
// array: one all-gather, into out's block itself when the blocks, in rank
// order, are the array in row-major order (split along axis 0).
func replicate[T backend.Numeric](x, out *Array[T], b backend.Backend) error {
	l := x.layout
	counts, displs := l.blockCounts()
	var runs []run
	for r := 0; r < l.ranks; r++ {
		st, sh := l.box(r)
		boxRuns(make([]int, len(l.shape)), l.shape, st, sh, func(blockOff, packedOff, n int) {
			runs = append(runs, run{block: blockOff, packed: displs[r] + packedOff, n: n})
		})
	}
	recv, err := packed(b, out.local, out.local.Len(), runs)
	if err == nil && recv != out.local {
		defer recv.Free()
	}
	if onDevice(x.local) {
		// A failed allocation or a device fault on one rank (the fault
		// a synchronization of the device takes, or one recorded
		// earlier) fails the call on every rank before the all-gather.
		err = agreeBlocks(x.comm, "Redistribute", err, x.local)
	}
	if err != nil {
		return err
	}
	if err := exchanged(staging.Allgatherv(x.comm, x.local, recv, counts, displs)); err != nil {
		return err
	}
	if recv != out.local {
		stickyStep(func() { copyRuns(out.local, recv, runs, true, "dist.Redistribute unpack") })
	}
	return nil
}

// run is a contiguous piece of a block: n elements at offset block of the
// block, at offset packed of a packed buffer.
type run struct{ block, packed, n int }

// packed returns the packed buffer of n elements for the runs of block: the
// block itself when the runs already lie in it in packed order, else a new
// array on b (which the caller frees).
func packed[T backend.Numeric](b backend.Backend, block *backend.Array[T], n int, runs []run) (*backend.Array[T], error) {
	if n == block.Len() {
		same := true
		for _, r := range runs {
			if r.block != r.packed {
				same = false
				break
			}
		}
		if same {
			return block, nil
		}
	}
	return backend.NewOn[T](b, n)
}

// copyRuns copies the runs between a block and a packed buffer on one
// device: into the block (unpack) or into the packed buffer (pack).
// Copies within device memory are recorded as one DeviceCopy event.
func copyRuns[T backend.Numeric](dst, src *backend.Array[T], runs []run, unpack bool, desc string) {
	if len(runs) == 0 {
		return
	}
	total := 0
	if dst.Device().IsHost() {
		d, s := dst.Data(), src.Data()
		for _, r := range runs {
			if unpack {
				copy(d[r.block:r.block+r.n], s[r.packed:r.packed+r.n])
			} else {
				copy(d[r.packed:r.packed+r.n], s[r.block:r.block+r.n])
			}
		}
		return
	}
	for _, r := range runs {
		if unpack {
			backend.Copy(dst.Slice(r.block, r.block+r.n), src.Slice(r.packed, r.packed+r.n))
		} else {
			backend.Copy(dst.Slice(r.packed, r.packed+r.n), src.Slice(r.block, r.block+r.n))
		}
		total += r.n
	}
	if profiling.Active() {
		profiling.Record(profiling.Event{Kind: profiling.DeviceCopy, Desc: desc, Bytes: int64(total * dst.DType().Size())})
	}
}

// Resplit returns a new array with x's elements split evenly along axis (or
// replicated, with Replicated). It is collective.
func Resplit[T backend.Numeric](x *Array[T], axis int) (*Array[T], error) {
	return Redistribute(x, NewLayout(x.layout.shape, axis, x.comm.Size()))
}

// RedistributeInPlace returns x's elements laid out by l, as Redistribute
// does, and frees x: the result takes over x's memory on every rank whose
// block keeps its number of elements (an n x n array from rows to columns
// over ranks that divide n, say), and gets new memory on the others; the
// parts then go through scratch buffers (on the host, reused from call to
// call).
// A redistribution repeated in a loop (the transposes of a distributed
// FFT) thus allocates no memory of its own size each time, where
// Redistribute's new result faults fresh pages in. A replicated l, and an
// x with ghost layers, always get new memory.
//
// x is freed when it returns, with an error too (its elements are then
// lost): use the result only. Where x's memory is lent (Lend), the result
// gets new memory on that rank and x stays as it is, as after
// Redistribute. An allocation of the result that fails on some rank fails
// the call on every rank before anything moved, and leaves x as it is. It
// is collective.
func RedistributeInPlace[T backend.Numeric](x *Array[T], l Layout) (_ *Array[T], err error) {
	if err := redistributeCheck("RedistributeInPlace", x, l); err != nil {
		return nil, err
	}
	// Whether the result takes over x's block is this rank's choice; the
	// calls below are the same either way.
	lent := x.lent.Load() > 0
	inPlace := !lent && x.gh == nil && l.axis != Replicated && l.LocalLen(x.comm.Rank()) == x.local.Len()
	var out *Array[T]
	var local error
	if inPlace {
		out = &Array[T]{comm: x.comm, layout: l, local: x.local}
	} else {
		out, local = newLocal[T](x.comm, l, x.local.Backend())
	}
	if err := mpi.Agree(x.comm, local); err != nil {
		if out != nil && !inPlace {
			out.Free()
		}
		return nil, fmt.Errorf("dist: allocating %v: %w", l, err)
	}
	// From here x is gone (but where it is lent): in place, the result
	// owns its block (x is marked freed without freeing it), else x is
	// freed on return.
	switch {
	case inPlace:
		x.freed = true
	case !lent:
		defer x.Free()
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	return out, redistributeTo(x, out, "dist.RedistributeInPlace")
}
