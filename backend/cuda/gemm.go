package cuda

import (
	_ "embed"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/profiling"
)

// The CUDA backend multiplies matrices on its device, as a backend.GEMM,
// with the tiled kernel of gemm.cu (see Backend.Gemm), so that dist.MatMul
// and dist.MatVec of CUDA arrays stay on the device.
var _ backend.GEMM = (*Backend)(nil)

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
// backend.GEMM), on the device. It panics, as backend.CheckGemm does, for
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
// Why not cuBLAS: it cannot be loaded or tested without an NVIDIA GPU, its
// order of summation is its own (results change with the library's
// version and the device), and it has no integer GEMM that wraps as Go
// does. It is faster on large float products; a run-time cuBLAS binding
// (dlopen of libcublas, as the driver is loaded) could replace this kernel
// for float32 and float64 where it is present, behind the same interface.
//
// Complex matrices have no kernel: their product runs on host copies of
// the three buffers, in the naive loop's order, recorded with package
// profiling as the copies they are, and C is copied back.
func (b *Backend) Gemm(c, a, bm backend.Buffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	backend.CheckGemm(c, a, bm, m, n, k, lda, ldb, ldc)
	cd, ad, bd := b.buf("Gemm", c), b.buf("Gemm", a), b.buf("Gemm", bm)
	if m == 0 || n == 0 || (k == 0 && accumulate) {
		return
	}
	switch cd.DT {
	case backend.Complex64:
		gemmHost[complex64](b, cd, ad, bd, m, n, k, lda, ldb, ldc, accumulate)
		return
	case backend.Complex128:
		gemmHost[complex128](b, cd, ad, bd, m, n, k, lda, ldb, ldc, accumulate)
		return
	}
	tiles := func(x int) int { return min((x+gemmTile-1)/gemmTile, maxGemmGrid) }
	b.launch("Gemm", kernelName("gemm", cd.DT), Dim3{X: tiles(n), Y: tiles(m)}, Dim3{X: gemmSide, Y: gemmSide},
		(&Args{}).Int64(int64(m)).Int64(int64(n)).Int64(int64(k)).
			Int64(int64(lda)).Int64(int64(ldb)).Int64(int64(ldc)).
			Buffer(cd).Buffer(ad).Buffer(bd).Int32(flag(accumulate)))
}

// gemmHost is Gemm of complex matrices, which have no kernel: the buffers
// are copied to the host (recorded), multiplied there in the naive loop's
// order (from 0 or C, over l in order), and C is copied back (recorded).
func gemmHost[T complex64 | complex128](b *Backend, c, a, bm *devBuffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	get := func(x *devBuffer) []T {
		h := make([]T, x.N)
		if x.N > 0 {
			if err := b.CopyToHost(unsafe.Pointer(&h[0]), x); err != nil {
				fail("Gemm", err)
			}
			profiling.RecordTransfer(profiling.ToHost, "cuda.Gemm (complex: no kernel)", int64(x.Bytes()), true, true)
		}
		return h
	}
	hc, ha, hb := get(c), get(a), get(bm)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			if accumulate {
				s = hc[i*ldc+j]
			}
			for l := 0; l < k; l++ {
				s += ha[i*lda+l] * hb[l*ldb+j]
			}
			hc[i*ldc+j] = s
		}
	}
	if err := b.CopyFromHost(c, unsafe.Pointer(&hc[0])); err != nil {
		fail("Gemm", err)
	}
	profiling.RecordTransfer(profiling.ToDevice, "cuda.Gemm (complex: no kernel)", int64(c.Bytes()), true, true)
}
