package mpi

import (
	"runtime"
	"sync"
	"unsafe"
)

// serialReq is a request of the stand-in: complete at once, or a receive
// waiting for a send on the same rank.
type serialReq struct {
	mu    sync.Mutex
	done  bool
	st    Status
	err   error
	buf   unsafe.Pointer
	count int
	dt    Datatype
	tag   int
	pin   runtime.Pinner
}

func (r *serialReq) deliver(m message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st, r.err = receive("Irecv", m, r.buf, r.count, r.dt)
	r.done = true
	r.buf = nil
	r.pin.Unpin()
}

func (r *serialReq) Wait() (Status, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done {
		return Status{}, errorf("Wait", "receive with tag %d was never matched by a send on rank 0, and none can arrive: the wait would block forever", r.tag)
	}
	return r.st, r.err
}

func (r *serialReq) Test() (bool, Status, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done, r.st, r.err
}
