package mpi

import (
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"
)

// Serial is the serial stand-in: a communicator of one rank that needs no
// MPI library. Its collectives return what the one rank of a real
// communicator would get; sends to rank 0 are queued and delivered to its
// receives in order; a peer other than 0, or a receive that no queued or
// later send can match, is an error. It is the world communicator of the
// default build, and is available in every build for tests.
type Serial struct {
	mu      sync.Mutex
	queue   []message    // sends not yet received, in order
	pending []*serialReq // receives posted before their send
}

type message struct {
	tag  int
	data []byte
	dt   Datatype
}

// NewSerial returns a new stand-in communicator of one rank.
func NewSerial() *Serial { return &Serial{} }

var serialStart = time.Now()

// Rank returns 0.
func (s *Serial) Rank() int { return 0 }

// Size returns 1.
func (s *Serial) Size() int { return 1 }

// Barrier returns at once.
func (s *Serial) Barrier() error { return nil }

func bytesAt(p unsafe.Pointer, count int, dt Datatype) []byte {
	n := count * dt.Size()
	if n == 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

func copyElems(dst, src unsafe.Pointer, count int, dt Datatype) {
	if count == 0 || dst == src {
		return
	}
	copy(bytesAt(dst, count, dt), bytesAt(src, count, dt))
}

func checkArgs(call string, count int, dt Datatype) error {
	if !dt.valid() {
		return errorf(call, "invalid datatype %d", int(dt))
	}
	if count < 0 {
		return errorf(call, "negative count %d", count)
	}
	return nil
}

func checkPeer(call, what string, r int) error {
	if r != 0 {
		return errorf(call, "%s %d is not a rank of the one-rank stand-in communicator (build with -tags mpi to run on several ranks)", what, r)
	}
	return nil
}

// Bcast leaves buf as it is: the root's data is already there.
func (s *Serial) Bcast(buf unsafe.Pointer, count int, dt Datatype, root int) error {
	if err := checkArgs("Bcast", count, dt); err != nil {
		return err
	}
	return checkPeer("Bcast", "root", root)
}

// Reduce copies send to recv.
func (s *Serial) Reduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op, root int) error {
	if err := s.reduce("Reduce", send, recv, count, dt, op); err != nil {
		return err
	}
	return checkPeer("Reduce", "root", root)
}

// Allreduce copies send to recv.
func (s *Serial) Allreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	return s.reduce("Allreduce", send, recv, count, dt, op)
}

func (s *Serial) reduce(call string, send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	if err := checkArgs(call, count, dt); err != nil {
		return err
	}
	if !op.validFor(dt) {
		return errorf(call, "operation %v is not defined on %v", op, dt)
	}
	if send != InPlace {
		copyElems(recv, send, count, dt)
	}
	return nil
}

// Gather copies send to recv.
func (s *Serial) Gather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error {
	if err := checkArgs("Gather", count, dt); err != nil {
		return err
	}
	if err := checkPeer("Gather", "root", root); err != nil {
		return err
	}
	copyElems(recv, send, count, dt)
	return nil
}

func checkV(call string, scount int, counts, displs []int) error {
	if len(counts) != 1 || len(displs) != 1 {
		return errorf(call, "%d counts and %d displacements for 1 rank", len(counts), len(displs))
	}
	if counts[0] != scount {
		return errorf(call, "rank 0 sends %d elements but %d are expected", scount, counts[0])
	}
	if displs[0] < 0 {
		return errorf(call, "negative displacement %d", displs[0])
	}
	return nil
}

func offset(p unsafe.Pointer, elems int, dt Datatype) unsafe.Pointer {
	if p == nil || elems == 0 {
		return p
	}
	return unsafe.Add(p, elems*dt.Size())
}

// Gatherv copies send to recv at displs[0].
func (s *Serial) Gatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype, root int) error {
	if err := checkArgs("Gatherv", scount, dt); err != nil {
		return err
	}
	if err := checkPeer("Gatherv", "root", root); err != nil {
		return err
	}
	if err := checkV("Gatherv", scount, counts, displs); err != nil {
		return err
	}
	copyElems(offset(recv, displs[0], dt), send, scount, dt)
	return nil
}

// Allgather copies send to recv.
func (s *Serial) Allgather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error {
	return s.Gather(send, count, recv, dt, 0)
}

// Allgatherv copies send to recv at displs[0].
func (s *Serial) Allgatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype) error {
	return s.Gatherv(send, scount, recv, counts, displs, dt, 0)
}

// Scatter copies send to recv.
func (s *Serial) Scatter(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error {
	if err := checkArgs("Scatter", count, dt); err != nil {
		return err
	}
	if err := checkPeer("Scatter", "root", root); err != nil {
		return err
	}
	copyElems(recv, send, count, dt)
	return nil
}

// Scatterv copies send at displs[0] to recv.
func (s *Serial) Scatterv(send unsafe.Pointer, counts, displs []int, recv unsafe.Pointer, rcount int, dt Datatype, root int) error {
	if err := checkArgs("Scatterv", rcount, dt); err != nil {
		return err
	}
	if err := checkPeer("Scatterv", "root", root); err != nil {
		return err
	}
	if err := checkV("Scatterv", rcount, counts, displs); err != nil {
		return err
	}
	copyElems(recv, offset(send, displs[0], dt), rcount, dt)
	return nil
}

// Alltoall copies send to recv.
func (s *Serial) Alltoall(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error {
	if err := checkArgs("Alltoall", count, dt); err != nil {
		return err
	}
	copyElems(recv, send, count, dt)
	return nil
}

// Alltoallv copies rank 0's block of send to its block of recv.
func (s *Serial) Alltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) error {
	if len(scounts) != 1 || len(rcounts) != 1 {
		return errorf("Alltoallv", "%d send counts and %d receive counts for 1 rank", len(scounts), len(rcounts))
	}
	if err := checkArgs("Alltoallv", scounts[0], dt); err != nil {
		return err
	}
	if err := checkV("Alltoallv", scounts[0], rcounts, rdispls); err != nil {
		return err
	}
	if len(sdispls) != 1 || sdispls[0] < 0 {
		return errorf("Alltoallv", "bad send displacements %v", sdispls)
	}
	copyElems(offset(recv, rdispls[0], dt), offset(send, sdispls[0], dt), scounts[0], dt)
	return nil
}

// Send queues a copy of buf for a later receive on this rank.
func (s *Serial) Send(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) error {
	if err := checkArgs("Send", count, dt); err != nil {
		return err
	}
	if tag < 0 {
		return errorf("Send", "negative tag %d", tag)
	}
	if dest == ProcNull {
		return nil
	}
	if err := checkPeer("Send", "destination", dest); err != nil {
		return err
	}
	m := message{tag: tag, dt: dt, data: append([]byte(nil), bytesAt(buf, count, dt)...)}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A receive posted earlier takes the message first.
	for i, r := range s.pending {
		if r.tag == AnyTag || r.tag == tag {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			r.deliver(m)
			return nil
		}
	}
	s.queue = append(s.queue, m)
	return nil
}

// take removes and returns the first queued message that matches tag.
func (s *Serial) take(tag int) (message, bool) {
	for i, m := range s.queue {
		if tag == AnyTag || m.tag == tag {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			return m, true
		}
	}
	return message{}, false
}

func checkRecv(call string, count int, dt Datatype, src int) error {
	if err := checkArgs(call, count, dt); err != nil {
		return err
	}
	if src != AnySource && src != ProcNull {
		return checkPeer(call, "source", src)
	}
	return nil
}

// procNullStatus is the status of a receive from ProcNull.
var procNullStatus = Status{Source: ProcNull, Tag: AnyTag}

// Recv takes the first queued message with a matching tag. With none queued
// it is an error: on one rank, no send can ever arrive.
func (s *Serial) Recv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Status, error) {
	if err := checkRecv("Recv", count, dt, src); err != nil {
		return Status{}, err
	}
	if src == ProcNull {
		return procNullStatus, nil
	}
	s.mu.Lock()
	m, ok := s.take(tag)
	s.mu.Unlock()
	if !ok {
		return Status{}, errorf("Recv", "no message with tag %d was sent to rank 0, and none can arrive: the receive would block forever", tag)
	}
	return receive("Recv", m, buf, count, dt)
}

func receive(call string, m message, buf unsafe.Pointer, count int, dt Datatype) (Status, error) {
	if m.dt.Size() != dt.Size() && len(m.data) > 0 {
		return Status{}, errorf(call, "message of %v received as %v", m.dt, dt)
	}
	n := len(m.data) / dt.Size()
	if n > count {
		return Status{Source: 0, Tag: m.tag, Count: n}, errorf(call, "message of %d elements truncated to %d", n, count)
	}
	copy(bytesAt(buf, count, dt), m.data)
	return Status{Source: 0, Tag: m.tag, Count: n}, nil
}

// Sendrecv queues send and then receives it, or an earlier message.
func (s *Serial) Sendrecv(send unsafe.Pointer, scount int, dest, stag int, recv unsafe.Pointer, rcount int, src, rtag int, dt Datatype) (Status, error) {
	if err := s.Send(send, scount, dt, dest, stag); err != nil {
		return Status{}, err
	}
	return s.Recv(recv, rcount, dt, src, rtag)
}

// Isend queues a copy of buf and returns a completed request.
func (s *Serial) Isend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) (Request, error) {
	if err := s.Send(buf, count, dt, dest, tag); err != nil {
		return nil, err
	}
	return &serialReq{done: true}, nil
}

// Irecv takes a queued message at once, or waits for a later Send or Isend
// on this rank. Waiting for a request that no send has matched is an error.
func (s *Serial) Irecv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Request, error) {
	if err := checkRecv("Irecv", count, dt, src); err != nil {
		return nil, err
	}
	if src == ProcNull {
		return &serialReq{done: true, st: procNullStatus}, nil
	}
	r := &serialReq{owner: s, buf: buf, count: count, dt: dt, tag: tag}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.take(tag); ok {
		r.deliver(m)
		return r, nil
	}
	r.pin.Pin(buf)
	s.pending = append(s.pending, r)
	return r, nil
}

// Scan copies send to recv: the prefix of one rank is its own.
func (s *Serial) Scan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	return s.reduce("Scan", send, recv, count, dt, op)
}

// Exscan leaves recv as it is: rank 0 has no ranks before it.
func (s *Serial) Exscan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	return s.reduce("Exscan", InPlace, recv, count, dt, op)
}

// Iallreduce copies send to recv and returns a completed request.
func (s *Serial) Iallreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) (Request, error) {
	if err := s.reduce("Iallreduce", send, recv, count, dt, op); err != nil {
		return nil, err
	}
	return &serialReq{done: true}, nil
}

// Ialltoallv does Alltoallv and returns a completed request.
func (s *Serial) Ialltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) (Request, error) {
	if err := s.Alltoallv(send, scounts, sdispls, recv, rcounts, rdispls, dt); err != nil {
		return nil, err
	}
	return &serialReq{done: true}, nil
}

// Probe returns the status of the first queued message that a receive
// from src with tag would take. With none queued it is an error: on one
// rank, no send can ever arrive.
func (s *Serial) Probe(src, tag int, dt Datatype) (Status, error) {
	ok, st, err := s.Iprobe(src, tag, dt)
	if err == nil && !ok {
		err = errorf("Probe", "no message with tag %d was sent to rank 0, and none can arrive: the probe would block forever", tag)
	}
	return st, err
}

// Iprobe reports whether a message that a receive from src with tag would
// take is queued, and its status.
func (s *Serial) Iprobe(src, tag int, dt Datatype) (bool, Status, error) {
	if err := checkRecv("Iprobe", 0, dt, src); err != nil {
		return false, Status{}, err
	}
	if src == ProcNull {
		return true, procNullStatus, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.queue {
		if tag == AnyTag || m.tag == tag {
			return true, Status{Source: 0, Tag: m.tag, Count: len(m.data) / dt.Size()}, nil
		}
	}
	return false, Status{}, nil
}

// Split returns a new stand-in communicator, or nil for color Undefined.
func (s *Serial) Split(color, key int) (Comm, error) {
	if color == Undefined {
		return nil, nil
	}
	if color < 0 {
		return nil, errorf("Split", "negative color %d", color)
	}
	return NewSerial(), nil
}

// SplitShared returns a new stand-in communicator.
func (s *Serial) SplitShared() (Comm, error) { return NewSerial(), nil }

// Free does nothing.
func (s *Serial) Free() error { return nil }

// Abort ends the process with the exit code.
func (s *Serial) Abort(code int) {
	fmt.Fprintf(os.Stderr, "xpmpi: rank 0 aborted the job with exit code %d\n", code)
	os.Exit(code)
}

// Wtime returns the seconds since the program started.
func (s *Serial) Wtime() float64 { return time.Since(serialStart).Seconds() }

// allreduceValue returns the one rank's value.
func (s *Serial) allreduceValue(bits uint64, dt Datatype, op Op) (uint64, error) {
	if !op.validFor(dt) {
		return 0, errorf("Allreduce", "operation %v is not defined on %v", op, dt)
	}
	return bits, nil
}

// reduceValue returns the one rank's value, where root is 0.
func (s *Serial) reduceValue(bits uint64, dt Datatype, op Op, root int) (uint64, error) {
	if !op.validFor(dt) {
		return 0, errorf("Reduce", "operation %v is not defined on %v", op, dt)
	}
	if err := checkPeer("Reduce", "root", root); err != nil {
		return 0, err
	}
	return bits, nil
}
