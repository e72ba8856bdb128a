package mpi

import "unsafe"

// Comm is a communicator: a group of ranks that exchange messages.
//
// The methods are the raw forms of the MPI calls: buffers are pointers to
// count elements of type dt, in host memory or, for a CUDA-aware MPI, device
// memory. Counts, displacements and ranks are in elements and ranks, as in
// MPI. The typed package functions (Allreduce, Gather, Send, ...) wrap them
// for Go slices, and are what most code should call.
//
// A zero count is legal everywhere, with any pointer (nil included).
type Comm interface {
	// Rank returns the caller's rank in the communicator.
	Rank() int
	// Size returns the number of ranks.
	Size() int

	// Barrier blocks until every rank has called it.
	Barrier() error
	// Bcast copies count elements from root's buf into every rank's buf.
	Bcast(buf unsafe.Pointer, count int, dt Datatype, root int) error
	// Reduce combines every rank's send with op into root's recv. At the root,
	// send may be InPlace: recv then holds the root's input.
	Reduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op, root int) error
	// Allreduce combines every rank's send with op into every rank's recv;
	// send may be InPlace.
	Allreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error
	// Gather concatenates count elements from every rank, in rank order, into
	// root's recv (Size()*count elements).
	Gather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error
	// Gatherv gathers scount elements from every rank; at the root, rank i's
	// elements land at recv[displs[i]:displs[i]+counts[i]].
	Gatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype, root int) error
	// Allgather is Gather with the result on every rank.
	Allgather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error
	// Allgatherv is Gatherv with the result on every rank.
	Allgatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype) error
	// Scatter sends count elements of root's send (Size()*count elements) to
	// each rank, in rank order.
	Scatter(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error
	// Scatterv sends send[displs[i]:displs[i]+counts[i]] of root's buffer to
	// rank i, which receives rcount elements.
	Scatterv(send unsafe.Pointer, counts, displs []int, recv unsafe.Pointer, rcount int, dt Datatype, root int) error
	// Alltoall sends count elements to every rank and receives count from
	// every rank; block i of send goes to rank i, block j of recv comes from j.
	Alltoall(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error
	// Alltoallv is Alltoall with per-rank counts and displacements.
	Alltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) error

	// Send sends count elements to dest with tag, blocking until buf may be
	// reused.
	Send(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) error
	// Recv receives at most count elements from src (or AnySource) with tag
	// (or AnyTag).
	Recv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Status, error)
	// Sendrecv sends to dest and receives from src in one call, which cannot
	// deadlock against a matching Sendrecv.
	Sendrecv(send unsafe.Pointer, scount int, dest, stag int, recv unsafe.Pointer, rcount int, src, rtag int, dt Datatype) (Status, error)
	// Isend starts a send. buf must not be changed until the request
	// completes; Go memory is kept pinned until then.
	Isend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) (Request, error)
	// Irecv starts a receive. buf must not be read until the request
	// completes; Go memory is kept pinned until then.
	Irecv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Request, error)

	// Scan sets recv on rank i to the send buffers of ranks 0 to i
	// combined with op, elementwise (an inclusive prefix reduction); send
	// may be InPlace.
	Scan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error
	// Exscan sets recv on rank i > 0 to the send buffers of ranks 0 to
	// i-1 combined with op (an exclusive prefix reduction). Rank 0's recv
	// is left as it was (MPI leaves it undefined; the binding keeps it).
	Exscan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error
	// Iallreduce starts an Allreduce (send may be InPlace): neither buffer
	// may be touched until the request completes.
	Iallreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) (Request, error)
	// Ialltoallv starts an Alltoallv: neither buffer may be touched until
	// the request completes (the counts and displacements are copied).
	Ialltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) (Request, error)
	// Probe blocks until a message from src (or AnySource) with tag (or
	// AnyTag) can be received, and returns its status without receiving
	// it; Count is in elements of dt. A probe of ProcNull returns at once.
	Probe(src, tag int, dt Datatype) (Status, error)
	// Iprobe reports, without blocking, whether Probe would return at
	// once, and the status if so.
	Iprobe(src, tag int, dt Datatype) (bool, Status, error)

	// Split partitions the communicator by color, ordering each part by key
	// then by rank. A rank that passes Undefined gets a nil Comm.
	Split(color, key int) (Comm, error)
	// SplitShared splits the communicator into the ranks that share memory
	// (the ranks of one node).
	SplitShared() (Comm, error)
	// Free releases the communicator. The world communicator cannot be freed.
	Free() error

	// Abort ends every rank of the job with the exit code. It does not return.
	Abort(code int)
	// Wtime returns the wall-clock time in seconds since an arbitrary point.
	Wtime() float64
}

// Request is a non-blocking operation in flight.
type Request interface {
	// Wait blocks until the operation completes.
	Wait() (Status, error)
	// Test reports whether the operation has completed, without blocking.
	// Once it reports true, the request is complete and Wait returns at once.
	Test() (done bool, st Status, err error)
}

// Waitall waits for every request and returns their statuses. It waits for
// all of them even when one fails, and returns the first error.
func Waitall(reqs []Request) ([]Status, error) {
	sts := make([]Status, len(reqs))
	var first error
	for i, r := range reqs {
		if r == nil {
			continue
		}
		st, err := r.Wait()
		sts[i] = st
		if err != nil && first == nil {
			first = err
		}
	}
	return sts, first
}
