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

// RowFunc gives row i (a global index) of a matrix: it appends the global
// column indices of the row's nonzeros to cols and their values to vals,
// and returns both slices. A column may appear once per row.
type RowFunc func(i int, cols []int, vals []float64) ([]int, []float64)

// NewAIJ returns an assembled square sparse matrix (MATAIJ: SEQAIJ on one
// rank, MPIAIJ on several) on vectors of layout l, built row by row from
// row, which runs on the rank that owns the row (the rows of l's blocks in
// PETSc's order, see Vec), once per row. The preallocation is exact: each
// rank counts, from its rows, the nonzeros of each row inside its own
// column block and outside it (PETSc's d_nnz and o_nnz), before setting
// any value, so assembly never reallocates (Info reports it). A column out
// of range is an error. It is collective.
func NewAIJ(c mpi.Comm, l dist.Layout, row RowFunc) (*Mat, error) {
	mustBeInitialized("NewAIJ")
	if l.Axis() == dist.Replicated || l.Ranks() != c.Size() {
		panic(fmt.Sprintf("petsc: NewAIJ: layout %v: want one split along an axis over %d ranks", l, c.Size()))
	}
	total := l.Len()
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("petsc: NewAIJ: %d rows, more than PETSc's 32-bit PetscInt can index", total)
	}
	h, err := mpi.CHandle(c)
	if err != nil {
		return nil, fmt.Errorf("petsc: NewAIJ: %w", err)
	}
	// The rows of this rank, in PETSc's order: [start, start+m).
	m := l.LocalLen(c.Rank())
	start := 0
	for r := 0; r < c.Rank(); r++ {
		start += l.LocalLen(r)
	}
	// One pass over the rows: the CSR of the rank's rows, and the counts.
	ptr := make([]int, 1, m+1)
	var cols []int
	var vals []float64
	dnnz := make([]C.PetscInt, m)
	onnz := make([]C.PetscInt, m)
	var bad error
	for i := 0; i < m; i++ {
		n0 := len(cols)
		cols, vals = row(start+i, cols, vals)
		if len(cols) != len(vals) {
			panic(fmt.Sprintf("petsc: NewAIJ: row %d has %d columns and %d values", start+i, len(cols)-n0, len(vals)-n0))
		}
		for _, j := range cols[n0:] {
			switch {
			case j < 0 || j >= total:
				if bad == nil {
					bad = fmt.Errorf("petsc: NewAIJ: row %d has column %d, outside [0, %d)", start+i, j, total)
				}
			case j >= start && j < start+m:
				dnnz[i]++
			default:
				onnz[i]++
			}
		}
		ptr = append(ptr, len(cols))
	}
	if err := mpi.Agree(c, bad); err != nil {
		return nil, err
	}
	mat := &Mat{comm: c, rows: l, cols: l}
	var dp, op *C.PetscInt
	if m > 0 {
		dp, op = &dnnz[0], &onnz[0]
	}
	err = call("MatCreate", func() C.int {
		return C.xp_mat_aij(C.uintptr_t(h), C.PetscInt(m), C.PetscInt(total), dp, op, &mat.m)
	})
	if err != nil {
		return nil, err
	}
	ccols := make([]C.PetscInt, len(cols))
	for k, j := range cols {
		ccols[k] = C.PetscInt(j)
	}
	cvals := make([]C.PetscScalar, len(vals))
	for k, v := range vals {
		cvals[k] = C.PetscScalar(v)
	}
	err = call("MatSetValues", func() C.int {
		for i := 0; i < m; i++ {
			lo, hi := ptr[i], ptr[i+1]
			if lo == hi {
				continue
			}
			if rc := C.xp_mat_set_row(mat.m, C.PetscInt(start+i), C.PetscInt(hi-lo), &ccols[lo], &cvals[lo]); rc != 0 {
				return rc
			}
		}
		return 0
	})
	// Assembly is collective: every rank takes part, even one whose
	// MatSetValues failed (a failure there is local), then they agree.
	aerr := call("MatAssemblyEnd", func() C.int { return C.xp_mat_assemble(mat.m) })
	if err == nil {
		err = aerr
	}
	if err = mpi.Agree(c, err); err != nil {
		mat.Destroy()
		return nil, err
	}
	return mat, nil
}

// MatInfo is what PETSc reports of an assembled sparse matrix (MatGetInfo,
// summed over the ranks).
type MatInfo struct {
	NonzerosUsed, NonzerosAllocated int
	Mallocs                         int // reallocations during assembly: 0 with exact preallocation
}

// Info returns the matrix's nonzero counts and reallocations.
func (m *Mat) Info() (MatInfo, error) {
	cm := m.use("Info")
	var used, alloc, mallocs C.double
	err := call("MatGetInfo", func() C.int { return C.xp_mat_info(cm, &used, &alloc, &mallocs) })
	return MatInfo{NonzerosUsed: int(used), NonzerosAllocated: int(alloc), Mallocs: int(mallocs)}, err
}
