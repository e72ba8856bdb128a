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
// mismatch the caller could have checked.
//
// # Goroutines
//
// MPI is initialized at MPI_THREAD_SERIALIZED and every call into the library
// holds one package-wide lock, so any goroutine may call any method. Calls are
// serialized: a blocking Recv in one goroutine holds the library until its
// message arrives, so never block in one goroutine on a message that another
// goroutine of the same process has yet to send; use Isend/Irecv for that.
// Non-blocking calls keep the Go memory they were given pinned until Wait.
//
// # Entry points
//
// Every main function should start with Main (or, in tests, mpitest.Main),
// which initializes MPI, turns a panic on any rank into an abort of the whole
// job with the panic text and the rank, and finalizes.
package mpi
