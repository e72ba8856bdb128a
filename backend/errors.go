package backend

import "github.com/xpmpi/xpmpi/backend/driver"

// The errors are defined in package backend/driver, where the backends
// that return them are, and re-exported here for their users: they are the
// same values, so errors.Is(err, backend.ErrDevice) and
// errors.Is(err, driver.ErrDevice) agree.

// ErrDevice is wrapped by every error that reports a failure of a device
// itself, as opposed to a mistake of the caller: a kernel that faulted, a
// copy or a launch the driver refused, a device that was lost. Test with
// errors.Is(err, backend.ErrDevice).
//
// A device reports such a failure late, as CUDA does: the operation that
// failed was queued and returned long before. The failure is kept on the
// device's stream (sticky), elementwise calls stay cheap, and the next
// call that waits for the device (Synchronize, a copy to the host, a
// reduction that returns a value) reports it: as an error where the method
// returns one, and otherwise as a panic whose value is the error (never a
// string), which package dist's reductions turn back into an error on
// every rank.
var ErrDevice = driver.ErrDevice

// DeviceError is a failure of a device in an operation (driver.DeviceError);
// it wraps ErrDevice.
type DeviceError = driver.DeviceError

// ErrFreed is (wrapped in) the error of an operation on an array whose
// memory was released by Free. Operations that return an error return it;
// those that return none panic with an error that wraps it, so that
// errors.Is(recover().(error), ErrFreed) holds.
var ErrFreed = driver.ErrFreed
