//go:build petsc

package petsc

/*
#include "xp_petsc.h"
*/
import "C"

import (
	"errors"
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// ErrPETSc is the kind of every error that PETSc reported: errors.Is(err,
// ErrPETSc) holds for an *Error and for an agreed error (mpi.Agree) that
// one rank's *Error caused.
var ErrPETSc = errors.New("petsc: PETSc reported an error")

// ErrScalarType is the kind of the error of a Vec over an array whose
// element type is not PETSc's scalar (float64 in Debian's real build).
var ErrScalarType = errors.New("petsc: element type is not PETSc's scalar type")

// ErrNoCUDA is the kind of the error of a Vec over an array on a device
// where PETSc was built without CUDA (as Debian's is).
var ErrNoCUDA = errors.New("petsc: PETSc was built without CUDA")

// ErrOperator is the kind of the error returned where a Go operator or
// preconditioner (NewShell, KSP.SetShellPC) returned an error.
var ErrOperator = errors.New("petsc: a Go operator failed")

func init() {
	mpi.RegisterErrorKind("petsc", ErrPETSc)
	mpi.RegisterErrorKind("petsc-scalar-type", ErrScalarType)
	mpi.RegisterErrorKind("petsc-no-cuda", ErrNoCUDA)
	mpi.RegisterErrorKind("petsc-operator", ErrOperator)
	// NewVec of a freed array fails on the ranks whose block was freed;
	// the others' agreed error matches dist.ErrFreed too.
	mpi.RegisterErrorKind("dist.freed", dist.ErrFreed)
}

// Error is an error that a PETSc call returned: the function this package
// called, PETSc's error code and PETSc's message (the generic text of the
// code, the specific message, and the PETSc function and source line where
// the error arose). It matches ErrPETSc.
type Error struct {
	Call string // the PETSc function called, e.g. "KSPSolve"
	Code int    // the PetscErrorCode
	Msg  string // PETSc's message
}

// Error returns "petsc: CALL: error CODE: MESSAGE".
func (e *Error) Error() string {
	return fmt.Sprintf("petsc: %s: error %d: %s", e.Call, e.Code, e.Msg)
}

// Is reports whether target is ErrPETSc.
func (e *Error) Is(target error) bool { return target == ErrPETSc }

// call runs f, a call into PETSc, under package mpi's library lock (PETSc
// calls MPI, which runs at MPI_THREAD_SERIALIZED), and turns a nonzero
// PetscErrorCode into an *Error with the message that the error handler
// installed by Init recorded.
func call(name string, f func() C.int) error {
	mpi.LockLibrary()
	defer mpi.UnlockLibrary()
	C.xp_clear_error()
	rc := f()
	if rc == 0 {
		return nil
	}
	msg := C.GoString(C.xp_last_error())
	if msg == "" {
		msg = "(no message)"
	}
	return &Error{Call: name, Code: int(rc), Msg: msg}
}
