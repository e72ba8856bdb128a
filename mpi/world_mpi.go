//go:build mpi || petsc

package mpi

/*
#cgo noescape xp_allreduce
#cgo nocallback xp_allreduce
#cgo nocallback xp_allreduce_value
#cgo nocallback xp_reduce_value
#cgo noescape xp_send
#cgo nocallback xp_send
#cgo noescape xp_recv
#cgo nocallback xp_recv
#cgo noescape xp_sendrecv
#cgo nocallback xp_sendrecv
#cgo noescape xp_bcast
#cgo nocallback xp_bcast
#include <stdlib.h>
#include "xpmpi_mpi.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

// The C binding's enums have the values of Datatype, AnySource, AnyTag and
// ProcNull: each line fails to compile unless the two agree.
var (
	_ = [1]struct{}{}[int(C.XP_ANY_SOURCE)-AnySource]
	_ = [1]struct{}{}[int(C.XP_ANY_TAG)-AnyTag]
	_ = [1]struct{}{}[int(C.XP_PROC_NULL)-ProcNull]
	_ = [1]struct{}{}[int(C.XP_FLOAT32)-int(Float32)]
	_ = [1]struct{}{}[int(C.XP_FLOAT64)-int(Float64)]
	_ = [1]struct{}{}[int(C.XP_INT32)-int(Int32)]
	_ = [1]struct{}{}[int(C.XP_INT64)-int(Int64)]
	_ = [1]struct{}{}[int(C.XP_UINT32)-int(Uint32)]
	_ = [1]struct{}{}[int(C.XP_UINT64)-int(Uint64)]
	_ = [1]struct{}{}[int(C.XP_INT8)-int(Int8)]
	_ = [1]struct{}{}[int(C.XP_INT16)-int(Int16)]
	_ = [1]struct{}{}[int(C.XP_UINT8)-int(Uint8)]
	_ = [1]struct{}{}[int(C.XP_UINT16)-int(Uint16)]
	_ = [1]struct{}{}[int(C.XP_COMPLEX64)-int(Complex64)]
	_ = [1]struct{}{}[int(C.XP_COMPLEX128)-int(Complex128)]
	_ = [1]struct{}{}[int(C.XP_BYTE)-int(Byte)]
)

// Built reports whether this binary was built with real MPI (-tags mpi).
const Built = true

// lib is the lock around every call into the MPI library. It serializes
// the calls where MPI granted less than MPI_THREAD_MULTIPLE, or where
// XPMPI_THREAD_LEVEL asked for less, and does nothing where MULTIPLE was
// asked for and granted.
var lib libLock

// libLock is a sync.Mutex that initWorld turns off (free) when MPI grants
// MPI_THREAD_MULTIPLE. free is written once, by Init, before any Comm
// exists, and only read afterwards.
type libLock struct {
	mu   sync.Mutex
	free bool
}

// Lock acquires the library lock, where MPI needs one.
func (l *libLock) Lock() {
	if !l.free {
		l.mu.Lock()
	}
}

// Unlock releases the library lock, where MPI needs one. Every call into
// MPI ends with it, so it is also where a goroutine that calls MPI in a
// loop yields now and then (see yield.go).
func (l *libLock) Unlock() {
	if !l.free {
		l.mu.Unlock()
	}
	mpiYield.call()
}

var threadLevel = "not initialized"

// sleepWaits reports whether the binding waits for MPI by testing and
// sleeping (see the package documentation, Waiting), set once by Init.
var sleepWaits bool

func libraryWaitMode() string {
	if threadLevel == "not initialized" {
		return "not initialized"
	}
	if sleepWaits {
		return "sleep"
	}
	return "block"
}

func check(call string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	var buf [512]C.char
	C.xp_error_string(rc, &buf[0], C.int(len(buf)))
	return &Error{Call: call, Code: int(rc), Msg: C.GoString(&buf[0])}
}

func initWorld() (Comm, error) {
	ask, err := requestedThreadLevel()
	if err != nil {
		return nil, err
	}
	waitWant, err := requestedWaitMode()
	if err != nil {
		return nil, err
	}
	var provided C.int
	lib.Lock()
	rc := C.xp_init(C.int(ask), &provided)
	lib.Unlock()
	if err := check("Init", rc); err != nil {
		return nil, err
	}
	switch {
	case provided >= C.xp_thread_multiple():
		threadLevel = "multiple"
		// The lock goes only where MULTIPLE was asked for (MPI may grant
		// more than was asked; XPMPI_THREAD_LEVEL=serialized or single
		// keeps it).
		lib.free = ask == askMultiple
	case provided >= C.xp_thread_serialized():
		threadLevel = "serialized"
	case provided == C.xp_thread_funneled():
		threadLevel = "funneled"
	default:
		threadLevel = "single"
	}
	lib.Lock()
	sleeping := C.xp_wait_mode(C.int(waitWant))
	lib.Unlock()
	sleepWaits = sleeping != 0
	return newComm(C.xp_comm_world(), true)
}

func finalize() error {
	lib.Lock()
	defer lib.Unlock()
	return check("Finalize", C.xp_finalize())
}

func libraryInfo() (impl, version, level string) {
	var buf [512]C.char
	C.xp_library_version(&buf[0], C.int(len(buf)))
	return C.GoString(C.xp_implementation()), C.GoString(&buf[0]), threadLevel
}

func libraryCUDAAware() (aware, known bool) {
	switch C.xp_cuda_aware() {
	case 1:
		return true, true
	case 0:
		return false, true
	}
	return false, false
}

// Self returns MPI_COMM_SELF, a communicator of the calling rank alone.
// Init must have run.
func Self() Comm {
	c, err := newComm(C.xp_comm_self(), true)
	if err != nil {
		panic(err)
	}
	return c
}

// comm is a communicator of the real MPI library.
type comm struct {
	c          C.MPI_Comm
	rank, size int
	permanent  bool // MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed
}

func newComm(c C.MPI_Comm, permanent bool) (*comm, error) {
	var rank, size C.int
	lib.Lock()
	defer lib.Unlock()
	if err := check("Comm_rank", C.xp_comm_rank(c, &rank)); err != nil {
		return nil, err
	}
	if err := check("Comm_size", C.xp_comm_size(c, &size)); err != nil {
		return nil, err
	}
	return &comm{c: c, rank: int(rank), size: int(size), permanent: permanent}, nil
}

func (m *comm) Rank() int { return m.rank }
func (m *comm) Size() int { return m.size }

func cint(call string, n int) (C.int, error) {
	if n < 0 || n > math.MaxInt32 {
		return 0, errorf(call, "count %d out of MPI's range", n)
	}
	return C.int(n), nil
}

// ints converts counts and displacements to C ints, checking their range.
func (m *comm) ints(call string, lists ...[]int) ([]C.int, error) {
	total := 0
	for _, l := range lists {
		if len(l) != m.size {
			return nil, errorf(call, "%d counts or displacements for %d ranks", len(l), m.size)
		}
		total += len(l)
	}
	out := make([]C.int, 0, total)
	for _, l := range lists {
		for _, v := range l {
			c, err := cint(call, v)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func (m *comm) Barrier() error {
	lib.Lock()
	defer lib.Unlock()
	return check("Barrier", C.xp_barrier(m.c))
}

func (m *comm) Bcast(buf unsafe.Pointer, count int, dt Datatype, root int) error {
	n, err := cint("Bcast", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Bcast", C.xp_bcast(buf, n, C.int(dt), C.int(root), m.c))
}

func inPlace(send unsafe.Pointer) (unsafe.Pointer, C.int) {
	if send == InPlace {
		return nil, 1
	}
	return send, 0
}

func (m *comm) Reduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op, root int) error {
	n, err := cint("Reduce", count)
	if err != nil {
		return err
	}
	s, ip := inPlace(send)
	lib.Lock()
	defer lib.Unlock()
	return check("Reduce", C.xp_reduce(s, recv, ip, n, C.int(dt), C.int(op), C.int(root), m.c))
}

func (m *comm) Allreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	n, err := cint("Allreduce", count)
	if err != nil {
		return err
	}
	s, ip := inPlace(send)
	lib.Lock()
	rc := C.xp_allreduce(s, recv, ip, n, C.int(dt), C.int(op), m.c)
	lib.Unlock()
	return check("Allreduce", rc)
}

// allreduceValue is the scalar fast path: the value goes to C and the
// result comes back by value, with no pointer to Go memory (so no cgo
// pointer check) and nothing allocated.
func (m *comm) allreduceValue(bits uint64, dt Datatype, op Op) (uint64, error) {
	lib.Lock()
	r := C.xp_allreduce_value(C.uint64_t(bits), C.int(dt), C.int(op), m.c)
	lib.Unlock()
	if r.rc != 0 {
		return 0, check("Allreduce", r.rc)
	}
	return uint64(r.v), nil
}

// reduceValue is the scalar fast path of ReduceValue: the root gets the
// result, the other ranks 0.
func (m *comm) reduceValue(bits uint64, dt Datatype, op Op, root int) (uint64, error) {
	lib.Lock()
	r := C.xp_reduce_value(C.uint64_t(bits), C.int(dt), C.int(op), C.int(root), m.c)
	lib.Unlock()
	if r.rc != 0 {
		return 0, check("Reduce", r.rc)
	}
	if m.rank != root {
		return 0, nil
	}
	return uint64(r.v), nil
}

func (m *comm) Gather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error {
	n, err := cint("Gather", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Gather", C.xp_gather(send, n, recv, C.int(dt), C.int(root), m.c))
}

func (m *comm) Gatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype, root int) error {
	n, err := cint("Gatherv", scount)
	if err != nil {
		return err
	}
	var cd []C.int
	if m.rank == root {
		if cd, err = m.ints("Gatherv", counts, displs); err != nil {
			return err
		}
	} else {
		cd = make([]C.int, 2) // ignored off the root
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Gatherv", C.xp_gatherv(send, n, recv, &cd[0], &cd[len(cd)/2], C.int(dt), C.int(root), m.c))
}

func (m *comm) Allgather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error {
	n, err := cint("Allgather", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Allgather", C.xp_allgather(send, n, recv, C.int(dt), m.c))
}

func (m *comm) Allgatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype) error {
	n, err := cint("Allgatherv", scount)
	if err != nil {
		return err
	}
	cd, err := m.ints("Allgatherv", counts, displs)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Allgatherv", C.xp_allgatherv(send, n, recv, &cd[0], &cd[m.size], C.int(dt), m.c))
}

func (m *comm) Scatter(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error {
	n, err := cint("Scatter", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Scatter", C.xp_scatter(send, n, recv, C.int(dt), C.int(root), m.c))
}

func (m *comm) Scatterv(send unsafe.Pointer, counts, displs []int, recv unsafe.Pointer, rcount int, dt Datatype, root int) error {
	n, err := cint("Scatterv", rcount)
	if err != nil {
		return err
	}
	var cd []C.int
	if m.rank == root {
		if cd, err = m.ints("Scatterv", counts, displs); err != nil {
			return err
		}
	} else {
		cd = make([]C.int, 2)
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Scatterv", C.xp_scatterv(send, &cd[0], &cd[len(cd)/2], recv, n, C.int(dt), C.int(root), m.c))
}

func (m *comm) Alltoall(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error {
	n, err := cint("Alltoall", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Alltoall", C.xp_alltoall(send, n, recv, C.int(dt), m.c))
}

func (m *comm) Alltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) error {
	cd, err := m.ints("Alltoallv", scounts, sdispls, rcounts, rdispls)
	if err != nil {
		return err
	}
	p := m.size
	lib.Lock()
	defer lib.Unlock()
	return check("Alltoallv", C.xp_alltoallv(send, &cd[0], &cd[p], recv, &cd[2*p], &cd[3*p], C.int(dt), m.c))
}

// peer and tagOf pass ranks and tags to the C side, which maps the
// binding's AnySource, ProcNull and AnyTag (XP_ANY_SOURCE, ...) to the
// library's values: those differ between Open MPI and MPICH.
func peer(p int) C.int { return C.int(p) }

func tagOf(t int) C.int { return C.int(t) }

func statusOf(st [3]C.int) Status {
	return Status{Source: int(st[0]), Tag: int(st[1]), Count: int(st[2])}
}

func (m *comm) Send(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) error {
	n, err := cint("Send", count)
	if err != nil {
		return err
	}
	lib.Lock()
	defer lib.Unlock()
	return check("Send", C.xp_send(buf, n, C.int(dt), C.int(dest), C.int(tag), m.c))
}

func (m *comm) Recv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Status, error) {
	n, err := cint("Recv", count)
	if err != nil {
		return Status{}, err
	}
	var st [3]C.int
	lib.Lock()
	rc := C.xp_recv(buf, n, C.int(dt), peer(src), tagOf(tag), m.c, &st[0])
	lib.Unlock()
	if err := check("Recv", rc); err != nil {
		return Status{}, err
	}
	return statusOf(st), nil
}

func (m *comm) Sendrecv(send unsafe.Pointer, scount int, dest, stag int, recv unsafe.Pointer, rcount int, src, rtag int, dt Datatype) (Status, error) {
	sn, err := cint("Sendrecv", scount)
	if err != nil {
		return Status{}, err
	}
	rn, err := cint("Sendrecv", rcount)
	if err != nil {
		return Status{}, err
	}
	var st [3]C.int
	lib.Lock()
	rc := C.xp_sendrecv(send, sn, C.int(dest), C.int(stag), recv, rn, peer(src), tagOf(rtag), C.int(dt), m.c, &st[0])
	lib.Unlock()
	if err := check("Sendrecv", rc); err != nil {
		return Status{}, err
	}
	return statusOf(st), nil
}

// request is a non-blocking operation of the real library. The buffer it was
// given stays pinned until it completes.
type request struct {
	mu   sync.Mutex
	req  *C.MPI_Request // in C memory: MPI may keep its address
	dt   Datatype
	call string
	pin  runtime.Pinner
	cmem unsafe.Pointer // C memory the call keeps (counts of Ialltoallv), freed at completion
	done bool
	// waiting: a Wait is in a blocking MPI_Wait on req (at
	// MPI_THREAD_MULTIPLE); Test answers "not done" without calling MPI.
	waiting bool
	// procNull: a receive from ProcNull, whose status the standard sets
	// (MPICH 4.0.2's MPI_Wait and MPI_Test give zeros).
	procNull bool
	st       Status
	err      error
}

// newRequest returns a request for call, with its MPI_Request in C memory.
func newRequest(call string, dt Datatype) *request {
	r := &request{dt: dt, call: call}
	r.req = (*C.MPI_Request)(C.malloc(C.size_t(unsafe.Sizeof(C.MPI_Request(C.xp_request_null())))))
	*r.req = C.xp_request_null()
	return r
}

func (m *comm) start(call string, buf unsafe.Pointer, count int, dt Datatype, p, tag int, send bool) (Request, error) {
	n, err := cint(call, count)
	if err != nil {
		return nil, err
	}
	r := newRequest(call, dt)
	r.procNull = !send && p == ProcNull
	r.pin.Pin(buf)
	var rc C.int
	lib.Lock()
	if send {
		rc = C.xp_isend(buf, n, C.int(dt), C.int(p), C.int(tag), m.c, r.req)
	} else {
		rc = C.xp_irecv(buf, n, C.int(dt), peer(p), tagOf(tag), m.c, r.req)
	}
	lib.Unlock()
	if err := check(call, rc); err != nil {
		r.finish(Status{}, err)
		return nil, err
	}
	return r, nil
}

func (r *request) finish(st Status, err error) {
	if r.procNull && err == nil {
		st = Status{Source: ProcNull, Tag: AnyTag}
	}
	r.done, r.st, r.err = true, st, err
	r.pin.Unpin()
	C.free(unsafe.Pointer(r.req))
	r.req = nil
	if r.cmem != nil {
		C.free(r.cmem)
		r.cmem = nil
	}
}

// pinBuf pins Go memory that MPI keeps until the request completes (Pin
// leaves other memory, device memory included, alone).
func (r *request) pinBuf(p unsafe.Pointer) {
	if p != nil {
		r.pin.Pin(p)
	}
}

func (m *comm) Scan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	return m.scan("Scan", send, recv, count, dt, op)
}

func (m *comm) Exscan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	return m.scan("Exscan", send, recv, count, dt, op)
}

func (m *comm) scan(call string, send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	n, err := cint(call, count)
	if err != nil {
		return err
	}
	s, ip := inPlace(send)
	lib.Lock()
	var rc C.int
	if call == "Scan" {
		rc = C.xp_scan(s, recv, ip, n, C.int(dt), C.int(op), m.c)
	} else {
		rc = C.xp_exscan(s, recv, ip, n, C.int(dt), C.int(op), m.c)
	}
	lib.Unlock()
	return check(call, rc)
}

func (m *comm) Iallreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) (Request, error) {
	n, err := cint("Iallreduce", count)
	if err != nil {
		return nil, err
	}
	s, ip := inPlace(send)
	r := newRequest("Iallreduce", dt)
	r.pinBuf(s)
	r.pinBuf(recv)
	lib.Lock()
	rc := C.xp_iallreduce(s, recv, ip, n, C.int(dt), C.int(op), m.c, r.req)
	lib.Unlock()
	if err := check("Iallreduce", rc); err != nil {
		r.finish(Status{}, err)
		return nil, err
	}
	return r, nil
}

func (m *comm) Ialltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) (Request, error) {
	cd, err := m.ints("Ialltoallv", scounts, sdispls, rcounts, rdispls)
	if err != nil {
		return nil, err
	}
	p := m.size
	r := newRequest("Ialltoallv", dt)
	// MPI reads the counts until the operation completes: keep them in C
	// memory.
	size := C.size_t(len(cd)) * C.size_t(unsafe.Sizeof(C.int(0)))
	r.cmem = C.malloc(size)
	c := unsafe.Slice((*C.int)(r.cmem), len(cd))
	copy(c, cd)
	r.pinBuf(send)
	r.pinBuf(recv)
	lib.Lock()
	rc := C.xp_ialltoallv(send, &c[0], &c[p], recv, &c[2*p], &c[3*p], C.int(dt), m.c, r.req)
	lib.Unlock()
	if err := check("Ialltoallv", rc); err != nil {
		r.finish(Status{}, err)
		return nil, err
	}
	return r, nil
}

func (m *comm) Probe(src, tag int, dt Datatype) (Status, error) {
	// Probe polls Iprobe with the library lock released between polls, as
	// Wait does, so that the goroutine that would send can.
	for spins := 0; ; spins++ {
		ok, st, err := m.Iprobe(src, tag, dt)
		if err != nil || ok {
			return st, err
		}
		if spins > 64 {
			runtime.Gosched()
		}
	}
}

func (m *comm) Iprobe(src, tag int, dt Datatype) (bool, Status, error) {
	var flag C.int
	var st [3]C.int
	lib.Lock()
	rc := C.xp_iprobe(peer(src), tagOf(tag), C.int(dt), m.c, &flag, &st[0])
	lib.Unlock()
	if err := check("Iprobe", rc); err != nil {
		return false, Status{}, err
	}
	if flag == 0 {
		return false, Status{}, nil
	}
	return true, statusOf(st), nil
}

// cartCreate makes a Cartesian communicator with MPI_Cart_create.
func (m *comm) cartCreate(dims []int, periods []bool, reorder bool) (Comm, error) {
	d := make([]C.int, len(dims))
	pr := make([]C.int, len(dims))
	for i := range dims {
		d[i] = C.int(dims[i])
		if periods[i] {
			pr[i] = 1
		}
	}
	ro := C.int(0)
	if reorder {
		ro = 1
	}
	var out C.MPI_Comm
	lib.Lock()
	rc := C.xp_cart_create(m.c, C.int(len(dims)), &d[0], &pr[0], ro, &out)
	lib.Unlock()
	if err := check("CartCreate", rc); err != nil {
		return nil, err
	}
	if out == C.xp_comm_null() {
		return nil, nil
	}
	return newComm(out, false)
}

// libDimsCreate is MPI_Dims_create of the library, for the tests that
// check DimsCreate against it.
func libDimsCreate(n, ndims int) ([]int, error) {
	d := make([]C.int, ndims)
	lib.Lock()
	rc := C.xp_dims_create(C.int(n), C.int(ndims), &d[0])
	lib.Unlock()
	if err := check("DimsCreate", rc); err != nil {
		return nil, err
	}
	out := make([]int, ndims)
	for i, v := range d {
		out[i] = int(v)
	}
	return out, nil
}

// libCartQuery returns MPI_Cart_coords of every rank and MPI_Cart_shift
// of the caller by disp along every dimension, of a Cartesian
// communicator of the library, for the tests that check Cart against them.
func libCartQuery(c Comm, ndims, disp int) (coords [][]int, sources, dests []int, err error) {
	if g, ok := c.(*Cart); ok {
		c = g.Comm
	}
	m, ok := unwrap(c).(*comm)
	if !ok {
		return nil, nil, nil, errorf("CartQuery", "not a communicator of the library")
	}
	cc := make([]C.int, ndims)
	for r := 0; r < m.size; r++ {
		lib.Lock()
		rc := C.xp_cart_coords(m.c, C.int(r), C.int(ndims), &cc[0])
		lib.Unlock()
		if err := check("CartCoords", rc); err != nil {
			return nil, nil, nil, err
		}
		row := make([]int, ndims)
		for i, v := range cc {
			row[i] = int(v)
		}
		coords = append(coords, row)
	}
	for d := 0; d < ndims; d++ {
		var s, t C.int
		lib.Lock()
		rc := C.xp_cart_shift(m.c, C.int(d), C.int(disp), &s, &t)
		lib.Unlock()
		if err := check("CartShift", rc); err != nil {
			return nil, nil, nil, err
		}
		sources, dests = append(sources, int(s)), append(dests, int(t))
	}
	return coords, sources, dests, nil
}

func (m *comm) Isend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) (Request, error) {
	return m.start("Isend", buf, count, dt, dest, tag, true)
}

func (m *comm) Irecv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Request, error) {
	return m.start("Irecv", buf, count, dt, src, tag, false)
}

// Test checks for completion without blocking.
func (r *request) Test() (bool, Status, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return true, r.st, r.err
	}
	if r.waiting {
		return false, Status{}, nil
	}
	lib.Lock()
	d := C.xp_test_v(r.req, C.int(r.dt))
	lib.Unlock()
	if err := check(r.call, d.rc); err != nil {
		r.finish(Status{}, err)
		return true, Status{}, err
	}
	if d.flag == 0 {
		return false, Status{}, nil
	}
	r.finish(statusOf(d.st), nil)
	return true, r.st, nil
}

// Wait blocks until the operation completes. Where MPI grants
// MPI_THREAD_MULTIPLE it is one MPI_Wait, which other goroutines' MPI calls
// may run beside (the one this request waits for, perhaps), as a C
// program's would; a second goroutine's Wait on the same request polls
// until the first returns. Otherwise it polls with the library lock
// released between polls, so that other goroutines can make MPI calls
// meanwhile.
func (r *request) Wait() (Status, error) {
	if lib.free {
		r.mu.Lock()
		if !r.done && !r.waiting {
			r.waiting = true
			r.mu.Unlock()
			d := C.xp_wait_v(r.req, C.int(r.dt))
			r.mu.Lock()
			defer r.mu.Unlock()
			r.waiting = false
			if err := check(r.call, d.rc); err != nil {
				r.finish(Status{}, err)
				return Status{}, err
			}
			r.finish(statusOf(d.st), nil)
			return r.st, nil
		}
		r.mu.Unlock()
	}
	var nap C.long
	for spins := 0; ; spins++ {
		done, st, err := r.Test()
		if done {
			return st, err
		}
		switch {
		case sleepWaits:
			nap = C.xp_backoff(C.int(spins), nap)
		case spins > 64:
			runtime.Gosched()
		}
	}
}

func (m *comm) Split(color, key int) (Comm, error) {
	col := C.int(color)
	if color == Undefined {
		col = C.xp_undefined()
	} else if color < 0 {
		return nil, errorf("Split", "negative color %d", color)
	}
	var out C.MPI_Comm
	lib.Lock()
	rc := C.xp_comm_split(m.c, col, C.int(key), &out)
	lib.Unlock()
	if err := check("Split", rc); err != nil {
		return nil, err
	}
	if out == C.xp_comm_null() {
		return nil, nil
	}
	return newComm(out, false)
}

func (m *comm) SplitShared() (Comm, error) {
	var out C.MPI_Comm
	lib.Lock()
	rc := C.xp_comm_split_shared(m.c, &out)
	lib.Unlock()
	if err := check("SplitShared", rc); err != nil {
		return nil, err
	}
	return newComm(out, false)
}

func (m *comm) Free() error {
	if m.permanent {
		return nil
	}
	lib.Lock()
	defer lib.Unlock()
	if m.c == C.xp_comm_null() {
		return nil
	}
	return check("Comm_free", C.xp_comm_free(&m.c))
}

func (m *comm) Abort(code int) {
	// No lock: another goroutine may hold it in a blocking call, and MPI_Abort
	// must get through regardless.
	C.xp_abort(m.c, C.int(code))
	panic(fmt.Sprintf("mpi: MPI_Abort(%d) returned", code))
}

func (m *comm) Wtime() float64 { return float64(C.xp_wtime()) }
