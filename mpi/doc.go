// Package mpi is xpmpi's message-passing layer: one Comm interface with two
// implementations.
//
// The default build has the serial stand-in: rank 0 of 1, whose collectives
// return what one rank would get (an allreduce of x is x, a gather of x is
// [x]), whose sends to itself are delivered to its own receives, and which
// reports an error for anything it cannot do (a peer other than 0, a receive
// that no send can ever match). A program built this way and started by an
// MPI launcher with more than one rank refuses to run: Init returns an error
// that says to rebuild with -tags mpi.
//
// Built with -tags mpi, the package binds the system's MPI library through
// cgo (Open MPI by default; MPICH with -tags mpi,mpich). MPI errors come back
// as Go errors (the error handler is set to return), never as a silent abort.
//
// The Comm methods are the raw forms: they take unsafe.Pointer buffers,
// element counts and a Datatype, so that device memory can be handed to a
// CUDA-aware MPI. The generic package functions (Allreduce, Gatherv, Isend,
// ...) are the typed forms over Go slices; they check lengths and panic on a
// mismatch the caller could have checked. Whether MPI is handed device
// memory is package staging's decision (staging.CUDAAware); this package
// reports only the library's own answer (LibraryCUDAAware).
//
// # Goroutines
//
// Any goroutine may call any method. Init asks MPI for
// MPI_THREAD_MULTIPLE; where the library grants it (Open MPI 4.1 and MPICH
// 4.0 do), calls go into MPI with no lock of the binding's, side by side
// from as many goroutines as make them, and a blocking Recv in one
// goroutine does not keep another from sending. MPI's own rule still
// holds: goroutines that make collective calls at the same time must do so
// on different communicators (Split one for each), and a request is
// waited for by one goroutine.
//
// XPMPI_THREAD_LEVEL=serialized asks for MPI_THREAD_SERIALIZED instead,
// and every call then holds one package-wide lock: calls are serialized, so
// a blocking Recv in one goroutine holds the library until its message
// arrives; never block in one goroutine on a message that another
// goroutine of the same process has yet to send, use Isend/Irecv for that
// (Wait polls with the lock released). The same lock is used where MPI
// grants less than MPI_THREAD_MULTIPLE.
//
// XPMPI_THREAD_LEVEL=single asks for MPI_THREAD_SINGLE and serializes the
// calls under the same lock. It is for jobs that live on small collectives
// and have measured the gain: Open MPI takes its internal locks and atomic
// counters at every level above MPI_THREAD_SINGLE, about 0.05 us of an 8-byte
// allreduce that costs 0.19 us between two ranks of one node. It is outside
// the standard's letter: MPI_THREAD_SINGLE promises that the process runs
// one thread, and a Go program runs several and moves a goroutine between
// them. The binding's lock keeps any two calls from being inside MPI at
// once and orders memory between them, which is what Open MPI 4.1 (over
// shared memory and over TCP) and MPICH 4.0 needed in this package's tests
// at this level; a library or network layer that keeps state per thread,
// or checks which thread calls it, may not accept it. Package petsc
// refuses it (its Init returns an error that says to unset the variable).
//
// Any other value of the variable makes Init fail with an error that names
// it. LibraryInfo().ThreadLevel says what MPI granted.
//
// Non-blocking calls keep the Go memory they were given pinned until Wait.
// Blocking calls pin nothing: cgo keeps Go memory in place for the call's
// duration. AllreduceValue and ReduceValue of a value of at most 8 bytes
// hand MPI the value itself, with nothing allocated.
//
// # Waiting
//
// MPI libraries wait by polling: a rank blocked in a collective spins on
// its CPU until the others arrive. Where a node runs more ranks than it has
// CPUs, the rank being waited for may be the one that is not running, and
// each step of a collective can cost a scheduler time slice. Open MPI
// yields the CPU then; MPICH 4.0 over UCX does not, and dist's TestMatMul
// took 77 s at 3 ranks on 2 CPUs, against 0.4 s at 2.
//
// So the binding waits in one of two modes, chosen by Init and the same on
// every rank. In "block" mode it calls MPI's blocking functions. In
// "sleep" mode every blocking call of the binding (the collectives, Send,
// Recv, Sendrecv, Probe and a request's Wait) is MPI's nonblocking form
// and a loop of MPI_Test: 32 tests, then 100 with a sched_yield between
// them, then naps between tests from 20 us, doubling up to 200 us. A
// waiting rank so gives its CPU to the ranks it waits for: TestMatMul
// above takes 6.5 s. A message can wait a nap longer to be seen, so sleep
// mode is for oversubscribed nodes, not for speed.
//
// XPMPI_MPI_WAIT chooses: "auto" (the default) sleeps where a node has more
// ranks than CPUs (the union of its ranks' affinity masks), unless MPI is
// Open MPI, which yields there by itself (sleep mode measured slower:
// dist's tests at 4 ranks on 2 CPUs took 49-56 s against 46 s), or is
// CUDA-aware by its own answer (LibraryCUDAAware; libraries differ on
// device memory in nonblocking collectives); "sleep" and "block" force a
// mode. Any other value makes Init fail with an error that names the
// variable. If any rank chooses
// sleep, every rank sleeps: MPI does not let a blocking collective match a
// nonblocking one. LibraryInfo().WaitMode says which mode is in use.
//
// MPI's own collectives inside MPI-IO and communicator creation (Split,
// CartCreate) still wait in MPI.
//
// In either mode, a goroutine that calls MPI in a loop yields
// (runtime.Gosched) about every 2 ms: the binding counts its calls into
// MPI and looks at the clock every 64. A goroutine that is never
// rescheduled and spends its time in C otherwise has its P taken by Go's
// runtime every 20-40 us, each time waking a thread that can preempt
// another rank's polling (an 8-byte allreduce loop at 2 ranks on 2 CPUs:
// 30,000 context switches in 2 s without the yield, 2,300 with it).
//
// # Entry points
//
// Every main function should start with Main (or, in tests, mpitest.Main),
// which initializes MPI, turns a panic on any rank into an abort of the whole
// job with the panic text and the rank, and finalizes.
package mpi
