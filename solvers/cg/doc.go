// Package cg solves symmetric positive definite systems A x = b by
// conjugate gradients over distributed arrays (package dist).
//
// CG takes the operator as a function of two dist arrays (matrix-free:
// a stencil over arrays with ghost layers, say), an optional
// preconditioner of the same form, the right-hand side and the initial
// guess, and reports the iterations and the residual history. Every step
// of it is a dist call (dots, AXPYs) or, with Options.Fused, a fused
// kernel of package kernels/fuse. An operator that also returns the dot of
// its input and output (an OperatorDot, such as PoissonDot: the stencil
// and p.Ap in one pass) saves the fused iterations a pass over memory:
// three passes per iteration, as hand-fused C makes.
//
// Solve is the 2-D Poisson problem that `xpmpi run cg` runs, expressed
// with CG: A is the matrix-free 5-point Laplacian (4 x[i][j] minus its four
// neighbours, the Poisson operator) on an N x N interior with zero
// Dirichlet boundary, b = 1 and x0 = 0, without a preconditioner, on a grid
// distributed by row blocks. Every iteration exchanges one ghost row of the
// search direction with each neighbour and makes two global dots.
//
// CG and Solve are collective: every rank calls them with the same
// arguments and gets the same result. A solve that stops at the iteration
// limit before reaching the tolerance is not an error: Converged says so. A
// Config that cannot run is refused before anything is allocated with a
// *solvers.ConfigError naming the field.
package cg
