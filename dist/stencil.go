package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// stencilViews returns the views of dst's and src's ghosted storage with
// halo indices of the split axis on each side of the block, and the view's
// rows and the elements per row; ok is false for an empty block. On a
// process grid the views are the whole ghosted storages, rows is the
// extent of axis 0 and cols the product of the others (ghosts included),
// and stencilDone must follow the stencil.
func stencilViews[T backend.Element](op string, dst, src *Array[T], halo, dims int) (dv, sv *backend.Array[T], rows, cols int, ok bool) {
	sameLayout(op, dst, src)
	if d := src.layout.Dims(); d != dims {
		panic(fmt.Sprintf("dist: %s of a %d-dimensional array %v: it takes %d dimensions", op, d, src.layout, dims))
	}
	if dst == src {
		panic(fmt.Sprintf("dist: %s with dst and src the same array", op))
	}
	for _, x := range []*Array[T]{dst, src} {
		if x.Ghosts() < halo {
			panic(fmt.Sprintf("dist: %s of an array with ghost layers of width %d: it needs %d (the Ghosts option)", op, x.Ghosts(), halo))
		}
	}
	if src.layout.isGrid() {
		if src.gh == nil || dst.gh == nil {
			panic(fmt.Sprintf("dist: %s of an array on a process grid without ghost layers (make both with the Ghosts option)", op))
		}
		var gshape []int
		if dv, sv, gshape, ok = gridStencil(op, dst, src); !ok {
			return nil, nil, 0, 0, false
		}
		return dv, sv, gshape[0], prod(gshape[1:]), true
	}
	lo, hi := src.Range()
	post := prod(src.layout.Shape()[1:])
	if lo == hi || post == 0 {
		return nil, nil, 0, 0, false
	}
	view := func(x *Array[T]) *backend.Array[T] {
		w := x.Ghosts()
		return x.Ghosted().Slice((w-halo)*post, (w+hi-lo+halo)*post)
	}
	return view(dst), view(src), hi - lo + 2*halo, post, true
}

// stencilDone finishes a stencil of halo on dst (see stencilViews): on a
// process grid it copies the result into dst's block.
func stencilDone[T backend.Element](dst *Array[T], halo int) {
	if dst.layout.isGrid() {
		gridStencilDone(dst, halo)
	}
}

// Jacobi5 sets every element of dst's block of a 2-D array to the average
// of src's four neighbours of it, 0.25*(up + down + left + right), with the
// backend's stencils (backend.Jacobi5): one Jacobi sweep for the heat
// equation.
//
// The stencils (Jacobi5, Laplace5, Stencil9, Stencil7, ApplyStencil) apply
// a fixed pattern of neighbours to every element of a block, reading src's
// ghost layers where the pattern crosses the block's edges along the split
// axis. They do not communicate: every rank calls them, each on its own
// block, after src's ghosts are exchanged (src.Exchange) or, at the ends
// of a non-periodic array, set as boundary values (FillBoundary). Along the
// split axis every element of the block is updated; along the other axes
// the first and last index are boundary values, left as they are. src and
// dst are arrays of one layout, split along axis 0, both made with Ghosts
// of width 1 or more (dst's ghosts are never written, but the backends'
// stencils work on grids of src's ghosted shape); they must not be the same
// array. Arguments that break these rules panic.
//
// On a process grid (arrays made with ProcessGrid and Ghosts, both of the
// same width), the results are those on row blocks: every element of the
// block is updated along axis 0, and along the other axes all but the
// global first and last index, reading the ghosts of every face, edge and
// corner (Stencil9 needs the corners; exchange src first). The stencil
// runs over src's whole ghosted storage into dst's, which is scratch, and
// the block's part of it is copied into dst's block (recorded with package
// profiling on a device).
func Jacobi5[T backend.Float](dst, src *Array[T]) {
	if dst.freed || src.freed {
		panic(freedError("Jacobi5"))
	}
	if dv, sv, rows, cols, ok := stencilViews("Jacobi5", dst, src, 1, 2); ok {
		backend.Jacobi5(dv, sv, rows, cols)
		stencilDone(dst, 1)
	}
}

// Laplace5 sets every element of dst's block of a 2-D array to the 5-point
// Laplacian of src with the sign that makes it positive definite,
// 4*centre - up - down - left - right, with the backend's stencils
// (backend.Laplace5), with the conventions of Jacobi5: src's ghosts
// exchanged first, the first and last column left as they are.
func Laplace5[T backend.Float](dst, src *Array[T]) {
	if dst.freed || src.freed {
		panic(freedError("Laplace5"))
	}
	if dv, sv, rows, cols, ok := stencilViews("Laplace5", dst, src, 1, 2); ok {
		backend.Laplace5(dv, sv, rows, cols)
		stencilDone(dst, 1)
	}
}

// Stencil9 sets every element (i, j) of dst's block of a 2-D array to
// the sum over a, b in 0, 1, 2 of w[a][b]*src[i+a-1][j+b-1], in that order
// (a, then b), with the conventions of Jacobi5: src's ghosts exchanged
// first, the first and last column left as they are.
//
// It runs on the block's device where the backend has weighted stencils
// (backend.WeightedStencils: the CPU, fake-device and CUDA backends); on
// another both ghosted blocks are copied to the host and dst's back,
// each copy recorded with package profiling. A failed copy is the error.
func Stencil9[T backend.Float](dst, src *Array[T], w [3][3]T) error {
	if dst.freed || src.freed {
		return freedError("Stencil9")
	}
	dv, sv, rows, cols, ok := stencilViews("Stencil9", dst, src, 1, 2)
	if !ok {
		return nil
	}
	flat := [9]T{w[0][0], w[0][1], w[0][2], w[1][0], w[1][1], w[1][2], w[2][0], w[2][1], w[2][2]}
	if err := weighted(dv, sv, func(d, s *backend.Array[T]) { backend.Stencil9(d, s, rows, cols, flat) }); err != nil {
		return err
	}
	stencilDone(dst, 1)
	return nil
}

// Stencil7 sets every element (i, j, k) of dst's block of a 3-D array to
//
//	w[0]*src[i][j][k] + w[1]*src[i-1][j][k] + w[2]*src[i+1][j][k] +
//	w[3]*src[i][j-1][k] + w[4]*src[i][j+1][k] +
//	w[5]*src[i][j][k-1] + w[6]*src[i][j][k+1]
//
// summed in that order, with the conventions of Jacobi5: src's ghosts
// exchanged first, the elements whose index along axis 1 or 2 is the first
// or the last left as they are. It runs on the device, or through the
// host, as Stencil9 does.
func Stencil7[T backend.Float](dst, src *Array[T], w [7]T) error {
	if dst.freed || src.freed {
		return freedError("Stencil7")
	}
	dv, sv, rows, _, ok := stencilViews("Stencil7", dst, src, 1, 3)
	if !ok {
		return nil
	}
	s := src.layout.Shape()
	if src.layout.isGrid() {
		s = src.GhostedShape()
	}
	if err := weighted(dv, sv, func(d, x *backend.Array[T]) { backend.Stencil7(d, x, rows, s[1], s[2], w) }); err != nil {
		return err
	}
	stencilDone(dst, 1)
	return nil
}

// weighted runs f, a weighted stencil, on dv and sv where their backend
// has weighted stencils, and otherwise on host copies of them (dv's copied
// back).
func weighted[T backend.Float](dv, sv *backend.Array[T], f func(d, s *backend.Array[T])) error {
	if _, ok := backend.WeightedStencilsOf(dv.Backend()); ok {
		f(dv, sv)
		return nil
	}
	hs, err := backend.ToHost(sv)
	if err != nil {
		return err
	}
	defer hs.Free()
	hd, err := backend.ToHost(dv)
	if err != nil {
		return err
	}
	defer hd.Free()
	f(hd, hs)
	return backend.CopyFromHostSlice(dv, hd.Data())
}

// ApplyStencil runs f, a stencil of the caller's (a kernel of package
// kernels, say), over dst's and src's blocks with halo ghost indices on
// each side: f gets views of both ghosted storages, each rows x cols in
// row-major order, where rows is the block's extent along the split axis
// plus 2*halo and cols the number of elements per index of the split axis
// (the product of the other dimensions), and must write only the rows
// [halo, rows-halo) of dst, its block. Both arrays need Ghosts of width halo
// or more. f is not called for an empty block; its error is returned. It
// does not communicate: exchange src's ghosts first (see Jacobi5).
//
// On a process grid both arrays need Ghosts of the same width w >= halo;
// the views are then both whole ghosted storages (GhostedShape: every axis
// extended by 2*w), rows is the first dimension and cols the product of
// the others, f writes dst's ghosted storage, and ApplyStencil copies the
// block's part of it into dst's block, except the first and last halo
// indices of the global array along every axis but the first, which keep
// their values, as a kernel that leaves the edges of its grid alone leaves
// them on row blocks.
//
// The views are on the blocks' device; the kernels of package kernels run
// there:
//
//	dist.ApplyStencil(v, u, 1, func(d, s *backend.Array[float64], rows, cols int) error {
//		return kernels.Jacobi5Kernel.Call(kernels.Int(rows), kernels.Int(cols), kernels.Array(d), kernels.Array(s))
//	})
func ApplyStencil[T backend.Element](dst, src *Array[T], halo int, f func(dst, src *backend.Array[T], rows, cols int) error) error {
	if dst.freed || src.freed {
		return freedError("ApplyStencil")
	}
	if halo < 0 {
		panic(fmt.Sprintf("dist: ApplyStencil with halo %d", halo))
	}
	dv, sv, rows, cols, ok := stencilViews("ApplyStencil", dst, src, halo, src.layout.Dims())
	if !ok {
		return nil
	}
	if err := f(dv, sv, rows, cols); err != nil {
		return err
	}
	stencilDone(dst, halo)
	return nil
}
