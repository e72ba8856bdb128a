package cpu

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu/internal/vec"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// stencil runs rowsK, a 5-point stencil over rows [r0, r1), on the interior
// of a rows x cols grid, in parallel over rows: each goroutine takes at
// least stencilGrain points' worth of whole rows.
func stencil[T backend.Float](rowsK func(dst, src []T, cols, r0, r1 int), dst, src []T, rows, cols int) {
	if rows < 3 || cols < 3 {
		return
	}
	inner := rows - 2
	if inner*cols <= stencilGrain {
		rowsK(dst, src, cols, 1, rows-1)
		return
	}
	grain := max(1, stencilGrain/cols)
	backend.ParallelFor(inner, grain, func(lo, hi int) { rowsK(dst, src, cols, lo+1, hi+1) })
}

// checkGrid panics unless dst and src are float grids of the same type with
// at least rows*cols elements that do not overlap.
func checkGrid(op string, dst, src driver.Buffer, rows, cols int) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("cpu: %s of a %d x %d grid", op, rows, cols))
	}
	if dst.DType() != src.DType() {
		panic(fmt.Sprintf("cpu: %s from %v to %v", op, src.DType(), dst.DType()))
	}
	if !dst.DType().IsFloat() {
		panic(fmt.Sprintf("cpu: %s needs a float32 or float64 grid, not %v", op, dst.DType()))
	}
	if dst.Len() < rows*cols || src.Len() < rows*cols {
		panic(fmt.Sprintf("cpu: %s of a %d x %d grid on buffers of %d and %d elements",
			op, rows, cols, dst.Len(), src.Len()))
	}
	if rows*cols > 0 && overlap(dst.Ptr(), src.Ptr(), rows*cols*dst.DType().Size()) {
		panic(fmt.Sprintf("cpu: %s: dst and src overlap", op))
	}
}

// jacobiRows updates the interior of rows [r0, r1), 1 <= r0 <= r1 <= rows-1.
// The neighbour slices of a row are cut to the same length first, so that
// the inner loop has no bounds checks, and the loop, unrolled by 4, keeps
// the row's elements in registers: each src element of the row is loaded
// once as a right neighbour and reused as the left neighbour two points on
// (3 loads per point instead of 4: 22-36% faster in cache, 64x64; large
// grids are memory-bound either way). float64 rows of 8 points or more take
// the AVX2 kernel (vector.go) where it runs, and their first n&^15 points
// its AVX-512 form where that runs (stencil512), with the same result.
func jacobiRows[T backend.Float](dst, src []T, cols, r0, r1 int) {
	const q = 0.25
	n := cols - 2 // interior points of a row
	avx := vectorF64[T]()
	for i := r0; i < r1; i++ {
		out := dst[i*cols+1 : i*cols+1+n]
		up := src[(i-1)*cols+1 : (i-1)*cols+1+n]
		down := src[(i+1)*cols+1 : (i+1)*cols+1+n]
		left := src[i*cols : i*cols+n]
		right := src[i*cols+2 : i*cols+2+n]
		up, down, left, right = up[:len(out)], down[:len(out)], left[:len(out)], right[:len(out)]
		j := 0
		if avx && stencil512 && len(out) >= 16 {
			j = vec.JacobiRowAVX512(f64(out), f64(up), f64(down), f64(left), f64(right), len(out))
		}
		if avx && len(out)-j >= 8 {
			j += vec.JacobiRowAVX2(f64(out[j:]), f64(up[j:]), f64(down[j:]), f64(left[j:]), f64(right[j:]), len(out)-j)
		}
		if j == 0 && len(out) >= 4 {
			l0, l1 := left[0], left[1] // the left neighbours of out[j], out[j+1]
			for ; j < len(out)-3; j += 4 {
				r0, r1, r2, r3 := right[j], right[j+1], right[j+2], right[j+3]
				out[j] = q * (up[j] + down[j] + l0 + r0)
				out[j+1] = q * (up[j+1] + down[j+1] + l1 + r1)
				out[j+2] = q * (up[j+2] + down[j+2] + r0 + r2)
				out[j+3] = q * (up[j+3] + down[j+3] + r1 + r3)
				l0, l1 = r2, r3
			}
		}
		for ; j < len(out); j++ {
			out[j] = q * (up[j] + down[j] + left[j] + right[j])
		}
	}
}

// Stencil9 applies the 9-point stencil with weights w to a rows x cols
// row-major float32 or float64 grid (see driver.WeightedStencils), in
// parallel over rows. It panics as Jacobi5 does.
func (*Backend) Stencil9(dst, src driver.Buffer, rows, cols int, w [9]float64) {
	checkGrid("Stencil9", dst, src, rows, cols)
	switch dst.DType() {
	case backend.Float32:
		stencil(stencil9Rows[float32](w), driver.HostSlice[float32](dst), driver.HostSlice[float32](src), rows, cols)
	case backend.Float64:
		stencil(stencil9Rows[float64](w), driver.HostSlice[float64](dst), driver.HostSlice[float64](src), rows, cols)
	}
}

// stencil9Rows returns the row kernel of the 9-point stencil with weights w.
func stencil9Rows[T backend.Float](w [9]float64) func(dst, src []T, cols, r0, r1 int) {
	var q [9]T
	for i, v := range w {
		q[i] = T(v)
	}
	return func(dst, src []T, cols, r0, r1 int) {
		for i := r0; i < r1; i++ {
			up, mid, down := src[(i-1)*cols:i*cols], src[i*cols:(i+1)*cols], src[(i+1)*cols:(i+2)*cols]
			out := dst[i*cols : (i+1)*cols]
			for j := 1; j < cols-1; j++ {
				// Each product rounded on its own (no fused multiply-add).
				s := T(q[0]*up[j-1]) + T(q[1]*up[j]) + T(q[2]*up[j+1])
				s += T(q[3] * mid[j-1])
				s += T(q[4] * mid[j])
				s += T(q[5] * mid[j+1])
				s += T(q[6] * down[j-1])
				s += T(q[7] * down[j])
				s += T(q[8] * down[j+1])
				out[j] = s
			}
		}
	}
}

// Stencil7 applies the 7-point 3-D stencil with weights w to an
// n0 x n1 x n2 row-major float32 or float64 grid (see
// driver.WeightedStencils), in parallel over the first axis. It panics as
// Jacobi5 does.
func (*Backend) Stencil7(dst, src driver.Buffer, n0, n1, n2 int, w [7]float64) {
	if n2 < 0 {
		panic(fmt.Sprintf("cpu: Stencil7 of a %d x %d x %d grid", n0, n1, n2))
	}
	checkGrid("Stencil7", dst, src, n0, n1*n2)
	switch dst.DType() {
	case backend.Float32:
		stencil7(driver.HostSlice[float32](dst), driver.HostSlice[float32](src), n0, n1, n2, w)
	case backend.Float64:
		stencil7(driver.HostSlice[float64](dst), driver.HostSlice[float64](src), n0, n1, n2, w)
	}
}

func stencil7[T backend.Float](dst, src []T, n0, n1, n2 int, w [7]float64) {
	if n0 < 3 || n1 < 3 || n2 < 3 {
		return
	}
	var q [7]T
	for i, v := range w {
		q[i] = T(v)
	}
	plane := n1 * n2
	planes := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := 1; j < n1-1; j++ {
				row := i*plane + j*n2
				for k := 1; k < n2-1; k++ {
					p := row + k
					s := T(q[0]*src[p]) + T(q[1]*src[p-plane])
					s += T(q[2] * src[p+plane])
					s += T(q[3] * src[p-n2])
					s += T(q[4] * src[p+n2])
					s += T(q[5] * src[p-1])
					s += T(q[6] * src[p+1])
					dst[p] = s
				}
			}
		}
	}
	inner := n0 - 2
	if inner*plane <= stencilGrain {
		planes(1, n0-1)
		return
	}
	backend.ParallelFor(inner, max(1, stencilGrain/plane), func(lo, hi int) { planes(lo+1, hi+1) })
}
