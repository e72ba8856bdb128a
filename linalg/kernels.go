package linalg

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/blas"
	blasgonum "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"

	"github.com/xpmpi/xpmpi/backend"
)

// The local kernels: row-major matrices of one of the four inexact element
// types, with gonum's BLAS (row-major) for the level-3 products and plain
// loops for the rest. None of them communicates.

var bl blasgonum.Implementation

// gemmSub sets c (m x n, leading dimension ldc) to c - a*b, a m x k (lda),
// b k x n (ldb).
func gemmSub[T backend.Inexact](m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	if m == 0 || n == 0 || k == 0 {
		return
	}
	switch av := any(a).(type) {
	case []float64:
		bl.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, -1, av, lda, any(b).([]float64), ldb, 1, any(c).([]float64), ldc)
	case []float32:
		bl.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, -1, av, lda, any(b).([]float32), ldb, 1, any(c).([]float32), ldc)
	case []complex128:
		bl.Zgemm(blas.NoTrans, blas.NoTrans, m, n, k, -1, av, lda, any(b).([]complex128), ldb, 1, any(c).([]complex128), ldc)
	case []complex64:
		bl.Cgemm(blas.NoTrans, blas.NoTrans, m, n, k, -1, av, lda, any(b).([]complex64), ldb, 1, any(c).([]complex64), ldc)
	}
}

// gemm sets c (m x n) to a*b, a m x k, b k x n.
func gemm[T backend.Inexact](m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	switch av := any(a).(type) {
	case []float64:
		bl.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, av, lda, any(b).([]float64), ldb, 0, any(c).([]float64), ldc)
	case []float32:
		bl.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, av, lda, any(b).([]float32), ldb, 0, any(c).([]float32), ldc)
	case []complex128:
		bl.Zgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, av, lda, any(b).([]complex128), ldb, 0, any(c).([]complex128), ldc)
	case []complex64:
		bl.Cgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, av, lda, any(b).([]complex64), ldb, 0, any(c).([]complex64), ldc)
	}
}

// trsm solves, in place, a triangular system with m right-hand rows: b (m x
// n, ldb) := inv(a) * b, a m x m (lda), lower with a unit diagonal (lower)
// or upper with its own diagonal.
func trsm[T backend.Inexact](lower bool, m, n int, a []T, lda int, b []T, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	ul, d := blas.Upper, blas.NonUnit
	if lower {
		ul, d = blas.Lower, blas.Unit
	}
	switch av := any(a).(type) {
	case []float64:
		bl.Dtrsm(blas.Left, ul, blas.NoTrans, d, m, n, 1, av, lda, any(b).([]float64), ldb)
	case []float32:
		bl.Strsm(blas.Left, ul, blas.NoTrans, d, m, n, 1, av, lda, any(b).([]float32), ldb)
	case []complex128:
		bl.Ztrsm(blas.Left, ul, blas.NoTrans, d, m, n, 1, av, lda, any(b).([]complex128), ldb)
	case []complex64:
		bl.Ctrsm(blas.Left, ul, blas.NoTrans, d, m, n, 1, av, lda, any(b).([]complex64), ldb)
	}
}

// abs1 is LAPACK's pivot magnitude (i?amax): |x| of a real, |re|+|im| of a
// complex number.
func abs1[T backend.Inexact](v T) float64 {
	switch x := any(v).(type) {
	case float64:
		return math.Abs(x)
	case float32:
		return math.Abs(float64(x))
	case complex128:
		return math.Abs(real(x)) + math.Abs(imag(x))
	case complex64:
		return math.Abs(float64(real(x))) + math.Abs(float64(imag(x)))
	}
	return 0
}

// toC128 and fromC128 convert between T and complex128 (exact for every
// inexact T one way; rounding to T the other).
func toC128[T backend.Inexact](v T) complex128 {
	switch x := any(v).(type) {
	case float64:
		return complex(x, 0)
	case float32:
		return complex(float64(x), 0)
	case complex128:
		return x
	case complex64:
		return complex128(x)
	}
	return 0
}

func fromC128[T backend.Inexact](v complex128) T {
	var z T
	switch any(z).(type) {
	case float64:
		return any(real(v)).(T)
	case float32:
		return any(float32(real(v))).(T)
	case complex128:
		return any(v).(T)
	case complex64:
		return any(complex64(v)).(T)
	}
	return z
}

func isComplex[T backend.Inexact]() bool {
	dt := backend.DTypeOf[T]()
	return dt == backend.Complex64 || dt == backend.Complex128
}

func conj[T backend.Inexact](v T) T {
	if !isComplex[T]() {
		return v
	}
	return fromC128[T](cmplx.Conj(toC128(v)))
}

// eps is the unit roundoff of T's parts (2^-53, 2^-24) times 2: NumPy's
// finfo(T).eps.
func eps[T backend.Inexact]() float64 {
	dt := backend.DTypeOf[T]()
	if dt == backend.Float32 || dt == backend.Complex64 {
		return 0x1p-23
	}
	return 0x1p-52
}

// colNorm returns the 2-norm of x[0], x[s], ..., n elements, scaled
// against overflow, in float64.
func colNorm[T backend.Inexact](x []T, n, s int) float64 {
	scale := 0.0
	for i := 0; i < n; i++ {
		scale = math.Max(scale, cmplx.Abs(toC128(x[i*s])))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	sum := 0.0
	for i := 0; i < n; i++ {
		v := toC128(x[i*s]) / complex(scale, 0)
		sum += real(v)*real(v) + imag(v)*imag(v)
	}
	return scale * math.Sqrt(sum)
}

// conjFunc returns T's conjugation: the identity for a real T.
func conjFunc[T backend.Inexact]() func(T) T {
	var z T
	switch any(z).(type) {
	case complex128:
		return func(v T) T { return any(cmplx.Conj(any(v).(complex128))).(T) }
	case complex64:
		return func(v T) T {
			c := any(v).(complex64)
			return any(complex(real(c), -imag(c))).(T)
		}
	}
	return nil
}

// dotc returns sum conj(v[r]) x[r] over r, in T.
func dotc[T backend.Inexact](cj func(T) T, v, x []T) T {
	var w T
	if cj == nil {
		for r, vr := range v {
			w += vr * x[r]
		}
		return w
	}
	for r, vr := range v {
		w += cj(vr) * x[r]
	}
	return w
}

// householderQR factors the m x n column-major matrix a (column j at
// a[j*m:]) in place as LAPACK's geqr2 does: R in the upper triangle, the
// reflectors' vectors below it, their scalars in tau (min(m, n) of them).
// A reflector is H = I - tau v v^H with v[0] = 1, and beta (the new
// diagonal) real, as zlarfg makes it. The reflections are computed in T,
// as LAPACK's; the norms in float64, scaled.
func householderQR[T backend.Inexact](a []T, m, n int) (tau []T) {
	k := min(m, n)
	tau = make([]T, k)
	cj := conjFunc[T]()
	for i := 0; i < k; i++ {
		col := a[i*m:]
		alpha := toC128(col[i])
		xnorm := colNorm(col[i+1:], m-i-1, 1)
		if xnorm == 0 && imag(alpha) == 0 {
			continue // H = I
		}
		beta := -math.Copysign(math.Hypot(cmplx.Abs(alpha), xnorm), real(alpha))
		t := (complex(beta, 0) - alpha) / complex(beta, 0)
		scal := fromC128[T](1 / (alpha - complex(beta, 0)))
		v := col[i+1 : m]
		for r := range v {
			v[r] *= scal
		}
		col[i] = fromC128[T](complex(beta, 0))
		tau[i] = fromC128[T](t)
		// Apply H^H = I - conj(tau) v v^H to the columns on the right.
		ct := fromC128[T](cmplx.Conj(t))
		for j := i + 1; j < n; j++ {
			cj0 := a[j*m+i : (j+1)*m]
			w := (cj0[0] + dotc(cj, v, cj0[1:])) * ct
			cj0[0] -= w
			x := cj0[1:]
			for r, vr := range v {
				x[r] -= vr * w
			}
		}
	}
	return tau
}

// formQ returns the explicit m x k matrix Q = H_0 ... H_{k-1} I[:, :k] of
// householderQR's reflectors, row-major.
func formQ[T backend.Inexact](a []T, m int, tau []T) []T {
	k := len(tau)
	cj := conjFunc[T]()
	// Column-major work: column j of Q at q[j*m:].
	q := make([]T, m*k)
	for j := 0; j < k; j++ {
		q[j*m+j] = 1
	}
	for i := k - 1; i >= 0; i-- {
		t := tau[i]
		if t == 0 {
			continue
		}
		v := a[i*m+i+1 : (i+1)*m]
		for j := i; j < k; j++ {
			c := q[j*m+i : (j+1)*m]
			w := (c[0] + dotc(cj, v, c[1:])) * t
			c[0] -= w
			x := c[1:]
			for r, vr := range v {
				x[r] -= vr * w
			}
		}
	}
	out := make([]T, m*k)
	for j := 0; j < k; j++ {
		for r := 0; r < m; r++ {
			out[r*k+j] = q[j*m+r]
		}
	}
	return out
}

// localQR factors the m x n row-major matrix x: Q (m x k, row-major, if
// wantQ) and R (k x n, row-major, upper trapezoidal), k = min(m, n). x is
// not changed.
func localQR[T backend.Inexact](x []T, m, n int, wantQ bool) (q, r []T) {
	a := make([]T, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			a[j*m+i] = x[i*n+j]
		}
	}
	tau := householderQR(a, m, n)
	k := len(tau)
	r = make([]T, k*n)
	for i := 0; i < k; i++ {
		for j := i; j < n; j++ {
			r[i*n+j] = a[j*m+i]
		}
	}
	if wantQ {
		q = formQ(a, m, tau)
	}
	return q, r
}

// singularValues returns the singular values of the k x n row-major
// matrix r, largest first, in float64 (a complex matrix through its real
// embedding [[Re, -Im], [Im, Re]], whose singular values are r's, each
// twice), and false where the SVD did not converge.
func singularValues[T backend.Inexact](r []T, k, n int) ([]float64, bool) {
	if k == 0 || n == 0 {
		return []float64{}, true
	}
	var a []float64
	rows, cols := k, n
	if isComplex[T]() {
		rows, cols = 2*k, 2*n
		a = make([]float64, rows*cols)
		for i := 0; i < k; i++ {
			for j := 0; j < n; j++ {
				v := toC128(r[i*n+j])
				a[i*cols+j], a[i*cols+n+j] = real(v), -imag(v)
				a[(k+i)*cols+j], a[(k+i)*cols+n+j] = imag(v), real(v)
			}
		}
	} else {
		a = make([]float64, k*n)
		for i := range a {
			a[i] = real(toC128(r[i]))
		}
	}
	var la lapackgonum.Implementation
	s := make([]float64, min(rows, cols))
	work := []float64{0}
	la.Dgesvd(lapack.SVDNone, lapack.SVDNone, rows, cols, a, cols, s, nil, 1, nil, 1, work, -1)
	work = make([]float64, int(work[0]))
	ok := la.Dgesvd(lapack.SVDNone, lapack.SVDNone, rows, cols, a, cols, s, nil, 1, nil, 1, work, len(work))
	if isComplex[T]() {
		h := make([]float64, min(k, n))
		for i := range h {
			h[i] = s[2*i]
		}
		s = h
	}
	return s, ok
}
