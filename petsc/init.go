//go:build petsc

package petsc

/*
#include <stdlib.h>
#include "xp_petsc.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/mpi"
)

var state struct {
	mu          sync.Mutex
	initialized bool
	finalized   bool
	comm        mpi.Comm
}

// Init starts PETSc on comm (PETSC_COMM_WORLD becomes comm) over the MPI
// that package mpi started, with PETSc command-line options. Each string
// of options is split at white space, so that both
//
//	petsc.Init(world, "-ksp_type cg -pc_type jacobi", "-ksp_monitor")
//	petsc.Init(world, os.Args[1:]...)
//
// work (an option's value cannot contain spaces). PETSc also reads the
// PETSC_OPTIONS environment variable and ~/.petscrc, as it always does.
//
// Init always adds -no_signal_handler: PETSc's signal handler would turn
// the SIGSEGV of a Go nil dereference (which Go turns into a panic) into
// an MPI_Abort without Go's message. It installs an error handler that
// records PETSc's message and returns, so that every PETSc error comes back
// as an *Error and none aborts the job.
//
// MPI must be initialized (mpi.Init or mpi.Main) at MPI_THREAD_SERIALIZED or
// above, which package mpi asks for: PETSc's default, FUNNELED, would tie
// every PETSc call to one OS thread, where goroutines move between
// threads. Every call of this package into PETSc runs under package mpi's
// library lock: PETSc's calls are serialized, and at SERIALIZED they never
// run beside package mpi's own (at MULTIPLE they may, as MPI allows).
//
// Init is collective over comm. Calling it again after a success does
// nothing; after Finalize it returns an error (PETSc cannot start twice).
func Init(comm mpi.Comm, options ...string) error {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.finalized {
		return errors.New("petsc: Init after Finalize: PETSc cannot be started again in this process")
	}
	if state.initialized {
		return nil
	}
	if !mpi.Initialized() {
		return errors.New("petsc: Init before MPI: call mpi.Init (or run inside mpi.Main) first")
	}
	if level := mpi.LibraryInfo().ThreadLevel; level != "serialized" && level != "multiple" {
		return fmt.Errorf("petsc: MPI runs at thread level %q (%s=%q); PETSc under Go needs MPI_THREAD_SERIALIZED or more (goroutines move between OS threads): unset %s or set it to serialized", level, mpi.ThreadLevelEnv, os.Getenv(mpi.ThreadLevelEnv), mpi.ThreadLevelEnv)
	}
	h, err := mpi.CHandle(comm)
	if err != nil {
		return fmt.Errorf("petsc: Init: %w", err)
	}
	args := []string{"xpmpi"}
	for _, o := range options {
		args = append(args, strings.Fields(o)...)
	}
	args = append(args, "-no_signal_handler")
	// PETSc keeps argv for the life of the process (PetscGetArgs): C memory,
	// never freed.
	argv := (**C.char)(C.calloc(C.size_t(len(args)+1), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	av := unsafe.Slice(argv, len(args)+1)
	for i, a := range args {
		av[i] = C.CString(a)
	}
	mpi.LockLibrary()
	rc := C.xp_petsc_init(C.uintptr_t(h), C.int(len(args)), argv)
	mpi.UnlockLibrary()
	if rc != 0 {
		return &Error{Call: "PetscInitialize", Code: int(rc), Msg: "PETSc did not start (its message is on standard error)"}
	}
	state.initialized, state.comm = true, comm
	return nil
}

// Finalize ends PETSc (PetscFinalize); every PETSc object should have been
// destroyed. It must run before mpi.Finalize. It is collective over Init's
// communicator; without Init it does nothing.
func Finalize() error {
	state.mu.Lock()
	defer state.mu.Unlock()
	if !state.initialized {
		return nil
	}
	state.initialized, state.finalized = false, true
	return call("PetscFinalize", func() C.int { return C.xp_petsc_finalize() })
}

// Initialized reports whether Init has succeeded and Finalize has not run.
func Initialized() bool {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.initialized
}

// mustBeInitialized panics, saying so, where PETSc has not been started.
func mustBeInitialized(op string) {
	if !Initialized() {
		panic(fmt.Sprintf("petsc: %s before petsc.Init (or after Finalize)", op))
	}
}

// Main is mpi.Main with PETSc: it starts MPI, then PETSc with the options
// (as Init), runs f with the world communicator, and finalizes PETSc, then
// MPI. A panic in f on any rank aborts the job with the panic's message, as
// in mpi.Main. It returns the process exit code:
//
//	func main() { os.Exit(petsc.Main(os.Args[1:], run)) }
func Main(options []string, f func(world mpi.Comm) error) int {
	return mpi.Main(func(world mpi.Comm) error {
		if err := Init(world, options...); err != nil {
			return err
		}
		err := f(world)
		if ferr := Finalize(); err == nil {
			err = ferr
		}
		return err
	})
}

// Version returns PETSc's version string, e.g. "Petsc Release Version
// 3.18.5, Feb 27, 2023". It needs no Init.
func Version() string {
	var buf [256]C.char
	C.xp_petsc_version(&buf[0], C.int(len(buf)))
	return strings.TrimSpace(C.GoString(&buf[0]))
}

// HasCUDA reports whether the PETSc this binary is built with has CUDA
// (PETSC_HAVE_CUDA). Debian's has not.
func HasCUDA() bool { return C.xp_petsc_have_cuda() != 0 }

// SetOptions adds options to PETSc's options database
// (PetscOptionsInsertString), for objects configured later by their
// SetFromOptions. It is not collective, but every rank should set the same
// options.
func SetOptions(options string) error {
	mustBeInitialized("SetOptions")
	cs := C.CString(options)
	defer C.free(unsafe.Pointer(cs))
	return call("PetscOptionsInsertString", func() C.int { return C.int(C.PetscOptionsInsertString(nil, cs)) })
}

// Option returns the value of option name ("-ksp_type") in PETSc's options
// database and whether it is set; an option given without a value is set
// with value "". It is not collective.
func Option(name string) (value string, set bool, err error) {
	mustBeInitialized("Option")
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var buf [1024]C.char
	var flg C.int
	err = call("PetscOptionsGetString", func() C.int { return C.xp_option_get(cs, &buf[0], C.int(len(buf)), &flg) })
	return C.GoString(&buf[0]), flg != 0, err
}
