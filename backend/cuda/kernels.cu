// kernels.cu: the CUDA kernels of xpmpi's CUDA backend (package
// backend/cuda), embedded in the Go package and compiled with NVRTC at
// first use for the device's compute capability, with --fmad=false so that
// elementwise float results are those of the CPU backend bit for bit.
//
// Every operation is a template over the element type, instantiated for
// float32, float64, int32, int64, uint32, uint64, int8, int16, uint8 and
// uint16 as extern "C" entries named xp_<op>_<type> (xp_axpy_f64,
// xp_sum_i32, xp_fill_u8, ...). Kernel parameters
// have their true sizes: lengths and indices are 64-bit, scalars have the
// element's size, pointers are device addresses.
//
// The source includes no header (NVRTC has none of its own). The tests of
// the package also compile it as C++ for a host emulation of the driver
// (XP_HOST_EMULATION), so it uses nothing but __syncthreads, __shared__
// arrays, atomicMin and the built-in thread indices.
//
// Integer arithmetic wraps as Go's does: it is done in the unsigned type of
// the same size (unsigned int for 8- and 16-bit types, which C would
// otherwise promote to int, where a product can overflow), and the most negative signed integer divided by -1 is
// itself. Integer division by zero is checked by the Go side before a
// division kernel runs (xp_zeroidx_*).
//
// Reductions are deterministic: the grid size depends on n only (chosen by
// the Go side), each thread accumulates a grid-stride sequence in order,
// each block reduces its threads' values in a fixed tree into one partial
// per block (float64 for floats, wrapping uint64 for integers), and a
// second kernel of one block reduces the partials in a fixed order.

#ifndef XP_HOST_EMULATION
#define XP_REGISTER(name, syncs)
#endif

// XP_BLOCK is the block size of the reductions (the Go side launches them
// with it: reduceBlock in ops.go).
#define XP_BLOCK 256

typedef long long xp_i64;
typedef unsigned long long xp_u64;

// xp_type gives, for each element type, the unsigned type of its size and
// whether it is a float and signed.
template <typename T> struct xp_type;
template <> struct xp_type<float> {
	typedef unsigned int U;
	static const bool is_float = true;
	static const bool is_signed = true;
};
template <> struct xp_type<double> {
	typedef xp_u64 U;
	static const bool is_float = true;
	static const bool is_signed = true;
};
template <> struct xp_type<int> {
	typedef unsigned int U;
	static const bool is_float = false;
	static const bool is_signed = true;
};
template <> struct xp_type<long long> {
	typedef xp_u64 U;
	static const bool is_float = false;
	static const bool is_signed = true;
};
template <> struct xp_type<unsigned int> {
	typedef unsigned int U;
	static const bool is_float = false;
	static const bool is_signed = false;
};
template <> struct xp_type<unsigned long long> {
	typedef xp_u64 U;
	static const bool is_float = false;
	static const bool is_signed = false;
};
template <> struct xp_type<signed char> {
	typedef unsigned int U;
	static const bool is_float = false;
	static const bool is_signed = true;
};
template <> struct xp_type<short> {
	typedef unsigned int U;
	static const bool is_float = false;
	static const bool is_signed = true;
};
template <> struct xp_type<unsigned char> {
	typedef unsigned int U;
	static const bool is_float = false;
	static const bool is_signed = false;
};
template <> struct xp_type<unsigned short> {
	typedef unsigned int U;
	static const bool is_float = false;
	static const bool is_signed = false;
};

// xp_ops is the arithmetic of one element type: IEEE for floats, wrapping
// for integers. A is the accumulator type of Sum and Dot.
template <typename T, bool F = xp_type<T>::is_float> struct xp_ops;

template <typename T> struct xp_ops<T, true> {
	typedef double A;
	static __device__ __forceinline__ T add(T a, T b) { return a + b; }
	static __device__ __forceinline__ T sub(T a, T b) { return a - b; }
	static __device__ __forceinline__ T mul(T a, T b) { return a * b; }
	static __device__ __forceinline__ T div(T a, T b) { return a / b; }
	// a*x rounded, then + y rounded (no fused multiply-add: --fmad=false).
	static __device__ __forceinline__ T axpy(T a, T x, T y) { return a * x + y; }
	// a*x and b*y rounded, then their sum rounded.
	static __device__ __forceinline__ T axpby(T a, T x, T b, T y) { return a * x + b * y; }
	static __device__ __forceinline__ A widen(T v) { return (double)v; }
	static __device__ __forceinline__ bool isnan(T v) { return v != v; }
};

template <typename T> struct xp_ops<T, false> {
	typedef xp_u64 A;
	typedef typename xp_type<T>::U U;
	static __device__ __forceinline__ T add(T a, T b) { return (T)((U)a + (U)b); }
	static __device__ __forceinline__ T sub(T a, T b) { return (T)((U)a - (U)b); }
	static __device__ __forceinline__ T mul(T a, T b) { return (T)((U)a * (U)b); }
	static __device__ __forceinline__ T div(T a, T b)
	{
		if (xp_type<T>::is_signed && b == (T)-1) {
			return (T)((U)0 - (U)a); // MinInt / -1 wraps to MinInt, as in Go
		}
		return a / b;
	}
	static __device__ __forceinline__ T axpy(T a, T x, T y) { return (T)((U)a * (U)x + (U)y); }
	static __device__ __forceinline__ T axpby(T a, T x, T b, T y) { return (T)((U)a * (U)x + (U)b * (U)y); }
	// Sign- or zero-extended to 64 bits: sums modulo 2^64 read as int64
	// are the wrapping int64 sums.
	static __device__ __forceinline__ A widen(T v)
	{
		return xp_type<T>::is_signed ? (xp_u64)(xp_i64)v : (xp_u64)v;
	}
	static __device__ __forceinline__ bool isnan(T) { return false; }
};

// xp_bits returns the bits of v in the low bytes of a 64-bit word.
template <typename T> __device__ __forceinline__ xp_u64 xp_bits(T v)
{
	union {
		T t;
		xp_u64 u;
	} c;
	c.u = 0;
	c.t = v;
	return c.u;
}

#define XP_GRID_STRIDE(i, n) \
	for (xp_i64 i = (xp_i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (xp_i64)gridDim.x * blockDim.x)

// ---- elementwise ----

template <typename T> __device__ void xp_fill(xp_i64 n, T v, T *x)
{
	XP_GRID_STRIDE(i, n) x[i] = v;
}

template <typename T> __device__ void xp_scale(xp_i64 n, T a, T *x)
{
	XP_GRID_STRIDE(i, n) x[i] = xp_ops<T>::mul(x[i], a);
}

template <typename T> __device__ void xp_axpy(xp_i64 n, T a, const T *x, T *y)
{
	XP_GRID_STRIDE(i, n) y[i] = xp_ops<T>::axpy(a, x[i], y[i]);
}

template <typename T> __device__ void xp_axpby(xp_i64 n, T a, const T *x, T b, T *y)
{
	XP_GRID_STRIDE(i, n) y[i] = xp_ops<T>::axpby(a, x[i], b, y[i]);
}

// The binary operations, numbered as backend.BinaryOp: Add, Sub, Mul, Div.
template <int OP, typename T> __device__ __forceinline__ T xp_apply(T a, T b)
{
	switch (OP) {
	case 0:
		return xp_ops<T>::add(a, b);
	case 1:
		return xp_ops<T>::sub(a, b);
	case 2:
		return xp_ops<T>::mul(a, b);
	default:
		return xp_ops<T>::div(a, b);
	}
}

// dst may be x or y: each element is read before it is written, by the
// same thread.
template <int OP, typename T> __device__ void xp_binary(xp_i64 n, T *dst, const T *x, const T *y)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_apply<OP, T>(x[i], y[i]);
}

template <int OP, typename T> __device__ void xp_binary_scalar(xp_i64 n, T *dst, const T *x, T s)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_apply<OP, T>(x[i], s);
}

// xp_zeroidx lowers *first to the index of a zero element of y, so that
// after the kernel *first is the index of the first zero (or stays as it
// was set, all ones, if there is none).
template <typename T> __device__ void xp_zeroidx(xp_i64 n, const T *y, xp_u64 *first)
{
	XP_GRID_STRIDE(i, n)
	{
		if (y[i] == (T)0) {
			atomicMin(first, (xp_u64)i);
			return;
		}
	}
}

// ---- reductions ----

// xp_block_sum reduces the blockDim.x == XP_BLOCK values acc of a block in
// a fixed tree and stores the result in *out (thread 0).
template <typename A> __device__ void xp_block_sum(A *sh, A acc, A *out)
{
	unsigned int t = threadIdx.x;
	sh[t] = acc;
	__syncthreads();
	for (unsigned int s = XP_BLOCK / 2; s > 0; s >>= 1) {
		if (t < s) {
			sh[t] += sh[t + s];
		}
		__syncthreads();
	}
	if (t == 0) {
		*out = sh[0];
	}
}

template <typename T> __device__ void xp_sum(xp_i64 n, const T *x, typename xp_ops<T>::A *partial)
{
	typedef typename xp_ops<T>::A A;
	__shared__ A sh[XP_BLOCK];
	A acc = 0;
	XP_GRID_STRIDE(i, n) acc += xp_ops<T>::widen(x[i]);
	xp_block_sum<A>(sh, acc, partial + blockIdx.x);
}

template <typename T> __device__ void xp_dot(xp_i64 n, const T *x, const T *y, typename xp_ops<T>::A *partial)
{
	typedef typename xp_ops<T>::A A;
	__shared__ A sh[XP_BLOCK];
	A acc = 0;
	XP_GRID_STRIDE(i, n) acc += xp_ops<T>::widen(x[i]) * xp_ops<T>::widen(y[i]);
	xp_block_sum<A>(sh, acc, partial + blockIdx.x);
}

// xp_sum2 adds the nb partials of a first pass in one block of XP_BLOCK
// threads: thread t adds partials t, t+XP_BLOCK, ... in order, then the
// block's tree.
template <typename A> __device__ void xp_sum2(int nb, const A *partial, A *out)
{
	__shared__ A sh[XP_BLOCK];
	A acc = 0;
	for (int i = threadIdx.x; i < nb; i += XP_BLOCK) {
		acc += partial[i];
	}
	xp_block_sum<A>(sh, acc, out);
}

// xp_better reports whether a is strictly better than b: smaller (MAX
// false) or larger (MAX true), a NaN beating every number and no NaN
// beating a NaN.
template <typename T, bool MAX> __device__ __forceinline__ bool xp_better(T a, T b)
{
	if (xp_ops<T>::isnan(a)) {
		return !xp_ops<T>::isnan(b);
	}
	if (xp_ops<T>::isnan(b)) {
		return false;
	}
	return MAX ? (a > b) : (a < b);
}

// xp_pick reports whether candidate (ib, vb) replaces (ia, va): it exists
// and is better, or as good with a smaller index. Together with a scan
// that keeps the first of equals, it finds the first best element whatever
// the order in which candidates meet.
template <typename T, bool MAX> __device__ __forceinline__ bool xp_pick(xp_i64 ia, T va, xp_i64 ib, T vb)
{
	if (ib < 0) {
		return false;
	}
	if (ia < 0) {
		return true;
	}
	if (xp_better<T, MAX>(vb, va)) {
		return true;
	}
	if (xp_better<T, MAX>(va, vb)) {
		return false;
	}
	return ib < ia;
}

// xp_block_arg reduces the (index, value) pairs of a block; thread 0 gets
// the result in shi[0], shv[0].
template <typename T, bool MAX> __device__ void xp_block_arg(xp_i64 *shi, T *shv, xp_i64 idx, T val)
{
	unsigned int t = threadIdx.x;
	shi[t] = idx;
	shv[t] = val;
	__syncthreads();
	for (unsigned int s = XP_BLOCK / 2; s > 0; s >>= 1) {
		if (t < s && xp_pick<T, MAX>(shi[t], shv[t], shi[t + s], shv[t + s])) {
			shi[t] = shi[t + s];
			shv[t] = shv[t + s];
		}
		__syncthreads();
	}
}

// xp_arg is the first pass of Argmin (MAX false) and Argmax: the index of
// each block's first best element, or -1, into partial[blockIdx.x].
template <typename T, bool MAX> __device__ void xp_arg(xp_i64 n, const T *x, xp_i64 *partial)
{
	__shared__ xp_i64 shi[XP_BLOCK];
	__shared__ T shv[XP_BLOCK];
	xp_i64 best = -1;
	T bv = (T)0;
	XP_GRID_STRIDE(i, n)
	{
		T v = x[i];
		if (best < 0 || xp_better<T, MAX>(v, bv)) {
			best = i;
			bv = v;
		}
	}
	xp_block_arg<T, MAX>(shi, shv, best, bv);
	if (threadIdx.x == 0) {
		partial[blockIdx.x] = shi[0];
	}
}

// xp_arg2 is the second pass, one block over the nb partial indices: out[0]
// gets the index (all ones for none) and out[1] the bits of the element.
template <typename T, bool MAX> __device__ void xp_arg2(int nb, const T *x, const xp_i64 *partial, xp_u64 *out)
{
	__shared__ xp_i64 shi[XP_BLOCK];
	__shared__ T shv[XP_BLOCK];
	xp_i64 best = -1;
	T bv = (T)0;
	for (int k = threadIdx.x; k < nb; k += XP_BLOCK) {
		xp_i64 i = partial[k];
		if (i >= 0) {
			T v = x[i];
			if (xp_pick<T, MAX>(best, bv, i, v)) {
				best = i;
				bv = v;
			}
		}
	}
	xp_block_arg<T, MAX>(shi, shv, best, bv);
	if (threadIdx.x == 0) {
		out[0] = (xp_u64)shi[0];
		out[1] = shi[0] >= 0 ? xp_bits<T>(shv[0]) : 0;
	}
}

// ---- stencil ----

// xp_jacobi5: for 1 <= i < rows-1 and 1 <= j < cols-1,
// dst[i][j] = 0.25*(src[i-1][j] + src[i+1][j] + src[i][j-1] + src[i][j+1]),
// added in that order, as the CPU backend does. x runs along a row.
template <typename T> __device__ void xp_jacobi5(xp_i64 rows, xp_i64 cols, T *dst, const T *src)
{
	const T q = (T)0.25;
	for (xp_i64 i = 1 + (xp_i64)blockIdx.y * blockDim.y + threadIdx.y; i < rows - 1; i += (xp_i64)gridDim.y * blockDim.y) {
		for (xp_i64 j = 1 + (xp_i64)blockIdx.x * blockDim.x + threadIdx.x; j < cols - 1; j += (xp_i64)gridDim.x * blockDim.x) {
			xp_i64 k = i * cols + j;
			dst[k] = q * (src[k - cols] + src[k + cols] + src[k - 1] + src[k + 1]);
		}
	}
}

// xp_laplace5: for 1 <= i < rows-1 and 1 <= j < cols-1,
// dst[i][j] = 4*src[i][j] - src[i-1][j] - src[i+1][j] - src[i][j-1] - src[i][j+1],
// subtracted in that order, as the CPU backend does.
template <typename T> __device__ void xp_laplace5(xp_i64 rows, xp_i64 cols, T *dst, const T *src)
{
	for (xp_i64 i = 1 + (xp_i64)blockIdx.y * blockDim.y + threadIdx.y; i < rows - 1; i += (xp_i64)gridDim.y * blockDim.y) {
		for (xp_i64 j = 1 + (xp_i64)blockIdx.x * blockDim.x + threadIdx.x; j < cols - 1; j += (xp_i64)gridDim.x * blockDim.x) {
			xp_i64 k = i * cols + j;
			dst[k] = (T)4 * src[k] - src[k - cols] - src[k + cols] - src[k - 1] - src[k + 1];
		}
	}
}

// ---- entries ----

// XP_REGISTER(name, syncs) registers an entry with the host emulation of
// the tests (syncs: whether it calls __syncthreads); it is empty for NVRTC.

#define XP_ENTRIES_ALL(S, T)                                                                         \
	extern "C" __global__ void xp_fill_##S(xp_i64 n, T v, T *x) { xp_fill<T>(n, v, x); }         \
	XP_REGISTER(xp_fill_##S, 0)                                                                  \
	extern "C" __global__ void xp_scale_##S(xp_i64 n, T a, T *x) { xp_scale<T>(n, a, x); }       \
	XP_REGISTER(xp_scale_##S, 0)                                                                 \
	extern "C" __global__ void xp_axpy_##S(xp_i64 n, T a, const T *x, T *y)                      \
	{                                                                                            \
		xp_axpy<T>(n, a, x, y);                                                              \
	}                                                                                            \
	XP_REGISTER(xp_axpy_##S, 0)                                                                  \
	extern "C" __global__ void xp_axpby_##S(xp_i64 n, T a, const T *x, T b, T *y)               \
	{                                                                                            \
		xp_axpby<T>(n, a, x, b, y);                                                          \
	}                                                                                            \
	XP_REGISTER(xp_axpby_##S, 0)                                                                 \
	extern "C" __global__ void xp_add_##S(xp_i64 n, T *d, const T *x, const T *y)                \
	{                                                                                            \
		xp_binary<0, T>(n, d, x, y);                                                         \
	}                                                                                            \
	XP_REGISTER(xp_add_##S, 0)                                                                   \
	extern "C" __global__ void xp_sub_##S(xp_i64 n, T *d, const T *x, const T *y)                \
	{                                                                                            \
		xp_binary<1, T>(n, d, x, y);                                                         \
	}                                                                                            \
	XP_REGISTER(xp_sub_##S, 0)                                                                   \
	extern "C" __global__ void xp_mul_##S(xp_i64 n, T *d, const T *x, const T *y)                \
	{                                                                                            \
		xp_binary<2, T>(n, d, x, y);                                                         \
	}                                                                                            \
	XP_REGISTER(xp_mul_##S, 0)                                                                   \
	extern "C" __global__ void xp_div_##S(xp_i64 n, T *d, const T *x, const T *y)                \
	{                                                                                            \
		xp_binary<3, T>(n, d, x, y);                                                         \
	}                                                                                            \
	XP_REGISTER(xp_div_##S, 0)                                                                   \
	extern "C" __global__ void xp_adds_##S(xp_i64 n, T *d, const T *x, T s)                      \
	{                                                                                            \
		xp_binary_scalar<0, T>(n, d, x, s);                                                  \
	}                                                                                            \
	XP_REGISTER(xp_adds_##S, 0)                                                                  \
	extern "C" __global__ void xp_subs_##S(xp_i64 n, T *d, const T *x, T s)                      \
	{                                                                                            \
		xp_binary_scalar<1, T>(n, d, x, s);                                                  \
	}                                                                                            \
	XP_REGISTER(xp_subs_##S, 0)                                                                  \
	extern "C" __global__ void xp_muls_##S(xp_i64 n, T *d, const T *x, T s)                      \
	{                                                                                            \
		xp_binary_scalar<2, T>(n, d, x, s);                                                  \
	}                                                                                            \
	XP_REGISTER(xp_muls_##S, 0)                                                                  \
	extern "C" __global__ void xp_divs_##S(xp_i64 n, T *d, const T *x, T s)                      \
	{                                                                                            \
		xp_binary_scalar<3, T>(n, d, x, s);                                                  \
	}                                                                                            \
	XP_REGISTER(xp_divs_##S, 0)                                                                  \
	extern "C" __global__ void xp_sum_##S(xp_i64 n, const T *x, xp_ops<T>::A *partial)           \
	{                                                                                            \
		xp_sum<T>(n, x, partial);                                                            \
	}                                                                                            \
	XP_REGISTER(xp_sum_##S, 1)                                                                   \
	extern "C" __global__ void xp_dot_##S(xp_i64 n, const T *x, const T *y, xp_ops<T>::A *partial) \
	{                                                                                            \
		xp_dot<T>(n, x, y, partial);                                                         \
	}                                                                                            \
	XP_REGISTER(xp_dot_##S, 1)                                                                   \
	extern "C" __global__ void xp_argmin_##S(xp_i64 n, const T *x, xp_i64 *partial)              \
	{                                                                                            \
		xp_arg<T, false>(n, x, partial);                                                     \
	}                                                                                            \
	XP_REGISTER(xp_argmin_##S, 1)                                                                \
	extern "C" __global__ void xp_argmax_##S(xp_i64 n, const T *x, xp_i64 *partial)              \
	{                                                                                            \
		xp_arg<T, true>(n, x, partial);                                                      \
	}                                                                                            \
	XP_REGISTER(xp_argmax_##S, 1)                                                                \
	extern "C" __global__ void xp_argmin2_##S(int nb, const T *x, const xp_i64 *partial, xp_u64 *out) \
	{                                                                                            \
		xp_arg2<T, false>(nb, x, partial, out);                                              \
	}                                                                                            \
	XP_REGISTER(xp_argmin2_##S, 1)                                                               \
	extern "C" __global__ void xp_argmax2_##S(int nb, const T *x, const xp_i64 *partial, xp_u64 *out) \
	{                                                                                            \
		xp_arg2<T, true>(nb, x, partial, out);                                               \
	}                                                                                            \
	XP_REGISTER(xp_argmax2_##S, 1)

#define XP_ENTRIES_INT(S, T)                                                                         \
	extern "C" __global__ void xp_zeroidx_##S(xp_i64 n, const T *y, xp_u64 *first)              \
	{                                                                                            \
		xp_zeroidx<T>(n, y, first);                                                          \
	}                                                                                            \
	XP_REGISTER(xp_zeroidx_##S, 0)

#define XP_ENTRIES_FLOAT(S, T)                                                                       \
	extern "C" __global__ void xp_jacobi5_##S(xp_i64 rows, xp_i64 cols, T *dst, const T *src)    \
	{                                                                                            \
		xp_jacobi5<T>(rows, cols, dst, src);                                                 \
	}                                                                                            \
	XP_REGISTER(xp_jacobi5_##S, 0)                                                               \
	extern "C" __global__ void xp_laplace5_##S(xp_i64 rows, xp_i64 cols, T *dst, const T *src)   \
	{                                                                                            \
		xp_laplace5<T>(rows, cols, dst, src);                                                \
	}                                                                                            \
	XP_REGISTER(xp_laplace5_##S, 0)

XP_ENTRIES_ALL(f32, float)
XP_ENTRIES_ALL(f64, double)
XP_ENTRIES_ALL(i32, int)
XP_ENTRIES_ALL(i64, long long)
XP_ENTRIES_ALL(u32, unsigned int)
XP_ENTRIES_ALL(u64, unsigned long long)
XP_ENTRIES_ALL(i8, signed char)
XP_ENTRIES_ALL(i16, short)
XP_ENTRIES_ALL(u8, unsigned char)
XP_ENTRIES_ALL(u16, unsigned short)

XP_ENTRIES_INT(i32, int)
XP_ENTRIES_INT(i64, long long)
XP_ENTRIES_INT(u32, unsigned int)
XP_ENTRIES_INT(u64, unsigned long long)
XP_ENTRIES_INT(i8, signed char)
XP_ENTRIES_INT(i16, short)
XP_ENTRIES_INT(u8, unsigned char)
XP_ENTRIES_INT(u16, unsigned short)

XP_ENTRIES_FLOAT(f32, float)
XP_ENTRIES_FLOAT(f64, double)

extern "C" __global__ void xp_sum2_f64(int nb, const double *partial, double *out) { xp_sum2<double>(nb, partial, out); }
XP_REGISTER(xp_sum2_f64, 1)
extern "C" __global__ void xp_sum2_u64(int nb, const xp_u64 *partial, xp_u64 *out) { xp_sum2<xp_u64>(nb, partial, out); }
XP_REGISTER(xp_sum2_u64, 1)
