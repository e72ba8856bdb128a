package main

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// serialCG is the plain loop of the same solve on one process: the 5-point
// Laplacian on an (n+2) x (n+2) grid with a zero boundary, b = 1, x0 = 0,
// until ||r|| / ||b|| <= tol or maxIter iterations. It returns the
// iterations, the final relative residual, the sum of x, and x.
func serialCG(n int, tol float64, maxIter int) (iters int, relres, sum float64, x []float64) {
	m := n + 2
	x = make([]float64, m*m)
	r := make([]float64, m*m)
	p := make([]float64, m*m)
	q := make([]float64, m*m)
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			r[i*m+j], p[i*m+j] = 1, 1
		}
	}
	dot := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	bnorm := float64(n)
	rr := dot(r, r)
	k := 0
	for ; math.Sqrt(rr)/bnorm > tol && k < maxIter; k++ {
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				q[i*m+j] = 4*p[i*m+j] - p[(i-1)*m+j] - p[(i+1)*m+j] - p[i*m+j-1] - p[i*m+j+1]
			}
		}
		alpha := rr / dot(p, q)
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * q[i]
		}
		rrNew := dot(r, r)
		beta := rrNew / rr
		for i := range p {
			p[i] = r[i] + beta*p[i]
		}
		rr = rrNew
	}
	for _, v := range x {
		sum += v
	}
	return k, math.Sqrt(rr) / bnorm, sum, x
}

// trueResidual returns ||b - A x|| / ||b|| for the grid x of serialCG.
func trueResidual(n int, x []float64) float64 {
	m := n + 2
	s := 0.0
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			ax := 4*x[i*m+j] - x[(i-1)*m+j] - x[(i+1)*m+j] - x[i*m+j-1] - x[i*m+j+1]
			s += (1 - ax) * (1 - ax)
		}
	}
	return math.Sqrt(s) / float64(n)
}

func TestSerialCGSolves(t *testing.T) {
	for _, n := range []int{1, 4, 17} {
		k, rel, _, x := serialCG(n, 1e-10, n*n)
		if rel > 1e-10 || trueResidual(n, x) > 1e-9 {
			t.Fatalf("n=%d: %d iterations, recursive residual %g, true residual %g", n, k, rel, trueResidual(n, x))
		}
	}
	// A = 4 for one unknown: x = 1/4 in one step.
	if k, _, sum, _ := serialCG(1, 1e-12, 10); k != 1 || sum != 0.25 {
		t.Fatalf("n=1: %d iterations, x = %g", k, sum)
	}
}

func TestCGMatchesSerialLoop(t *testing.T) {
	world := mpitest.World(t)
	for _, c := range []struct {
		n   int
		tol float64
	}{{1, 1e-8}, {2, 1e-8}, {3, 1e-10}, {5, 1e-8}, {16, 1e-8}, {33, 1e-8}, {64, 1e-6}} {
		res, err := solveCG(world, cgConfig{N: c.n, Tol: c.tol})
		if err != nil {
			t.Fatal(err)
		}
		k, rel, sum, _ := serialCG(c.n, c.tol, c.n*c.n)
		if res.Iters != k {
			t.Errorf("n=%d on %d ranks: %d iterations, serial loop %d", c.n, world.Size(), res.Iters, k)
		}
		if !agree(res.Checksum, sum, 1e-10) {
			t.Errorf("n=%d on %d ranks: sum of x %.17g, serial loop %.17g", c.n, world.Size(), res.Checksum, sum)
		}
		// Where CG ends exactly (small n), both residuals are rounding noise.
		if !res.Converged || res.RelRes > c.tol || (!agree(res.RelRes, rel, 1e-6) && rel > 1e-13) {
			t.Errorf("n=%d: relative residual %g (converged %v), serial loop %g", c.n, res.RelRes, res.Converged, rel)
		}
		if res.Ranks != world.Size() || (res.Iters > 0 && !(res.PerIter > 0)) {
			t.Errorf("n=%d: ranks %d, per iteration %g", c.n, res.Ranks, res.PerIter)
		}
	}
}

func TestCGStopsAtMaxIter(t *testing.T) {
	world := mpitest.World(t)
	res, err := solveCG(world, cgConfig{N: 40, Tol: 1e-12, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	k, rel, sum, _ := serialCG(40, 1e-12, 5)
	if res.Iters != 5 || k != 5 || res.Converged || !agree(res.Checksum, sum, 1e-12) || !agree(res.RelRes, rel, 1e-10) {
		t.Fatalf("%+v; serial loop: %d iterations, residual %g, sum %g", res, k, rel, sum)
	}
}

func TestCGRejectsBadArguments(t *testing.T) {
	world := mpitest.World(t)
	for _, cfg := range []cgConfig{{N: 0, Tol: 1e-8}, {N: 4, Tol: -1}, {N: 4, Tol: math.NaN()}, {N: 4, Tol: 1e-8, MaxIter: -1}} {
		if _, err := solveCG(world, cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestCGCommand(t *testing.T) {
	world := mpitest.World(t)
	cmd := newCGCmd(world)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--n", "24", "--tol", "1e-9"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	k, _, _, _ := serialCG(24, 1e-9, 24*24)
	for _, want := range []string{"cg: 24 x 24 interior", "time to solution", "relative residual", "checksum", "ranks"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), "iterations "+strconv.Itoa(k)+"\n") {
		t.Fatalf("output does not say %d iterations:\n%s", k, out.String())
	}
	// Too few iterations: an error.
	cmd = newCGCmd(world)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--n", "24", "--maxiter", "2"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "no convergence") {
		t.Fatalf("2 iterations: error %v", err)
	}
}
