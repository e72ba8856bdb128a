//go:build petsc

package petsc

import (
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// bratu returns the residual of the Bratu problem -Δu - λ e^u = 0 on the
// unit square, u = 0 on the boundary, on the n x n interior of l, scaled by
// h²: F(u) = 4u - (neighbours) - h² λ e^u, with the neighbours across
// block edges by dist's halo exchange.
func bratu(t *testing.T, c mpi.Comm, l dist.Layout, lambda float64) OperatorFunc {
	h, err := dist.New[float64](c, l, dist.Ghosts(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Free)
	n := l.Shape()[1]
	h2l := lambda / float64((n+1)*(n+1))
	return func(x, f *dist.Array[float64]) error {
		dist.Copy(h, x)
		if err := h.Exchange(); err != nil {
			return err
		}
		g, fd := h.Ghosted().Data(), f.LocalData()
		for i := 0; i < len(fd)/n; i++ {
			up, mid, down := g[i*n:(i+1)*n], g[(i+1)*n:(i+2)*n], g[(i+2)*n:(i+3)*n]
			for j := 0; j < n; j++ {
				v := 4*mid[j] - up[j] - down[j] - h2l*math.Exp(mid[j])
				if j > 0 {
					v -= mid[j-1]
				}
				if j < n-1 {
					v -= mid[j+1]
				}
				fd[i*n+j] = v
			}
		}
		return nil
	}
}

// SNES (Newton with a line search, Jacobian-free with GMRES) solves Bratu
// with λ = 6 from u = 0, with the residual in Go; the residual of the
// answer, recomputed in Go, is what PETSc reports.
func TestSNESBratu(t *testing.T) {
	c := mpitest.World(t)
	const n, lambda = 24, 6.0
	l := dist.NewLayout([]int{n, n}, 0, c.Size())
	f := bratu(t, c, l, lambda)
	s, err := NewSNES(c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	must(t, s.SetFunction(l, f))
	must(t, s.SetMatrixFree())
	must(t, s.SetTolerances(1e-12, 1e-10, -1, 50))
	must(t, s.SetOptionsPrefix("bratu_"))
	must(t, SetOptions("-bratu_ksp_type gmres -bratu_ksp_rtol 1e-6"))
	must(t, s.SetFromOptions())
	u, err := dist.Zeros[float64](c, []int{n, n})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	x, err := NewVec(u)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Destroy()
	res, err := s.Solve(x)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Bratu λ=%g on %dx%d: %v after %d Newton and %d linear iterations, ||F|| = %.3g", lambda, n, n, res.Reason, res.Iterations, res.LinearIterations, res.FunctionNorm)
	if !res.Reason.Converged() || res.Iterations < 2 || res.Iterations > 10 {
		t.Errorf("SNES: %+v", res)
	}
	// F(u) again, in Go, on the Vec's own array.
	r, err := dist.ZerosLike(u)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Free()
	must(t, f(u, r))
	rn, err := dist.Norm(r)
	if err != nil {
		t.Fatal(err)
	}
	mx, err := dist.Max(u)
	if err != nil {
		t.Fatal(err)
	}
	// The first residual is h²λ·n = λ n/(n+1)² in norm; the answer's is far below.
	if rn > 1e-9 || math.Abs(rn-res.FunctionNorm) > 1e-9 || !(mx > 0.5 && mx < 2) {
		t.Errorf("||F(u)|| = %.3g (PETSc: %.3g), max u = %g", rn, res.FunctionNorm, mx)
	}
}

// Newton with a Go Jacobian: a shell matrix J v = 4v - (neighbours) -
// h²λ e^u v whose e^u the update refreshes at each Newton step, and a Go
// Jacobi preconditioner on the SNES's KSP; the same root as the
// matrix-free solve.
func TestSNESBratuJacobian(t *testing.T) {
	c := mpitest.World(t)
	const n, lambda = 24, 6.0
	l := dist.NewLayout([]int{n, n}, 0, c.Size())
	h2l := lambda / float64((n+1)*(n+1))
	scale := make([]float64, l.LocalLen(c.Rank())) // h²λ e^u at the current iterate
	updates := 0
	h, err := dist.New[float64](c, l, dist.Ghosts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Free()
	lap := Laplacian5(h)
	j, err := NewShell(c, l, func(x, y *dist.Array[float64]) error {
		if err := lap(x, y); err != nil {
			return err
		}
		yd, xd := y.LocalData(), x.LocalData()
		for i := range yd {
			yd[i] -= scale[i] * xd[i]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Destroy()
	s, err := NewSNES(c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	must(t, s.SetFunction(l, bratu(t, c, l, lambda)))
	must(t, s.SetJacobian(j, nil, func(x *dist.Array[float64]) error {
		updates++
		for i, v := range x.LocalData() {
			scale[i] = h2l * math.Exp(v)
		}
		return nil
	}))
	must(t, s.SetTolerances(1e-12, 1e-10, -1, 50))
	k, err := s.KSP()
	if err != nil {
		t.Fatal(err)
	}
	must(t, k.SetType("cg")) // J is symmetric positive definite for λ below the fold
	must(t, k.SetTolerances(Tolerances{RTol: 1e-10, ATol: -1, DTol: -1}))
	pcCalls := 0
	must(t, k.SetShellPC(l, func(x, y *dist.Array[float64]) error {
		pcCalls++
		yd := y.LocalData()
		for i, v := range x.LocalData() {
			yd[i] = v / (4 - scale[i])
		}
		return nil
	}))
	u, err := dist.Zeros[float64](c, []int{n, n})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	x, err := NewVec(u)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Destroy()
	res, err := s.Solve(x)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Bratu with a Go Jacobian: %v after %d Newton and %d CG iterations (%d Jacobian updates, %d Go PC applications), ||F|| = %.3g",
		res.Reason, res.Iterations, res.LinearIterations, updates, pcCalls, res.FunctionNorm)
	if !res.Reason.Converged() || res.Iterations < 2 || res.Iterations > 10 || updates != res.Iterations || pcCalls == 0 {
		t.Errorf("SNES: %+v, %d updates, %d PC applications", res, updates, pcCalls)
	}
	msg := mustPanic(t, func() { k.Destroy() })
	if !strings.Contains(msg, "SNES") {
		t.Errorf("Destroy of the SNES's KSP: panic %q", msg)
	}
	// The root, against F recomputed in Go.
	r, err := dist.ZerosLike(u)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Free()
	must(t, bratu(t, c, l, lambda)(u, r))
	if rn, _ := dist.Norm(r); rn > 1e-9 {
		t.Errorf("||F(u)|| = %.3g", rn)
	}
}
