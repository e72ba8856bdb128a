package staging

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
)

// DeviceArray is what SynchronizeForMPI needs of an array: where it lives
// and which backend owns it. *backend.Array[T] of every T is one.
type DeviceArray interface {
	Device() backend.Device
	Backend() backend.Backend
}

// SynchronizeForMPI waits for the producer of device memory before MPI
// touches it: for event if it is not nil; else for stream if it is not
// nil; else for every device that owns one of the arrays (host arrays need
// no wait). Each wait is recorded as a profiling Sync event.
//
// Giving both an event and a stream is a mistake: it panics.
func SynchronizeForMPI(event backend.Event, stream backend.Stream, arrays ...DeviceArray) error {
	switch {
	case event != nil && stream != nil:
		panic("staging: SynchronizeForMPI with an event and a stream: give one of them, or neither to wait for the arrays' devices")
	case event != nil:
		if err := event.Synchronize(); err != nil {
			return fmt.Errorf("staging: SynchronizeForMPI: %w", err)
		}
		profiling.RecordSync("staging.SynchronizeForMPI (event)")
		return nil
	case stream != nil:
		if err := stream.Synchronize(); err != nil {
			return fmt.Errorf("staging: SynchronizeForMPI: %w", err)
		}
		profiling.RecordSync("staging.SynchronizeForMPI (stream)")
		return nil
	}
	var seen []backend.Backend
outer:
	for _, a := range arrays {
		if a.Device().IsHost() {
			continue
		}
		b := a.Backend()
		for _, s := range seen {
			if s == b {
				continue outer
			}
		}
		seen = append(seen, b)
		if err := b.Synchronize(); err != nil {
			return fmt.Errorf("staging: SynchronizeForMPI on %v: %w", a.Device(), err)
		}
		profiling.RecordSync("staging.SynchronizeForMPI " + a.Device().String())
	}
	return nil
}

// ErrCUDAAwareUnknown is the error, in strict mode (Strict), of handing MPI
// a device array when nobody has said whether MPI is CUDA-aware. Without
// strict mode such an array is staged through host memory, which is always
// correct.
var ErrCUDAAwareUnknown = errors.New("staging: whether MPI is CUDA-aware is not known, and strict mode forbids staging device memory through the host: " +
	"set it (XPMPI_CUDA_AWARE=1 or 0, or staging.SetCUDAAware) or detect it first (xpmpi doctor, the CUDA backend's probe)")

// ErrLeased is the error of a Lease while another lease of the same
// Staging is out.
var ErrLeased = errors.New("staging: Lease while an earlier lease of this Staging is out: Release it first (one lease at a time)")

// Option configures a Staging.
type Option func(*config)

type config struct {
	aware  func() CUDAAwareness
	strict bool
}

func newConfig(opts []Option) config {
	c := config{aware: CUDAAware}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Strict makes an unknown answer to whether MPI is CUDA-aware an error
// (ErrCUDAAwareUnknown) for device arrays, instead of staging them through
// host memory: for a program that must not stage by accident.
func Strict() Option {
	return func(c *config) { c.strict = true }
}

// direct reports whether MPI is to be handed the device memory itself:
// true for a CUDA-aware MPI, false for one that is not or, outside strict
// mode, when nobody knows.
func (c *config) direct(dev backend.Device) (bool, error) {
	aw := c.aware()
	if !aw.Known {
		if c.strict {
			return false, fmt.Errorf("%w (array on %v)", ErrCUDAAwareUnknown, dev)
		}
		return false, nil
	}
	return aw.Aware, nil
}

// WithCUDAAware makes a Staging ask f, instead of CUDAAware, whether MPI
// takes device memory: for a program that decided per communicator, and
// for tests.
func WithCUDAAware(f func() CUDAAwareness) Option {
	return func(c *config) { c.aware = f }
}

// Staging hands MPI a buffer for arrays of n elements of T on one backend's
// device: the array's own memory when that is host memory or when MPI is
// CUDA-aware, or a pinned host buffer, allocated once and reused, when MPI
// is not CUDA-aware. See the package documentation.
//
// A Staging is safe for concurrent use; only one lease is out at a time.
type Staging[T backend.Numeric] struct {
	b   backend.Backend
	n   int
	cfg config

	mu     sync.Mutex
	host   *hostMem // allocated at the first staged lease
	leased bool
	closed bool
}

// NewStaging returns a Staging for arrays of n elements of T on backend b.
// It allocates nothing: the pinned host buffer is allocated at the first
// lease that needs it. Close frees it; so does the collector, once the
// Staging is unreachable.
func NewStaging[T backend.Numeric](b backend.Backend, n int, opts ...Option) *Staging[T] {
	if n < 0 {
		panic(fmt.Sprintf("staging: NewStaging of %d elements", n))
	}
	return &Staging[T]{b: b, n: n, cfg: newConfig(opts)}
}

// Len returns the number of elements of the arrays the Staging takes.
func (s *Staging[T]) Len() int { return s.n }

// Device returns the device of the Staging's backend.
func (s *Staging[T]) Device() backend.Device { return s.b.Device() }

// Lease returns a lease whose pointer MPI may read (send) or write (not
// send) for x: x's own memory for a host array or a CUDA-aware MPI (after
// synchronizing x's device), else the pinned host buffer, into which a
// send lease first copies x. Release ends the lease. Isend and Irecv make
// the MPI call on a lease themselves; Lease is for other calls.
//
// x must have the Staging's length and live on the host or on its
// backend's device: otherwise Lease panics. A lease already out is an
// error (ErrLeased), and so, in strict mode, is a device array while
// nobody knows whether MPI is CUDA-aware (ErrCUDAAwareUnknown); outside
// strict mode such an array is staged. A lease that fails is not out.
func (s *Staging[T]) Lease(x *backend.Array[T], send bool) (*Lease[T], error) {
	if x.Len() != s.n {
		panic(fmt.Sprintf("staging: Lease of an array of %d elements from a Staging of %d", x.Len(), s.n))
	}
	dev := x.Device()
	if !dev.IsHost() && dev != s.b.Device() {
		panic(fmt.Sprintf("staging: Lease of an array on %v from a Staging of %v", dev, s.b.Device()))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("staging: Lease from a closed Staging")
	}
	if s.leased {
		return nil, ErrLeased
	}
	l := &Lease[T]{s: s, x: x, send: send}
	switch {
	case dev.IsHost():
		l.ptr = x.Ptr()
	default:
		direct, err := s.cfg.direct(dev)
		if err != nil {
			return nil, err
		}
		if direct {
			if x.Len() > 0 {
				if err := SynchronizeForMPI(nil, nil, x); err != nil {
					return nil, err
				}
			}
			l.ptr = x.Ptr()
			break
		}
		l.staged = true
		if x.Len() == 0 {
			break
		}
		if s.host == nil {
			h, err := allocHost(s.b, nbytes(x))
			if err != nil {
				return nil, err
			}
			s.host = h
			runtime.AddCleanup(s, func(h *hostMem) { h.free() }, h)
		}
		if send {
			if err := copyToHost(s.host.p, x); err != nil {
				return nil, fmt.Errorf("staging: copying %d bytes from %v for MPI: %w", nbytes(x), dev, err)
			}
			profiling.RecordTransfer(profiling.ToHost, "staging.Lease (send)", int64(nbytes(x)), true, false)
		}
		l.ptr = s.host.p
	}
	s.leased = true
	return l, nil
}

// Close frees the pinned host buffer. A lease must not be out; the Staging
// cannot lease again.
func (s *Staging[T]) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leased {
		return errors.New("staging: Close while a lease is out")
	}
	s.closed = true
	if s.host != nil {
		s.host.free()
	}
	return nil
}

// Lease is a buffer handed out by a Staging for one MPI operation. Use
// it from one goroutine.
type Lease[T backend.Numeric] struct {
	s        *Staging[T]
	x        *backend.Array[T]
	ptr      unsafe.Pointer
	send     bool
	staged   bool
	reqs     []mpi.Request
	released bool
}

// Ptr returns the address to give MPI: host memory, or device memory for
// a CUDA-aware MPI. It is nil for an empty array.
func (l *Lease[T]) Ptr() unsafe.Pointer { return l.ptr }

// Len returns the number of elements at Ptr.
func (l *Lease[T]) Len() int { return l.x.Len() }

// Staged reports whether the lease goes through the pinned host buffer.
func (l *Lease[T]) Staged() bool { return l.staged }

// Attach ties a non-blocking MPI request on the lease's pointer to the
// lease: Release waits for it first. A request that is not attached must
// be complete (waited for) before Release.
func (l *Lease[T]) Attach(req mpi.Request) {
	if l.released {
		panic("staging: Attach to a released lease")
	}
	l.reqs = append(l.reqs, req)
}

// Release ends the lease: it waits for the attached requests, then, for a
// receive lease through the host buffer, copies the buffer into the array
// and waits for the copy, so that the buffer can be reused. If a request
// failed, the array is left as it was and the first failure is returned.
// The Staging is free again whatever happened; releasing twice is an error.
func (l *Lease[T]) Release() error { return l.end(true) }

// Abandon ends the lease without copying anything back into the array: for
// an operation that failed or was never started. It waits for the attached
// requests and returns the first failure; the Staging is free again.
func (l *Lease[T]) Abandon() error { return l.end(false) }

func (l *Lease[T]) end(copyBack bool) error {
	if l.released {
		return errors.New("staging: Release of a lease already released")
	}
	l.released = true
	defer func() {
		l.s.mu.Lock()
		l.s.leased = false
		l.s.mu.Unlock()
	}()
	var first error
	for _, r := range l.reqs {
		if _, err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	l.reqs = nil
	if first != nil {
		return first
	}
	if copyBack && l.staged && !l.send && l.x.Len() > 0 {
		if err := copyToDevice(l.x, l.ptr); err != nil {
			return fmt.Errorf("staging: copying %d bytes received by MPI to %v: %w", nbytes(l.x), l.x.Device(), err)
		}
		profiling.RecordTransfer(profiling.ToDevice, "staging.Lease.Release (receive)", int64(nbytes(l.x)), true, false)
	}
	return nil
}
