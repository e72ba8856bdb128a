//go:build mpi || petsc

package mpi

/*
#include <stdint.h>
#include "xpmpi_mpi.h"

// The C handle of a communicator as an integer: a pointer for Open MPI, an
// int for MPICH; either fits in uintptr_t.
static inline uintptr_t xp_comm_to_handle(MPI_Comm c) { return (uintptr_t)c; }
*/
import "C"

// This file is for packages that bind another C library built over the same
// MPI library (package petsc): the C handle of a communicator, and the lock
// that serializes calls into MPI.

// CHandle returns the C MPI_Comm of c as an integer, for a binding of
// another C library that takes an MPI_Comm: converting it back in C,
// (MPI_Comm)(uintptr_t)h, gives the communicator (a pointer for Open MPI,
// an int for MPICH). The checking wrapper of Init is looked through. It
// returns an error for a Comm that is not of this package's MPI binding.
// The handle is valid until c is freed. It is not collective.
func CHandle(c Comm) (uintptr, error) {
	m, ok := unwrap(c).(*comm)
	if !ok || m == nil {
		return 0, errorf("CHandle", "%T is not a communicator of the MPI library", c)
	}
	return uintptr(C.xp_comm_to_handle(m.c)), nil
}

// LockLibrary acquires the lock for a binding of another C library that
// calls MPI (package petsc). A binding holds it around each of its calls
// and releases it (UnlockLibrary) while a callback of that library runs Go
// code that may call MPI itself. It always serializes such calls among
// themselves. Where MPI runs at MPI_THREAD_SERIALIZED or below (no two
// threads may be inside MPI at once), it is also the lock under which this
// package makes every call into MPI, so that the two never overlap; where
// MPI granted MPI_THREAD_MULTIPLE, this package's calls take no lock and
// may run beside the other library's. The lock is not reentrant: below
// MPI_THREAD_MULTIPLE, a goroutine that holds it must not call this
// package's functions until it releases it. It is not collective.
func LockLibrary() { lib.mu.Lock() }

// UnlockLibrary releases the lock LockLibrary acquired. It is not
// collective.
func UnlockLibrary() { lib.mu.Unlock() }
