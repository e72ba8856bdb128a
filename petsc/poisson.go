//go:build petsc

package petsc

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// PoissonConfig is one solve of W4's problem through PETSc (the problem of
// solvers/cg): the 5-point Laplacian (4u minus the four neighbours) on an
// N x N interior with zero Dirichlet boundary, b = 1, x0 = 0.
type PoissonConfig struct {
	N       int     // interior points per side, at least 1
	Tol     float64 // relative tolerance: stop at ||r|| <= Tol*||b||
	MaxIter int     // most iterations (0: N*N)
	// Prefix is the options prefix of the KSP: options under it (-ksp_type,
	// -pc_type, -ksp_monitor, ...) override the defaults, CG without a
	// preconditioner.
	Prefix string
}

// PoissonResult is what SolvePoisson reports, the same on every rank.
type PoissonResult struct {
	Result           // the KSP's reason, iterations and last residual norm
	RelRes   float64 // ResidualNorm / ||b||
	Seconds  float64 // time of KSPSolve, slowest rank
	PerIter  float64 // seconds per iteration
	Checksum float64 // sum of x over the unknowns
	Method   string  // the KSP and PC types that ran, e.g. "cg/none"
}

// SolvePoisson solves W4's problem with a KSP whose operator is a Go shell
// matrix: x's block is copied into a dist array with ghost rows
// (dist.Ghosts(1)), whose ghost rows are exchanged, once per
// multiplication; the vectors are PETSc's Vecs
// over dist.Arrays. With the defaults (CG, no preconditioner) it takes the
// iterations of solvers/cg (1898 at N = 1024, Tol = 1e-8) and reaches its
// solution to round-off. It returns the result and the solution, an array
// of shape [N, N] split along its rows, which the caller frees. It is
// collective.
func SolvePoisson(c mpi.Comm, cfg PoissonConfig) (PoissonResult, *dist.Array[float64], error) {
	var res PoissonResult
	n := cfg.N
	if n < 1 || n > math.MaxInt32/n || !(cfg.Tol >= 0) || cfg.MaxIter < 0 {
		return res, nil, fmt.Errorf("petsc: SolvePoisson: want N >= 1 (N*N within PetscInt), Tol >= 0, MaxIter >= 0; got %+v", cfg)
	}
	maxIter := cfg.MaxIter
	if maxIter == 0 {
		maxIter = n * n
	}
	l := dist.NewLayout([]int{n, n}, 0, c.Size())
	h, err := dist.New[float64](c, l, dist.Ghosts(1))
	if err != nil {
		return res, nil, err
	}
	defer h.Free()
	a, err := NewShell(c, l, Laplacian5(h))
	if err != nil {
		return res, nil, err
	}
	defer a.Destroy()
	xa, err := dist.Zeros[float64](c, []int{n, n})
	if err != nil {
		return res, nil, err
	}
	// x, the Vec over xa, lends xa's memory: an error destroys it (ending
	// the loan) before xa is freed. Destroying twice does nothing, so the
	// deferred Destroy below stays.
	var x *Vec
	fail := func(err error) (PoissonResult, *dist.Array[float64], error) {
		if x != nil {
			x.Destroy()
		}
		xa.Free()
		return res, nil, err
	}
	ba, err := dist.Full(c, []int{n, n}, 1.0)
	if err != nil {
		return fail(err)
	}
	defer ba.Free()
	x, err = NewVec(xa)
	if err != nil {
		return fail(err)
	}
	defer x.Destroy()
	b, err := NewVec(ba)
	if err != nil {
		return fail(err)
	}
	defer b.Destroy()
	k, err := NewKSP(c)
	if err != nil {
		return fail(err)
	}
	defer k.Destroy()
	for _, step := range []func() error{
		func() error { return k.SetOperators(a, nil) },
		func() error { return k.SetType("cg") },
		func() error { return k.SetPCType("none") },
		func() error {
			return k.SetTolerances(Tolerances{RTol: cfg.Tol, ATol: 0, DTol: -1, MaxIter: maxIter})
		},
		func() error { return k.SetOptionsPrefix(cfg.Prefix) },
		k.SetFromOptions,
	} {
		if err := step(); err != nil {
			return fail(err)
		}
	}
	if err := c.Barrier(); err != nil {
		return fail(err)
	}
	start := c.Wtime()
	r, err := k.Solve(b, x)
	if err != nil {
		return fail(err)
	}
	elapsed, err := mpi.AllreduceValue(c, c.Wtime()-start, mpi.Max)
	if err != nil {
		return fail(err)
	}
	kt, _ := k.Type()
	pt, _ := k.PCType()
	res = PoissonResult{Result: r, RelRes: r.ResidualNorm / float64(n), Seconds: elapsed, Method: kt + "/" + pt}
	if r.Iterations > 0 {
		res.PerIter = elapsed / float64(r.Iterations)
	}
	if res.Checksum, err = dist.Sum(xa); err != nil {
		return fail(err)
	}
	return res, xa, nil
}

// Laplacian5 returns the 5-point Laplacian (4u minus the four neighbours,
// zero beyond the grid's edges) as an operator on arrays of h's layout,
// rows x cols grids split along their rows: each multiplication copies x's
// block into h, an array with ghost rows (dist.Ghosts(1)), exchanges them
// and writes y. The ghost rows beyond the first and last grid rows must
// hold zeros, as a new array's do.
func Laplacian5(h *dist.Array[float64]) OperatorFunc {
	l := h.Layout()
	if l.Dims() != 2 || l.Axis() != 0 || h.Ghosts() != 1 || h.IsPeriodic() {
		panic(fmt.Sprintf("petsc: Laplacian5 needs an array with non-periodic ghosts of width 1 over a 2-D layout split along axis 0, not width %d over %v", h.Ghosts(), l))
	}
	cols := l.Shape()[1]
	return func(x, y *dist.Array[float64]) error {
		dist.Copy(h, x)
		if err := h.Exchange(); err != nil {
			return err
		}
		g, yd := h.Ghosted().Data(), y.LocalData()
		for i := 0; i < len(yd)/cols; i++ {
			laplaceRow(yd[i*cols:(i+1)*cols], g[i*cols:(i+1)*cols], g[(i+1)*cols:(i+2)*cols], g[(i+2)*cols:(i+3)*cols])
		}
		return nil
	}
}

// laplaceRow writes one grid row of the 5-point Laplacian: the row mid,
// its neighbours up and down, zero beyond both ends.
func laplaceRow(row, up, mid, down []float64) {
	n := len(row)
	if n == 0 {
		return
	}
	up, mid, down = up[:n], mid[:n], down[:n]
	if n == 1 {
		row[0] = 4*mid[0] - up[0] - down[0]
		return
	}
	row[0] = 4*mid[0] - up[0] - down[0] - mid[1]
	for j := 1; j < n-1; j++ {
		row[j] = 4*mid[j] - up[j] - down[j] - mid[j-1] - mid[j+1]
	}
	row[n-1] = 4*mid[n-1] - up[n-1] - down[n-1] - mid[n-2]
}
