package cpu

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// Axpby sets y = a*x + b*y.
func (*Backend) Axpby(a backend.Scalar, x backend.Buffer, b backend.Scalar, y backend.Buffer) {
	switch y.DType() {
	case backend.Float32:
		axpby(backend.ValueOf[float32](a), backend.HostSlice[float32](x), backend.ValueOf[float32](b), backend.HostSlice[float32](y))
	case backend.Float64:
		axpby(backend.ValueOf[float64](a), backend.HostSlice[float64](x), backend.ValueOf[float64](b), backend.HostSlice[float64](y))
	case backend.Int32:
		axpby(backend.ValueOf[int32](a), backend.HostSlice[int32](x), backend.ValueOf[int32](b), backend.HostSlice[int32](y))
	case backend.Int64:
		axpby(backend.ValueOf[int64](a), backend.HostSlice[int64](x), backend.ValueOf[int64](b), backend.HostSlice[int64](y))
	case backend.Uint32:
		axpby(backend.ValueOf[uint32](a), backend.HostSlice[uint32](x), backend.ValueOf[uint32](b), backend.HostSlice[uint32](y))
	case backend.Uint64:
		axpby(backend.ValueOf[uint64](a), backend.HostSlice[uint64](x), backend.ValueOf[uint64](b), backend.HostSlice[uint64](y))
	}
}

func axpby[T backend.Element](a T, x []T, b T, y []T) {
	if n := len(y); n > elemGrain {
		parallel(n, func(lo, hi int) { axpbyK(a, x[lo:hi], b, y[lo:hi]) })
		return
	}
	axpbyK(a, x, b, y)
}

func axpbyK[T backend.Element](a T, x []T, b T, y []T) {
	x = x[:len(y)]
	i := 0
	for ; i < len(y)-3; i += 4 {
		y[i] = a*x[i] + b*y[i]
		y[i+1] = a*x[i+1] + b*y[i+1]
		y[i+2] = a*x[i+2] + b*y[i+2]
		y[i+3] = a*x[i+3] + b*y[i+3]
	}
	for ; i < len(y); i++ {
		y[i] = a*x[i] + b*y[i]
	}
}

// Laplace5 applies the 5-point Laplacian to the interior of a float grid,
// in parallel over rows.
func (*Backend) Laplace5(dst, src backend.Buffer, rows, cols int) {
	switch dst.DType() {
	case backend.Float32:
		laplace5(backend.HostSlice[float32](dst), backend.HostSlice[float32](src), rows, cols)
	case backend.Float64:
		laplace5(backend.HostSlice[float64](dst), backend.HostSlice[float64](src), rows, cols)
	default:
		panic(fmt.Sprintf("cpu: Laplace5 of %v: a stencil needs float32 or float64", dst.DType()))
	}
}

func laplace5[T backend.Float](dst, src []T, rows, cols int) {
	if rows < 3 || cols < 3 {
		return
	}
	inner := rows - 2
	if inner*cols <= stencilGrain {
		laplaceRows(dst, src, cols, 1, rows-1)
		return
	}
	grain := max(1, stencilGrain/cols)
	backend.ParallelFor(inner, grain, func(lo, hi int) { laplaceRows(dst, src, cols, lo+1, hi+1) })
}

func laplaceRows[T backend.Float](dst, src []T, cols, r0, r1 int) {
	n := cols - 2
	for i := r0; i < r1; i++ {
		out := dst[i*cols+1 : i*cols+1+n]
		mid := src[i*cols+1 : i*cols+1+n]
		up := src[(i-1)*cols+1 : (i-1)*cols+1+n]
		down := src[(i+1)*cols+1 : (i+1)*cols+1+n]
		left := src[i*cols : i*cols+n]
		right := src[i*cols+2 : i*cols+2+n]
		mid, up, down, left, right = mid[:len(out)], up[:len(out)], down[:len(out)], left[:len(out)], right[:len(out)]
		for j := range out {
			out[j] = 4*mid[j] - up[j] - down[j] - left[j] - right[j]
		}
	}
}
