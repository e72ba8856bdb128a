package dist

import "github.com/xpmpi/xpmpi/backend"

// Laplace5Dot applies Laplace5 to dst and src, with its conventions and
// panics (src's ghosts exchanged first, the first and last column left as
// they are), and returns this rank's part of the dot of src and dst: the
// sum of src[i]*dst[i] over the rank's block, with dst's values after the
// stencil, accumulated in float64 and returned in T; 0 for an empty
// block. It does not communicate: the ranks' values summed
// (mpi.AllreduceValue) are Dot(src, dst) up to the order of the additions.
// It is the operator of conjugate gradients with p.Ap in one call
// (solvers/cg's PoissonDot).
//
// On arrays split along axis 0 whose backend's stencils have
// backend.StencilDots (the CPU backend's, CUDA's and the fake device's
// do), the stencil and the dot are
// one pass over memory, summed in the order StencilDots documents
// (row by row over the block, 16 lanes per row): the same bits for every
// thread count, and, since dst's values are those of Laplace5, dst the
// same bits as Laplace5 gives. On other stencils (those a user swaps in
// with UseStencils), and on a process grid, it is Laplace5 and then a dot over the block, a
// second pass, on the block's device, in that backend's Dot order: the
// sum agrees with the one-pass sum to rounding. Nothing is copied between
// host and device either way.
func Laplace5Dot[T backend.Float](dst, src *Array[T]) T {
	if dst.freed || src.freed {
		panic(freedError("Laplace5Dot"))
	}
	dv, sv, rows, cols, ok := stencilViews("Laplace5Dot", dst, src, 1, 2)
	if !ok {
		return 0
	}
	if src.layout.isGrid() {
		backend.Laplace5(dv, sv, rows, cols)
		stencilDone(dst, 1)
		return backend.Dot(src.Local(), dst.Local())
	}
	return T(backend.Laplace5Dot(dv, sv, rows, cols))
}
