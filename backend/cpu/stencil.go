package cpu

import "github.com/xpmpi/xpmpi/backend"

// jacobi5 applies one 5-point Jacobi sweep to the interior of a rows x cols
// grid, in parallel over rows: each goroutine takes at least elemGrain
// elements' worth of whole rows.
func jacobi5[T backend.Float](dst, src []T, rows, cols int) {
	if rows < 3 || cols < 3 {
		return
	}
	inner := rows - 2
	if inner*cols <= elemGrain {
		jacobiRows(dst, src, cols, 1, rows-1)
		return
	}
	grain := max(1, elemGrain/cols)
	backend.ParallelFor(inner, grain, func(lo, hi int) { jacobiRows(dst, src, cols, lo+1, hi+1) })
}

// jacobiRows updates the interior of rows [r0, r1), 1 <= r0 <= r1 <= rows-1.
func jacobiRows[T backend.Float](dst, src []T, cols, r0, r1 int) {
	const q = 0.25
	n := cols - 2 // interior elements of a row
	for i := r0; i < r1; i++ {
		out := dst[i*cols+1 : i*cols+1+n]
		up := src[(i-1)*cols+1 : (i-1)*cols+1+n]
		down := src[(i+1)*cols+1 : (i+1)*cols+1+n]
		left := src[i*cols : i*cols+n]
		right := src[i*cols+2 : i*cols+2+n]
		j := 0
		for ; j+4 <= n; j += 4 {
			o := out[j : j+4 : j+4]
			u := up[j : j+4 : j+4]
			d := down[j : j+4 : j+4]
			l := left[j : j+4 : j+4]
			r := right[j : j+4 : j+4]
			o[0] = q * (u[0] + d[0] + l[0] + r[0])
			o[1] = q * (u[1] + d[1] + l[1] + r[1])
			o[2] = q * (u[2] + d[2] + l[2] + r[2])
			o[3] = q * (u[3] + d[3] + l[3] + r[3])
		}
		for ; j < n; j++ {
			out[j] = q * (up[j] + down[j] + left[j] + right[j])
		}
	}
}
