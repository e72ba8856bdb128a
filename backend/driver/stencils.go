package driver

import (
	"fmt"
	"sync"
)

// Stencils are the 5-point stencils of the heat and Poisson solvers on a
// row-major float grid. They are not part of Backend, which holds only
// what every array needs: a backend implements them as an optional
// interface (the CPU backend, the fake device and CUDA do), and
// UseStencils swaps in another implementation for a backend, as gonum's
// blas64.Use swaps BLAS implementations (package kernels' catalog has
// host and CUDA kernels of both). Jacobi5 and Laplace5 of package backend
// dispatch to them.
type Stencils interface {
	// Jacobi5 applies one 5-point Jacobi sweep to a rows x cols row-major
	// float grid: for 1 <= i < rows-1 and 1 <= j < cols-1,
	// dst[i][j] = 0.25*(src[i-1][j] + src[i+1][j] + src[i][j-1] + src[i][j+1]).
	// Other elements of dst are left as they are.
	Jacobi5(dst, src Buffer, rows, cols int)
	// Laplace5 applies the 5-point Laplacian (with the sign that makes it
	// positive definite) to a rows x cols row-major float grid: for
	// 1 <= i < rows-1 and 1 <= j < cols-1,
	// dst[i][j] = 4*src[i][j] - src[i-1][j] - src[i+1][j] - src[i][j-1] - src[i][j+1].
	// Other elements of dst are left as they are.
	Laplace5(dst, src Buffer, rows, cols int)
}

var stencils struct {
	mu  sync.RWMutex
	use map[string]Stencils // by backend name
}

// UseStencils makes s the stencils of the backend named name, instead of
// its own (nil goes back to its own), as gonum's blas64.Use swaps BLAS
// implementations. It is for a program or package that brings faster
// stencils, or stencils for a backend that has none.
func UseStencils(name string, s Stencils) {
	stencils.mu.Lock()
	defer stencils.mu.Unlock()
	if s == nil {
		delete(stencils.use, name)
		return
	}
	if stencils.use == nil {
		stencils.use = map[string]Stencils{}
	}
	stencils.use[name] = s
}

// StencilsOf returns the stencils of backend b: the ones UseStencils gave
// for its name, else its own. It panics, naming the backend, if it has
// neither.
func StencilsOf(b Backend) Stencils {
	stencils.mu.RLock()
	s, ok := stencils.use[b.Name()]
	stencils.mu.RUnlock()
	if ok {
		return s
	}
	if s, ok := b.(Stencils); ok {
		return s
	}
	panic(fmt.Sprintf("backend: the %s backend has no 5-point stencils: give it some with driver.UseStencils", b.Name()))
}

// WeightedStencils are stencils with weights given by the caller, on
// row-major float grids: the 9-point 2-D stencil and the 7-point 3-D one
// of dist's Stencil9 and Stencil7. Like Stencils, they are an optional
// interface: the CPU backend, the fake device and CUDA implement them; for
// a backend that does not, dist copies the grids to the host and back,
// recorded as the copies they are. The
// weights are given as float64 and used in the grid's element type.
type WeightedStencils interface {
	// Stencil9 sets, for 1 <= i < rows-1 and 1 <= j < cols-1,
	// dst[i][j] = sum over a, b in 0, 1, 2 of w[3*a+b]*src[i+a-1][j+b-1],
	// summed in the order of w. Other elements of dst are left as they are.
	Stencil9(dst, src Buffer, rows, cols int, w [9]float64)
	// Stencil7 sets, for every point (i, j, k) of an n0 x n1 x n2 grid
	// with 1 <= i < n0-1, 1 <= j < n1-1 and 1 <= k < n2-1,
	// dst[i][j][k] = w[0]*src[i][j][k] + w[1]*src[i-1][j][k] +
	// w[2]*src[i+1][j][k] + w[3]*src[i][j-1][k] + w[4]*src[i][j+1][k] +
	// w[5]*src[i][j][k-1] + w[6]*src[i][j][k+1], summed in that order.
	// Other elements of dst are left as they are.
	Stencil7(dst, src Buffer, n0, n1, n2 int, w [7]float64)
}

// WeightedStencilsOf returns backend b's weighted stencils, and false if
// it has none.
func WeightedStencilsOf(b Backend) (WeightedStencils, bool) {
	s, ok := b.(WeightedStencils)
	return s, ok
}

// StencilDots are stencils that return a dot product of their input and
// output, computed in the same pass over memory: the matrix-free operator
// of conjugate gradients with p.Ap (dist's Laplace5Dot). Like
// WeightedStencils, they are an optional interface of a backend's
// stencils (StencilsOf): the CPU and CUDA backends and the fake device
// implement them; for stencils that do not (stencils swapped in with
// UseStencils), Laplace5Dot of package backend runs Laplace5 and then a dot
// on the grid's device, a second pass over memory, summed in that
// backend's Dot order.
type StencilDots interface {
	// Laplace5Dot applies Laplace5 to a rows x cols row-major float grid
	// and returns the sum of src[i][j]*dst[i][j] over the rows
	// 1 <= i < rows-1, every column (the first and last one too, whose
	// dst elements the stencil leaves as they are), with dst's values
	// after the stencil, accumulated in float64. The order of the sum is
	// part of the contract, so that every implementation gives the same
	// bits: each row's n = cols-2 interior points, counted k = 0..n-1
	// (column k+1), the product rounded to float64 before it is added, go
	// to lane k%16 for k < 16*(n/16), each of the 16 lanes from +0; the
	// lanes l are combined as c[i] = (l[i]+l[8+i]) + (l[4+i]+l[12+i])
	// for i = 0..3, then (c[0]+c[2]) + (c[1]+c[3]); the last n%16 points
	// are added to that in order, then the products of column 0 and (for
	// cols >= 2) of column cols-1. The rows' sums are added in row order
	// to +0. A grid with fewer than 3 rows gives +0.
	Laplace5Dot(dst, src Buffer, rows, cols int) float64
}
