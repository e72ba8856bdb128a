package staging

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// nbytes returns the size of x's elements in bytes.
func nbytes[T backend.Numeric](x *backend.Array[T]) int { return x.Len() * x.DType().Size() }

// copyToHost copies device array x into host memory at dst and waits: on
// the backend's default stream (the producer's) where the backend has one,
// so that it follows the work that made x. It records nothing.
func copyToHost[T backend.Numeric](dst unsafe.Pointer, x *backend.Array[T]) error {
	b := x.Backend()
	if a, ok := b.(backend.Async); ok {
		s := a.DefaultStream()
		if err := a.CopyToHostAsync(dst, x.Buffer(), s); err != nil {
			return err
		}
		return s.Synchronize()
	}
	if err := b.Synchronize(); err != nil {
		return err
	}
	return b.CopyToHost(dst, x.Buffer())
}

// copyToDevice copies host memory at src into device array x and waits, so
// that src can be reused: on the default stream where the backend has one,
// so that later work on x follows it. It records nothing.
func copyToDevice[T backend.Numeric](x *backend.Array[T], src unsafe.Pointer) error {
	b := x.Backend()
	if a, ok := b.(backend.Async); ok {
		s := a.DefaultStream()
		if err := a.CopyFromHostAsync(x.Buffer(), src, s); err != nil {
			return err
		}
		return s.Synchronize()
	}
	if err := b.CopyFromHost(x.Buffer(), src); err != nil {
		return err
	}
	return b.Synchronize()
}

// copyToHostBlocking copies device array x into host memory at dst with
// the backend's blocking copy, after the work queued on the device: for Go
// memory, which async copies would treat as pageable. It records nothing.
func copyToHostBlocking[T backend.Numeric](dst unsafe.Pointer, x *backend.Array[T]) error {
	b := x.Backend()
	if err := b.Synchronize(); err != nil {
		return err
	}
	return b.CopyToHost(dst, x.Buffer())
}

// copyToDeviceBlocking copies host memory at src into x with the backend's
// blocking copy and waits for the device. It records nothing.
func copyToDeviceBlocking[T backend.Numeric](x *backend.Array[T], src unsafe.Pointer) error {
	b := x.Backend()
	if err := b.CopyFromHost(x.Buffer(), src); err != nil {
		return err
	}
	return b.Synchronize()
}

// hostMem is host memory for staging: pinned where the backend can pin it,
// Go memory otherwise.
type hostMem struct {
	p     unsafe.Pointer
	bytes int
	a     backend.Async // nil: Go memory
	once  sync.Once     // free runs once: from Close or from a cleanup
}

// allocHost returns bytes > 0 bytes of host memory for copies to and from
// b's device, 8-byte aligned.
func allocHost(b backend.Backend, bytes int) (*hostMem, error) {
	if a, ok := b.(backend.Async); ok && !b.Device().IsHost() {
		p, err := a.AllocPinned(bytes)
		if err != nil {
			return nil, fmt.Errorf("staging: %d bytes of pinned host memory for %v: %w", bytes, b.Device(), err)
		}
		return &hostMem{p: p, bytes: bytes, a: a}, nil
	}
	words := make([]uint64, (bytes+7)/8)
	return &hostMem{p: unsafe.Pointer(unsafe.SliceData(words)), bytes: bytes}, nil
}

// free releases pinned memory; Go memory is left to the collector.
func (h *hostMem) free() {
	h.once.Do(func() {
		if h.a != nil {
			h.a.FreePinned(h.p)
		}
	})
}

// slice returns the memory at p as n elements of T.
func slice[T backend.Numeric](p unsafe.Pointer, n int) []T {
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(p), n)
}
