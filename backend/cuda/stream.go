package cuda

/*
#include "xpcuda.h"
*/
import "C"

import (
	"fmt"
	"time"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// Stream is a CUDA stream: work queued on it runs in order, concurrently
// with other streams. Streams made by NewStream synchronize with the legacy
// default stream, as the backend's own stream does.
type Stream struct {
	b     *Backend
	s     C.CUstream
	owned bool // made by NewStream: Destroy destroys it
}

// NewStream makes a stream on the backend's device (driver.Async): a
// *Stream.
func (b *Backend) NewStream() (driver.Stream, error) {
	st := &Stream{b: b, owned: true}
	err := b.withContext(func() error { return check("cuStreamCreate", C.xpcu_cuStreamCreate(&st.s, 0)) })
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Stream returns the stream where the backend's operations run.
func (b *Backend) Stream() *Stream { return b.stream }

// DefaultStream returns the stream where the backend's operations run
// (driver.Async).
func (b *Backend) DefaultStream() driver.Stream { return b.stream }

// Record returns a new event recorded at the current end of the stream
// (driver.Stream).
func (s *Stream) Record() (driver.Event, error) {
	e, err := s.b.NewEvent(false)
	if err != nil {
		return nil, err
	}
	if err := e.Record(s); err != nil {
		e.Destroy()
		return nil, err
	}
	return e, nil
}

// Synchronize waits until the work queued on the stream has finished.
func (s *Stream) Synchronize() error {
	return s.b.withContext(func() error { return check("cuStreamSynchronize", C.xpcu_cuStreamSynchronize(s.s)) })
}

// Done reports whether the work queued on the stream has finished, without
// waiting.
func (s *Stream) Done() (bool, error) {
	var r C.CUresult
	err := s.b.withContext(func() error {
		r = C.xpcu_cuStreamQuery(s.s)
		return nil
	})
	if err != nil {
		return false, err
	}
	if r == codeNotReady {
		return false, nil
	}
	return r == 0, check("cuStreamQuery", r)
}

// Wait makes the work queued on s after this call wait for event e (its
// latest Record) without blocking the host.
func (s *Stream) Wait(e driver.Event) error {
	ce, ok := e.(*Event)
	if !ok {
		panic(fmt.Sprintf("cuda: a %T is not a CUDA event", e))
	}
	return s.b.withContext(func() error { return check("cuStreamWaitEvent", C.xpcu_cuStreamWaitEvent(s.s, ce.e, 0)) })
}

// Destroy destroys a stream made by NewStream, once its work has finished;
// it does nothing for the backend's own stream.
func (s *Stream) Destroy() error {
	if !s.owned || s.s == nil {
		return nil
	}
	err := s.b.withContext(func() error { return check("cuStreamDestroy", C.xpcu_cuStreamDestroy(s.s)) })
	s.s = nil
	return err
}

// Event is a CUDA event: a point in a stream's work that the host or other
// streams can wait for, and whose time can be measured.
type Event struct {
	b *Backend
	e C.CUevent
}

// Event flags of cuEventCreate.
const eventDisableTiming = 2

// NewEvent makes an event; timing events can be measured with Elapsed,
// others are cheaper to record and wait for.
func (b *Backend) NewEvent(timing bool) (*Event, error) {
	ev := &Event{b: b}
	flags := C.uint(0)
	if !timing {
		flags = eventDisableTiming
	}
	err := b.withContext(func() error { return check("cuEventCreate", C.xpcu_cuEventCreate(&ev.e, flags)) })
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// Record records the event at the current end of stream s (nil: the
// backend's stream).
func (e *Event) Record(s *Stream) error {
	st := e.b.stream.s
	if s != nil {
		st = s.s
	}
	return e.b.withContext(func() error { return check("cuEventRecord", C.xpcu_cuEventRecord(e.e, st)) })
}

// Synchronize waits until the work before the event's latest Record has
// finished.
func (e *Event) Synchronize() error {
	return e.b.withContext(func() error { return check("cuEventSynchronize", C.xpcu_cuEventSynchronize(e.e)) })
}

// Done reports whether the work before the event's latest Record has
// finished, without waiting.
func (e *Event) Done() (bool, error) {
	var r C.CUresult
	err := e.b.withContext(func() error {
		r = C.xpcu_cuEventQuery(e.e)
		return nil
	})
	if err != nil {
		return false, err
	}
	if r == codeNotReady {
		return false, nil
	}
	return r == 0, check("cuEventQuery", r)
}

// Destroy destroys the event.
func (e *Event) Destroy() error {
	if e.e == nil {
		return nil
	}
	err := e.b.withContext(func() error { return check("cuEventDestroy", C.xpcu_cuEventDestroy(e.e)) })
	e.e = nil
	return err
}

// Elapsed returns the time between two recorded timing events (resolution
// about half a microsecond), once both have completed.
func Elapsed(start, end *Event) (time.Duration, error) {
	if start.b != end.b {
		return 0, fmt.Errorf("cuda: Elapsed between events of devices %d and %d", start.b.id, end.b.id)
	}
	var ms C.float
	err := start.b.withContext(func() error {
		return check("cuEventElapsedTime", C.xpcu_cuEventElapsedTime(&ms, start.e, end.e))
	})
	if err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}
