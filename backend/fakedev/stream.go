package fakedev

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// Stream is a stream of the fake device: an in-order queue of work run by a
// goroutine of its own, so that work queued on it runs while the host goes
// on, and work on different streams overlaps.
type Stream struct {
	b   *Backend
	def bool   // the default stream: never destroyed
	seq uint64 // the order NewStream made it in (0 for the default stream)

	mu        sync.Mutex
	cond      sync.Cond // signalled when work is queued or finishes
	queue     []func()
	enq, done uint64 // work items queued and finished so far
	err       error  // the first failure not yet reported
	destroyed bool
}

// Check at compile time that Stream and Event implement package backend's
// interfaces.
var (
	_ driver.Stream = (*Stream)(nil)
	_ driver.Event  = (*Event)(nil)
)

func (b *Backend) newStream(def bool) *Stream {
	s := &Stream{b: b, def: def}
	s.cond.L = &s.mu
	go s.loop()
	return s
}

// loop runs the queued work in order until the stream is destroyed and its
// queue is empty.
func (s *Stream) loop() {
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.destroyed {
			s.cond.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		f := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.mu.Unlock()

		err := protect(f)

		s.mu.Lock()
		s.done++
		if err != nil && s.err == nil {
			s.err = err
		}
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// OpError is the failure of an operation on the fake device: the value of
// its panic, kept as a GPU keeps an error and reported later.
type OpError struct {
	Value any
}

// Error says that an operation failed, and how.
func (e *OpError) Error() string { return fmt.Sprintf("fakedev: an operation failed: %v", e.Value) }

// Unwrap returns driver.ErrDevice, and the panic's value where it is an
// error, so that errors.Is finds either: a failure of an operation on the
// device is a device failure, reported late as a GPU reports one.
func (e *OpError) Unwrap() []error {
	errs := []error{driver.ErrDevice}
	if err, ok := e.Value.(error); ok {
		errs = append(errs, err)
	}
	return errs
}

// protect runs f and returns its panic as an *OpError.
func protect(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &OpError{Value: r}
		}
	}()
	f()
	return nil
}

// errDestroyed is the error of work queued on a destroyed stream.
var errDestroyed = errors.New("fakedev: stream used after Destroy")

// enqueue queues f and returns its position (the count of work items
// queued so far, f included).
func (s *Stream) enqueue(f func()) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return 0, errDestroyed
	}
	s.queue = append(s.queue, f)
	s.enq++
	s.cond.Broadcast()
	return s.enq, nil
}

// queued returns the count of work items queued so far.
func (s *Stream) queued() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enq
}

// reached waits until the first t work items have finished, without
// taking the stream's failure.
func (s *Stream) reached(t uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.done < t {
		s.cond.Wait()
	}
}

// waitFor waits until the first t work items have finished and returns
// (and forgets) the stream's first failure not yet reported.
func (s *Stream) waitFor(t uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.done < t {
		s.cond.Wait()
	}
	err := s.err
	s.err = nil
	return err
}

// run queues f and waits for it.
func (s *Stream) run(f func()) error {
	t, err := s.enqueue(f)
	if err != nil {
		return err
	}
	return s.waitFor(t)
}

// Synchronize waits until the work queued so far has finished, and returns
// the first failure of that work not yet reported.
func (s *Stream) Synchronize() error {
	s.b.mu.Lock()
	s.b.counts.Syncs++
	s.b.mu.Unlock()
	return s.waitFor(s.queued())
}

// Record returns an event that completes when the work queued so far has
// finished.
func (s *Stream) Record() (driver.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return nil, errDestroyed
	}
	return &Event{s: s, at: s.enq}, nil
}

// Wait makes the work queued on s from now on wait for e, an event of this
// device, without blocking the caller.
func (s *Stream) Wait(e driver.Event) error {
	ev, ok := e.(*Event)
	if !ok || ev.s.b != s.b {
		return fmt.Errorf("fakedev: Stream.Wait for an event of another device (%T)", e)
	}
	if ev.destroyed.Load() {
		return errors.New("fakedev: Stream.Wait for a destroyed event")
	}
	if ev.s == s {
		return nil // in order already
	}
	_, err := s.enqueue(func() { ev.s.reached(ev.at) })
	return err
}

// Destroy releases the stream: its goroutine ends once the work queued on
// it has run. Destroying the default stream does nothing; destroying a
// stream twice is an error.
func (s *Stream) Destroy() error {
	if s.def {
		return nil
	}
	s.mu.Lock()
	if s.destroyed {
		s.mu.Unlock()
		return errDestroyed
	}
	s.destroyed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	s.b.mu.Lock()
	delete(s.b.streams, s)
	s.b.counts.Streams--
	s.b.mu.Unlock()
	return nil
}

// Event marks a point in a stream of the fake device.
type Event struct {
	s         *Stream
	at        uint64 // the work items before the event
	destroyed atomic.Bool
}

// Done reports, without waiting, whether the work before the event has
// finished.
func (e *Event) Done() (bool, error) {
	if e.destroyed.Load() {
		return false, errors.New("fakedev: Event.Done of a destroyed event")
	}
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	return e.s.done >= e.at, nil
}

// Synchronize waits until the work before the event has finished, and
// returns the first failure of its stream not yet reported.
func (e *Event) Synchronize() error {
	if e.destroyed.Load() {
		return errors.New("fakedev: Event.Synchronize of a destroyed event")
	}
	e.s.b.mu.Lock()
	e.s.b.counts.Syncs++
	e.s.b.mu.Unlock()
	return e.s.waitFor(e.at)
}

// Destroy releases the event. Waits already queued by Stream.Wait are not
// affected. Destroying an event twice is an error.
func (e *Event) Destroy() error {
	if e.destroyed.Swap(true) {
		return errors.New("fakedev: Event destroyed twice")
	}
	return nil
}
