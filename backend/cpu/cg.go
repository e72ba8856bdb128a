package cpu

import (
	"sync"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu/internal/vec"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The operations of conjugate gradients: Axpby and the 5-point Laplacian.

// Axpby sets y = a*x + b*y, each product rounded, then the sum.
func (*Backend) Axpby(a driver.Scalar, x driver.Buffer, b driver.Scalar, y driver.Buffer) {
	opsFor(y.DType()).axpby(a, x, b, y)
}

func (impl[T]) axpby(a driver.Scalar, x driver.Buffer, b driver.Scalar, y driver.Buffer) {
	axpby(driver.ValueOf[T](a), hs[T](x), driver.ValueOf[T](b), hs[T](y))
}

func axpby[T backend.Element](a T, x []T, b T, y []T) {
	if n := len(y); n >= elemParMin {
		parallel(n, func(lo, hi int) { axpbyK(a, x[lo:hi], b, y[lo:hi]) })
		return
	}
	axpbyK(a, x, b, y)
}

// axpbyK is a Go loop (gonum has no axpby, and an AXPY after a scaling
// would pass over y twice), with the AVX-512 or AVX2 kernel for float64
// where it runs.
func axpbyK[T backend.Element](a T, x []T, b T, y []T) {
	x = x[:len(y)]
	i := 0
	if len(y) >= 8 && vectorF64[T]() {
		if use512 && len(y) >= 16 {
			i = vec.AxpbyAVX512(float64(a), f64(x), float64(b), f64(y), len(y))
		} else {
			i = vec.AxpbyAVX2(float64(a), f64(x), float64(b), f64(y), len(y))
		}
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
func (*Backend) Laplace5(dst, src driver.Buffer, rows, cols int) {
	checkGrid("Laplace5", dst, src, rows, cols)
	switch dst.DType() {
	case backend.Float32:
		stencil(laplaceRows[float32], driver.HostSlice[float32](dst), driver.HostSlice[float32](src), rows, cols)
	case backend.Float64:
		stencil(laplaceRows[float64], driver.HostSlice[float64](dst), driver.HostSlice[float64](src), rows, cols)
	}
}

// laplaceRows applies the Laplacian to the interior of rows [r0, r1), 1 <=
// r0 <= r1 <= rows-1, keeping the row's elements in registers as
// jacobiRows does: each element of the row is loaded once, as a right
// neighbour, and reused as the centre and then the left neighbour (3 loads
// per point instead of 5). float64 rows take the vector kernels as
// jacobiRows does, with the same result.
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
		if avx && stencil512 && len(out) >= 16 {
			j = vec.LaplaceRowAVX512(f64(out), f64(mid), f64(up), f64(down), f64(left), f64(right), len(out))
		}
		if avx && len(out)-j >= 8 {
			j += vec.LaplaceRowAVX2(f64(out[j:]), f64(mid[j:]), f64(up[j:]), f64(down[j:]), f64(left[j:]), f64(right[j:]), len(out)-j)
		}
		if j == 0 && len(out) >= 4 {
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

// Laplace5Dot applies Laplace5 to a rows x cols row-major float32 or
// float64 grid and returns the sum of src*dst over the rows 1 to rows-2,
// every column, with dst's values after the stencil, accumulated in
// float64 in the order of driver.StencilDots, in the same pass over
// memory as the stencil (the CPU backend's stencils have
// driver.StencilDots). float64 rows of 16 points or more take the AVX2
// kernel where it runs, with the same bits. It runs in parallel over rows
// as Laplace5 does; the sum is the same for every thread count. It panics
// as Jacobi5 does.
func (*Backend) Laplace5Dot(dst, src driver.Buffer, rows, cols int) float64 {
	checkGrid("Laplace5Dot", dst, src, rows, cols)
	switch dst.DType() {
	case backend.Float32:
		return laplaceDot(driver.HostSlice[float32](dst), driver.HostSlice[float32](src), rows, cols)
	case backend.Float64:
		return laplaceDot(driver.HostSlice[float64](dst), driver.HostSlice[float64](src), rows, cols)
	}
	return 0
}

// rowSums holds the per-row sums of a parallel Laplace5Dot, which are
// added in row order once every row is done.
var rowSums = sync.Pool{New: func() any { return new([]float64) }}

// laplaceDot is Laplace5Dot on slices: serially, each row's sum added as
// it is done; in parallel (as stencil cuts the rows), each row's sum kept
// and the sums added in row order afterwards, which gives the same bits.
func laplaceDot[T backend.Float](dst, src []T, rows, cols int) float64 {
	if rows < 3 {
		return 0
	}
	inner := rows - 2
	grain := max(1, stencilGrain/max(cols, 1))
	if inner*cols <= stencilGrain || backend.Threads() <= 1 || inner < 2*grain {
		s := 0.0
		for i := 1; i < rows-1; i++ {
			s += laplaceDotRow(dst, src, cols, i)
		}
		return s
	}
	p := rowSums.Get().(*[]float64)
	defer rowSums.Put(p)
	if cap(*p) < inner {
		*p = make([]float64, inner)
	}
	sums := (*p)[:inner]
	backend.ParallelFor(inner, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sums[i] = laplaceDotRow(dst, src, cols, i+1)
		}
	})
	s := 0.0
	for _, v := range sums {
		s += v
	}
	return s
}

// laplaceDotRow applies the Laplacian to the interior of row i,
// 1 <= i < rows-1, as laplaceRows does, and returns the row's sum of
// src*dst in the order of driver.StencilDots: the AVX2 kernel's 16 lanes
// (or its AVX-512 form's, the same) for float64 rows of 16 interior points
// or more where it runs, else
// laplaceRows' loop for the row and then lanes16 over it, which adds in
// the same order.
func laplaceDotRow[T backend.Float](dst, src []T, cols, i int) float64 {
	n := cols - 2 // interior points of the row
	s := 0.0
	if n > 0 {
		out := dst[i*cols+1 : i*cols+1+n]
		mid := src[i*cols+1 : i*cols+1+n]
		mid = mid[:len(out)]
		j := 0
		if vectorF64[T]() && n >= 16 {
			up := src[(i-1)*cols+1 : (i-1)*cols+1+n]
			down := src[(i+1)*cols+1 : (i+1)*cols+1+n]
			left := src[i*cols : i*cols+n]
			right := src[i*cols+2 : i*cols+2+n]
			up, down, left, right = up[:len(out)], down[:len(out)], left[:len(out)], right[:len(out)]
			if stencil512 {
				s, j = vec.LaplaceDotRowAVX512(f64(out), f64(mid), f64(up), f64(down), f64(left), f64(right), n)
			} else {
				s, j = vec.LaplaceDotRowAVX2(f64(out), f64(mid), f64(up), f64(down), f64(left), f64(right), n)
			}
			for k := j; k < n; k++ { // laplaceRows' last loop
				out[k] = T(4*mid[k]) - up[k] - down[k] - left[k] - right[k]
			}
		} else {
			laplaceRows(dst, src, cols, i, i+1)
			s, j = lanes16(mid, out)
		}
		for ; j < n; j++ {
			s += float64(float64(mid[j]) * float64(out[j]))
		}
	}
	if cols >= 1 {
		s += float64(float64(src[i*cols]) * float64(dst[i*cols]))
	}
	if cols >= 2 {
		s += float64(float64(src[i*cols+cols-1]) * float64(dst[i*cols+cols-1]))
	}
	return s
}

// lanes32 returns the sum of a[k]*b[k] over the first 32*(len(a)/32)
// elements and that count: element k goes to lane k%32, each lane from +0,
// the product rounded before the sum, and the lanes are combined as the
// vector ((A0+A1)+(A2+A3))+((A4+A5)+(A6+A7)) of their 8 groups of 4 (lane
// 4j+i is lane i of group j), then its lanes c as (c0+c2)+(c1+c3): the
// arithmetic of vec.DotAVX2, which does it where the processor has AVX2
// (and of vec.DotAVX512, where it has AVX-512F: use512).
func lanes32(a, b []float64) (float64, int) {
	if useVector && len(a) >= 32 {
		if use512 {
			return vec.DotAVX512(&a[0], &b[0], len(a))
		}
		return vec.DotAVX2(&a[0], &b[0], len(a))
	}
	m := len(a) &^ 31
	b = b[:len(a)]
	var l [32]float64
	for k := 0; k < m; k += 32 {
		a, b := a[k:k+32:k+32], b[k:k+32:k+32]
		for q := range 32 {
			l[q] += float64(a[q] * b[q])
		}
	}
	var c [4]float64
	for q := range 4 {
		c[q] = ((l[q] + l[4+q]) + (l[8+q] + l[12+q])) + ((l[16+q] + l[20+q]) + (l[24+q] + l[28+q]))
	}
	return (c[0] + c[2]) + (c[1] + c[3]), m
}

// lanes16 returns the sum of a[k]*b[k] over the first 16*(len(a)/16)
// elements, each product rounded to float64, in 16 lanes (element k in
// lane k%16, each lane from +0) combined as c[i] = (l[i]+l[8+i]) +
// (l[4+i]+l[12+i]), then (c[0]+c[2]) + (c[1]+c[3]): the order of
// vec.LaplaceDotRowAVX2, whose accumulator k holds lanes 4k to 4k+3. It
// returns how many elements it summed.
func lanes16[T backend.Float](a, b []T) (float64, int) {
	m := len(a) &^ 15
	b = b[:len(a)]
	var l [16]float64
	for k := 0; k < m; k += 16 {
		a, b := a[k:k+16], b[k:k+16]
		for q := range 16 {
			l[q] += float64(float64(a[q]) * float64(b[q]))
		}
	}
	var c [4]float64
	for q := range 4 {
		c[q] = (l[q] + l[8+q]) + (l[4+q] + l[12+q])
	}
	return (c[0] + c[2]) + (c[1] + c[3]), m
}
