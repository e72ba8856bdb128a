package backend

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// Stencil9 applies the 9-point stencil with weights w (see
// driver.WeightedStencils.Stencil9) of src into dst, two rows x cols row-major
// grids on one device, with dst's backend. It panics if the backend has
// no weighted stencils (driver.WeightedStencilsOf).
func Stencil9[T Float](dst, src *Array[T], rows, cols int, w [9]T) {
	stencilArgs("Stencil9", dst, src, rows, cols)
	s, ok := driver.WeightedStencilsOf(dst.b)
	if !ok {
		panic(fmt.Sprintf("backend: the %s backend has no weighted stencils", dst.b.Name()))
	}
	var w64 [9]float64
	for i, v := range w {
		w64[i] = float64(v)
	}
	s.Stencil9(dst.buf, src.buf, rows, cols, w64)
}

// Stencil7 applies the 7-point 3-D stencil with weights w (see
// driver.WeightedStencils.Stencil7) of src into dst, two n0 x n1 x n2 row-major
// grids on one device, with dst's backend. It panics if the backend has
// no weighted stencils (driver.WeightedStencilsOf).
func Stencil7[T Float](dst, src *Array[T], n0, n1, n2 int, w [7]T) {
	if n2 < 0 {
		panic(fmt.Sprintf("backend: Stencil7 of a %d x %d x %d grid", n0, n1, n2))
	}
	stencilArgs("Stencil7", dst, src, n0, n1*n2)
	s, ok := driver.WeightedStencilsOf(dst.b)
	if !ok {
		panic(fmt.Sprintf("backend: the %s backend has no weighted stencils", dst.b.Name()))
	}
	var w64 [7]float64
	for i, v := range w {
		w64[i] = float64(v)
	}
	s.Stencil7(dst.buf, src.buf, n0, n1, n2, w64)
}

// Laplace5Dot applies the 5-point Laplacian of src into dst, two rows x
// cols row-major grids on one device, as Laplace5 does, and returns the
// sum of src*dst over the rows 1 to rows-2 (every column), with dst's
// values after the stencil, accumulated in float64. Where the stencils of
// dst's backend (driver.StencilsOf) have driver.StencilDots, that is one pass over
// memory, in the order driver.StencilDots documents; otherwise it is Laplace5
// then the backend's Dot over those rows, on the device, in the order of
// that Dot. The two sums agree to rounding, not bit for bit.
func Laplace5Dot[T Float](dst, src *Array[T], rows, cols int) float64 {
	stencilArgs("Laplace5Dot", dst, src, rows, cols)
	s := driver.StencilsOf(dst.b)
	if d, ok := s.(driver.StencilDots); ok {
		return d.Laplace5Dot(dst.buf, src.buf, rows, cols)
	}
	s.Laplace5(dst.buf, src.buf, rows, cols)
	if rows < 3 {
		return 0
	}
	d, x := dst.Slice(cols, (rows-1)*cols), src.Slice(cols, (rows-1)*cols)
	return dst.b.Dot(x.buf, d.buf).Float64()
}
