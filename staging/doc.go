// Package staging moves arrays between a device and host memory for MPI
// and for the host: rings of pinned host buffers for copies to the host
// that overlap computation, async copies of small arrays, device mirrors of
// host buffers owned by someone else, and MPI buffers that hand MPI device
// memory when it is CUDA-aware and stage through pinned host memory when it
// is not.
//
// # MPI calls on device memory
//
// Package staging makes the MPI calls for arrays that may live on a device,
// so that the rule of what MPI may be handed lives in one place. Every
// array is handed to MPI as follows:
//
//   - a host array passes through: MPI gets its own memory;
//   - a device array, with a CUDA-aware MPI (CUDAAware says Aware): the
//     device is synchronized and MPI gets the device memory;
//   - a device array, with an MPI that is not CUDA-aware, or when nobody
//     knows: MPI gets host memory, into which the array is copied first if
//     MPI reads it, and from which it is copied back if MPI writes it.
//     Staging through the host is always correct; Strict makes an unknown
//     answer an error (ErrCUDAAwareUnknown) instead.
//
// Whether MPI is CUDA-aware is decided here too (CUDAAware), from the first
// source that answers: XPMPI_CUDA_AWARE=1 or 0, SetCUDAAware, the MPI
// library's own answer (mpi.LibraryCUDAAware), a probe recorded in this
// process (RecordCUDAAwareProbe), and a probe's verdict cached by an
// earlier job on this host with this library (SaveProbe, the cache file
// XPMPI_PROBE_CACHE names). Package mpi only reports the library's answer.
//
// Point to point: a Staging is bound to a length, an element type and a
// backend (a device); its Isend and Irecv start the MPI call and return an
// Op, whose Wait completes the request and, for a staged receive, the copy
// to the device. A Staging keeps one pinned host buffer, allocated at the
// first staged operation and reused, and has one operation in flight at a
// time. Lease hands out the pointer for other calls.
//
// Collectives: Bcast, Gatherv, Allgatherv, Scatterv, Alltoallv and
// Allreduce take backend.Arrays, each on the host or a device; a staged
// side goes through a host copy made for the call (blocking copies, which
// pinned memory would not speed up).
//
// A device address is not a Go pointer and keeps nothing reachable, and
// the CUDA backend frees the memory of an array nobody holds (a cleanup).
// So every collective here keeps its arrays reachable until MPI returns,
// and a Lease (and the Op of Isend and Irecv) holds its array until it is
// released: an array whose last use in the caller is the call itself (a
// temporary gathered, a source transposed and dropped) is not freed under
// MPI. Code that hands MPI a device address itself must do the same
// (runtime.KeepAlive after the call, or after the request completes).
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
// The collectives (Bcast, Gatherv, Allgatherv, Scatterv, Alltoallv,
// Allreduce, ProbeCUDAAware) are collective; nothing else is: Isend and
// Irecv are point to point, and the rest is local to a rank. Staging, Ring
// and Pending are safe for concurrent use by several goroutines; a Lease,
// an Op and a Mirror are not (use each from one goroutine at a time).
package staging
