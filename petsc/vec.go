//go:build petsc

package petsc

/*
#include "xp_petsc.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Vec is a PETSc vector (VECMPI) whose local part is one rank's block of a
// dist.Array of float64: the same memory, never a copy.
//
// PETSc's global index i is the i-th element of the blocks taken in rank
// order, each block in row-major order. For a 1-D array, or an N-D array
// split along axis 0, that is the array's row-major (flattened) order; for
// an array split along another axis, or over a process grid
// (dist.ProcessGrid), the Vec holds the same elements in that block order
// instead, as a DMDA's global vector is in PETSc's ordering rather than
// the natural one.
//
// Go code may read and write the array between PETSc calls: every method
// of this package that hands a Vec to PETSc first tells PETSc that its
// values may have changed (its state increases, as by VecRestoreArray), so PETSc never uses a
// norm it cached before a Go write.
//
// Methods that call PETSc are collective over the Vec's communicator
// unless their documentation says otherwise.
type Vec struct {
	v      C.Vec
	comm   mpi.Comm
	layout dist.Layout
	arr    *dist.Array[float64] // the array the Vec is over, or the one over PETSc's memory
	mem    unsafe.Pointer       // the block's address when the Vec was made; nil for no elements
	pin    runtime.Pinner       // pins Go memory that PETSc keeps
	ownsGo bool                 // the memory is a dist.Array's (Go's), not PETSc's
	unlend func()               // ends the loan of the array's memory (dist.Array.Lend) at Destroy
	done   bool                 // destroyed
}

// NewVec returns a Vec over a's memory, without copying
// (VecCreateMPIWithArray). A rank whose block is empty passes PETSc no
// memory (NULL), as PETSc wants.
//
// The element type must be PETSc's scalar, float64: another element type
// is an error that matches ErrScalarType. An array whose blocks are on a
// device is an error that matches ErrNoCUDA (PETSc without CUDA cannot use
// device memory, and this package never copies behind your back): stage
// it through the host yourself, e.g.
//
//	h, err := backend.ToHost(a.Local())             // one copy to the host
//	hv := dist.FromLocal(a.Comm(), a.Layout(), h)   // a host array over it
//	v, err := petsc.NewVec(hv)                      // the Vec over the copy
//	...                                             // after PETSc has written it:
//	err = backend.CopyFromHostSlice(a.Local(), h.Data())
//
// A replicated array (dist.Replicated) has no split for PETSc to follow:
// NewVec panics. An array already freed is an error that matches
// dist.ErrFreed.
//
// Lifetime: the Vec keeps a's block reachable and pinned (runtime.Pinner)
// until Destroy, so PETSc never sees freed memory, and lends it
// (dist.Array.Lend): a.Free before Destroy panics, saying to destroy the
// Vec first. A Vec whose array's block was replaced by other means
// refuses every later use with a panic that says so, and only Destroy
// still works.
//
// NewVec is collective: the checks are agreed on by every rank before
// PETSc is called, so a rank that fails one never leaves the others
// waiting.
func NewVec[T backend.Element](a *dist.Array[T]) (*Vec, error) {
	mustBeInitialized("NewVec")
	l := a.Layout()
	if l.Axis() == dist.Replicated {
		panic("petsc: NewVec of a replicated array: a Vec needs an array split along an axis")
	}
	var err error
	var f *dist.Array[float64]
	switch {
	case backend.DTypeOf[T]() != backend.DTypeOf[float64]():
		err = fmt.Errorf("%w: a Vec needs elements of PetscScalar (float64, PETSc's real double build), and this array's are %v; convert it to float64 first", ErrScalarType, backend.DTypeOf[T]())
	case !a.Device().IsHost():
		err = noCUDA(a.Device())
	case freed(a):
		err = fmt.Errorf("petsc: NewVec: %w: the array was freed (dist.Array.Free); make the Vec over a live array", dist.ErrFreed)
	default:
		f = any(a).(*dist.Array[float64])
	}
	if err = mpi.Agree(a.Comm(), err); err != nil {
		return nil, err
	}
	return newVecOver(f)
}

// freed reports whether a was freed (dist.Array.Free, on this rank).
func freed[T backend.Element](a *dist.Array[T]) bool { return a.Freed() }

func noCUDA(d backend.Device) error {
	how := "stage it through the host: h, _ := backend.ToHost(a.Local()); petsc.NewVec(dist.FromLocal(a.Comm(), a.Layout(), h)); copy back with backend.CopyFromHostSlice"
	if HasCUDA() {
		return fmt.Errorf("%w: this package has no CUDA vector path yet, though PETSc has CUDA; the array's block is on %v: %s", ErrNoCUDA, d, how)
	}
	return fmt.Errorf("%w (Debian's petsc-dev has no VECCUDA): the array's block is on %v, and PETSc can only use host memory; %s", ErrNoCUDA, d, how)
}

func newVecOver(a *dist.Array[float64]) (*Vec, error) {
	h, err := mpi.CHandle(a.Comm())
	if err != nil {
		return nil, fmt.Errorf("petsc: NewVec: %w", err)
	}
	l := a.Layout()
	n, total := l.LocalLen(a.Comm().Rank()), l.Len()
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("petsc: NewVec: %d elements, more than PETSc's 32-bit PetscInt can index", total)
	}
	v := &Vec{comm: a.Comm(), layout: l, arr: a, ownsGo: true}
	var p *C.PetscScalar
	if n > 0 {
		data := a.LocalData()
		v.pin.Pin(&data[0])
		v.mem = unsafe.Pointer(&data[0])
		p = (*C.PetscScalar)(v.mem)
	}
	err = call("VecCreateMPIWithArray", func() C.int {
		return C.xp_vec_create(C.uintptr_t(h), C.PetscInt(n), C.PetscInt(total), p, &v.v)
	})
	if err != nil {
		v.pin.Unpin()
		return nil, err
	}
	v.unlend = a.Lend()
	return v, nil
}

// CreateVec returns a Vec of layout l over c whose memory PETSc allocates
// (VecCreateMPI); its Array is a dist.Array over that memory, without a
// copy. l must not be replicated. It is collective.
func CreateVec(c mpi.Comm, l dist.Layout) (*Vec, error) {
	mustBeInitialized("CreateVec")
	if l.Axis() == dist.Replicated {
		panic("petsc: CreateVec with a replicated layout: a Vec needs a layout split along an axis")
	}
	if l.Ranks() != c.Size() {
		panic(fmt.Sprintf("petsc: CreateVec: %v for a communicator of %d ranks", l, c.Size()))
	}
	h, err := mpi.CHandle(c)
	if err != nil {
		return nil, fmt.Errorf("petsc: CreateVec: %w", err)
	}
	if l.Len() > math.MaxInt32 {
		return nil, fmt.Errorf("petsc: CreateVec: %d elements, more than PETSc's 32-bit PetscInt can index", l.Len())
	}
	var cv C.Vec
	err = call("VecCreateMPI", func() C.int {
		return C.xp_vec_create_owned(C.uintptr_t(h), C.PetscInt(l.LocalLen(c.Rank())), C.PetscInt(l.Len()), &cv)
	})
	if err != nil {
		return nil, err
	}
	return adopt(c, l, cv)
}

// adopt wraps a Vec that PETSc made, with its memory, as a Vec of this
// package whose Array is a dist.Array over PETSc's memory.
func adopt(c mpi.Comm, l dist.Layout, cv C.Vec) (*Vec, error) {
	v := &Vec{v: cv, comm: c, layout: l}
	n := l.LocalLen(c.Rank())
	var p *C.PetscScalar
	if err := call("VecGetArray", func() C.int { return C.xp_vec_ptr(cv, &p) }); err != nil {
		call("VecDestroy", func() C.int { return C.int(C.VecDestroy(&v.v)) })
		return nil, err
	}
	mem := []float64{}
	if n > 0 {
		// PETSc's memory, outside Go's heap: the dist.Array's Free never
		// frees it (the CPU backend frees nothing), Destroy does.
		v.mem = unsafe.Pointer(p)
		mem = unsafe.Slice((*float64)(v.mem), n)
	}
	v.arr = dist.FromLocal(c, l, backend.Wrap(mem))
	return v, nil
}

// use panics where v cannot be handed to PETSc: destroyed, or its array
// freed; otherwise it tells PETSc that Go may have changed its values.
func (v *Vec) use(op string) C.Vec {
	if v.done {
		panic(fmt.Sprintf("petsc: Vec.%s after Destroy", op))
	}
	if v.ownsGo && v.arr.Local().Ptr() != v.mem {
		panic(fmt.Sprintf("petsc: Vec.%s: the dist.Array under this Vec was freed (or its block replaced) before Vec.Destroy; destroy the Vec first, then free the array", op))
	}
	if err := call("VecGetArray", func() C.int { return C.xp_vec_touch(v.v) }); err != nil {
		panic(err) // a standard Vec's array is always there
	}
	return v.v
}

// Array returns the dist.Array whose block is the Vec's local memory: the
// array NewVec was given, or, for a Vec whose memory PETSc allocated
// (CreateVec, Duplicate, Mat.CreateVecs), an array over PETSc's memory
// without a copy. Such an array is valid until Destroy, which empties its
// block (its Free frees nothing of PETSc's). It is not collective.
func (v *Vec) Array() *dist.Array[float64] {
	if v.done {
		panic("petsc: Vec.Array after Destroy")
	}
	return v.arr
}

// Layout returns the Vec's layout. It is not collective.
func (v *Vec) Layout() dist.Layout { return v.layout }

// Comm returns the Vec's communicator. It is not collective.
func (v *Vec) Comm() mpi.Comm { return v.comm }

// Size returns the global number of elements (VecGetSize). It is not
// collective.
func (v *Vec) Size() int { return v.layout.Len() }

// LocalSize returns this rank's number of elements. It is not collective.
func (v *Vec) LocalSize() int { return v.layout.LocalLen(v.comm.Rank()) }

// Destroy destroys the PETSc Vec (VecDestroy) and releases its hold on
// the memory: the array given to NewVec may then be freed; the array over
// PETSc's memory that Array returned for a Vec PETSc allocated is emptied.
// It is collective. Destroying twice does nothing.
func (v *Vec) Destroy() error {
	if v.done {
		return nil
	}
	v.done = true
	err := call("VecDestroy", func() C.int { return C.int(C.VecDestroy(&v.v)) })
	v.pin.Unpin()
	if v.unlend != nil {
		v.unlend()
	}
	if !v.ownsGo {
		v.arr.Free() // an empty block: no one reads PETSc's freed memory through it
	}
	return err
}

// localPointer returns the address of this rank's part as PETSc sees it
// (VecGetArrayRead), for the zero-copy tests. Not collective.
func (v *Vec) localPointer() (unsafe.Pointer, error) {
	cv := v.use("localPointer")
	var p *C.PetscScalar
	err := call("VecGetArrayRead", func() C.int { return C.xp_vec_read_ptr(cv, &p) })
	return unsafe.Pointer(p), err
}

// NormType is a PETSc vector norm.
type NormType int

// The norms of Vec.Norm.
const (
	Norm1   NormType = C.NORM_1
	Norm2   NormType = C.NORM_2
	NormInf NormType = C.NORM_INFINITY
)

// Norm returns the norm of the Vec (VecNorm).
func (v *Vec) Norm(t NormType) (float64, error) {
	cv := v.use("Norm")
	var r C.PetscReal
	err := call("VecNorm", func() C.int { return C.int(C.VecNorm(cv, C.NormType(t), &r)) })
	return float64(r), err
}

// Dot returns the dot product of v and w (VecDot).
func (v *Vec) Dot(w *Vec) (float64, error) {
	cv, cw := v.use("Dot"), w.use("Dot")
	var r C.PetscScalar
	err := call("VecDot", func() C.int { return C.int(C.VecDot(cv, cw, &r)) })
	return float64(r), err
}

// Set sets every element to alpha (VecSet).
func (v *Vec) Set(alpha float64) error {
	cv := v.use("Set")
	return call("VecSet", func() C.int { return C.int(C.VecSet(cv, C.PetscScalar(alpha))) })
}

// Scale multiplies every element by alpha (VecScale). Not collective in
// PETSc, but every rank should call it.
func (v *Vec) Scale(alpha float64) error {
	cv := v.use("Scale")
	return call("VecScale", func() C.int { return C.int(C.VecScale(cv, C.PetscScalar(alpha))) })
}

// AXPY sets v = alpha*x + v (VecAXPY).
func (v *Vec) AXPY(alpha float64, x *Vec) error {
	cv, cx := v.use("AXPY"), x.use("AXPY")
	return call("VecAXPY", func() C.int { return C.int(C.VecAXPY(cv, C.PetscScalar(alpha), cx)) })
}

// CopyTo copies v's elements into w (VecCopy), of the same layout.
func (v *Vec) CopyTo(w *Vec) error {
	cv, cw := v.use("CopyTo"), w.use("CopyTo")
	return call("VecCopy", func() C.int { return C.int(C.VecCopy(cv, cw)) })
}

// Duplicate returns a new Vec of v's layout whose memory PETSc allocates
// (VecDuplicate); its values are not copied. Its Array is over PETSc's
// memory.
func (v *Vec) Duplicate() (*Vec, error) {
	cv := v.use("Duplicate")
	var out C.Vec
	if err := call("VecDuplicate", func() C.int { return C.int(C.VecDuplicate(cv, &out)) }); err != nil {
		return nil, err
	}
	return adopt(v.comm, v.layout, out)
}
