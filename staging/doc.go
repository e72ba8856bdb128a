// Package staging moves arrays between a device and host memory for MPI
// and for the host: rings of pinned host buffers for copies to the host
// that overlap computation, async copies of small arrays, device mirrors of
// host buffers owned by someone else, and MPI buffers that hand MPI device
// memory when it is CUDA-aware and stage through pinned host memory when it
// is not.
//
// # MPI buffers
//
// A Staging is the one call site for both kinds of MPI. It is bound to a
// length, an element type and a backend (a device). Lease hands out a
// pointer that MPI may be given:
//
//   - a host array passes through: the pointer is its own memory;
//   - a device array, with a CUDA-aware MPI (mpi.CUDAAware says Aware): the
//     device is synchronized and the pointer is the device memory;
//   - a device array, with an MPI that is not CUDA-aware: the pointer is the
//     Staging's pinned host buffer, allocated at the first such lease and
//     kept for every later one; a send lease copies the array into it
//     first, and Release of a receive lease copies it back into the array
//     (and waits, so that the host buffer can be reused);
//   - a device array when nobody knows whether MPI is CUDA-aware: an error
//     that says to set it (XPMPI_CUDA_AWARE=0|1, mpi.SetCUDAAware) or to
//     detect it first.
//
// One lease at a time: a second Lease before Release is an error, and a
// Lease that fails leaves the Staging free. A non-blocking MPI request on a
// lease's pointer must complete inside the lease: Attach it, and Release
// waits for it before copying or handing the buffer back.
//
// # Copies to the host
//
// A Ring of pinned buffers takes copies of device arrays of one length that
// return at once (Ring.Copy): each snapshots the array on the stream that
// produced it, then copies the snapshot to pinned memory on a private
// stream, so that the device goes on computing. At most Buffers copies are
// in flight; a result is the staging buffer itself, valid until its slot is
// reused. ToHostOnStream copies a small array without a ring (backend.ToHostAsync is
// another thing: a copy on a goroutine, not ordered on a stream).
//
// # Accounting
//
// Every copy between host and device made here is recorded once with
// package profiling, as a ToHost or ToDevice event with its size;
// snapshots on the device are DeviceCopy events, and explicit waits
// (SynchronizeForMPI, the synchronization of a lease for a CUDA-aware MPI,
// waiting for a ring slot or a result) are Sync events. A blocking copy is
// one event, marked blocking, not a copy and a sync.
//
// # Concurrency
//
// No function of the package is collective: none communicates, and each
// rank calls them on its own (the MPI calls made with a lease's pointer
// are the caller's). Staging, Ring and Pending are safe for concurrent use
// by several goroutines; a Lease and a Mirror are not (use each from one
// goroutine at a time).
package staging
