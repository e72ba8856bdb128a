package cpu

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CPU backend reduces along an axis as a driver.AxisReducer.
var _ driver.AxisReducer = (*Backend)(nil)

// axisOps is the type-erased form of the axis reductions for one element
// type.
type axisOps interface {
	sumAxis(dst, src driver.Buffer, pre, n, post int, squares bool)
	castSums(dst, acc driver.Buffer, sqrt bool)
	extremeAxis(vals, idx, src driver.Buffer, pre, n, post int, offset int64, max bool)
	combineExtremes(vals, idx, allVals, allIdx driver.Buffer, p int, max bool)
}

func axisOpsFor(dt backend.DType) axisOps {
	switch dt {
	case backend.Float32:
		return axisImpl[float32]{}
	case backend.Float64:
		return axisImpl[float64]{}
	case backend.Int32:
		return axisImpl[int32]{}
	case backend.Int64:
		return axisImpl[int64]{}
	case backend.Uint32:
		return axisImpl[uint32]{}
	case backend.Int8:
		return axisImpl[int8]{}
	case backend.Int16:
		return axisImpl[int16]{}
	case backend.Uint8:
		return axisImpl[uint8]{}
	case backend.Uint16:
		return axisImpl[uint16]{}
	}
	return axisImpl[uint64]{}
}

type axisImpl[T backend.Element] struct{}

func (axisImpl[T]) sumAxis(dst, src driver.Buffer, pre, n, post int, squares bool) {
	x := hs[T](src)
	if src.DType().IsFloat() {
		acc := hs[float64](dst)
		clear(acc)
		for i := 0; i < pre; i++ {
			a := acc[i*post : (i+1)*post]
			for k := 0; k < n; k++ {
				row := x[(i*n+k)*post : (i*n+k+1)*post]
				for j, v := range row {
					if squares {
						a[j] += float64(v) * float64(v)
					} else {
						a[j] += float64(v)
					}
				}
			}
		}
		return
	}
	acc := hs[T](dst)
	clear(acc)
	for i := 0; i < pre; i++ {
		a := acc[i*post : (i+1)*post]
		for k := 0; k < n; k++ {
			row := x[(i*n+k)*post : (i*n+k+1)*post]
			for j, v := range row {
				if squares {
					a[j] += v * v
				} else {
					a[j] += v
				}
			}
		}
	}
}

func (axisImpl[T]) castSums(dst, acc driver.Buffer, sqrt bool) {
	d, a := hs[T](dst), hs[float64](acc)
	for i, v := range a {
		if sqrt {
			v = math.Sqrt(v)
		}
		d[i] = T(v)
	}
}

func (axisImpl[T]) extremeAxis(vals, idx, src driver.Buffer, pre, n, post int, offset int64, max bool) {
	x, bv, bi := hs[T](src), hs[T](vals), hs[int64](idx)
	clear(bv)
	for i := range bi {
		bi[i] = -1
	}
	for i := 0; i < pre; i++ {
		v, ix := bv[i*post:(i+1)*post], bi[i*post:(i+1)*post]
		for k := 0; k < n; k++ {
			row := x[(i*n+k)*post : (i*n+k+1)*post]
			g := offset + int64(k)
			for j, e := range row {
				if algorithms.Better(e, g, v[j], ix[j], max) {
					v[j], ix[j] = e, g
				}
			}
		}
	}
}

func (axisImpl[T]) combineExtremes(vals, idx, allVals, allIdx driver.Buffer, p int, max bool) {
	v, ix, av, ai := hs[T](vals), hs[int64](idx), hs[T](allVals), hs[int64](allIdx)
	m := len(v)
	for j := range v {
		v[j], ix[j] = av[j], ai[j]
		for r := 1; r < p; r++ {
			if algorithms.Better(av[r*m+j], ai[r*m+j], v[j], ix[j], max) {
				v[j], ix[j] = av[r*m+j], ai[r*m+j]
			}
		}
	}
}

// sumAxisComplex sums complex src along the middle of pre x n x post into
// the Complex128 dst, part by part in float64, in the order of k.
func sumAxisComplex[T backend.Complex](dst, src driver.Buffer, pre, n, post int) {
	x, acc := hs[T](src), hs[complex128](dst)
	clear(acc)
	for i := 0; i < pre; i++ {
		a := acc[i*post : (i+1)*post]
		for k := 0; k < n; k++ {
			for j, v := range x[(i*n+k)*post : (i*n+k+1)*post] {
				a[j] += complex128(v)
			}
		}
	}
}

// castComplex rounds the Complex128 sums acc to dst's complex type.
func castComplex[T backend.Complex](dst, acc driver.Buffer) {
	d := hs[T](dst)
	for i, v := range hs[complex128](acc) {
		d[i] = T(v)
	}
}

// SumAxis sums src along the middle of pre x n x post into dst; complex
// src into a Complex128 dst (squares is not defined for complex src).
func (*Backend) SumAxis(dst, src driver.Buffer, pre, n, post int, squares bool) {
	if src.DType().IsComplex() {
		if squares || dst.DType() != backend.Complex128 {
			panic(fmt.Sprintf("cpu: SumAxis of %v into %v (squares %v)", src.DType(), dst.DType(), squares))
		}
		if src.DType() == backend.Complex64 {
			sumAxisComplex[complex64](dst, src, pre, n, post)
		} else {
			sumAxisComplex[complex128](dst, src, pre, n, post)
		}
		return
	}
	axisOpsFor(src.DType()).sumAxis(dst, src, pre, n, post, squares)
}

// CastSums converts float64 sums (or their square roots) to dst's type.
func (*Backend) CastSums(dst, acc driver.Buffer, sqrt bool) {
	if dst.DType().IsComplex() {
		if sqrt || acc.DType() != backend.Complex128 {
			panic(fmt.Sprintf("cpu: CastSums of %v into %v (sqrt %v)", acc.DType(), dst.DType(), sqrt))
		}
		if dst.DType() == backend.Complex64 {
			castComplex[complex64](dst, acc)
		} else {
			castComplex[complex128](dst, acc)
		}
		return
	}
	axisOpsFor(dst.DType()).castSums(dst, acc, sqrt)
}

// ExtremeAxis finds the first minima (maxima) along the middle axis.
func (*Backend) ExtremeAxis(vals, idx, src driver.Buffer, pre, n, post int, offset int64, max bool) {
	axisOpsFor(src.DType()).extremeAxis(vals, idx, src, pre, n, post, offset, max)
}

// CombineExtremes keeps the best of p partial minima (maxima).
func (*Backend) CombineExtremes(vals, idx, allVals, allIdx driver.Buffer, p int, max bool) {
	axisOpsFor(vals.DType()).combineExtremes(vals, idx, allVals, allIdx, p, max)
}
