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
// the other's new block covers, in one all-to-all. It is collective.
//
// A block on a device stays there: the parts are packed and unpacked on
// the device (not at all where they are contiguous in the block, as with
// a split along axis 0 on both sides), and package staging hands MPI the
// device memory when it is CUDA-aware, or stages it through host memory.
func Redistribute[T backend.Numeric](x *Array[T], l Layout) (_ *Array[T], err error) {
	if !slices.Equal(l.shape, x.layout.shape) || l.ranks != x.layout.ranks {
		panic(fmt.Sprintf("dist: Redistribute from %v to %v: shapes or rank counts differ", x.layout, l))
	}
	if err := check("Redistribute", x, mpi.Arg{Name: "to", Value: l.hash(), Text: l.String()}); err != nil {
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
	me, p := x.comm.Rank(), x.comm.Size()
	dStart, dShape := l.box(me)
	if x.layout.axis == Replicated {
		// Every rank already holds its new block: cut it out.
		var runs []run
		boxRuns(make([]int, len(l.shape)), l.shape, dStart, dShape, func(blockOff, packedOff, n int) {
			runs = append(runs, run{block: blockOff, packed: packedOff, n: n})
		})
		// The new block, packed in row-major order, is the box's packing.
		copyRuns(out.local, x.local, runs, false, "dist.Redistribute")
		return out, nil
	}
	b := x.local.Backend()
	if l.axis == Replicated {
		return out, replicate(x, out, b)
	}
	sStart, sShape := x.layout.box(me)
	scounts, sdispls := make([]int, p), make([]int, p)
	rcounts, rdispls := make([]int, p), make([]int, p)
	var sruns, rruns []run
	soff, roff := 0, 0
	for r := 0; r < p; r++ {
		st, sh := l.box(r)
		is, ish, empty := intersect(sStart, sShape, st, sh)
		scounts[r], sdispls[r] = prod(ish), soff
		if !empty {
			boxRuns(sStart, sShape, is, ish, func(blockOff, packedOff, n int) {
				sruns = append(sruns, run{block: blockOff, packed: soff + packedOff, n: n})
			})
		}
		soff += scounts[r]
		rs, rsh := x.layout.box(r)
		js, jsh, empty := intersect(rs, rsh, dStart, dShape)
		rcounts[r], rdispls[r] = prod(jsh), roff
		if !empty {
			boxRuns(dStart, dShape, js, jsh, func(blockOff, packedOff, n int) {
				rruns = append(rruns, run{block: blockOff, packed: roff + packedOff, n: n})
			})
		}
		roff += rcounts[r]
	}
	send, err := packed(b, x.local, soff, sruns)
	if err != nil {
		return nil, err
	}
	if send != x.local {
		defer send.Free()
		copyRuns(send, x.local, sruns, false, "dist.Redistribute pack")
	}
	recv, err := packed(b, out.local, roff, rruns)
	if err != nil {
		return nil, err
	}
	if recv != out.local {
		defer recv.Free()
	}
	if err := staging.Alltoallv(x.comm, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, err
	}
	if recv != out.local {
		copyRuns(out.local, recv, rruns, true, "dist.Redistribute unpack")
	}
	return out, nil
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
	if err != nil {
		return err
	}
	if recv != out.local {
		defer recv.Free()
	}
	if err := staging.Allgatherv(x.comm, x.local, recv, counts, displs); err != nil {
		return err
	}
	if recv != out.local {
		copyRuns(out.local, recv, runs, true, "dist.Redistribute unpack")
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
