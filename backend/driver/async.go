package driver

import "unsafe"

// Async is implemented by device backends: page-locked (pinned) host memory
// and copies that run on a stream while the host goes on. Package staging
// builds its rings, mirrors and MPI buffers on it. The CPU backend does not
// implement it: host arrays need no staging.
type Async interface {
	Backend
	// AllocPinned returns n bytes of page-locked host memory, which copies
	// to and from the device can use without an intermediate buffer.
	AllocPinned(n int) (unsafe.Pointer, error)
	// FreePinned releases memory from AllocPinned.
	FreePinned(p unsafe.Pointer)
	// NewStream returns a new stream: copies queued on one stream run in
	// order, copies on different streams may overlap.
	NewStream() (Stream, error)
	// DefaultStream returns the stream the backend's operations run on, the
	// producer of every array the backend computes.
	DefaultStream() Stream
	// CopyToHostAsync queues a copy of src into host memory at dst on s.
	CopyToHostAsync(dst unsafe.Pointer, src Buffer, s Stream) error
	// CopyFromHostAsync queues a copy of host memory at src into dst on s.
	CopyFromHostAsync(dst Buffer, src unsafe.Pointer, s Stream) error
	// CopyAsync queues a device-to-device copy of src into dst on s.
	CopyAsync(dst, src Buffer, s Stream) error
}

// Stream is an ordered queue of device work.
type Stream interface {
	// Synchronize waits until everything queued so far has finished.
	Synchronize() error
	// Record returns an event that completes when everything queued so far
	// has finished.
	Record() (Event, error)
	// Wait makes work queued on the stream later wait for e.
	Wait(e Event) error
	// Destroy releases the stream once its work has finished.
	Destroy() error
}

// Event marks a point in a stream.
type Event interface {
	// Done reports, without waiting, whether the work before the event has
	// finished.
	Done() (bool, error)
	// Synchronize waits until it has.
	Synchronize() error
	// Destroy releases the event.
	Destroy() error
}
