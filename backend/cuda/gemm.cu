// gemm.cu: the matrix product of xpmpi's CUDA backend (the backend.GEMM of
// package backend/cuda, gemm.go), appended to kernels.cu, math.cu,
// stats.cu and convert.cu to make the module's source (KernelSource): it
// uses kernels.cu's types, xp_ops and XP_REGISTER, and includes no header.
//
// C (m x n) = A (m x k) * B (k x n), or C + A*B if accumulate, row-major
// with leading dimensions lda, ldb and ldc. A block of 16 x 16 threads
// computes a 64 x 64 tile of C, each thread a 4 x 4 tile in registers
// (rows ty + 16*r, columns tx + 16*s, r and s in 0..3, so that the threads
// of a warp read neighbouring elements of B and of C). A and B go through
// shared memory in panels of 16 along k: the block loads a 64 x 16 panel of
// A and a 16 x 64 panel of B (each thread 4 elements of each, zero outside
// the matrices), waits, multiplies, waits. Tiles beyond the grid (more
// than 65535 in a direction) are taken by a grid stride.
//
// The order of operations is fixed: each element of C is a sum over l in
// order 0, 1, ..., k-1, from +0 (or from C's element if accumulate), each
// product rounded before it is added (the module is compiled with
// --fmad=false); a panel's padding past k is never added, so that a sum
// of -0 stays -0. That is the order of the naive loop and of gonum's
// Dgemm and Sgemm; integers wrap (xp_ops), exactly in any order.
//
// Entries: xp_gemm_S(m, n, k, lda, ldb, ldc, T *c, const T *a, const T *b,
// int accumulate), launched with 16 x 16 threads; k == 0 sets C to +0
// (the Go side does not launch it for k == 0 with accumulate).
//
// The kernel takes its zero, and its step acc + a*b, from xp_gemm_ops<T>:
// complex.cu specializes it for its complex types (Go's complex product,
// the parts added in the part type) and instantiates xp_gemm for them
// (xp_gemm_c64, xp_gemm_c128), with the same tiles and order.

// xp_gemm_ops is the arithmetic of xp_gemm for element type T: zero() and
// madd(acc, a, b) = acc + a*b, the product rounded before it is added.
template <typename T> struct xp_gemm_ops {
	static __device__ __forceinline__ T zero() { return (T)0; }
	static __device__ __forceinline__ T madd(T acc, T a, T b) { return xp_ops<T>::add(acc, xp_ops<T>::mul(a, b)); }
};

// XP_GEMM_TILE is the side of a block's tile of C, XP_GEMM_PANEL the depth
// of a panel along k, XP_GEMM_SIDE the threads of a block along each side
// (gemm.go's gemmSide) and XP_GEMM_REG the side of a thread's tile.
#define XP_GEMM_TILE 64
#define XP_GEMM_PANEL 16
#define XP_GEMM_SIDE 16
#define XP_GEMM_REG 4

template <typename T>
__device__ void xp_gemm(xp_i64 m, xp_i64 n, xp_i64 k, xp_i64 lda, xp_i64 ldb, xp_i64 ldc, T *c, const T *a,
			const T *b, int accumulate)
{
	// as is stored k-major with a row of padding, so that the stores of a
	// warp (16 k's of a row, then the next row) fall in different banks.
	__shared__ T as[XP_GEMM_PANEL][XP_GEMM_TILE + 1];
	__shared__ T bs[XP_GEMM_PANEL][XP_GEMM_TILE];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int tid = ty * XP_GEMM_SIDE + tx;
	const int nthreads = XP_GEMM_SIDE * XP_GEMM_SIDE;
	const xp_i64 tm = (m + XP_GEMM_TILE - 1) / XP_GEMM_TILE, tn = (n + XP_GEMM_TILE - 1) / XP_GEMM_TILE;
	for (xp_i64 bi = blockIdx.y; bi < tm; bi += gridDim.y) {
		for (xp_i64 bj = blockIdx.x; bj < tn; bj += gridDim.x) {
			const xp_i64 i0 = bi * XP_GEMM_TILE, j0 = bj * XP_GEMM_TILE;
			T acc[XP_GEMM_REG][XP_GEMM_REG];
			for (int r = 0; r < XP_GEMM_REG; r++) {
				for (int s = 0; s < XP_GEMM_REG; s++) {
					xp_i64 i = i0 + ty + XP_GEMM_SIDE * r, j = j0 + tx + XP_GEMM_SIDE * s;
					acc[r][s] = (accumulate != 0 && i < m && j < n) ? c[i * ldc + j] : xp_gemm_ops<T>::zero();
				}
			}
			for (xp_i64 k0 = 0; k0 < k; k0 += XP_GEMM_PANEL) {
				const int kn = (int)(k - k0 < XP_GEMM_PANEL ? k - k0 : XP_GEMM_PANEL);
				for (int e = tid; e < XP_GEMM_TILE * XP_GEMM_PANEL; e += nthreads) {
					// A: row e/16 of the tile, column e%16 of the panel
					// (16 threads read 16 neighbouring elements of a row).
					int row = e / XP_GEMM_PANEL, kk = e % XP_GEMM_PANEL;
					xp_i64 gi = i0 + row;
					as[kk][row] = (gi < m && kk < kn) ? a[gi * lda + k0 + kk] : xp_gemm_ops<T>::zero();
					// B: row e/64 of the panel, column e%64 of the tile.
					int kb = e / XP_GEMM_TILE, col = e % XP_GEMM_TILE;
					xp_i64 gj = j0 + col;
					bs[kb][col] = (kb < kn && gj < n) ? b[(k0 + kb) * ldb + gj] : xp_gemm_ops<T>::zero();
				}
				__syncthreads();
				for (int kk = 0; kk < kn; kk++) {
					T av[XP_GEMM_REG], bv[XP_GEMM_REG];
					for (int r = 0; r < XP_GEMM_REG; r++) {
						av[r] = as[kk][ty + XP_GEMM_SIDE * r];
					}
					for (int s = 0; s < XP_GEMM_REG; s++) {
						bv[s] = bs[kk][tx + XP_GEMM_SIDE * s];
					}
					for (int r = 0; r < XP_GEMM_REG; r++) {
						for (int s = 0; s < XP_GEMM_REG; s++) {
							acc[r][s] = xp_gemm_ops<T>::madd(acc[r][s], av[r], bv[s]);
						}
					}
				}
				__syncthreads();
			}
			for (int r = 0; r < XP_GEMM_REG; r++) {
				for (int s = 0; s < XP_GEMM_REG; s++) {
					xp_i64 i = i0 + ty + XP_GEMM_SIDE * r, j = j0 + tx + XP_GEMM_SIDE * s;
					if (i < m && j < n) {
						c[i * ldc + j] = acc[r][s];
					}
				}
			}
		}
	}
}

#define XP_GEMM_ENTRY(S, T)                                                                                   \
	extern "C" __global__ void xp_gemm_##S(xp_i64 m, xp_i64 n, xp_i64 k, xp_i64 lda, xp_i64 ldb, xp_i64 ldc, \
					       T *c, const T *a, const T *b, int accumulate)                  \
	{                                                                                                     \
		xp_gemm<T>(m, n, k, lda, ldb, ldc, c, a, b, accumulate);                                     \
	}                                                                                                     \
	XP_REGISTER(xp_gemm_##S, 1)

XP_GEMM_ENTRY(f32, float)
XP_GEMM_ENTRY(f64, double)
XP_GEMM_ENTRY(i32, int)
XP_GEMM_ENTRY(i64, long long)
XP_GEMM_ENTRY(u32, unsigned int)
XP_GEMM_ENTRY(u64, unsigned long long)
XP_GEMM_ENTRY(i8, signed char)
XP_GEMM_ENTRY(i16, short)
XP_GEMM_ENTRY(u8, unsigned char)
XP_GEMM_ENTRY(u16, unsigned short)
