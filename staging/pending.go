package staging

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/profiling"
)

// Pending is a copy to the host in flight, from Ring.Copy or ToHostOnStream.
// It is safe for concurrent use.
type Pending[T backend.Numeric] struct {
	// A ring copy: slot and generation in the ring.
	ring *Ring[T]
	slot int
	gen  uint64

	// A ToHostOnStream copy.
	mu     sync.Mutex
	ev     backend.Event // nil once finished
	result []T
	err    error
	pin    runtime.Pinner
}

// Ready reports, without waiting, whether Result would return at once.
func (p *Pending[T]) Ready() bool {
	if p.ring != nil {
		return p.ring.ready(p.slot, p.gen)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ev == nil {
		return true
	}
	ok, err := p.ev.Done()
	return ok || err != nil
}

// Result waits for the copy and returns the host elements.
//
// For a ring copy they are the staging buffer itself, not a copy: they stay
// valid until the ring's slot is reused, Buffers copies later. Result of a
// copy whose slot has been reused is ErrReused; after Ring.Close, ErrClosed.
// For ToHostOnStream they are a new slice (or the array's own memory for a
// host array).
func (p *Pending[T]) Result() ([]T, error) {
	if p.ring != nil {
		return p.ring.result(p.slot, p.gen)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ev != nil {
		err := p.ev.Synchronize()
		profiling.RecordSync("staging.Pending.Result")
		p.ev.Destroy()
		p.ev = nil
		p.pin.Unpin()
		if err != nil {
			p.err = fmt.Errorf("staging: ToHostOnStream: %w", err)
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.result, nil
}

// ToHostOnStream starts a copy of x, a small array or a scalar held in a
// one-element array, to a new host slice, and returns at once. The copy is
// queued on the backend's default stream, after the work that produced x.
// A host array completes at once, without a copy: its result is its own
// memory. On a device backend without async copies, the copy is made at
// once.
func ToHostOnStream[T backend.Numeric](x *backend.Array[T]) (*Pending[T], error) {
	p := &Pending[T]{}
	if x.Device().IsHost() {
		p.result = x.Data()
		return p, nil
	}
	n := x.Len()
	p.result = make([]T, n)
	if n == 0 {
		return p, nil
	}
	dst := unsafe.Pointer(unsafe.SliceData(p.result))
	a, ok := x.Backend().(backend.Async)
	if !ok {
		if err := copyToHost(dst, x); err != nil {
			return nil, fmt.Errorf("staging: ToHostOnStream: %w", err)
		}
		profiling.RecordTransfer(profiling.ToHost, "staging.ToHostOnStream", int64(nbytes(x)), true, false)
		return p, nil
	}
	// The device writes the slice after this call returns: keep it pinned
	// for cgo until the copy has finished.
	p.pin.Pin(dst)
	s := a.DefaultStream()
	if err := a.CopyToHostAsync(dst, x.Buffer(), s); err != nil {
		p.pin.Unpin()
		return nil, fmt.Errorf("staging: ToHostOnStream: %w", err)
	}
	ev, err := s.Record()
	if err != nil {
		// The copy is queued: wait for the stream instead of an event.
		serr := s.Synchronize()
		p.pin.Unpin()
		if serr != nil {
			return nil, fmt.Errorf("staging: ToHostOnStream: %w", serr)
		}
		profiling.RecordTransfer(profiling.ToHost, "staging.ToHostOnStream", int64(nbytes(x)), true, false)
		return p, nil
	}
	profiling.RecordTransfer(profiling.ToHost, "staging.ToHostOnStream", int64(nbytes(x)), false, false)
	p.ev = ev
	return p, nil
}
