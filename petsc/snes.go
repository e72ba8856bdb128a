//go:build petsc

package petsc

/*
#include "xp_petsc.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// SNES is a PETSc nonlinear solver (Newton's method with a line search by
// default) for F(x) = 0, whose residual F is a Go function over dist
// arrays. Its methods are collective over its communicator.
type SNES struct {
	s    C.SNES
	comm mpi.Comm
	f    *operator
	jac  *updater
	a, p *Mat // the Jacobian's matrices
	ksp  *KSP // the SNES's own, once KSP was called
	done bool
}

// NewSNES returns a nonlinear solver on c (SNESCreate).
func NewSNES(c mpi.Comm) (*SNES, error) {
	mustBeInitialized("NewSNES")
	h, err := mpi.CHandle(c)
	if err != nil {
		return nil, fmt.Errorf("petsc: NewSNES: %w", err)
	}
	s := &SNES{comm: c}
	if err := call("SNESCreate", func() C.int { return C.xp_snes_create(C.uintptr_t(h), &s.s) }); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *SNES) use(op string) C.SNES {
	if s.done {
		panic(fmt.Sprintf("petsc: SNES.%s after Destroy", op))
	}
	return s.s
}

// SetFunction sets the residual (SNESSetFunction): residual(x, f) writes
// F(x) into f, two dist.Arrays of layout l over PETSc's vectors (see
// OperatorFunc for what it may do, and what its errors and panics do).
func (s *SNES) SetFunction(l dist.Layout, residual OperatorFunc) error {
	cs := s.use("SetFunction")
	if residual == nil {
		panic("petsc: SNES.SetFunction with a nil function")
	}
	if l.Axis() == dist.Replicated || l.Ranks() != s.comm.Size() {
		panic(fmt.Sprintf("petsc: SNES.SetFunction: layout %v: want one split along an axis over %d ranks", l, s.comm.Size()))
	}
	op := newOperator(s.comm, l, l, residual)
	if err := call("SNESSetFunction", func() C.int { return C.xp_snes_function(cs, C.uintptr_t(op.h)) }); err != nil {
		op.release()
		return err
	}
	s.f.release()
	s.f = op
	return nil
}

// SetMatrixFree makes the Jacobian a matrix-free finite-difference
// operator of the residual (Jacobian-free Newton-Krylov: MatMFFD, as
// -snes_mf), with no preconditioner.
func (s *SNES) SetMatrixFree() error {
	cs := s.use("SetMatrixFree")
	return call("SNESSetUseMatrixFree", func() C.int { return C.xp_snes_mf(cs) })
}

// SetJacobian makes a the Jacobian and p the matrix its preconditioner is
// built from (SNESSetJacobian; p nil means a), and update the Go function
// PETSc calls at the start of each Newton step with the current iterate x
// (a dist.Array over PETSc's vector: read it, do not keep it), so that the
// matrices, typically shells (NewShell) whose multiplication reads state
// that update refreshes, act as the Jacobian at x. An error of update on
// any rank is returned by Solve, on every rank (matching ErrOperator), the
// step itself going on with the matrices as they are. The SNES holds a and
// p until it is destroyed.
func (s *SNES) SetJacobian(a, p *Mat, update func(x *dist.Array[float64]) error) error {
	cs := s.use("SetJacobian")
	if update == nil {
		panic("petsc: SNES.SetJacobian with a nil update")
	}
	if p == nil {
		p = a
	}
	ca, cp := a.use("SetJacobian"), p.use("SetJacobian")
	u := &updater{comm: s.comm, l: a.cols, f: update}
	u.h = cgo.NewHandle(u)
	if err := call("SNESSetJacobian", func() C.int { return C.xp_snes_jacobian(cs, ca, cp, C.uintptr_t(u.h)) }); err != nil {
		u.h.Delete()
		return err
	}
	a.op.retain()
	p.op.retain()
	s.releaseJacobian()
	s.jac, s.a, s.p = u, a, p
	return nil
}

func (s *SNES) releaseJacobian() {
	if s.jac != nil {
		s.jac.h.Delete()
		s.a.op.release()
		s.p.op.release()
		s.jac, s.a, s.p = nil, nil, nil
	}
}

// KSP returns the SNES's linear solver (SNESGetKSP), to set its type,
// preconditioner (a Go one with SetShellPC), tolerances or monitor. It
// belongs to the SNES: do not destroy it; it is valid until the SNES's
// Destroy.
func (s *SNES) KSP() (*KSP, error) {
	cs := s.use("KSP")
	if s.ksp != nil {
		return s.ksp, nil
	}
	k := &KSP{comm: s.comm, borrowed: true}
	if err := call("SNESGetKSP", func() C.int { return C.int(C.SNESGetKSP(cs, &k.k)) }); err != nil {
		return nil, err
	}
	s.ksp = k
	return k, nil
}

// SetType sets the nonlinear method (SNESSetType): "newtonls", "newtontr",
// "nrichardson", ...
func (s *SNES) SetType(t string) error {
	ck := s.use("SetType")
	cs, free := cstr(t)
	defer free()
	return call("SNESSetType", func() C.int { return C.int(C.SNESSetType(ck, cs)) })
}

// SetTolerances sets the stopping tests (SNESSetTolerances): absolute and
// relative norms of F, the relative step, and the most iterations; a
// negative value (or a zero MaxIter) keeps PETSc's default.
func (s *SNES) SetTolerances(atol, rtol, stol float64, maxIter int) error {
	cs := s.use("SetTolerances")
	def := func(x float64) C.PetscReal {
		if x < 0 {
			return C.PETSC_DEFAULT
		}
		return C.PetscReal(x)
	}
	maxit := C.PetscInt(C.PETSC_DEFAULT)
	if maxIter > 0 {
		maxit = C.PetscInt(maxIter)
	}
	return call("SNESSetTolerances", func() C.int {
		return C.int(C.SNESSetTolerances(cs, def(atol), def(rtol), def(stol), maxit, C.PETSC_DEFAULT))
	})
}

// SetOptionsPrefix sets the prefix of the options this SNES (and its KSP
// and PC) read.
func (s *SNES) SetOptionsPrefix(prefix string) error {
	ck := s.use("SetOptionsPrefix")
	cs, free := cstr(prefix)
	defer free()
	return call("SNESSetOptionsPrefix", func() C.int { return C.int(C.SNESSetOptionsPrefix(ck, cs)) })
}

// SetFromOptions configures the SNES, its KSP and PC from PETSc's options
// database (-snes_type, -snes_mf, -snes_monitor, -ksp_type, ...).
func (s *SNES) SetFromOptions() error {
	cs := s.use("SetFromOptions")
	return call("SNESSetFromOptions", func() C.int { return C.int(C.SNESSetFromOptions(cs)) })
}

// SNESReason is why a SNES stopped (SNESConvergedReason): positive when
// it converged, negative when it diverged.
type SNESReason int

// Converged reports whether the solve converged.
func (r SNESReason) Converged() bool { return r > 0 }

// String returns PETSc's name of the reason, e.g. "CONVERGED_FNORM_RELATIVE".
func (r SNESReason) String() string { return C.GoString(C.xp_snes_reason(C.int(r))) }

// SNESResult is what a nonlinear solve reports, the same on every rank.
type SNESResult struct {
	Reason           SNESReason
	Iterations       int     // Newton iterations (SNESGetIterationNumber)
	LinearIterations int     // linear iterations, all Newton steps together
	FunctionNorm     float64 // ||F(x)|| at the end
}

// Solve solves F(x) = 0 from the initial guess x (SNESSolve), leaving the
// solution in x. A solve that does not converge is not an error (see
// SNESResult.Reason); the error is PETSc's, or the residual's on any rank
// (matching ErrOperator), the same on every rank.
func (s *SNES) Solve(x *Vec) (SNESResult, error) {
	cs, cx := s.use("Solve"), x.use("Solve")
	if s.f == nil {
		panic("petsc: SNES.Solve before SetFunction")
	}
	ops := []*operator{s.f}
	if s.a != nil {
		ops = append(ops, s.a.op, s.p.op)
	}
	if s.ksp != nil {
		ops = append(ops, s.ksp.pc)
	}
	for _, op := range ops {
		if op != nil {
			op.err = nil
		}
	}
	if s.jac != nil {
		s.jac.err = nil
	}
	var res SNESResult
	if err := call("SNESSolve", func() C.int { return C.int(C.SNESSolve(cs, nil, cx)) }); err != nil {
		return res, err
	}
	var reason C.SNESConvergedReason
	var its, lits C.PetscInt
	var fnorm C.PetscReal
	err := call("SNESGetConvergedReason", func() C.int {
		if rc := C.SNESGetConvergedReason(cs, &reason); rc != 0 {
			return C.int(rc)
		}
		if rc := C.SNESGetIterationNumber(cs, &its); rc != 0 {
			return C.int(rc)
		}
		if rc := C.SNESGetLinearSolveIterations(cs, &lits); rc != 0 {
			return C.int(rc)
		}
		return C.int(C.SNESGetFunctionNorm(cs, &fnorm))
	})
	res = SNESResult{Reason: SNESReason(reason), Iterations: int(its), LinearIterations: int(lits), FunctionNorm: float64(fnorm)}
	if err != nil {
		return res, err
	}
	var jerr error
	if s.jac != nil && s.jac.err != nil {
		jerr = fmt.Errorf("%w: the Jacobian's update: %w", ErrOperator, s.jac.err)
		s.jac.err = nil
	}
	return res, agreeOps(s.comm, jerr, ops...)
}

// Destroy destroys the solver (SNESDestroy). Destroying twice does
// nothing.
func (s *SNES) Destroy() error {
	if s.done {
		return nil
	}
	s.done = true
	err := call("SNESDestroy", func() C.int { return C.int(C.SNESDestroy(&s.s)) })
	s.f.release()
	s.releaseJacobian()
	if s.ksp != nil {
		s.ksp.done = true
		s.ksp.release()
	}
	return err
}
