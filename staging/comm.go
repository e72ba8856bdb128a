package staging

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
)

// Op is a non-blocking MPI operation on a Staging's buffer: Isend or Irecv.
// Wait completes it. Use an Op from one goroutine.
type Op[T backend.Numeric] struct {
	l *Lease[T]
}

// Wait waits for the MPI request and, for a receive staged through host
// memory, copies what arrived into the array on the device (and waits for
// that copy). The Staging is free again afterwards, whatever happened; if
// the request failed, the array is left as it was and the error returned.
func (o *Op[T]) Wait() error { return o.l.Release() }

// Abandon waits for the MPI request without copying anything into the
// array: for an operation whose result is not wanted because another part
// of the exchange failed. The Staging is free again afterwards.
func (o *Op[T]) Abandon() error { return o.l.Abandon() }

// Staged reports whether the operation goes through host memory.
func (o *Op[T]) Staged() bool { return o.l.Staged() }

// Isend starts sending x to rank dest of c with tag: MPI reads x's own
// memory for a host array or a CUDA-aware MPI (after the device is
// synchronized), else the Staging's pinned host buffer, into which x is
// first copied. x must not change until Wait. It is not collective.
func (s *Staging[T]) Isend(c mpi.Comm, x *backend.Array[T], dest, tag int) (*Op[T], error) {
	l, err := s.Lease(x, true)
	if err != nil {
		return nil, err
	}
	req, err := c.Isend(l.Ptr(), l.Len(), mpi.TypeOf[T](), dest, tag)
	if err != nil {
		l.Abandon()
		return nil, err
	}
	l.Attach(req)
	return &Op[T]{l: l}, nil
}

// Irecv starts receiving x.Len() elements into x from rank src of c with
// tag: MPI writes x's own memory for a host array or a CUDA-aware MPI,
// else the Staging's pinned host buffer, which Wait copies into x. x must
// not be read until Wait. It is not collective.
func (s *Staging[T]) Irecv(c mpi.Comm, x *backend.Array[T], src, tag int) (*Op[T], error) {
	l, err := s.Lease(x, false)
	if err != nil {
		return nil, err
	}
	req, err := c.Irecv(l.Ptr(), l.Len(), mpi.TypeOf[T](), src, tag)
	if err != nil {
		l.Abandon()
		return nil, err
	}
	l.Attach(req)
	return &Op[T]{l: l}, nil
}

// Send sends x to dest and waits: Isend followed by Wait.
func (s *Staging[T]) Send(c mpi.Comm, x *backend.Array[T], dest, tag int) error {
	op, err := s.Isend(c, x, dest, tag)
	if err != nil {
		return err
	}
	return op.Wait()
}

// Recv receives into x from src and waits: Irecv followed by Wait.
func (s *Staging[T]) Recv(c mpi.Comm, x *backend.Array[T], src, tag int) error {
	op, err := s.Irecv(c, x, src, tag)
	if err != nil {
		return err
	}
	return op.Wait()
}

// side is one array's part in a blocking MPI collective: the pointer MPI is
// handed, and, when the array is staged, the host copy behind it.
//
// A device address is not a Go pointer: it keeps nothing alive. An array
// whose last use is the collective (a temporary gathered, a result
// dropped) would be unreachable while MPI reads or writes its memory, and
// the cleanup that frees unreachable device memory (backend/cuda) could
// free it under MPI, which then sends whatever the allocator wrote there or
// writes into memory reused by someone else. Every collective below
// therefore calls keep on each side after MPI returns.
type side[T backend.Numeric] struct {
	x    *backend.Array[T]
	ptr  unsafe.Pointer
	host []T // nil unless staged
	call string
}

// prepare returns the side of x in the collective call: x's own memory for
// a host array or a CUDA-aware MPI (after synchronizing the device), or a
// host copy (Go memory: the copies are blocking, so pinning buys nothing)
// into which x is copied first if MPI reads it (in). x may be nil: a side
// that the call ignores on this rank.
func prepare[T backend.Numeric](cfg *config, call string, x *backend.Array[T], in bool) (side[T], error) {
	sd := side[T]{x: x, call: call}
	if x == nil || x.Len() == 0 {
		return sd, nil
	}
	dev := x.Device()
	if dev.IsHost() {
		sd.ptr = x.Ptr()
		return sd, nil
	}
	direct, err := cfg.direct(dev)
	if err != nil {
		return sd, fmt.Errorf("%s: %w", call, err)
	}
	if direct {
		if err := SynchronizeForMPI(nil, nil, x); err != nil {
			return sd, err
		}
		sd.ptr = x.Ptr()
		return sd, nil
	}
	sd.host = make([]T, x.Len())
	sd.ptr = unsafe.Pointer(unsafe.SliceData(sd.host))
	if in {
		if err := copyToHostBlocking(sd.ptr, x); err != nil {
			return sd, fmt.Errorf("staging: %s: copying %d bytes from %v for MPI: %w", call, nbytes(x), dev, err)
		}
		profiling.RecordTransfer(profiling.ToHost, "staging."+call+" (send)", int64(nbytes(x)), true, false)
	}
	return sd, nil
}

// keep keeps the side's array reachable up to this call: call it after
// the MPI call that uses sd.ptr (see side).
func (sd side[T]) keep() { runtime.KeepAlive(sd.x) }

// finish copies what MPI wrote into a staged side's host copy to the
// device, and waits.
func (sd side[T]) finish() error {
	if sd.host == nil {
		return nil
	}
	if err := copyToDeviceBlocking(sd.x, sd.ptr); err != nil {
		return fmt.Errorf("staging: %s: copying %d bytes received by MPI to %v: %w", sd.call, nbytes(sd.x), sd.x.Device(), err)
	}
	profiling.RecordTransfer(profiling.ToDevice, "staging."+sd.call+" (receive)", int64(nbytes(sd.x)), true, false)
	return nil
}

// Bcast copies root's x into every rank's x, which must have the same
// length everywhere. It is collective.
func Bcast[T backend.Numeric](c mpi.Comm, x *backend.Array[T], root int, opts ...Option) error {
	cfg := newConfig(opts)
	sd, err := prepare(&cfg, "Bcast", x, c.Rank() == root)
	if err != nil {
		return err
	}
	err = c.Bcast(sd.ptr, x.Len(), mpi.TypeOf[T](), root)
	sd.keep()
	if err != nil {
		return err
	}
	if c.Rank() == root {
		return nil
	}
	return sd.finish()
}

// Gatherv gathers every rank's send into root's recv: rank i's elements
// land at recv[displs[i]:displs[i]+counts[i]]. recv is ignored (and may be
// nil) on the other ranks. Either array may live on the host or on a
// device. It is collective.
func Gatherv[T backend.Numeric](c mpi.Comm, send, recv *backend.Array[T], counts, displs []int, root int, opts ...Option) error {
	cfg := newConfig(opts)
	ss, err := prepare(&cfg, "Gatherv", send, true)
	if err != nil {
		return err
	}
	var rs side[T]
	if c.Rank() == root {
		if rs, err = prepare(&cfg, "Gatherv", recv, false); err != nil {
			return err
		}
	}
	err = c.Gatherv(ss.ptr, send.Len(), rs.ptr, counts, displs, mpi.TypeOf[T](), root)
	ss.keep()
	rs.keep()
	if err != nil {
		return err
	}
	return rs.finish()
}

// Allgatherv is Gatherv with the result in every rank's recv. It is
// collective.
func Allgatherv[T backend.Numeric](c mpi.Comm, send, recv *backend.Array[T], counts, displs []int, opts ...Option) error {
	cfg := newConfig(opts)
	ss, err := prepare(&cfg, "Allgatherv", send, true)
	if err != nil {
		return err
	}
	rs, err := prepare(&cfg, "Allgatherv", recv, false)
	if err != nil {
		return err
	}
	err = c.Allgatherv(ss.ptr, send.Len(), rs.ptr, counts, displs, mpi.TypeOf[T]())
	ss.keep()
	rs.keep()
	if err != nil {
		return err
	}
	return rs.finish()
}

// Scatterv sends send[displs[i]:displs[i]+counts[i]] of root's send to rank
// i's recv. send is ignored (and may be nil) on the other ranks. Either
// array may live on the host or on a device. It is collective.
func Scatterv[T backend.Numeric](c mpi.Comm, send *backend.Array[T], counts, displs []int, recv *backend.Array[T], root int, opts ...Option) error {
	cfg := newConfig(opts)
	var ss side[T]
	var err error
	if c.Rank() == root {
		if ss, err = prepare(&cfg, "Scatterv", send, true); err != nil {
			return err
		}
	}
	rs, err := prepare(&cfg, "Scatterv", recv, false)
	if err != nil {
		return err
	}
	err = c.Scatterv(ss.ptr, counts, displs, rs.ptr, recv.Len(), mpi.TypeOf[T](), root)
	ss.keep()
	rs.keep()
	if err != nil {
		return err
	}
	return rs.finish()
}

// Alltoallv sends send[sdispls[i]:sdispls[i]+scounts[i]] to rank i and
// receives rank j's part at recv[rdispls[j]:rdispls[j]+rcounts[j]]. Either
// array may live on the host or on a device. It is collective.
func Alltoallv[T backend.Numeric](c mpi.Comm, send *backend.Array[T], scounts, sdispls []int, recv *backend.Array[T], rcounts, rdispls []int, opts ...Option) error {
	cfg := newConfig(opts)
	ss, err := prepare(&cfg, "Alltoallv", send, true)
	if err != nil {
		return err
	}
	rs, err := prepare(&cfg, "Alltoallv", recv, false)
	if err != nil {
		return err
	}
	err = c.Alltoallv(ss.ptr, scounts, sdispls, rs.ptr, rcounts, rdispls, mpi.TypeOf[T]())
	ss.keep()
	rs.keep()
	if err != nil {
		return err
	}
	return rs.finish()
}

// Allreduce combines every rank's x with op, elementwise, into every rank's
// x (in place). It is collective.
func Allreduce[T backend.Numeric](c mpi.Comm, x *backend.Array[T], op mpi.Op, opts ...Option) error {
	cfg := newConfig(opts)
	sd, err := prepare(&cfg, "Allreduce", x, true)
	if err != nil {
		return err
	}
	err = c.Allreduce(mpi.InPlace, sd.ptr, x.Len(), mpi.TypeOf[T](), op)
	sd.keep()
	if err != nil {
		return err
	}
	return sd.finish()
}
