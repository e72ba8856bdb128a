//go:build petsc

package petsc

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// laplacianRow is row g of W4's 5-point Laplacian on the n x n grid, in
// row-major order.
func laplacianRow(n int) RowFunc {
	return func(g int, cols []int, vals []float64) ([]int, []float64) {
		r, j := g/n, g%n
		if r > 0 {
			cols, vals = append(cols, g-n), append(vals, -1)
		}
		if j > 0 {
			cols, vals = append(cols, g-1), append(vals, -1)
		}
		cols, vals = append(cols, g), append(vals, 4)
		if j < n-1 {
			cols, vals = append(cols, g+1), append(vals, -1)
		}
		if r < n-1 {
			cols, vals = append(cols, g+n), append(vals, -1)
		}
		return cols, vals
	}
}

// The assembled Laplacian, preallocated from its rows, equals the Go
// shell's on a vector, needs no reallocation, and KSP CG with PETSc's own
// Jacobi (which the shell cannot have) solves with it in the shell's
// iterations.
func TestAIJ(t *testing.T) {
	c := mpitest.World(t)
	const n = 37
	var calls int
	shell, b, x, l := poisson(t, c, n, 0, 0, &calls)
	a, err := NewAIJ(c, l, laplacianRow(n))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Destroy()
	info, err := a.Info()
	if err != nil {
		t.Fatal(err)
	}
	if want := 5*n*n - 4*n; info.NonzerosUsed != want || info.NonzerosAllocated != want || info.Mallocs != 0 {
		t.Errorf("MatGetInfo: %+v, want %d nonzeros allocated and used, no mallocs", info, want)
	}
	// A x and the shell's x, for x(i) = sin(i).
	xd := x.Array().LocalData()
	lo, _ := x.Array().Range()
	for i := range xd {
		xd[i] = math.Sin(float64(lo*n + i))
	}
	y1, y2, err := a.CreateVecs()
	if err != nil {
		t.Fatal(err)
	}
	defer y1.Destroy()
	defer y2.Destroy()
	must(t, a.Mult(x, y1))
	must(t, shell.Mult(x, y2))
	must(t, y1.AXPY(-1, y2))
	diff, err := y1.Norm(NormInf)
	if err != nil {
		t.Fatal(err)
	}
	if diff > 1e-12 {
		t.Errorf("assembled and shell products differ by %g", diff)
	}
	solve := func(m *Mat, pc string) Result {
		k, err := NewKSP(c)
		if err != nil {
			t.Fatal(err)
		}
		defer k.Destroy()
		must(t, k.SetOperators(m, nil))
		must(t, k.SetType("cg"))
		must(t, k.SetPCType(pc))
		must(t, k.SetTolerances(Tolerances{RTol: 1e-8, ATol: 0, DTol: -1, MaxIter: n * n}))
		res, err := k.Solve(b, x)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	rs, ra, rj := solve(shell, "none"), solve(a, "none"), solve(a, "jacobi")
	if !rs.Reason.Converged() || !ra.Reason.Converged() || !rj.Reason.Converged() || rs.Iterations != ra.Iterations || rj.Iterations != ra.Iterations {
		// Jacobi on a constant diagonal is a scaling: CG's iterations stay.
		t.Errorf("CG: shell %+v, assembled %+v, assembled with Jacobi %+v", rs, ra, rj)
	}
	t.Logf("CG on %dx%d: %d iterations with the shell, the assembled matrix, and Jacobi", n, n, ra.Iterations)
}

// A row with a column out of range is an error on every rank.
func TestAIJBadColumn(t *testing.T) {
	c := mpitest.World(t)
	l := dist.NewLayout([]int{5}, 0, c.Size())
	_, err := NewAIJ(c, l, func(i int, cols []int, vals []float64) ([]int, []float64) {
		if i == 4 {
			return append(cols, 5), append(vals, 1)
		}
		return append(cols, i), append(vals, 1)
	})
	if err == nil || !strings.Contains(err.Error(), "column 5") {
		t.Fatalf("NewAIJ with a column out of range: %v", err)
	}
	var pe *Error
	if errors.As(err, &pe) {
		t.Errorf("checked before PETSc, got PETSc's error %v", err)
	}
}
