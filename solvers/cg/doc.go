// Package cg solves the 2-D Poisson equation A x = b by conjugate gradients
// on a grid distributed by row blocks over the ranks of a communicator: A
// is the matrix-free 5-point Laplacian (4 x[i][j] minus its four
// neighbours) on an N x N interior with zero Dirichlet boundary, b = 1 and
// x0 = 0, without a preconditioner. Every iteration exchanges one ghost row
// of the search direction with each neighbour and makes two global dots.
// It is what `xpmpi run cg` runs.
//
// Solve is collective: every rank calls it with the same Config and gets
// the same Result. A solve that stops at Config.MaxIter before reaching
// Config.Tol is not an error: Result.Converged says so. A Config that
// cannot run is refused before anything is allocated with a
// *solvers.ConfigError naming the field.
package cg
