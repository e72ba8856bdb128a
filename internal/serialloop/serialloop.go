// Package serialloop holds the plain serial loops of the solvers in
// package solvers: one process, no layout, no backend. The solvers' tests
// compare with them at every rank count, and the benchmark's stand-in for
// the C reference computes its checksums with them.
package serialloop

import "math"

// Heat is the plain loop of heat.Solve's update on one process: an
// (n+2) x (n+2) grid with the top row 1 and the rest of the boundary 0,
// starting from 0. It returns the sum of u over the n x n interior.
func Heat(n, iters int) float64 {
	m := n + 2
	u, v := make([]float64, m*m), make([]float64, m*m)
	for j := 0; j < m; j++ {
		u[j], v[j] = 1, 1
	}
	for it := 0; it < iters; it++ {
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				v[i*m+j] = 0.25 * (u[(i-1)*m+j] + u[(i+1)*m+j] + u[i*m+j-1] + u[i*m+j+1])
			}
		}
		u, v = v, u
	}
	s := 0.0
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			s += u[i*m+j]
		}
	}
	return s
}

// CG is the plain loop of cg.Solve on one process: the 5-point
// Laplacian on an (n+2) x (n+2) grid with a zero boundary, b = 1, x0 = 0,
// until ||r|| / ||b|| <= tol or maxIter iterations. It returns the
// iterations, the final relative residual, the sum of x, and x.
func CG(n int, tol float64, maxIter int) (iters int, relres, sum float64, x []float64) {
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

// TrueResidual returns ||b - A x|| / ||b|| for the grid x of CG.
func TrueResidual(n int, x []float64) float64 {
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
