package mpi

import (
	"runtime"
	"sync"
	"unsafe"
)

// serialReq is a request of the stand-in: complete at once, or a receive
// waiting for a send on the same rank.
type serialReq struct {
	owner *Serial // for a pending receive: where it waits
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

// Wait returns the result of a completed request. A receive that no send
// has matched can never complete on one rank: Wait cancels it and returns
// an error.
func (r *serialReq) Wait() (Status, error) {
	if r.owner != nil {
		r.owner.mu.Lock()
		defer r.owner.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done {
		if s := r.owner; s != nil {
			for i, q := range s.pending {
				if q == r {
					s.pending = append(s.pending[:i], s.pending[i+1:]...)
					break
				}
			}
		}
		r.done, r.buf = true, nil
		r.err = errorf("Wait", "receive with tag %d was never matched by a send on rank 0, and none can arrive: the wait would block forever", r.tag)
		r.pin.Unpin()
	}
	return r.st, r.err
}

func (r *serialReq) Test() (bool, Status, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done, r.st, r.err
}
