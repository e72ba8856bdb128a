package disttest

import (
	"math"
	"math/cmplx"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
)

// The reference: the operations computed serially on the global contents,
// with plain loops.

// normAxis returns axis counted from the end when negative, as NumPy does.
func normAxis(axis, nd int) int {
	if axis < 0 {
		return axis + nd
	}
	return axis
}

// without returns shape without axis: [1] for a 1-D shape, as dist's axis
// reductions give (NumPy's is a 0-d array).
func without(shape []int, axis int) []int {
	if len(shape) == 1 {
		return []int{1}
	}
	return append(slices.Clone(shape[:axis]), shape[axis+1:]...)
}

// geom returns the sizes before, along and after axis.
func geom(shape []int, axis int) (outer, n, inner int) {
	return prod(shape[:axis]), shape[axis], prod(shape[axis+1:])
}

// refAxis applies f to the elements along axis at every position of the
// other axes.
func refAxis[T any, U any](g []T, shape []int, axis int, f func(v []T) U) ([]U, []int) {
	outer, n, inner := geom(shape, axis)
	out := make([]U, outer*inner)
	v := make([]T, n)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			for k := 0; k < n; k++ {
				v[k] = g[(o*n+k)*inner+i]
			}
			out[o*inner+i] = f(v)
		}
	}
	return out, without(shape, axis)
}

// refScan applies the running f along axis.
func refScan[T any](g []T, shape []int, axis int, f func(acc, v T) T) []T {
	outer, n, inner := geom(shape, axis)
	out := make([]T, len(g))
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			for k := 0; k < n; k++ {
				j := (o*n+k)*inner + i
				if k == 0 {
					out[j] = g[j]
				} else {
					out[j] = f(out[j-inner], g[j])
				}
			}
		}
	}
	return out
}

func refMap[T, U any](g []T, f func(T) U) []U {
	out := make([]U, len(g))
	for i, v := range g {
		out[i] = f(v)
	}
	return out
}

func refMap2[T, U any](a, b []T, f func(T, T) U) []U {
	out := make([]U, len(a))
	for i := range a {
		out[i] = f(a[i], b[i])
	}
	return out
}

func refSum[T backend.Numeric](v []T) T {
	var s T
	for _, x := range v {
		s += x
	}
	return s
}

// refProd: floating-point products in float64 (complex128), as dist takes
// them; integer products wrap in T.
func refProd[T backend.Numeric](v []T) T {
	dt := backend.DTypeOf[T]()
	if isFloat(dt) || isComplex(dt) {
		p := complex(1, 0)
		for _, x := range v {
			p *= toC(x)
		}
		return fromC[T](p)
	}
	p := T(1)
	for _, x := range v {
		p *= x
	}
	return p
}

func refMin[T backend.Element](v []T) (T, int) {
	m, at := v[0], 0
	for i, x := range v {
		if x < m {
			m, at = x, i
		}
	}
	return m, at
}

func refMax[T backend.Element](v []T) (T, int) {
	m, at := v[0], 0
	for i, x := range v {
		if x > m {
			m, at = x, i
		}
	}
	return m, at
}

func refMean[T backend.Numeric](v []T) float64 {
	s := 0.0
	for _, x := range v {
		s += real(toC(x))
	}
	return s / float64(len(v))
}

func refVar[T backend.Numeric](v []T, ddof int) float64 {
	m := refMean(v)
	s := 0.0
	for _, x := range v {
		d := real(toC(x)) - m
		s += d * d
	}
	return s / float64(len(v)-ddof)
}

func refNorm[T backend.Numeric](v []T) float64 {
	s := 0.0
	for _, x := range v {
		a := cmplx.Abs(toC(x))
		s += a * a
	}
	return math.Sqrt(s)
}

// refSelect returns the elements of g (shape) at the indices idx[a] of each
// axis, row-major, and the shape of the selection.
func refSelect[T any](g []T, shape []int, idx [][]int) ([]T, []int) {
	out := []T{}
	sh := make([]int, len(shape))
	for a := range shape {
		sh[a] = len(idx[a])
	}
	n := prod(sh)
	pos := make([]int, len(shape))
	src := make([]int, len(shape))
	for k := 0; k < n; k++ {
		for a := range pos {
			src[a] = idx[a][pos[a]]
		}
		out = append(out, g[flat(src, shape)])
		for a := len(pos) - 1; a >= 0; a-- {
			pos[a]++
			if pos[a] < sh[a] {
				break
			}
			pos[a] = 0
		}
	}
	return out, sh
}

// all returns 0..n-1.
func all(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// refConcat joins a and b (shapes sa, sb) along axis.
func refConcat[T any](a, b []T, sa, sb []int, axis int) ([]T, []int) {
	outer, na, inner := geom(sa, axis)
	nb := sb[axis]
	out := make([]T, 0, len(a)+len(b))
	for o := 0; o < outer; o++ {
		out = append(out, a[o*na*inner:(o+1)*na*inner]...)
		out = append(out, b[o*nb*inner:(o+1)*nb*inner]...)
	}
	sh := slices.Clone(sa)
	sh[axis] += nb
	return out, sh
}

// refMatMul multiplies a (m x k) by b (k x n).
func refMatMul[T backend.Numeric](a, b []T, m, k, n int) []T {
	c := make([]T, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			for l := 0; l < k; l++ {
				s += a[i*k+l] * b[l*n+j]
			}
			c[i*n+j] = s
		}
	}
	return c
}

// refDFT transforms g along axis (inverse: the normalized inverse).
func refDFT(g []complex128, shape []int, axis int, inverse bool) []complex128 {
	outer, n, inner := geom(shape, axis)
	out := make([]complex128, len(g))
	sign := -1.0
	if inverse {
		sign = 1
	}
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			for k := 0; k < n; k++ {
				var s complex128
				for j := 0; j < n; j++ {
					ang := sign * 2 * math.Pi * float64(j*k%n) / float64(n)
					s += g[(o*n+j)*inner+i] * complex(math.Cos(ang), math.Sin(ang))
				}
				if inverse {
					s /= complex(float64(n), 0)
				}
				out[(o*n+k)*inner+i] = s
			}
		}
	}
	return out
}

// refStencil is the 5-point stencil of dist's Laplace5 (laplace) or Jacobi5
// on a 2-D array: every row updated, the first and last column left (zero in
// a new array); rows outside the array are the boundary value zero, or wrap
// around where periodic.
func refStencil[T backend.Float](g []T, shape []int, periodic, laplace bool) []T {
	n0, n1 := shape[0], shape[1]
	out := make([]T, len(g))
	at := func(i, j int) T {
		if i < 0 || i >= n0 {
			if !periodic {
				return 0
			}
			i = (i + n0) % n0
		}
		return g[i*n1+j]
	}
	for i := 0; i < n0; i++ {
		for j := 1; j < n1-1; j++ {
			nb := at(i-1, j) + at(i+1, j) + at(i, j-1) + at(i, j+1)
			if laplace {
				out[i*n1+j] = 4*at(i, j) - nb
			} else {
				out[i*n1+j] = 0.25 * nb
			}
		}
	}
	return out
}
