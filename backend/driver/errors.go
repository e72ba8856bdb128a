package driver

import (
	"errors"
	"fmt"
)

// ErrDevice is wrapped by every error that reports a failure of a device
// itself, as opposed to a mistake of the caller: a kernel that faulted, a
// copy or a launch the driver refused, a device that was lost. An
// implementation reports one as a *DeviceError, which wraps it; package
// backend re-exports it, so users test errors.Is(err, backend.ErrDevice).
//
// A device reports such a failure late, as CUDA does: the operation that
// failed was queued and returned long before. The failure is kept on the
// device's stream (sticky), elementwise calls stay cheap, and the next
// call that waits for the device (Synchronize, a copy to the host, a
// reduction that returns a value) reports it: as an error where the method
// returns one, and otherwise as a panic whose value is the error (never a
// string), which package dist's reductions turn back into an error on
// every rank.
var ErrDevice = errors.New("device failure")

// DeviceError is a failure of a device in an operation.
type DeviceError struct {
	Device Device // where it happened
	Op     string // the operation, such as "Sum" or "launch of fill_f64"
	Err    error  // the driver's own error
}

func (e *DeviceError) Error() string {
	return fmt.Sprintf("%v: %s: %v", e.Device, e.Op, e.Err)
}

// Unwrap returns ErrDevice and the driver's error, so that errors.Is
// finds either.
func (e *DeviceError) Unwrap() []error { return []error{ErrDevice, e.Err} }

// ErrFreed is (wrapped in) the error of an operation on an array whose
// memory was released by Free. Operations that return an error return it;
// those that return none panic with an error that wraps it, so that
// errors.Is(recover().(error), ErrFreed) holds.
var ErrFreed = errors.New("array used after Free")
