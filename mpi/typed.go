package mpi

import (
	"fmt"
	"unsafe"
)

// ptr returns the address of the first element of s, or nil if s is empty.
func ptr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(s))
}

func checkOp[T Number](call string, op Op) {
	if !op.validFor(TypeOf[T]()) {
		panic(fmt.Sprintf("mpi: %s: operation %v is not defined on %v", call, op, TypeOf[T]()))
	}
}

func checkLen(call, what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("mpi: %s: %s has %d elements, want %d", call, what, got, want))
	}
}

// displsOf returns displs, or the packed displacements of counts if displs
// is nil, and checks that every block fits in n elements.
func displsOf(call string, counts, displs []int, size, n int) []int {
	checkLen(call, "counts", len(counts), size)
	if displs == nil {
		displs = make([]int, size)
		off := 0
		for i, c := range counts {
			displs[i] = off
			off += c
		}
	}
	checkLen(call, "displs", len(displs), size)
	for i := range counts {
		if counts[i] < 0 || displs[i] < 0 || displs[i]+counts[i] > n {
			panic(fmt.Sprintf("mpi: %s: block %d (displacement %d, count %d) does not fit in %d elements", call, i, displs[i], counts[i], n))
		}
	}
	return displs
}

// Bcast copies root's buf into every rank's buf; every rank passes a slice of
// the same length.
func Bcast[T Number](c Comm, buf []T, root int) error {
	return c.Bcast(ptr(buf), len(buf), TypeOf[T](), root)
}

// Reduce combines send from every rank into recv at the root, which must
// have len(send) elements there (recv is ignored elsewhere).
func Reduce[T Number](c Comm, send, recv []T, op Op, root int) error {
	checkOp[T]("Reduce", op)
	if c.Rank() == root {
		checkLen("Reduce", "recv", len(recv), len(send))
	}
	return c.Reduce(ptr(send), ptr(recv), len(send), TypeOf[T](), op, root)
}

// ReduceInPlace combines buf from every rank into buf at the root.
func ReduceInPlace[T Number](c Comm, buf []T, op Op, root int) error {
	checkOp[T]("Reduce", op)
	if c.Rank() == root {
		return c.Reduce(InPlace, ptr(buf), len(buf), TypeOf[T](), op, root)
	}
	return c.Reduce(ptr(buf), nil, len(buf), TypeOf[T](), op, root)
}

// Allreduce combines send from every rank into recv on every rank.
func Allreduce[T Number](c Comm, send, recv []T, op Op) error {
	checkOp[T]("Allreduce", op)
	checkLen("Allreduce", "recv", len(recv), len(send))
	return c.Allreduce(ptr(send), ptr(recv), len(send), TypeOf[T](), op)
}

// AllreduceInPlace combines buf from every rank into buf on every rank.
func AllreduceInPlace[T Number](c Comm, buf []T, op Op) error {
	checkOp[T]("Allreduce", op)
	return c.Allreduce(InPlace, ptr(buf), len(buf), TypeOf[T](), op)
}

// AllreduceValue combines one value from every rank with op and returns
// the result on every rank. It is collective. A value of at most 8 bytes
// takes a fast path: it goes to MPI by value, with nothing allocated and no
// pointer to Go memory handed to C.
func AllreduceValue[T Number](c Comm, v T, op Op) (T, error) {
	checkOp[T]("Allreduce", op)
	if unsafe.Sizeof(v) > 8 { // a complex128: 16 bytes
		in, out := []T{v}, make([]T, 1)
		err := c.Allreduce(ptr(in), ptr(out), 1, TypeOf[T](), op)
		return out[0], err
	}
	// The value travels as bits, so that no pointer to it goes through an
	// interface call and it stays on the stack.
	var bits uint64
	*(*T)(unsafe.Pointer(&bits)) = v
	dt := TypeOf[T]()
	var err error
	if f, ok := c.(valueReducer); ok {
		bits, err = f.allreduceValue(bits, dt, op)
	} else {
		bits, err = allreduceBits(c, bits, dt, op)
	}
	return *(*T)(unsafe.Pointer(&bits)), err
}

// ReduceValue combines one value from every rank with op and returns the
// result at the root, and zero on the other ranks. It is collective. Like
// AllreduceValue, a value of at most 8 bytes goes to MPI by value.
func ReduceValue[T Number](c Comm, v T, op Op, root int) (T, error) {
	checkOp[T]("Reduce", op)
	if unsafe.Sizeof(v) > 8 {
		in, out := []T{v}, make([]T, 1)
		err := c.Reduce(ptr(in), ptr(out), 1, TypeOf[T](), op, root)
		if c.Rank() != root {
			out[0] = 0
		}
		return out[0], err
	}
	var bits uint64
	*(*T)(unsafe.Pointer(&bits)) = v
	dt := TypeOf[T]()
	var err error
	if f, ok := c.(valueReducer); ok {
		bits, err = f.reduceValue(bits, dt, op, root)
	} else {
		bits, err = reduceBits(c, bits, dt, op, root)
	}
	return *(*T)(unsafe.Pointer(&bits)), err
}

// valueReducer is implemented by communicators with a fast path for the
// reductions of one value of at most 8 bytes, passed as its bits.
type valueReducer interface {
	allreduceValue(bits uint64, dt Datatype, op Op) (uint64, error)
	reduceValue(bits uint64, dt Datatype, op Op, root int) (uint64, error)
}

// allreduceBits is the allreduce of one value through the raw interface.
func allreduceBits(c Comm, bits uint64, dt Datatype, op Op) (uint64, error) {
	buf := new([2]uint64)
	buf[0] = bits
	err := c.Allreduce(unsafe.Pointer(&buf[0]), unsafe.Pointer(&buf[1]), 1, dt, op)
	return buf[1], err
}

// reduceBits is the reduce of one value through the raw interface: the
// root gets the result, the other ranks 0.
func reduceBits(c Comm, bits uint64, dt Datatype, op Op, root int) (uint64, error) {
	buf := new([2]uint64)
	buf[0] = bits
	err := c.Reduce(unsafe.Pointer(&buf[0]), unsafe.Pointer(&buf[1]), 1, dt, op, root)
	if c.Rank() != root {
		return 0, err
	}
	return buf[1], err
}

// AllTrue reports whether ok is true on every rank.
func AllTrue(c Comm, ok bool) (bool, error) {
	v := int32(0)
	if ok {
		v = 1
	}
	r, err := AllreduceValue(c, v, LAnd)
	return r != 0, err
}

// Gather concatenates send from every rank, in rank order, into recv at the
// root (Size()*len(send) elements; ignored elsewhere).
func Gather[T Number](c Comm, send, recv []T, root int) error {
	if c.Rank() == root {
		checkLen("Gather", "recv", len(recv), c.Size()*len(send))
	}
	return c.Gather(ptr(send), len(send), ptr(recv), TypeOf[T](), root)
}

// Gatherv gathers send from every rank into recv at the root, rank i's
// elements at displs[i] (packed in rank order if displs is nil). counts and
// displs matter at the root only.
func Gatherv[T Number](c Comm, send, recv []T, counts, displs []int, root int) error {
	if c.Rank() == root {
		displs = displsOf("Gatherv", counts, displs, c.Size(), len(recv))
	}
	return c.Gatherv(ptr(send), len(send), ptr(recv), counts, displs, TypeOf[T](), root)
}

// Allgather concatenates send from every rank into recv on every rank.
func Allgather[T Number](c Comm, send, recv []T) error {
	checkLen("Allgather", "recv", len(recv), c.Size()*len(send))
	return c.Allgather(ptr(send), len(send), ptr(recv), TypeOf[T]())
}

// Allgatherv is Gatherv with the result on every rank.
func Allgatherv[T Number](c Comm, send, recv []T, counts, displs []int) error {
	displs = displsOf("Allgatherv", counts, displs, c.Size(), len(recv))
	checkLen("Allgatherv", "send", len(send), counts[c.Rank()])
	return c.Allgatherv(ptr(send), len(send), ptr(recv), counts, displs, TypeOf[T]())
}

// Scatter sends consecutive blocks of len(recv) elements of root's send to
// the ranks in order.
func Scatter[T Number](c Comm, send, recv []T, root int) error {
	if c.Rank() == root {
		checkLen("Scatter", "send", len(send), c.Size()*len(recv))
	}
	return c.Scatter(ptr(send), len(recv), ptr(recv), TypeOf[T](), root)
}

// Scatterv sends send[displs[i]:displs[i]+counts[i]] of root's buffer to
// rank i, which receives len(recv) elements. counts and displs matter at the
// root only; displs nil means packed.
func Scatterv[T Number](c Comm, send []T, counts, displs []int, recv []T, root int) error {
	if c.Rank() == root {
		displs = displsOf("Scatterv", counts, displs, c.Size(), len(send))
	}
	return c.Scatterv(ptr(send), counts, displs, ptr(recv), len(recv), TypeOf[T](), root)
}

// Alltoall sends block i of send (len(send)/Size() elements) to rank i and
// receives block j of recv from rank j.
func Alltoall[T Number](c Comm, send, recv []T) error {
	p := c.Size()
	if len(send)%p != 0 {
		panic(fmt.Sprintf("mpi: Alltoall: send has %d elements, not a multiple of the %d ranks", len(send), p))
	}
	checkLen("Alltoall", "recv", len(recv), len(send))
	return c.Alltoall(ptr(send), len(send)/p, ptr(recv), TypeOf[T]())
}

// Alltoallv sends send[sdispls[i]:][:scounts[i]] to rank i and receives
// rcounts[j] elements from rank j at rdispls[j]; nil displacements mean
// packed.
func Alltoallv[T Number](c Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	p := c.Size()
	sdispls = displsOf("Alltoallv", scounts, sdispls, p, len(send))
	rdispls = displsOf("Alltoallv", rcounts, rdispls, p, len(recv))
	return c.Alltoallv(ptr(send), scounts, sdispls, ptr(recv), rcounts, rdispls, TypeOf[T]())
}

// Scan sets recv on rank i to send of ranks 0 to i combined with op
// (an inclusive prefix reduction). It is collective.
func Scan[T Number](c Comm, send, recv []T, op Op) error {
	checkOp[T]("Scan", op)
	checkLen("Scan", "recv", len(recv), len(send))
	return c.Scan(ptr(send), ptr(recv), len(send), TypeOf[T](), op)
}

// Exscan sets recv on rank i > 0 to send of ranks 0 to i-1 combined with
// op (an exclusive prefix reduction); rank 0's recv is left as it was. It
// is collective.
func Exscan[T Number](c Comm, send, recv []T, op Op) error {
	checkOp[T]("Exscan", op)
	checkLen("Exscan", "recv", len(recv), len(send))
	return c.Exscan(ptr(send), ptr(recv), len(send), TypeOf[T](), op)
}

// ExscanValue returns the values of ranks 0 to i-1 combined with op on
// rank i, and zero on rank 0: with Sum, where the caller's part starts in
// a concatenation of every rank's part. It is collective.
func ExscanValue[T Number](c Comm, v T, op Op) (T, error) {
	in, out := []T{v}, []T{0}
	err := Exscan(c, in, out, op)
	if c.Rank() == 0 {
		out[0] = 0
	}
	return out[0], err
}

// Iallreduce starts combining send from every rank into recv on every
// rank. Both stay pinned and must not be touched until the request
// completes. It is collective.
func Iallreduce[T Number](c Comm, send, recv []T, op Op) (Request, error) {
	checkOp[T]("Iallreduce", op)
	checkLen("Iallreduce", "recv", len(recv), len(send))
	return c.Iallreduce(ptr(send), ptr(recv), len(send), TypeOf[T](), op)
}

// IallreduceInPlace starts combining buf from every rank into buf. It is
// collective.
func IallreduceInPlace[T Number](c Comm, buf []T, op Op) (Request, error) {
	checkOp[T]("Iallreduce", op)
	return c.Iallreduce(InPlace, ptr(buf), len(buf), TypeOf[T](), op)
}

// Ialltoallv starts an Alltoallv (nil displacements mean packed). The
// buffers stay pinned and must not be touched until the request
// completes. It is collective.
func Ialltoallv[T Number](c Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (Request, error) {
	p := c.Size()
	sdispls = displsOf("Ialltoallv", scounts, sdispls, p, len(send))
	rdispls = displsOf("Ialltoallv", rcounts, rdispls, p, len(recv))
	return c.Ialltoallv(ptr(send), scounts, sdispls, ptr(recv), rcounts, rdispls, TypeOf[T]())
}

// Probe waits for a message of elements of T from src with tag, and
// returns its status (Count in elements) without receiving it.
func Probe[T Number](c Comm, src, tag int) (Status, error) {
	return c.Probe(src, tag, TypeOf[T]())
}

// Send sends buf to dest with tag.
func Send[T Number](c Comm, buf []T, dest, tag int) error {
	return c.Send(ptr(buf), len(buf), TypeOf[T](), dest, tag)
}

// Recv receives at most len(buf) elements from src with tag.
func Recv[T Number](c Comm, buf []T, src, tag int) (Status, error) {
	return c.Recv(ptr(buf), len(buf), TypeOf[T](), src, tag)
}

// Sendrecv sends send to dest and receives into recv from src.
func Sendrecv[T Number](c Comm, send []T, dest, stag int, recv []T, src, rtag int) (Status, error) {
	return c.Sendrecv(ptr(send), len(send), dest, stag, ptr(recv), len(recv), src, rtag, TypeOf[T]())
}

// Isend starts sending buf to dest. buf stays pinned and must not change
// until the request completes.
func Isend[T Number](c Comm, buf []T, dest, tag int) (Request, error) {
	return c.Isend(ptr(buf), len(buf), TypeOf[T](), dest, tag)
}

// Irecv starts receiving at most len(buf) elements from src. buf stays
// pinned and must not be read until the request completes.
func Irecv[T Number](c Comm, buf []T, src, tag int) (Request, error) {
	return c.Irecv(ptr(buf), len(buf), TypeOf[T](), src, tag)
}

// BcastBytes copies root's b into every rank's b.
func BcastBytes(c Comm, b []byte, root int) error {
	return c.Bcast(ptr(b), len(b), Byte, root)
}

// GatherBytes gathers a byte slice of any length from every rank to the
// root, which gets them in rank order (other ranks get nil).
func GatherBytes(c Comm, b []byte, root int) ([][]byte, error) {
	p := c.Size()
	var lens []int64
	if c.Rank() == root {
		lens = make([]int64, p)
	}
	if err := Gather(c, []int64{int64(len(b))}, lens, root); err != nil {
		return nil, err
	}
	var all []byte
	var counts, displs []int
	if c.Rank() == root {
		counts, displs = make([]int, p), make([]int, p)
		total := 0
		for i, n := range lens {
			counts[i], displs[i] = int(n), total
			total += int(n)
		}
		all = make([]byte, total)
	}
	if err := c.Gatherv(ptr(b), len(b), ptr(all), counts, displs, Byte, root); err != nil {
		return nil, err
	}
	if c.Rank() != root {
		return nil, nil
	}
	out := make([][]byte, p)
	for i := range out {
		out[i] = all[displs[i] : displs[i]+counts[i]]
	}
	return out, nil
}

// AllgatherBytes gathers a byte slice of any length from every rank to
// every rank, in rank order.
func AllgatherBytes(c Comm, b []byte) ([][]byte, error) {
	p := c.Size()
	lens := make([]int64, p)
	if err := Allgather(c, []int64{int64(len(b))}, lens); err != nil {
		return nil, err
	}
	counts, displs := make([]int, p), make([]int, p)
	total := 0
	for r, n := range lens {
		counts[r], displs[r] = int(n), total
		total += int(n)
	}
	all := make([]byte, total)
	if err := c.Allgatherv(ptr(b), len(b), ptr(all), counts, displs, Byte); err != nil {
		return nil, err
	}
	out := make([][]byte, p)
	for r := range out {
		out[r] = all[displs[r] : displs[r]+counts[r]]
	}
	return out, nil
}
