//go:build petsc

package petsc

/*
#include "xp_petsc.h"
*/
import "C"

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Mat is a PETSc matrix. Its methods that call PETSc are collective over
// its communicator.
type Mat struct {
	m          C.Mat
	comm       mpi.Comm
	rows, cols dist.Layout // of y and of x in y = A x
	op         *operator   // a shell's Go operator, nil otherwise
	done       bool
}

// NewShell returns a square shell matrix (MATSHELL) over c whose
// multiplication y = A x is mult, on vectors of layout l: PETSc calls mult
// with x and y as dist.Arrays over its vectors' memory, without copying
// (see OperatorFunc). It is collective.
func NewShell(c mpi.Comm, l dist.Layout, mult OperatorFunc) (*Mat, error) {
	return NewShellRect(c, l, l, mult)
}

// NewShellRect is NewShell for a rectangular matrix: y has layout rows,
// x layout cols.
func NewShellRect(c mpi.Comm, rows, cols dist.Layout, mult OperatorFunc) (*Mat, error) {
	mustBeInitialized("NewShell")
	for _, l := range []dist.Layout{rows, cols} {
		if l.Axis() == dist.Replicated || l.Ranks() != c.Size() {
			panic(fmt.Sprintf("petsc: NewShell: layout %v: want one split along an axis over %d ranks", l, c.Size()))
		}
		if l.Len() > math.MaxInt32 {
			return nil, fmt.Errorf("petsc: NewShell: %d rows or columns, more than PETSc's 32-bit PetscInt can index", l.Len())
		}
	}
	if mult == nil {
		panic("petsc: NewShell with a nil multiplication")
	}
	h, err := mpi.CHandle(c)
	if err != nil {
		return nil, fmt.Errorf("petsc: NewShell: %w", err)
	}
	op := newOperator(c, cols, rows, mult)
	m := &Mat{comm: c, rows: rows, cols: cols, op: op}
	r := c.Rank()
	err = call("MatCreateShell", func() C.int {
		return C.xp_mat_shell(C.uintptr_t(h), C.PetscInt(rows.LocalLen(r)), C.PetscInt(cols.LocalLen(r)),
			C.PetscInt(rows.Len()), C.PetscInt(cols.Len()), C.uintptr_t(op.h), &m.m)
	})
	if err != nil {
		op.release()
		return nil, err
	}
	return m, nil
}

func (m *Mat) use(op string) C.Mat {
	if m.done {
		panic(fmt.Sprintf("petsc: Mat.%s after Destroy", op))
	}
	return m.m
}

// Mult computes y = A x (MatMult). Where a Go operator failed on any rank,
// it returns that error on every rank (see OperatorFunc).
func (m *Mat) Mult(x, y *Vec) error {
	cm, cx, cy := m.use("Mult"), x.use("Mult"), y.use("Mult")
	if m.op != nil {
		m.op.err = nil
	}
	err := call("MatMult", func() C.int { return C.int(C.MatMult(cm, cx, cy)) })
	if err != nil {
		return err
	}
	return agreeOps(m.comm, nil, m.op)
}

// agreeOps returns the first error of the Go operators on any rank (or
// first, where not nil, local), the same on every rank, and clears them.
// It is collective.
func agreeOps(c mpi.Comm, local error, ops ...*operator) error {
	for _, op := range ops {
		if op == nil {
			continue
		}
		if err := op.takeErr(); err != nil && local == nil {
			local = fmt.Errorf("%w: %w", ErrOperator, err)
		}
	}
	return mpi.Agree(c, local)
}

// CreateVecs returns a Vec of the columns' layout (for x) and one of the
// rows' layout (for y in y = A x), whose memory PETSc allocates
// (MatCreateVecs); their Arrays are over PETSc's memory.
func (m *Mat) CreateVecs() (right, left *Vec, err error) {
	cm := m.use("CreateVecs")
	var r, l C.Vec
	if err := call("MatCreateVecs", func() C.int { return C.int(C.MatCreateVecs(cm, &r, &l)) }); err != nil {
		return nil, nil, err
	}
	if right, err = adopt(m.comm, m.cols, r); err != nil {
		return nil, nil, err
	}
	if left, err = adopt(m.comm, m.rows, l); err != nil {
		right.Destroy()
		return nil, nil, err
	}
	return right, left, nil
}

// Destroy destroys the matrix (MatDestroy). It is collective. Destroying
// twice does nothing.
func (m *Mat) Destroy() error {
	if m.done {
		return nil
	}
	m.done = true
	err := call("MatDestroy", func() C.int { return C.int(C.MatDestroy(&m.m)) })
	m.op.release() // PETSc may still hold the matrix (a KSP's operator): see operator.refs
	return err
}
