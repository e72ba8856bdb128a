// math.cu: the elementwise math functions of xpmpi's CUDA backend (the
// backend.Math of package backend/cuda, math.go), appended to kernels.cu
// to make the module's source (KernelSource): it uses kernels.cu's types,
// XP_GRID_STRIDE and XP_REGISTER, and includes no header.
//
// The functions are CUDA's own (expf, exp, logf, ...; never the fast
// __expf intrinsics), whose maximum errors the CUDA C Programming Guide
// states; sqrtf and sqrt are correctly rounded (NVRTC's default
// -prec-sqrt=true), floorf, floor, fabsf and fabs exact. The tests compile
// this file as C++ for the host emulation of the driver, where the same
// names are glibc's, and check its results against Go's.
//
// Entries: xp_<op>_<type> for op in exp, log, sqrt, sin, cos, tanh, floor
// (floats only), pow (x**y) and pows (x**s), and abs and clip for every
// element type. Parameters: (n, dst, x) for the unary functions, (n, dst,
// x, y) for pow, (n, dst, x, s) for pows and (n, dst, x, lo, hi) for clip.
// dst may be x (or y): each element is read before it is written, by the
// same thread.

// xp_math holds the float functions of one float type.
template <typename T> struct xp_math;
template <> struct xp_math<float> {
	static __device__ __forceinline__ float exp_(float x) { return expf(x); }
	static __device__ __forceinline__ float log_(float x) { return logf(x); }
	static __device__ __forceinline__ float sqrt_(float x) { return sqrtf(x); }
	static __device__ __forceinline__ float sin_(float x) { return sinf(x); }
	static __device__ __forceinline__ float cos_(float x) { return cosf(x); }
	static __device__ __forceinline__ float tanh_(float x) { return tanhf(x); }
	static __device__ __forceinline__ float floor_(float x) { return floorf(x); }
	static __device__ __forceinline__ float pow_(float x, float y) { return powf(x, y); }
};
template <> struct xp_math<double> {
	static __device__ __forceinline__ double exp_(double x) { return exp(x); }
	static __device__ __forceinline__ double log_(double x) { return log(x); }
	static __device__ __forceinline__ double sqrt_(double x) { return sqrt(x); }
	static __device__ __forceinline__ double sin_(double x) { return sin(x); }
	static __device__ __forceinline__ double cos_(double x) { return cos(x); }
	static __device__ __forceinline__ double tanh_(double x) { return tanh(x); }
	static __device__ __forceinline__ double floor_(double x) { return floor(x); }
	static __device__ __forceinline__ double pow_(double x, double y) { return pow(x, y); }
};

// xp_abs is |v|: the sign bit cleared for floats (abs(-0) = +0, NaN stays
// NaN), the negation in the unsigned type for negative signed integers (so
// that the most negative one is itself, as NumPy's abs), the identity for
// unsigned integers.
template <typename T> __device__ __forceinline__ T xp_abs(T v)
{
	if (xp_type<T>::is_float) {
		return v < (T)0 ? -v : (v == (T)0 ? (T)0 : v);
	}
	if (xp_type<T>::is_signed && v < (T)0) {
		typedef typename xp_type<T>::U U;
		return (T)((U)0 - (U)v);
	}
	return v;
}

// xp_clip is NumPy's clip: min(max(v, lo), hi) with npy_math's max(a, b)
// = (a is NaN ? a : a > b ? a : b) and min(a, b) = (a is NaN ? a : a < b ?
// a : b).
template <typename T> __device__ __forceinline__ T xp_clip(T v, T lo, T hi)
{
	if (v == v) {
		if (!(v > lo)) {
			v = lo;
		}
		if (v == v && !(v < hi)) {
			v = hi;
		}
	}
	return v;
}

// The unary functions, numbered as backend.UnaryOp: Exp, Log, Sqrt, Sin,
// Cos, Tanh, Floor (Abs is xp_abs).
template <int OP, typename T> __device__ __forceinline__ T xp_unary_op(T v)
{
	switch (OP) {
	case 0:
		return xp_math<T>::exp_(v);
	case 1:
		return xp_math<T>::log_(v);
	case 2:
		return xp_math<T>::sqrt_(v);
	case 3:
		return xp_math<T>::sin_(v);
	case 4:
		return xp_math<T>::cos_(v);
	case 5:
		return xp_math<T>::tanh_(v);
	default:
		return xp_math<T>::floor_(v);
	}
}

template <int OP, typename T> __device__ void xp_unary(xp_i64 n, T *dst, const T *x)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_unary_op<OP, T>(x[i]);
}

template <typename T> __device__ void xp_absk(xp_i64 n, T *dst, const T *x)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_abs<T>(x[i]);
}

template <typename T> __device__ void xp_clipk(xp_i64 n, T *dst, const T *x, T lo, T hi)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_clip<T>(x[i], lo, hi);
}

template <typename T> __device__ void xp_powk(xp_i64 n, T *dst, const T *x, const T *y)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_math<T>::pow_(x[i], y[i]);
}

template <typename T> __device__ void xp_powsk(xp_i64 n, T *dst, const T *x, T s)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_math<T>::pow_(x[i], s);
}

// XP_MATH_FLOAT(S, T) instantiates the float-only entries for type T,
// named with suffix S; XP_MATH_ALL(S, T) those of every type.
#define XP_MATH_FLOAT(S, T) \
	extern "C" __global__ void xp_exp_##S(xp_i64 n, T *d, const T *x) { xp_unary<0, T>(n, d, x); } \
	XP_REGISTER(xp_exp_##S, 0) \
	extern "C" __global__ void xp_log_##S(xp_i64 n, T *d, const T *x) { xp_unary<1, T>(n, d, x); } \
	XP_REGISTER(xp_log_##S, 0) \
	extern "C" __global__ void xp_sqrt_##S(xp_i64 n, T *d, const T *x) { xp_unary<2, T>(n, d, x); } \
	XP_REGISTER(xp_sqrt_##S, 0) \
	extern "C" __global__ void xp_sin_##S(xp_i64 n, T *d, const T *x) { xp_unary<3, T>(n, d, x); } \
	XP_REGISTER(xp_sin_##S, 0) \
	extern "C" __global__ void xp_cos_##S(xp_i64 n, T *d, const T *x) { xp_unary<4, T>(n, d, x); } \
	XP_REGISTER(xp_cos_##S, 0) \
	extern "C" __global__ void xp_tanh_##S(xp_i64 n, T *d, const T *x) { xp_unary<5, T>(n, d, x); } \
	XP_REGISTER(xp_tanh_##S, 0) \
	extern "C" __global__ void xp_floor_##S(xp_i64 n, T *d, const T *x) { xp_unary<6, T>(n, d, x); } \
	XP_REGISTER(xp_floor_##S, 0) \
	extern "C" __global__ void xp_pow_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_powk<T>(n, d, x, y); } \
	XP_REGISTER(xp_pow_##S, 0) \
	extern "C" __global__ void xp_pows_##S(xp_i64 n, T *d, const T *x, T s) { xp_powsk<T>(n, d, x, s); } \
	XP_REGISTER(xp_pows_##S, 0)

#define XP_MATH_ALL(S, T)                                                                            \
	extern "C" __global__ void xp_abs_##S(xp_i64 n, T *d, const T *x) { xp_absk<T>(n, d, x); }    \
	XP_REGISTER(xp_abs_##S, 0)                                                                   \
	extern "C" __global__ void xp_clip_##S(xp_i64 n, T *d, const T *x, T lo, T hi)              \
	{                                                                                            \
		xp_clipk<T>(n, d, x, lo, hi);                                                        \
	}                                                                                            \
	XP_REGISTER(xp_clip_##S, 0)

XP_MATH_FLOAT(f32, float)
XP_MATH_FLOAT(f64, double)

XP_MATH_ALL(f32, float)
XP_MATH_ALL(f64, double)
XP_MATH_ALL(i32, int)
XP_MATH_ALL(i64, long long)
XP_MATH_ALL(u32, unsigned int)
XP_MATH_ALL(u64, unsigned long long)
XP_MATH_ALL(i8, signed char)
XP_MATH_ALL(i16, short)
XP_MATH_ALL(u8, unsigned char)
XP_MATH_ALL(u16, unsigned short)
