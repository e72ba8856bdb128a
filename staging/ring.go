package staging

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/profiling"
)

// DefaultBuffers is the number of buffers of a Ring made with buffers 0.
const DefaultBuffers = 2

// ErrReused is the error of Pending.Result for a ring copy whose slot a
// later Copy has taken: its buffer now holds that copy.
var ErrReused = errors.New("staging: the ring slot of this copy has been reused by a later Copy: take each result before Buffers() more copies")

// ErrClosed is the error of the Ring's methods, and of its copies' results,
// after Close.
var ErrClosed = errors.New("staging: the Ring is closed")

// Ring is a ring of host staging buffers (pinned memory on a device) for
// copies to the host of arrays of n elements of T on one backend's device,
// that return at once. See Copy.
//
// A Ring is safe for concurrent use. Close releases it; the collector does
// too once it is unreachable, after its copies have finished.
type Ring[T backend.Numeric] struct {
	b backend.Backend
	a backend.Async // nil on the host
	n int

	mu     sync.Mutex
	res    *ringRes
	slots  []ringSlot[T]
	next   int
	closed bool
}

type ringSlot[T backend.Numeric] struct {
	host []T            // the staging buffer
	snap backend.Buffer // the device snapshot (device rings)
	done backend.Event  // end of the latest copy into host; nil if none in flight
	gen  uint64         // copies made into the slot
}

// ringRes is what a device ring must release: its stream, pinned memory and
// snapshots.
type ringRes struct {
	once   sync.Once
	b      backend.Backend
	a      backend.Async
	stream backend.Stream
	pinned []*hostMem
	snaps  []backend.Buffer
}

// release waits for the ring's copies and frees what it holds.
func (r *ringRes) release() error {
	var err error
	r.once.Do(func() {
		if r.stream != nil {
			err = r.stream.Synchronize()
			if e := r.stream.Destroy(); err == nil {
				err = e
			}
		}
		for _, h := range r.pinned {
			h.free()
		}
		for _, s := range r.snaps {
			r.b.Free(s)
		}
	})
	return err
}

// NewRing returns a ring of buffers staging buffers (DefaultBuffers if 0)
// for arrays of n elements of T on backend b. On a device, b must
// implement backend.Async: the ring allocates buffers pinned host buffers,
// as many device snapshots, and a private stream. On the host backend the
// buffers are Go memory and copies are plain copies.
func NewRing[T backend.Numeric](b backend.Backend, n, buffers int) (*Ring[T], error) {
	if n < 0 {
		panic(fmt.Sprintf("staging: NewRing of %d elements", n))
	}
	if buffers < 0 {
		panic(fmt.Sprintf("staging: NewRing of %d buffers", buffers))
	}
	if buffers == 0 {
		buffers = DefaultBuffers
	}
	r := &Ring[T]{b: b, n: n, slots: make([]ringSlot[T], buffers)}
	if b.Device().IsHost() {
		for i := range r.slots {
			r.slots[i].host = make([]T, n)
		}
		return r, nil
	}
	a, ok := b.(backend.Async)
	if !ok {
		return nil, fmt.Errorf("staging: NewRing: the %s backend has no async copies (backend.Async)", b.Name())
	}
	r.a = a
	res := &ringRes{b: b, a: a}
	fail := func(err error) (*Ring[T], error) {
		res.release()
		return nil, err
	}
	var err error
	if res.stream, err = a.NewStream(); err != nil {
		return fail(fmt.Errorf("staging: NewRing: %w", err))
	}
	bytes := n * backend.DTypeOf[T]().Size()
	for i := range r.slots {
		s := &r.slots[i]
		s.host = []T{}
		if n == 0 {
			continue
		}
		h, err := allocHost(b, bytes)
		if err != nil {
			return fail(err)
		}
		res.pinned = append(res.pinned, h)
		s.host = slice[T](h.p, n)
		if s.snap, err = b.Alloc(backend.DTypeOf[T](), n); err != nil {
			return fail(fmt.Errorf("staging: NewRing: %w", err))
		}
		res.snaps = append(res.snaps, s.snap)
	}
	r.res = res
	runtime.AddCleanup(r, func(res *ringRes) { res.release() }, res)
	return r, nil
}

// Len returns the number of elements of the arrays the ring copies.
func (r *Ring[T]) Len() int { return r.n }

// Buffers returns the number of staging buffers.
func (r *Ring[T]) Buffers() int { return len(r.slots) }

// Copy starts a copy of x to the next staging buffer and returns at once.
// It first waits for the copy last made into that buffer (so that no more
// than Buffers copies are in flight), then snapshots x on the backend's
// default stream, where the work that produced x runs (x may change as
// soon as Copy returns), then copies the snapshot to the buffer on the
// ring's private stream.
//
// x must have the ring's length and live on its backend's device:
// otherwise Copy panics.
func (r *Ring[T]) Copy(x *backend.Array[T]) (*Pending[T], error) {
	if x.Len() != r.n {
		panic(fmt.Sprintf("staging: Ring.Copy of an array of %d elements into a ring of %d", x.Len(), r.n))
	}
	if x.Device() != r.b.Device() {
		panic(fmt.Sprintf("staging: Ring.Copy of an array on %v into a ring on %v", x.Device(), r.b.Device()))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	i := r.next
	r.next = (r.next + 1) % len(r.slots)
	s := &r.slots[i]
	if s.done != nil {
		if ok, _ := s.done.Done(); !ok {
			err := s.done.Synchronize()
			profiling.RecordSync("staging.Ring.Copy: waiting for the slot's previous copy")
			if err != nil {
				return nil, fmt.Errorf("staging: Ring.Copy: %w", err)
			}
		}
		s.done.Destroy()
		s.done = nil
	}
	s.gen++
	p := &Pending[T]{ring: r, slot: i, gen: s.gen}
	if r.a == nil {
		copy(s.host, x.Data())
		return p, nil
	}
	if r.n == 0 {
		return p, nil
	}
	bytes := nbytes(x)
	def := r.a.DefaultStream()
	if err := r.a.CopyAsync(s.snap, x.Buffer(), def); err != nil {
		return nil, fmt.Errorf("staging: Ring.Copy: snapshot: %w", err)
	}
	profiling.RecordTransfer(profiling.DeviceCopy, "staging.Ring.Copy snapshot", int64(bytes), false, false)
	ev, err := def.Record()
	if err != nil {
		return nil, fmt.Errorf("staging: Ring.Copy: %w", err)
	}
	err = r.res.stream.Wait(ev)
	ev.Destroy()
	if err != nil {
		return nil, fmt.Errorf("staging: Ring.Copy: %w", err)
	}
	if err := r.a.CopyToHostAsync(unsafe.Pointer(unsafe.SliceData(s.host)), s.snap, r.res.stream); err != nil {
		return nil, fmt.Errorf("staging: Ring.Copy: %w", err)
	}
	profiling.RecordTransfer(profiling.ToHost, "staging.Ring.Copy", int64(bytes), false, false)
	if s.done, err = r.res.stream.Record(); err != nil {
		return nil, fmt.Errorf("staging: Ring.Copy: %w", err)
	}
	return p, nil
}

// Close waits for the copies in flight and releases the ring's memory and
// stream. Results not yet taken become ErrClosed.
func (r *Ring[T]) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	for i := range r.slots {
		if s := &r.slots[i]; s.done != nil {
			s.done.Destroy()
			s.done = nil
		}
	}
	if r.res != nil {
		return r.res.release()
	}
	return nil
}

// ready reports whether the result of copy gen into slot i can be taken
// without waiting.
func (r *Ring[T]) ready(i int, gen uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &r.slots[i]
	if r.closed || s.gen != gen || s.done == nil {
		return true
	}
	ok, err := s.done.Done()
	return ok || err != nil
}

// result waits for copy gen into slot i and returns the slot's buffer.
func (r *Ring[T]) result(i int, gen uint64) ([]T, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &r.slots[i]
	switch {
	case r.closed:
		return nil, ErrClosed
	case s.gen != gen:
		return nil, ErrReused
	}
	if s.done != nil {
		if ok, _ := s.done.Done(); !ok {
			err := s.done.Synchronize()
			profiling.RecordSync("staging.Pending.Result")
			if err != nil {
				return nil, fmt.Errorf("staging: Ring copy: %w", err)
			}
		}
	}
	return s.host, nil
}
