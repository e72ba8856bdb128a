//go:build petsc

package petsc

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/serialloop"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/solvers/cg"
)

// laplacian returns the 5-point Laplacian of W4 (4u minus the four
// neighbours, zero Dirichlet boundary) on the n x n interior of layout l
// (rows split over the ranks), plus conv times the upwind difference
// u(i,j) - u(i,j-1) and react times the global row index i times u(i,j)
// (both 0 for the symmetric W4 operator). The rows of the
// neighbours come by dist's halo exchange: x's block is copied into a halo
// block of width 1 (the one copy of the multiplication) and its ghost rows
// exchanged. calls counts the multiplications.
func laplacian(t *testing.T, c mpi.Comm, l dist.Layout, conv, react float64, calls *int) OperatorFunc {
	h, err := dist.New[float64](c, l, dist.Ghosts(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Free)
	n := l.Shape()[1]
	return func(x, y *dist.Array[float64]) error {
		*calls++
		dist.Copy(h, x)
		if err := h.Exchange(); err != nil {
			return err
		}
		g, yd := h.Ghosted().Data(), y.LocalData()
		lo, _ := y.Range()
		for i := 0; i < len(yd)/n; i++ {
			diag := 4 + conv + react*float64(lo+i)
			up, mid, down := g[i*n:(i+1)*n], g[(i+1)*n:(i+2)*n], g[(i+2)*n:(i+3)*n]
			row := yd[i*n : (i+1)*n]
			for j := range row {
				v := diag*mid[j] - up[j] - down[j]
				if j > 0 {
					v -= (1 + conv) * mid[j-1]
				}
				if j < n-1 {
					v -= mid[j+1]
				}
				row[j] = v
			}
		}
		return nil
	}
}

// poisson makes the shell matrix of the n x n problem, b = 1 and x.
func poisson(t *testing.T, c mpi.Comm, n int, conv, react float64, calls *int) (a *Mat, b, x *Vec, l dist.Layout) {
	t.Helper()
	l = dist.NewLayout([]int{n, n}, 0, c.Size())
	a, err := NewShell(c, l, laplacian(t, c, l, conv, react, calls))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Destroy() })
	ba, err := dist.Full(c, []int{n, n}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	xa, err := dist.Zeros[float64](c, []int{n, n})
	if err != nil {
		t.Fatal(err)
	}
	if b, err = NewVec(ba); err != nil {
		t.Fatal(err)
	}
	if x, err = NewVec(xa); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Destroy(); x.Destroy() })
	return a, b, x, l
}

// pcgN is the grid of the CG comparison: W4 is 1024 (1898 iterations),
// too slow for 4 ranks oversubscribed on 2 cores, so the test takes a grid
// that divides by none of 2, 3 and 4 (the rows split unevenly), compared
// with solvers/cg on the same grid.
const pcgN = 151

// KSP CG with a Go shell matrix solves the W4 problem in the iterations of
// our own CG (solvers/cg) and to its solution (the serial loop's x) within
// 1e-10.
func TestKSPCGPoisson(t *testing.T) { cgPoisson(t, pcgN) }

// The same at W4's size, 1024 x 1024 (1898 iterations): XPMPI_PETSC_W4=1
// runs it (about a minute on one rank).
func TestKSPCGW4(t *testing.T) {
	if os.Getenv("XPMPI_PETSC_W4") != "1" {
		t.Skip("XPMPI_PETSC_W4=1 runs W4's grid, 1024 x 1024")
	}
	cgPoisson(t, 1024)
}

func cgPoisson(t *testing.T, n int) {
	c := mpitest.World(t)
	tol := 1e-8
	res, xa, err := SolvePoisson(c, PoissonConfig{N: n, Tol: tol, Prefix: "w4_"})
	if err != nil {
		t.Fatal(err)
	}
	defer xa.Free()
	ours, err := cg.Solve(c, cg.Config{N: n, Tol: tol})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("n=%d: KSP %s %d iterations (%v, relative residual %.3g, %.3g s), solvers/cg %d (%.3g, %.3g s)",
		n, res.Method, res.Iterations, res.Reason, res.RelRes, res.Seconds, ours.Iters, ours.RelRes, ours.Seconds)
	if !res.Reason.Converged() || res.Reason.String() != "CONVERGED_RTOL" || res.Method != "cg/none" {
		t.Errorf("%s: reason %v (%d)", res.Method, res.Reason, int(res.Reason))
	}
	if res.Iterations != ours.Iters {
		t.Errorf("KSP CG: %d iterations, solvers/cg: %d", res.Iterations, ours.Iters)
	}
	// The solution, against the serial loop's, on every rank's rows.
	_, _, sum, ref := serialloop.CG(n, tol, n*n)
	lo, _ := xa.Range()
	worst, scale := 0.0, 0.0
	xd := xa.LocalData()
	for i := range xd {
		r, j := lo+i/n, i%n
		want := ref[(r+1)*(n+2)+j+1]
		worst = math.Max(worst, math.Abs(xd[i]-want))
		scale = math.Max(scale, math.Abs(want))
	}
	mpitest.Check(t, c, worst <= 1e-10*math.Max(scale, 1), "max |x - x_ref| = %.3g (max |x_ref| %.3g)", worst, scale)
	if math.Abs(res.Checksum-sum) > 1e-10*math.Abs(sum) || math.Abs(res.Checksum-ours.Checksum) > 1e-10*math.Abs(sum) {
		t.Errorf("sum of x: KSP %.15g, serial %.15g, solvers/cg %.15g", res.Checksum, sum, ours.Checksum)
	}
}

// Grids with fewer rows than ranks (ranks with no elements in every Vec
// and in the shell's multiplications) solve as solvers/cg does.
func TestKSPFewRows(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { cgPoisson(t, n) })
	}
}

// Options under SolvePoisson's prefix choose the method.
func TestSolvePoissonOptions(t *testing.T) {
	c := mpitest.World(t)
	must(t, SetOptions("-gm_ksp_type gmres -gm_ksp_gmres_restart 200"))
	res, xa, err := SolvePoisson(c, PoissonConfig{N: 20, Tol: 1e-10, Prefix: "gm_"})
	if err != nil {
		t.Fatal(err)
	}
	defer xa.Free()
	if res.Method != "gmres/none" || !res.Reason.Converged() || res.RelRes > 1e-10 {
		t.Errorf("%+v", res)
	}
	if _, _, err := SolvePoisson(c, PoissonConfig{N: 0}); err == nil {
		t.Error("N = 0 accepted")
	}
}

// GMRES with a Go preconditioner (PCSHELL: Jacobi, y = x / diag) on a
// nonsymmetric convection-diffusion-reaction operator (its diagonal grows
// along the rows) converges to the true
// residual asked for, in fewer iterations than without it, and PETSc's own
// Jacobi cannot run on the shell matrix (no diagonal): an *Error with
// PETSc's message.
func TestKSPGMRESShellPC(t *testing.T) {
	c := mpitest.World(t)
	const n, conv, react, rtol = 40, 20.0, 10.0, 1e-9
	var calls, pcCalls int
	var history []float64 // the monitor's residual norms
	a, b, x, l := poisson(t, c, n, conv, react, &calls)
	solve := func(pc string) (Result, error) {
		k, err := NewKSP(c)
		if err != nil {
			t.Fatal(err)
		}
		defer k.Destroy()
		must(t, k.SetOperators(a, nil))
		must(t, k.SetType("gmres"))
		must(t, k.SetTolerances(Tolerances{RTol: rtol, ATol: 0, DTol: -1, MaxIter: 2000}))
		if pc == "none" {
			must(t, k.Monitor(func(it int, rnorm float64) {
				if it != len(history) {
					t.Errorf("monitor: iteration %d after %d calls", it, len(history))
				}
				history = append(history, rnorm)
			}))
		}
		switch pc {
		case "go":
			must(t, k.SetShellPC(l, func(x, y *dist.Array[float64]) error {
				pcCalls++
				yd := y.LocalData()
				lo, _ := y.Range()
				for i, v := range x.LocalData() {
					yd[i] = v / (4 + conv + react*float64(lo+i/n))
				}
				return nil
			}))
			if pt, _ := k.PCType(); pt != "shell" {
				t.Errorf("PC type %q, want shell", pt)
			}
		default:
			must(t, k.SetPCType(pc))
		}
		return k.Solve(b, x)
	}
	plain, err := solve("none")
	if err != nil {
		t.Fatal(err)
	}
	res, err := solve("go")
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != plain.Iterations+1 || history[len(history)-1] != plain.ResidualNorm || history[0] <= history[len(history)-1] {
		t.Errorf("monitor: %d residual norms for %d iterations, last %g (KSP: %g)", len(history), plain.Iterations, history[len(history)-1], plain.ResidualNorm)
	}
	t.Logf("GMRES: %d iterations without a preconditioner, %d with the Go one (%d applications, %v)", plain.Iterations, res.Iterations, pcCalls, res.Reason)
	if !res.Reason.Converged() || pcCalls < res.Iterations || res.Iterations >= plain.Iterations {
		t.Errorf("with the Go PC: %+v (%d applications); without: %+v", res, pcCalls, plain)
	}
	// The true residual ||b - A x|| / ||b||.
	_, ax, err := a.CreateVecs()
	if err != nil {
		t.Fatal(err)
	}
	defer ax.Destroy()
	must(t, a.Mult(x, ax))
	must(t, ax.AXPY(-1, b))
	rn, err := ax.Norm(Norm2)
	if err != nil {
		t.Fatal(err)
	}
	if bn, _ := b.Norm(Norm2); rn/bn > 100*rtol {
		t.Errorf("true relative residual %.3g, asked for %.3g", rn/bn, rtol)
	}
	// PETSc's Jacobi needs the diagonal, which a shell matrix lacks.
	_, err = solve("jacobi")
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrPETSc) || pe.Call != "KSPSolve" || !strings.Contains(pe.Msg, "MatGetDiagonal") {
		t.Errorf("PCJACOBI on a shell matrix: %v; want an *Error from KSPSolve naming MatGetDiagonal", err)
	} else {
		t.Logf("PETSc's error, as Go sees it: %v", err)
	}
}

// A Go operator that fails on one rank stops the solve on every rank, with
// the error on every rank and no hang.
func TestKSPOperatorError(t *testing.T) {
	c := mpitest.World(t)
	const n = 20
	l := dist.NewLayout([]int{n, n}, 0, c.Size())
	var calls int
	lap := laplacian(t, c, l, 0, 0, &calls)
	boom := errors.New("boom at the fifth multiplication")
	a, err := NewShell(c, l, func(x, y *dist.Array[float64]) error {
		if err := lap(x, y); err != nil {
			return err
		}
		if calls == 5 && c.Rank() == c.Size()-1 {
			return boom
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateVec(c, l)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Destroy()
	x, err := b.Duplicate()
	if err != nil {
		t.Fatal(err)
	}
	defer x.Destroy()
	must(t, b.Set(1))
	k, err := NewKSP(c)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Destroy()
	must(t, k.SetOperators(a, nil))
	must(t, a.Destroy()) // the KSP keeps the matrix and its Go operator
	must(t, k.SetType("cg"))
	res, err := k.Solve(b, x)
	if !errors.Is(err, ErrOperator) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Solve: %v (%+v); want the operator's error on every rank", err, res)
	}
	if c.Rank() == c.Size()-1 && !errors.Is(err, boom) {
		t.Errorf("on the failing rank the error does not wrap the operator's: %v", err)
	}
	if res.Reason.Converged() {
		t.Errorf("reason %v after a failed multiplication", res.Reason)
	}
	t.Logf("%v; %v after %d iterations", err, res.Reason, res.Iterations)
	// The operator works again in the next solve.
	calls = 100
	if res, err = k.Solve(b, x); err != nil || !res.Reason.Converged() {
		t.Errorf("the next solve: %+v, %v", res, err)
	}
}

// A PETSc error is an *Error with PETSc's message.
func TestPETScError(t *testing.T) {
	c := mpitest.World(t)
	k, err := NewKSP(c)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Destroy()
	err = k.SetType("no_such_method")
	var pe *Error
	if !errors.As(err, &pe) || pe.Call != "KSPSetType" || !strings.Contains(pe.Msg, "no_such_method") || !errors.Is(err, ErrPETSc) {
		t.Fatalf("KSPSetType(no_such_method): %v", err)
	}
	t.Log(err)
	// The agreed form keeps the kind.
	agreed := mpi.Agree(c, err)
	if !errors.Is(agreed, ErrPETSc) {
		t.Errorf("agreed error %v does not match ErrPETSc", agreed)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A PETSc error inside SolvePoisson (an unknown method from the options
// database, so at SetFromOptions) comes back as PETSc's error, with the
// arrays and Vecs released in order: no panic of a Free under a live Vec.
func TestSolvePoissonPETScError(t *testing.T) {
	c := mpitest.World(t)
	must(t, SetOptions("-bad_ksp_type no_such_method"))
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("SolvePoisson with -bad_ksp_type no_such_method panicked: %v", r)
			}
		}()
		_, _, err = SolvePoisson(c, PoissonConfig{N: 5, Tol: 1e-8, Prefix: "bad_"})
	}()
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrPETSc) || !strings.Contains(pe.Msg, "no_such_method") {
		t.Fatalf("SolvePoisson with -bad_ksp_type no_such_method: %v, want PETSc's error naming the method", err)
	}
}
