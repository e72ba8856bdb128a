//go:build petsc

package petsc

// This file holds the Go functions that PETSc calls through the C
// trampolines of xp_petsc.c. A file with //export may only declare in its
// preamble.

/*
#include <stdint.h>
*/
import "C"

import (
	"math"
	"runtime/cgo"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// OperatorFunc computes y from x, two dist.Arrays whose blocks are the
// local parts of PETSc's vectors (no copies): y = A x for a shell matrix
// (NewShell), y = M⁻¹ x for a shell preconditioner (KSP.SetShellPC). It
// must not write x, nor keep x or y after it returns. It runs on every
// rank, inside a collective PETSc call, and may itself make collective
// calls on the arrays' communicator (a halo exchange, a dist reduction).
//
// An error returned on any rank does not stop PETSc at once, which would
// leave the other ranks waiting in PETSc's collectives: y is set to NaN on
// that rank, PETSc's iteration ends on every rank at its next norm
// (KSP_DIVERGED_NANORINF), and the call of this package that was running
// (KSP.Solve, Mat.Mult) returns the error, agreed on by every rank, matching
// ErrOperator. A panic aborts the whole job with its message and stack
// (mpi.AbortOnPanic).
type OperatorFunc func(x, y *dist.Array[float64]) error

// operator is the state of a Go operator that PETSc holds as a cgo.Handle.
type operator struct {
	comm    mpi.Comm
	in, out dist.Layout // of x and of y
	f       OperatorFunc
	err     error // the first error since the last reset
	h       cgo.Handle
	// refs counts the holders of h: the Mat or KSP that made it, and each
	// KSP that uses the Mat as an operator. PETSc may call the operator
	// while any of them lives (a KSP keeps its matrices after Mat.Destroy),
	// so h is deleted when the last one lets go.
	refs int
}

func newOperator(c mpi.Comm, in, out dist.Layout, f OperatorFunc) *operator {
	op := &operator{comm: c, in: in, out: out, f: f, refs: 1}
	op.h = cgo.NewHandle(op)
	return op
}

func (op *operator) retain() {
	if op != nil {
		op.refs++
	}
}

func (op *operator) release() {
	if op == nil {
		return
	}
	if op.refs--; op.refs == 0 {
		op.h.Delete()
	}
}

func (op *operator) takeErr() error {
	err := op.err
	op.err = nil
	return err
}

// xpGoApply runs the operator of handle h on PETSc's local arrays. PETSc
// calls it from inside a call that holds package mpi's library lock: it
// releases the lock while Go code runs, which may call MPI itself. It
// returns nonzero only where PETSc passed vectors of other local sizes than
// the operator's layouts.
//
//export xpGoApply
func xpGoApply(h C.uintptr_t, x *C.double, nx C.int, y *C.double, ny C.int) C.int {
	op := cgo.Handle(h).Value().(*operator)
	rank := op.comm.Rank()
	if int(nx) != op.in.LocalLen(rank) || int(ny) != op.out.LocalLen(rank) {
		return 1
	}
	mpi.UnlockLibrary()
	defer mpi.LockLibrary()
	defer mpi.AbortOnPanic(op.comm)
	xs, ys := hostSlice(x, nx), hostSlice(y, ny)
	xa := dist.FromLocal(op.comm, op.in, backend.Wrap(xs))
	ya := dist.FromLocal(op.comm, op.out, backend.Wrap(ys))
	if err := op.f(xa, ya); err != nil {
		if op.err == nil {
			op.err = err
		}
		for i := range ys {
			ys[i] = math.NaN()
		}
	}
	return 0
}

// hostSlice returns the n doubles at p as a Go slice (empty for n = 0,
// where PETSc may hand a NULL pointer).
func hostSlice(p *C.double, n C.int) []float64 {
	if n == 0 || p == nil {
		return []float64{}
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), int(n))
}

// monitor is the state of a KSP monitor that PETSc holds as a cgo.Handle.
type monitor struct {
	comm mpi.Comm
	f    func(iteration int, residualNorm float64)
	h    cgo.Handle
}

// xpGoMonitor runs the monitor of handle h, with package mpi's library lock
// released, as xpGoApply does.
//
//export xpGoMonitor
func xpGoMonitor(h C.uintptr_t, it C.int, rnorm C.double) {
	m := cgo.Handle(h).Value().(*monitor)
	mpi.UnlockLibrary()
	defer mpi.LockLibrary()
	defer mpi.AbortOnPanic(m.comm)
	m.f(int(it), float64(rnorm))
}

// updater is the state of a SNES Jacobian's Go update that PETSc holds as a
// cgo.Handle.
type updater struct {
	comm mpi.Comm
	l    dist.Layout
	f    func(x *dist.Array[float64]) error
	err  error
	h    cgo.Handle
}

// xpGoJacobian runs the Jacobian update of handle h at PETSc's x, with
// package mpi's library lock released. It returns nonzero only for a
// vector of another local size than the layout's.
//
//export xpGoJacobian
func xpGoJacobian(h C.uintptr_t, x *C.double, n C.int) C.int {
	u := cgo.Handle(h).Value().(*updater)
	if int(n) != u.l.LocalLen(u.comm.Rank()) {
		return 1
	}
	mpi.UnlockLibrary()
	defer mpi.LockLibrary()
	defer mpi.AbortOnPanic(u.comm)
	if err := u.f(dist.FromLocal(u.comm, u.l, backend.Wrap(hostSlice(x, n)))); err != nil && u.err == nil {
		u.err = err
	}
	return 0
}
