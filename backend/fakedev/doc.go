// Package fakedev is a fake device for tests: a driver.Async whose memory
// is host memory but which package backend, package staging and package
// dist treat as device memory everywhere, so that tests without a GPU take
// every device path (conversions, staging through pinned host memory,
// synchronization before MPI) and can count what those paths do.
//
// Importing the package registers the backend as "fake"; Default is its one
// device, driver.Device{Kind: driver.Fake}. Its buffers report that
// device, so backend.Array.Data panics on them exactly as on a CUDA array:
// callers must convert (backend.ToHost, backend.CopyToHostSlice, ...).
//
// # Streams
//
// The device behaves as a GPU does, asynchronously: every stream, the
// default stream included, is an in-order queue run by a goroutine of its
// own. The backend's operations (Fill, Axpy, Copy, Jacobi5, ...) are queued
// on the default stream and return at once; those that return a value
// (Sum, Dot, Argmin, Argmax) wait for it. The blocking copies CopyToHost
// and CopyFromHost are queued on the default stream and waited for, as
// CUDA's are on its legacy default stream. Async copies are queued on the
// stream they are given and return at once, so that code which forgets to
// synchronize reads stale memory; SetCopyDelay and SetKernelDelay slow
// copies and operations down to make such races show.
//
// # Memory
//
// Free waits for the queued work and fills the allocation with a pattern
// (0xA5 bytes), so that a use through a stale address reads garbage. An
// allocation that no buffer refers to any more gets the same treatment
// from a cleanup, as the CUDA backend frees it: a device address keeps
// nothing alive on a GPU, so code that hands one to MPI or a kernel must
// keep its buffer reachable until the work is done, and a test here sees
// code that does not (dist's TestDeviceLifetime). The counts (Stats) are
// Free's alone.
//
// The arithmetic is that of the CPU backend: each operation runs
// cpu.Default on driver.HostBuffer views of the device memory. A panic of
// an operation (integer division by zero, say) does not crash the
// process: it is kept, as a GPU keeps an error, and reported by the next
// synchronization of its stream (as an error) or the next operation that
// returns a value (as a panic).
//
// # Accounting
//
// The backend counts what it is asked to do: copies by direction and bytes,
// synchronizations, allocations, pinned allocations still live, and async
// copies whose host side is not pinned memory (Stats, Backend.Stats). It
// does not record profiling events: like every backend it leaves that to
// its callers (package backend's conversions, package staging, package
// dist), so that a test can check that the profiling events match the
// copies the device really made, one for one.
//
// Everything in the package is safe for concurrent use.
package fakedev
