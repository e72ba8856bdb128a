package cpu

import (
	"github.com/xpmpi/xpmpi/backend"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// The CPU backend multiplies matrices as a backend.GEMM: float64 and
// float32 with gonum's Dgemm and Sgemm (pure Go, blocked, parallel over
// GOMAXPROCS goroutines), integers with a Go loop in i-k-j order that
// wraps as Go's integer arithmetic does.
var _ backend.GEMM = (*Backend)(nil)

// Gemm sets the m x n matrix c to a*b, or to c + a*b if accumulate (see
// backend.GEMM).
func (*Backend) Gemm(c, a, b backend.Buffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	backend.CheckGemm(c, a, b, m, n, k, lda, ldb, ldc)
	if m == 0 || n == 0 {
		return
	}
	switch c.DType() {
	case backend.Float64:
		gemmFloat(hs[float64](c), hs[float64](a), hs[float64](b), m, n, k, lda, ldb, ldc, accumulate, gonum.Implementation{}.Dgemm)
	case backend.Float32:
		gemmFloat(hs[float32](c), hs[float32](a), hs[float32](b), m, n, k, lda, ldb, ldc, accumulate, gonum.Implementation{}.Sgemm)
	case backend.Int32:
		gemmLoop(hs[int32](c), hs[int32](a), hs[int32](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Int64:
		gemmLoop(hs[int64](c), hs[int64](a), hs[int64](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Uint32:
		gemmLoop(hs[uint32](c), hs[uint32](a), hs[uint32](b), m, n, k, lda, ldb, ldc, accumulate)
	default:
		gemmLoop(hs[uint64](c), hs[uint64](a), hs[uint64](b), m, n, k, lda, ldb, ldc, accumulate)
	}
}

// gemmFloat calls a BLAS gemm for row-major matrices with m, n > 0.
func gemmFloat[T float32 | float64](c, a, b []T, m, n, k, lda, ldb, ldc int, accumulate bool,
	gemm func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)) {
	if k == 0 {
		if !accumulate {
			zeroRows(c, m, n, ldc)
		}
		return
	}
	var beta T
	if accumulate {
		beta = 1
	} else {
		// BLAS reads C even when beta is 0 only to scale it; clearing it
		// first keeps NaNs in an uninitialized C from mattering in any
		// implementation.
		zeroRows(c, m, n, ldc)
	}
	gemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}

// gemmLoop is Gemm for integers: row i of C gets a[i][l] * row l of B for
// each l in turn.
func gemmLoop[T backend.Element](c, a, b []T, m, n, k, lda, ldb, ldc int, accumulate bool) {
	if !accumulate {
		zeroRows(c, m, n, ldc)
	}
	if k == 0 {
		return // a may hold nothing at all
	}
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		for l, ail := range a[i*lda : i*lda+k] {
			bl := b[l*ldb : l*ldb+n]
			for j, v := range bl {
				ci[j] += ail * v
			}
		}
	}
}

// zeroRows clears the m x n matrix c with leading dimension ldc.
func zeroRows[T backend.Element](c []T, m, n, ldc int) {
	for i := 0; i < m; i++ {
		clear(c[i*ldc : i*ldc+n])
	}
}
