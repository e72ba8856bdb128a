// Package backend is the user's side of local compute: the local Array[T]
// that knows its device and the functions on it (Fill, Axpy, Sum, Dot,
// ...), the named conversions between host and device, backend selection,
// the element types (re-exported from package dtype) and the errors a
// device reports.
//
// What an implementation of a backend needs (the Backend interface that
// CPU and CUDA implement, Buffer, the optional capabilities, Register) is
// in package backend/driver, as database/sql keeps it in
// database/sql/driver. A program imports this package; a backend imports
// driver (and this package only where it uses arrays itself); code that
// calls a capability directly imports both. Package backend re-exports the
// driver names its own functions take or return (Backend, Device, Kind,
// Scalar, BinaryOp, ErrDevice, DeviceError, ErrFreed); the other names of
// driver are forwarded here as deprecated aliases for a forwarding period
// (backend.Buffer is driver.Buffer; see CHANGELOG.md).
//
// An operation follows its arguments, not the selected backend: Axpy on two
// CUDA arrays runs on their device whatever is selected; the selected
// backend decides only where New puts new arrays. Mixing devices in one call
// panics. Nothing moves between host and device unless a conversion function
// (ToHost, ToDevice, AsDevice, ToHostAsync, HostCall) is called.
//
// Selection: XPMPI_BACKEND=cpu|cuda picks the backend at start-up; Select
// picks it at run time. An unknown name is an error and changes nothing. A
// backend that cannot run is an error from SelectStrict; Select instead falls
// back to the CPU, says so once on standard error, and reports it in Info.
//
// The backends register themselves (driver.Register): a program imports
// backend/cpu (and backend/cuda, or backend/all for both) for their side
// effects, as a database/sql program imports its drivers. Packages that
// compute with arrays (dist, fft, the solvers) import none.
package backend
