// stencil.cu: the weighted stencils and the fused stencil-dot of xpmpi's
// CUDA backend (backend.WeightedStencils and backend.StencilDots of
// package backend/cuda, stencil.go), appended after gemm.cu to make the
// module's source (KernelSource): it uses kernels.cu's types and
// XP_REGISTER, and includes no header.
//
// Every result is the CPU backend's bit for bit (backend/cpu/stencil.go
// and cg.go): the weights are rounded to the grid's type first, each
// product is rounded before it is added (the module is compiled with
// --fmad=false), and the terms are added in the CPU's order.
//
//   - Stencil9 and Stencil7 are elementwise: one thread per interior
//     point, x along a row (the last axis), as xp_jacobi5.
//   - Laplace5Dot takes 16 rows per block of 16 x 16 threads: the 16
//     threads of a row are its 16 lanes (backend.StencilDots), thread q
//     applying the Laplacian at columns 16c+q+1 of the row's first
//     16*(n/16) interior points, in order of c, and adding each product to
//     its lane, from +0; thread 0 then combines the lanes in the
//     documented tree and adds the last n%16 points (which the other
//     threads have computed) in order, then the products of the first and
//     last columns. A second kernel of one thread adds the rows' sums in
//     row order from +0.
//
// Entries (S the type suffix, f32 or f64; T float or double):
//   xp_stencil9_S(rows, cols, T *dst, const T *src, double w0, ..., double w8)
//   xp_stencil7_S(n0, n1, n2, T *dst, const T *src, double w0, ..., double w6)
//   xp_lapdot_S(rows, cols, T *dst, const T *src, double *rowsums)
// and, once, xp_rowsums_f64(nr, const double *rowsums, double *out).

// XP_LAPDOT_ROWS is the number of rows of a block of xp_lapdot (the Go
// side's lapdotRows), and XP_LANES the lanes of backend.StencilDots.
#define XP_LAPDOT_ROWS 16
#define XP_LANES 16

template <typename T>
__device__ void xp_stencil9(xp_i64 rows, xp_i64 cols, T *dst, const T *src, double w0, double w1, double w2, double w3,
			    double w4, double w5, double w6, double w7, double w8)
{
	const T q0 = (T)w0, q1 = (T)w1, q2 = (T)w2, q3 = (T)w3, q4 = (T)w4, q5 = (T)w5, q6 = (T)w6, q7 = (T)w7, q8 = (T)w8;
	for (xp_i64 i = 1 + (xp_i64)blockIdx.y * blockDim.y + threadIdx.y; i < rows - 1; i += (xp_i64)gridDim.y * blockDim.y) {
		for (xp_i64 j = 1 + (xp_i64)blockIdx.x * blockDim.x + threadIdx.x; j < cols - 1; j += (xp_i64)gridDim.x * blockDim.x) {
			const T *up = src + (i - 1) * cols + j, *mid = src + i * cols + j, *down = src + (i + 1) * cols + j;
			T s = q0 * up[-1];
			s = s + q1 * up[0];
			s = s + q2 * up[1];
			s = s + q3 * mid[-1];
			s = s + q4 * mid[0];
			s = s + q5 * mid[1];
			s = s + q6 * down[-1];
			s = s + q7 * down[0];
			s = s + q8 * down[1];
			dst[i * cols + j] = s;
		}
	}
}

// xp_stencil7: x runs along the last axis (k), y over the (i, j) lines of
// the interior, i-major.
template <typename T>
__device__ void xp_stencil7(xp_i64 n0, xp_i64 n1, xp_i64 n2, T *dst, const T *src, double w0, double w1, double w2,
			    double w3, double w4, double w5, double w6)
{
	const T q0 = (T)w0, q1 = (T)w1, q2 = (T)w2, q3 = (T)w3, q4 = (T)w4, q5 = (T)w5, q6 = (T)w6;
	const xp_i64 plane = n1 * n2, lines = (n0 - 2) * (n1 - 2);
	for (xp_i64 L = (xp_i64)blockIdx.y * blockDim.y + threadIdx.y; L < lines; L += (xp_i64)gridDim.y * blockDim.y) {
		xp_i64 i = 1 + L / (n1 - 2), j = 1 + L % (n1 - 2);
		for (xp_i64 k = 1 + (xp_i64)blockIdx.x * blockDim.x + threadIdx.x; k < n2 - 1; k += (xp_i64)gridDim.x * blockDim.x) {
			xp_i64 p = i * plane + j * n2 + k;
			T s = q0 * src[p];
			s = s + q1 * src[p - plane];
			s = s + q2 * src[p + plane];
			s = s + q3 * src[p - n2];
			s = s + q4 * src[p + n2];
			s = s + q5 * src[p - 1];
			s = s + q6 * src[p + 1];
			dst[p] = s;
		}
	}
}

// xp_lap_at applies the Laplacian at point k of a row (src and dst at the
// row's start), as xp_laplace5, and returns the product of src and the new
// dst there, rounded to double.
template <typename T> __device__ __forceinline__ double xp_lap_at(T *dst, const T *src, xp_i64 cols, xp_i64 k)
{
	T v = (T)4 * src[k] - src[k - cols] - src[k + cols] - src[k - 1] - src[k + 1];
	dst[k] = v;
	return (double)src[k] * (double)v;
}

template <typename T> __device__ void xp_lapdot(xp_i64 rows, xp_i64 cols, T *dst, const T *src, double *rowsums)
{
	__shared__ double lane[XP_LAPDOT_ROWS][XP_LANES];
	__shared__ double tail[XP_LAPDOT_ROWS][XP_LANES];
	const int q = threadIdx.x, r = threadIdx.y;
	const xp_i64 inner = rows - 2, groups = (inner + XP_LAPDOT_ROWS - 1) / XP_LAPDOT_ROWS;
	const xp_i64 n = cols - 2 > 0 ? cols - 2 : 0, n16 = n / XP_LANES * XP_LANES;
	for (xp_i64 g = blockIdx.x; g < groups; g += gridDim.x) {
		const xp_i64 i = 1 + g * XP_LAPDOT_ROWS + r;
		if (i < rows - 1) {
			T *d = dst + i * cols + 1;
			const T *s = src + i * cols + 1;
			double l = 0;
			for (xp_i64 k = q; k < n16; k += XP_LANES) {
				l = l + xp_lap_at<T>(d, s, cols, k);
			}
			lane[r][q] = l;
			if (n16 + q < n) {
				tail[r][q] = xp_lap_at<T>(d, s, cols, n16 + q);
			}
		}
		__syncthreads();
		if (i < rows - 1 && q == 0) {
			double sum = 0;
			if (n16 > 0) {
				double c[4];
				for (int e = 0; e < 4; e++) {
					c[e] = (lane[r][e] + lane[r][8 + e]) + (lane[r][4 + e] + lane[r][12 + e]);
				}
				sum = (c[0] + c[2]) + (c[1] + c[3]);
			}
			for (xp_i64 k = n16; k < n; k++) {
				sum = sum + tail[r][k - n16];
			}
			const T *s = src + i * cols, *d = dst + i * cols;
			if (cols >= 1) {
				sum = sum + (double)s[0] * (double)d[0];
			}
			if (cols >= 2) {
				sum = sum + (double)s[cols - 1] * (double)d[cols - 1];
			}
			rowsums[i - 1] = sum;
		}
		__syncthreads();
	}
}

// xp_rowsums_f64 adds the nr rows' sums in row order from +0, one thread.
extern "C" __global__ void xp_rowsums_f64(xp_i64 nr, const double *rowsums, double *out)
{
	double s = 0;
	for (xp_i64 i = 0; i < nr; i++) {
		s = s + rowsums[i];
	}
	out[0] = s;
}
XP_REGISTER(xp_rowsums_f64, 0)

#define XP_STENCIL_ENTRIES(S, T)                                                                                 \
	extern "C" __global__ void xp_stencil9_##S(xp_i64 rows, xp_i64 cols, T *dst, const T *src, double w0,     \
						   double w1, double w2, double w3, double w4, double w5, double w6, \
						   double w7, double w8)                                             \
	{                                                                                                        \
		xp_stencil9<T>(rows, cols, dst, src, w0, w1, w2, w3, w4, w5, w6, w7, w8);                        \
	}                                                                                                        \
	XP_REGISTER(xp_stencil9_##S, 0)                                                                          \
	extern "C" __global__ void xp_stencil7_##S(xp_i64 n0, xp_i64 n1, xp_i64 n2, T *dst, const T *src,        \
						   double w0, double w1, double w2, double w3, double w4, double w5, \
						   double w6)                                                        \
	{                                                                                                        \
		xp_stencil7<T>(n0, n1, n2, dst, src, w0, w1, w2, w3, w4, w5, w6);                                \
	}                                                                                                        \
	XP_REGISTER(xp_stencil7_##S, 0)                                                                          \
	extern "C" __global__ void xp_lapdot_##S(xp_i64 rows, xp_i64 cols, T *dst, const T *src, double *rowsums) \
	{                                                                                                        \
		xp_lapdot<T>(rows, cols, dst, src, rowsums);                                                     \
	}                                                                                                        \
	XP_REGISTER(xp_lapdot_##S, 1)

XP_STENCIL_ENTRIES(f32, float)
XP_STENCIL_ENTRIES(f64, double)
