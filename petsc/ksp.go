//go:build petsc

package petsc

/*
#include <stdlib.h>
#include "xp_petsc.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// KSP is a PETSc linear solver: a Krylov method and a preconditioner,
// chosen by SetType and SetPCType or by options (SetFromOptions:
// -ksp_type, -pc_type, -ksp_rtol, -ksp_monitor, ...). Its methods are
// collective over its communicator.
type KSP struct {
	k    C.KSP
	comm mpi.Comm
	a, p *Mat      // the operators, for their Go operators' errors
	pc   *operator // a shell preconditioner's Go operator
	mons []*monitor
	// borrowed: the KSP of a SNES (SNES.KSP), destroyed with it
	borrowed bool
	done     bool
}

// NewKSP returns a solver on c (KSPCreate).
func NewKSP(c mpi.Comm) (*KSP, error) {
	mustBeInitialized("NewKSP")
	h, err := mpi.CHandle(c)
	if err != nil {
		return nil, fmt.Errorf("petsc: NewKSP: %w", err)
	}
	k := &KSP{comm: c}
	if err := call("KSPCreate", func() C.int { return C.xp_ksp_create(C.uintptr_t(h), &k.k) }); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *KSP) use(op string) C.KSP {
	if k.done {
		panic(fmt.Sprintf("petsc: KSP.%s after Destroy", op))
	}
	return k.k
}

// SetOperators sets the matrix of the system and the one the
// preconditioner is built from (KSPSetOperators); p may be nil for a. The
// KSP holds both until it is destroyed or given others, so they may be
// destroyed first.
func (k *KSP) SetOperators(a, p *Mat) error {
	ck := k.use("SetOperators")
	if p == nil {
		p = a
	}
	ca, cp := a.use("SetOperators"), p.use("SetOperators")
	if err := call("KSPSetOperators", func() C.int { return C.int(C.KSPSetOperators(ck, ca, cp)) }); err != nil {
		return err
	}
	a.op.retain()
	p.op.retain()
	if k.a != nil {
		k.a.op.release()
		k.p.op.release()
	}
	k.a, k.p = a, p
	return nil
}

func cstr(s string) (*C.char, func()) {
	cs := C.CString(s)
	return cs, func() { C.free(unsafe.Pointer(cs)) }
}

// SetType sets the Krylov method (KSPSetType): "cg", "gmres", "bcgs",
// "preonly", ... (PETSc's KSPType names).
func (k *KSP) SetType(t string) error {
	ck := k.use("SetType")
	cs, free := cstr(t)
	defer free()
	return call("KSPSetType", func() C.int { return C.int(C.KSPSetType(ck, cs)) })
}

// Type returns the Krylov method's name (KSPGetType).
func (k *KSP) Type() (string, error) {
	ck := k.use("Type")
	var t C.KSPType
	err := call("KSPGetType", func() C.int { return C.int(C.KSPGetType(ck, &t)) })
	return C.GoString(t), err
}

func (k *KSP) getPC() (C.PC, error) {
	ck := k.use("PC")
	var pc C.PC
	err := call("KSPGetPC", func() C.int { return C.int(C.KSPGetPC(ck, &pc)) })
	return pc, err
}

// SetPCType sets the preconditioner (PCSetType): "none", "jacobi", "bjacobi",
// "sor", "ilu" (one rank), "gamg", ... (PETSc's PCType names).
func (k *KSP) SetPCType(t string) error {
	pc, err := k.getPC()
	if err != nil {
		return err
	}
	cs, free := cstr(t)
	defer free()
	return call("PCSetType", func() C.int { return C.int(C.PCSetType(pc, cs)) })
}

// PCType returns the preconditioner's name (PCGetType): "shell" for a Go
// preconditioner.
func (k *KSP) PCType() (string, error) {
	pc, err := k.getPC()
	if err != nil {
		return "", err
	}
	var t C.PCType
	err = call("PCGetType", func() C.int { return C.int(C.PCGetType(pc, &t)) })
	return C.GoString(t), err
}

// SetShellPC makes apply the preconditioner (PCSHELL): y = M⁻¹ x, with x
// and y as dist.Arrays of layout l over PETSc's vectors (see
// OperatorFunc). A later -pc_type option, through SetFromOptions, replaces
// it.
func (k *KSP) SetShellPC(l dist.Layout, apply OperatorFunc) error {
	if apply == nil {
		panic("petsc: SetShellPC with a nil function")
	}
	if l.Axis() == dist.Replicated || l.Ranks() != k.comm.Size() {
		panic(fmt.Sprintf("petsc: SetShellPC: layout %v: want one split along an axis over %d ranks", l, k.comm.Size()))
	}
	pc, err := k.getPC()
	if err != nil {
		return err
	}
	op := newOperator(k.comm, l, l, apply)
	if err := call("PCShellSetApply", func() C.int { return C.xp_pc_shell(pc, C.uintptr_t(op.h)) }); err != nil {
		op.release()
		return err
	}
	k.pc.release()
	k.pc = op
	return nil
}

// Tolerances are a KSP's stopping tests (KSPSetTolerances): converged
// where ||r|| <= max(RTol*||b||, ATol), diverged where ||r|| >= DTol*||b||
// or after MaxIter iterations. A negative value (or a zero MaxIter) keeps
// PETSc's default (1e-5, 1e-50, 1e5, 10000).
type Tolerances struct {
	RTol, ATol, DTol float64
	MaxIter          int
}

// SetTolerances sets the stopping tests.
func (k *KSP) SetTolerances(t Tolerances) error {
	ck := k.use("SetTolerances")
	def := func(x float64) C.PetscReal {
		if x < 0 {
			return C.PETSC_DEFAULT
		}
		return C.PetscReal(x)
	}
	maxit := C.PetscInt(C.PETSC_DEFAULT)
	if t.MaxIter > 0 {
		maxit = C.PetscInt(t.MaxIter)
	}
	return call("KSPSetTolerances", func() C.int {
		return C.int(C.KSPSetTolerances(ck, def(t.RTol), def(t.ATol), def(t.DTol), maxit))
	})
}

// SetOptionsPrefix sets the prefix of the options this KSP reads
// (KSPSetOptionsPrefix): with "p_", SetFromOptions reads -p_ksp_type.
func (k *KSP) SetOptionsPrefix(prefix string) error {
	ck := k.use("SetOptionsPrefix")
	cs, free := cstr(prefix)
	defer free()
	return call("KSPSetOptionsPrefix", func() C.int { return C.int(C.KSPSetOptionsPrefix(ck, cs)) })
}

// SetFromOptions configures the KSP and its preconditioner from PETSc's
// options database (KSPSetFromOptions): the options of Init and
// SetOptions, under the KSP's prefix.
func (k *KSP) SetFromOptions() error {
	ck := k.use("SetFromOptions")
	return call("KSPSetFromOptions", func() C.int { return C.int(C.KSPSetFromOptions(ck)) })
}

// Reason is why a KSP stopped (KSPConvergedReason): positive when it
// converged, negative when it diverged.
type Reason int

// Converged reports whether the solve converged.
func (r Reason) Converged() bool { return r > 0 }

// String returns PETSc's name of the reason, e.g. "CONVERGED_RTOL".
func (r Reason) String() string { return C.GoString(C.xp_ksp_reason(C.int(r))) }

// Result is what a solve reports, the same on every rank.
type Result struct {
	Reason       Reason  // why it stopped
	Iterations   int     // iterations run (KSPGetIterationNumber)
	ResidualNorm float64 // the last residual norm the method computed (KSPGetResidualNorm)
}

// Solve solves A x = b (KSPSolve), with x's values as the initial guess
// only if the KSP was told so (-ksp_initial_guess_nonzero); otherwise it
// starts from zero. A solve that does not converge is not an error: see
// Result.Reason. The error is PETSc's (an *Error) or that of a Go operator
// or preconditioner on any rank (matching ErrOperator), the same on every
// rank.
func (k *KSP) Solve(b, x *Vec) (Result, error) {
	ck := k.use("Solve")
	cb, cx := b.use("Solve"), x.use("Solve")
	var res Result
	var ops []*operator
	if k.a != nil {
		ops = append(ops, k.a.op, k.p.op)
	}
	ops = append(ops, k.pc)
	for _, op := range ops {
		if op != nil {
			op.err = nil
		}
	}
	if err := call("KSPSolve", func() C.int { return C.int(C.KSPSolve(ck, cb, cx)) }); err != nil {
		return res, err
	}
	var reason C.KSPConvergedReason
	var its C.PetscInt
	var rnorm C.PetscReal
	err := call("KSPGetConvergedReason", func() C.int {
		if rc := C.KSPGetConvergedReason(ck, &reason); rc != 0 {
			return C.int(rc)
		}
		if rc := C.KSPGetIterationNumber(ck, &its); rc != 0 {
			return C.int(rc)
		}
		return C.int(C.KSPGetResidualNorm(ck, &rnorm))
	})
	res = Result{Reason: Reason(reason), Iterations: int(its), ResidualNorm: float64(rnorm)}
	if err != nil {
		return res, err
	}
	return res, agreeOps(k.comm, nil, ops...)
}

// Destroy destroys the solver (KSPDestroy) and lets go of its operators.
// Destroying twice does nothing. The KSP of a SNES (SNES.KSP) is destroyed
// with the SNES: Destroy panics on it.
func (k *KSP) Destroy() error {
	if k.done {
		return nil
	}
	if k.borrowed {
		panic("petsc: KSP.Destroy of a SNES's KSP: destroy the SNES")
	}
	k.done = true
	err := call("KSPDestroy", func() C.int { return C.int(C.KSPDestroy(&k.k)) })
	k.release()
	return err
}

// release lets go of the Go state the KSP held for PETSc.
func (k *KSP) release() {
	if k.a != nil {
		k.a.op.release()
		k.p.op.release()
	}
	k.pc.release()
	for _, m := range k.mons {
		m.h.Delete()
	}
}

// Monitor adds f to the functions PETSc calls at every iteration of a solve
// (KSPMonitorSet), with the iteration number (0 before the first) and the
// residual norm the method computed, on every rank, the same values. f
// runs inside the solve and must not call this KSP; a panic aborts the
// job. Options such as -ksp_monitor add PETSc's own monitors beside it.
func (k *KSP) Monitor(f func(iteration int, residualNorm float64)) error {
	ck := k.use("Monitor")
	if f == nil {
		panic("petsc: KSP.Monitor with a nil function")
	}
	m := &monitor{comm: k.comm, f: f}
	m.h = cgo.NewHandle(m)
	if err := call("KSPMonitorSet", func() C.int { return C.xp_ksp_monitor(ck, C.uintptr_t(m.h)) }); err != nil {
		m.h.Delete()
		return err
	}
	k.mons = append(k.mons, m)
	return nil
}
