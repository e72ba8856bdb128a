package cuda

import (
	_ "embed"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CUDA backend multiplies matrices on its device, as a driver.GEMM,
// with the tiled kernel of gemm.cu (see Backend.Gemm), for every element
// type (complex ones included), so that dist.MatMul and dist.MatVec of
// CUDA arrays stay on the device.
var _ driver.GEMM = (*Backend)(nil)

// gemmSource is gemm.cu, which KernelSource appends after convert.cu.
//
//go:embed gemm.cu
var gemmSource string

// gemmTile is the side of a block's tile of C (gemm.cu's XP_GEMM_TILE),
// gemmSide the threads along each side of a block (XP_GEMM_SIDE), and
// maxGemmGrid the most blocks along each side of the grid (larger products
// take the tiles by a grid stride).
const (
	gemmTile    = 64
	gemmSide    = 16
	maxGemmGrid = 65535
)

// gemmEntries returns the names of the entries of gemm.cu.
func gemmEntries() []string {
	var out []string
	for dt := backend.DType(0); int(dt) < len(typeSuffix); dt++ {
		out = append(out, kernelName("gemm", dt))
	}
	return out
}

// Gemm sets the m x n matrix c to a*b, or to c + a*b if accumulate (see
// driver.GEMM), on the device. It panics, as driver.CheckGemm does, for
// arguments that do not describe matrices the buffers hold.
//
// A block of 16 x 16 threads computes a 64 x 64 tile of C, each thread a
// 4 x 4 tile in registers, with panels of A and B 16 deep along k staged
// through shared memory (gemm.cu).
//
// Each element of C is summed over l = 0, 1, ..., k-1 in order, from +0
// (from C's element if accumulate), each product rounded to the element
// type before it is added (no fused multiply-add): the naive loop's order,
// and the order of gonum's Dgemm and Sgemm, which the CPU backend uses
// without OpenBLAS (XPMPI_GEMM=gonum). With gonum the results are the same
// bits, except that gonum leaves out the terms whose element of A is zero:
// there a 0*Inf or 0*NaN term gives NaN here (as OpenBLAS and NumPy give)
// and nothing with gonum, and a zero sum may differ in sign. OpenBLAS (the
// CPU backend's default where it is installed) sums in blocks, with fused
// multiply-adds, in an order of its own: each result is within
// γ·(|C| + |A|·|B|) of the exact one elementwise, γ = (k+1)u/(1-(k+1)u)
// with u the unit roundoff (2^-53, 2^-24), so the two differ by at most
// 2γ·(|C| + |A|·|B|) (C counted only if accumulate). Integer products
// wrap, as Go's do, and are the CPU backend's exactly.
//
// That is the parity mode (LibMode: ParityMode, XPMPI_CUDA_LIBS=parity).
// In the default vendor mode, float and complex products go to cuBLAS
// (sgemm, dgemm, cgemm, zgemm; loaded at run time where present, see
// LibMode and vendor.go) when it loads and starts on the device: its order
// of summation is its own (it changes with the library's version and the
// device), so its results are within the OpenBLAS bound above of the exact
// product, not the naive loop's bits; where cuBLAS is missing or refuses,
// this kernel runs (Backend.Vendor says which). Integer products are this
// kernel's in both modes (cuBLAS has no GEMM that wraps as Go does).
//
// Complex matrices (complex64 and complex128; the backend is a
// driver.ComplexKernels) go through the same tiled kernel, over
// complex.cu's complex type: each element of C is summed over l in order
// from +0 (or C), each product Go's complex product (the parts' products
// rounded, complex64's computed in float64 and rounded to float32) added
// part by part in the part type. That is the naive Go loop's result, bit
// for bit (s += a[i][l]*b[l][j]). The CPU backend multiplies complex
// matrices with OpenBLAS's cgemm and zgemm (or gonum's), in orders of
// their own, so the two are not the same bits. Each part of a complex
// product is a sum of two real products, whose moduli add up to at most
// |a|·|b| (the moduli's product), so each part of an element of C is a
// sum of 2k terms (2k+1 with C) of total modulus at most
// (|C| + |A|·|B|)ij, with |A| and |B| the elements' moduli: the kernel's
// result is within γ(k+2)·(|C| + |A|·|B|)ij of the exact one, any order's
// within γ(2k+1)·(|C| + |A|·|B|)ij, γ(j) = ju/(1-ju) with u the unit
// roundoff of the part type; so the two agree to within their sum,
// which the tests take as 4(k+1)·u·(|C| + |A|·|B|)ij.
func (b *Backend) Gemm(c, a, bm driver.Buffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	driver.CheckGemm(c, a, bm, m, n, k, lda, ldb, ldc)
	cd, ad, bd := b.buf("Gemm", c), b.buf("Gemm", a), b.buf("Gemm", bm)
	if m == 0 || n == 0 || (k == 0 && accumulate) {
		return
	}
	if b.vendorGemm(cd, ad, bd, m, n, k, lda, ldb, ldc, accumulate) {
		return
	}
	tiles := func(x int) int { return min((x+gemmTile-1)/gemmTile, maxGemmGrid) }
	b.launch("Gemm", entryName("gemm", cd.DT), Dim3{X: tiles(n), Y: tiles(m)}, Dim3{X: gemmSide, Y: gemmSide},
		(&Args{}).Int64(int64(m)).Int64(int64(n)).Int64(int64(k)).
			Int64(int64(lda)).Int64(int64(ldb)).Int64(int64(ldc)).
			Buffer(cd).Buffer(ad).Buffer(bd).Int32(flag(accumulate)))
}
