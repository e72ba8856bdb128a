// Package backend holds what local compute needs: devices, the local
// Array[T] that knows its device, the Backend interface that CPU and CUDA
// implement, backend selection, and the named conversions between host and
// device.
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
// The backends register themselves: import backend/cpu (and backend/cuda)
// for their side effects, as package dist does.
package backend
