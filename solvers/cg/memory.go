package cg

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers"
)

// cgVectors is how many vectors Solve holds of the grid's rows with their
// ghost rows: b, x, r, p and A p. PETSc's CG over the same grid
// (petsc.SolvePoisson) holds about as many: b, x, the shell matrix's
// ghosted copy and the KSP's work vectors.
const cgVectors = 5

// BytesPerRank returns the memory Solve allocates on the rank with the
// most rows of a grid of n interior points per side over p ranks: five
// vectors (b, x, r, p, A p) of rows+2 rows of n+2 float64 each. An n for
// which that overflows an int64 is a *solvers.ConfigError that wraps
// dist.ErrTooLarge.
func BytesPerRank(n, p int) (int64, error) {
	rows := int64(n/p + 1)
	if n%p == 0 {
		rows--
	}
	row, err := dist.MulBytes(int64(n)+2, 8)
	if err != nil {
		return 0, &solvers.ConfigError{Solver: "cg", Field: "N", Value: n, Reason: err.Error(), Err: err}
	}
	need, err := dist.MulBytes(row, cgVectors*(rows+2))
	if err != nil {
		return 0, &solvers.ConfigError{Solver: "cg", Field: "N", Value: n, Ranks: p, Reason: err.Error(), Err: err}
	}
	return need, nil
}

// CheckMemory reports whether a grid of n interior points per side fits in
// the memory of every rank's node (dist.CheckMemory, with BytesPerRank:
// the smaller of the node's available memory and what the job's own
// control group leaves it). It is collective: every rank returns nil, or
// every rank returns the same *solvers.ConfigError about Config.N, which
// says at how many ranks the grid would fit, with as many ranks per node
// as now, and wraps the *dist.MemoryError. Solve calls it before
// allocating; a program calls it to refuse a size before it does anything
// else.
func CheckMemory(comm mpi.Comm, n int) error {
	p := comm.Size()
	need, err := BytesPerRank(n, p)
	if err != nil {
		return err
	}
	err = dist.CheckMemory(comm, fmt.Sprintf("cg: N %d on %d ranks", n, p), need)
	// cgVectors*(rows+2) rows per rank.
	return solvers.MemoryError("cg", n, p, err, cgVectors, 2*cgVectors)
}
