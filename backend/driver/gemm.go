package driver

import "fmt"

// GEMM is implemented by a backend that multiplies matrices on its own
// device, so that dist.MatMul and dist.MatVec of device arrays stay on the
// device. Matrices are row-major with a leading dimension (the distance in
// elements between the starts of two rows, at least the number of columns),
// so that a block of columns of a larger matrix is a matrix too: the
// buffer starts at its first element.
//
// The CPU backend, the fake device and the CUDA backend (a tiled kernel)
// implement it, for every element type (complex64 and complex128
// included); a backend that does not has the blocks copied to the host for
// the product, recorded as the copies they are. Complex buffers are passed
// only to a GEMM that is also a ComplexKernels: dist multiplies complex
// blocks of another on host copies, recorded.
type GEMM interface {
	// Gemm sets the m x n matrix C to A*B, or to C + A*B if accumulate,
	// where A is m x k and B is k x n, with leading dimensions lda, ldb and
	// ldc. The three buffers have one element type and do not overlap.
	// With k == 0, C is set to zero (left alone if accumulate); m == 0 or
	// n == 0 does nothing. Floating-point and complex products follow the
	// backend's order of summation; integer products wrap.
	Gemm(c, a, b Buffer, m, n, k, lda, ldb, ldc int, accumulate bool)
}

// CheckGemm panics, saying why, if the arguments of a Gemm do not describe
// matrices that the buffers hold: different element types, negative sizes,
// a leading dimension below the number of columns (or below 1), or a buffer
// too short. Implementations of GEMM call it before any work.
func CheckGemm(c, a, b Buffer, m, n, k, lda, ldb, ldc int) {
	if c.DType() != a.DType() || c.DType() != b.DType() {
		panic(fmt.Sprintf("backend: Gemm of %v and %v into %v", a.DType(), b.DType(), c.DType()))
	}
	if m < 0 || n < 0 || k < 0 || lda < max(k, 1) || ldb < max(n, 1) || ldc < max(n, 1) {
		panic(fmt.Sprintf("backend: Gemm of sizes m=%d n=%d k=%d with leading dimensions %d, %d, %d", m, n, k, lda, ldb, ldc))
	}
	need := func(rows, cols, ld int) int {
		if rows == 0 || cols == 0 {
			return 0
		}
		return (rows-1)*ld + cols
	}
	if a.Len() < need(m, k, lda) || b.Len() < need(k, n, ldb) || c.Len() < need(m, n, ldc) {
		panic(fmt.Sprintf("backend: Gemm of sizes m=%d n=%d k=%d, leading dimensions %d, %d, %d on buffers of %d, %d, %d elements",
			m, n, k, lda, ldb, ldc, a.Len(), b.Len(), c.Len()))
	}
}
