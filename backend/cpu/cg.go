package cpu

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu/internal/vec"
)

// The operations of conjugate gradients: Axpby and the 5-point Laplacian.

// Axpby sets y = a*x + b*y, each product rounded, then the sum.
func (*Backend) Axpby(a backend.Scalar, x backend.Buffer, b backend.Scalar, y backend.Buffer) {
	opsFor(y.DType()).axpby(a, x, b, y)
}

func (impl[T]) axpby(a backend.Scalar, x backend.Buffer, b backend.Scalar, y backend.Buffer) {
	axpby(backend.ValueOf[T](a), hs[T](x), backend.ValueOf[T](b), hs[T](y))
}

func axpby[T backend.Element](a T, x []T, b T, y []T) {
	if n := len(y); n >= elemParMin {
		parallel(n, func(lo, hi int) { axpbyK(a, x[lo:hi], b, y[lo:hi]) })
		return
	}
	axpbyK(a, x, b, y)
}

// axpbyK is a Go loop (gonum has no axpby, and an AXPY after a scaling
// would pass over y twice), with the AVX2 kernel for float64 where it runs.
func axpbyK[T backend.Element](a T, x []T, b T, y []T) {
	x = x[:len(y)]
	i := 0
	if len(y) >= 8 && vectorF64[T]() {
		i = vec.AxpbyAVX2(float64(a), f64(x), float64(b), f64(y), len(y))
	}
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

// Laplace5 applies the 5-point Laplacian, with the sign that makes it
// positive definite, to a rows x cols row-major float32 or float64 grid:
// for 1 <= i < rows-1 and 1 <= j < cols-1,
// dst[i][j] = 4*src[i][j] - src[i-1][j] - src[i+1][j] - src[i][j-1] - src[i][j+1],
// subtracted in that order, in parallel over rows. Other elements of dst are
// left as they are. It panics as Jacobi5 does.
func (*Backend) Laplace5(dst, src backend.Buffer, rows, cols int) {
	checkGrid("Laplace5", dst, src, rows, cols)
	switch dst.DType() {
	case backend.Float32:
		stencil(laplaceRows[float32], backend.HostSlice[float32](dst), backend.HostSlice[float32](src), rows, cols)
	case backend.Float64:
		stencil(laplaceRows[float64], backend.HostSlice[float64](dst), backend.HostSlice[float64](src), rows, cols)
	}
}

// laplaceRows applies the Laplacian to the interior of rows [r0, r1), 1 <=
// r0 <= r1 <= rows-1, keeping the row's elements in registers as
// jacobiRows does: each element of the row is loaded once, as a right
// neighbour, and reused as the centre and then the left neighbour (3 loads
// per point instead of 5).
func laplaceRows[T backend.Float](dst, src []T, cols, r0, r1 int) {
	n := cols - 2 // interior points of a row
	avx := vectorF64[T]()
	for i := r0; i < r1; i++ {
		out := dst[i*cols+1 : i*cols+1+n]
		up := src[(i-1)*cols+1 : (i-1)*cols+1+n]
		down := src[(i+1)*cols+1 : (i+1)*cols+1+n]
		left := src[i*cols : i*cols+n]
		mid := src[i*cols+1 : i*cols+1+n]
		right := src[i*cols+2 : i*cols+2+n]
		up, down, left, mid, right = up[:len(out)], down[:len(out)], left[:len(out)], mid[:len(out)], right[:len(out)]
		j := 0
		if avx && len(out) >= 8 {
			j = vec.LaplaceRowAVX2(f64(out), f64(mid), f64(up), f64(down), f64(left), f64(right), len(out))
		} else if len(out) >= 4 {
			c0, c1 := left[0], mid[0] // the left neighbour and the centre of out[j]
			for ; j < len(out)-3; j += 4 {
				r0, r1, r2, r3 := right[j], right[j+1], right[j+2], right[j+3]
				out[j] = 4*c1 - up[j] - down[j] - c0 - r0
				out[j+1] = 4*r0 - up[j+1] - down[j+1] - c1 - r1
				out[j+2] = 4*r1 - up[j+2] - down[j+2] - r0 - r2
				out[j+3] = 4*r2 - up[j+3] - down[j+3] - r1 - r3
				c0, c1 = r2, r3
			}
		}
		for ; j < len(out); j++ {
			out[j] = 4*mid[j] - up[j] - down[j] - left[j] - right[j]
		}
	}
}
