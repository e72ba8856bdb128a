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
// Entries: xp_<op>_<type> for op in exp, log, sqrt, sin, cos, tanh, floor,
// log10, log2, tan, arcsin, arccos, arctan, sinh, cosh, arcsinh, arccosh,
// arctanh, arctan2 (floats only), pow (x**y) and pows (x**s), and abs,
// sign, clip, maximum, minimum, mod and floordiv for every element type.
// Parameters: (n, dst, x) for the unary functions, (n, dst, x, y) for pow
// and the functions of two arguments, (n, dst, x, s) for pows and (n, dst,
// x, lo, hi) for clip.
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
	static __device__ __forceinline__ float log10_(float x) { return log10f(x); }
	static __device__ __forceinline__ float log2_(float x) { return log2f(x); }
	static __device__ __forceinline__ float tan_(float x) { return tanf(x); }
	static __device__ __forceinline__ float asin_(float x) { return asinf(x); }
	static __device__ __forceinline__ float acos_(float x) { return acosf(x); }
	static __device__ __forceinline__ float atan_(float x) { return atanf(x); }
	static __device__ __forceinline__ float sinh_(float x) { return sinhf(x); }
	static __device__ __forceinline__ float cosh_(float x) { return coshf(x); }
	static __device__ __forceinline__ float asinh_(float x) { return asinhf(x); }
	static __device__ __forceinline__ float acosh_(float x) { return acoshf(x); }
	static __device__ __forceinline__ float atanh_(float x) { return atanhf(x); }
	static __device__ __forceinline__ float atan2_(float x, float y) { return atan2f(x, y); }
	static __device__ __forceinline__ float fmod_(float x, float y) { return fmodf(x, y); }
	static __device__ __forceinline__ float copysign_(float x, float y) { return copysignf(x, y); }
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
	static __device__ __forceinline__ double log10_(double x) { return log10(x); }
	static __device__ __forceinline__ double log2_(double x) { return log2(x); }
	static __device__ __forceinline__ double tan_(double x) { return tan(x); }
	static __device__ __forceinline__ double asin_(double x) { return asin(x); }
	static __device__ __forceinline__ double acos_(double x) { return acos(x); }
	static __device__ __forceinline__ double atan_(double x) { return atan(x); }
	static __device__ __forceinline__ double sinh_(double x) { return sinh(x); }
	static __device__ __forceinline__ double cosh_(double x) { return cosh(x); }
	static __device__ __forceinline__ double asinh_(double x) { return asinh(x); }
	static __device__ __forceinline__ double acosh_(double x) { return acosh(x); }
	static __device__ __forceinline__ double atanh_(double x) { return atanh(x); }
	static __device__ __forceinline__ double atan2_(double x, double y) { return atan2(x, y); }
	static __device__ __forceinline__ double fmod_(double x, double y) { return fmod(x, y); }
	static __device__ __forceinline__ double copysign_(double x, double y) { return copysign(x, y); }
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
// Cos, Tanh, Floor, then (Abs, 7, is xp_abs) Log10, Log2, Tan, Arcsin,
// Arccos, Arctan, Sinh, Cosh, Arcsinh, Arccosh, Arctanh (Sign, 19, is
// xp_sign).
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
	case 8:
		return xp_math<T>::log10_(v);
	case 9:
		return xp_math<T>::log2_(v);
	case 10:
		return xp_math<T>::tan_(v);
	case 11:
		return xp_math<T>::asin_(v);
	case 12:
		return xp_math<T>::acos_(v);
	case 13:
		return xp_math<T>::atan_(v);
	case 14:
		return xp_math<T>::sinh_(v);
	case 15:
		return xp_math<T>::cosh_(v);
	case 16:
		return xp_math<T>::asinh_(v);
	case 17:
		return xp_math<T>::acosh_(v);
	case 18:
		return xp_math<T>::atanh_(v);
	default:
		return xp_math<T>::floor_(v);
	}
}

// xp_sign is NumPy's sign: -1, 0 or 1 (+0 for ±0), NaN for NaN.
template <typename T> __device__ __forceinline__ T xp_sign(T v)
{
	if (v > (T)0) {
		return (T)1;
	}
	if (v < (T)0) {
		return (T)0 - (T)1;
	}
	if (v == (T)0) {
		return (T)0;
	}
	return v;
}

// xp_maximum and xp_minimum are np.maximum and np.minimum: a NaN in either
// argument gives NaN, and of equal arguments (+0 and -0) the second.
template <typename T> __device__ __forceinline__ T xp_maximum(T a, T b)
{
	if (a != a) {
		return a;
	}
	if (b != b) {
		return b;
	}
	return a > b ? a : b;
}

template <typename T> __device__ __forceinline__ T xp_minimum(T a, T b)
{
	if (a != a) {
		return a;
	}
	if (b != b) {
		return b;
	}
	return a < b ? a : b;
}

// xp_fdivmod is NumPy's npy_divmod of floats: the floor quotient, and in
// *mod the remainder with the sign of b, for b != 0.
template <typename T> __device__ __forceinline__ T xp_fdivmod(T a, T b, T *mod)
{
	T m = xp_math<T>::fmod_(a, b);
	T div = (a - m) / b;
	if (m != (T)0) {
		if ((b < (T)0) != (m < (T)0)) {
			m += b;
			div -= (T)1;
		}
	} else {
		m = xp_math<T>::copysign_((T)0, b);
	}
	T q;
	if (div != (T)0) {
		q = xp_math<T>::floor_(div);
		if (div - q > (T)0.5) {
			q += (T)1;
		}
	} else {
		q = xp_math<T>::copysign_((T)0, a / b);
	}
	*mod = m;
	return q;
}

// xp_fmod and xp_ffloordiv are np.remainder and np.floor_divide of floats
// (npy_remainder, npy_floor_divide): fmod(a, 0) = NaN and a / 0.
template <typename T> __device__ __forceinline__ T xp_fmod(T a, T b)
{
	if (b == (T)0) {
		return xp_math<T>::fmod_(a, b);
	}
	T m;
	xp_fdivmod<T>(a, b, &m);
	return m;
}

template <typename T> __device__ __forceinline__ T xp_ffloordiv(T a, T b)
{
	if (b == (T)0) {
		return a / b;
	}
	T m;
	return xp_fdivmod<T>(a, b, &m);
}

// xp_imod and xp_ifloordiv are np.remainder and np.floor_divide of
// integers: 0 for b == 0, as NumPy; the most negative signed integer by -1
// (which traps in C) gives itself and remainder 0, as NumPy.
template <typename T> __device__ __forceinline__ T xp_imod(T a, T b)
{
	if (b == (T)0 || (xp_type<T>::is_signed && b == (T)((T)0 - (T)1))) {
		return (T)0;
	}
	T r = a % b;
	if (r != (T)0 && ((r < (T)0) != (b < (T)0))) {
		r += b;
	}
	return r;
}

template <typename T> __device__ __forceinline__ T xp_ifloordiv(T a, T b)
{
	typedef typename xp_type<T>::U U;
	if (b == (T)0) {
		return (T)0;
	}
	if (xp_type<T>::is_signed && b == (T)((T)0 - (T)1)) {
		return (T)((U)0 - (U)a);
	}
	T q = a / b;
	if (a % b != (T)0 && ((a < (T)0) != (b < (T)0))) {
		q -= (T)1;
	}
	return q;
}

template <typename T> __device__ void xp_signk(xp_i64 n, T *dst, const T *x)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_sign<T>(x[i]);
}

// The kernels of the functions of two arguments: (n, dst, x, y), dst[i] =
// f(x[i], y[i]).
#define XP_BINARY_KERNEL(K, F) \
	template <typename T> __device__ void K(xp_i64 n, T *dst, const T *x, const T *y) \
	{ \
		XP_GRID_STRIDE(i, n) dst[i] = F(x[i], y[i]); \
	}
XP_BINARY_KERNEL(xp_maximumk, xp_maximum<T>)
XP_BINARY_KERNEL(xp_minimumk, xp_minimum<T>)
XP_BINARY_KERNEL(xp_fmodk, xp_fmod<T>)
XP_BINARY_KERNEL(xp_ffloordivk, xp_ffloordiv<T>)
XP_BINARY_KERNEL(xp_atan2k, xp_math<T>::atan2_)

template <typename T> __device__ void xp_imodk(xp_i64 n, T *dst, const T *x, const T *y)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_imod<T>(x[i], y[i]);
}

template <typename T> __device__ void xp_ifloordivk(xp_i64 n, T *dst, const T *x, const T *y)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_ifloordiv<T>(x[i], y[i]);
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

// XP_MATH_FLOAT2(S, T): the float-only entries of Log10 to Arctanh and
// arctan2; XP_MATH_ALL2(S, T): sign, maximum and minimum of every type;
// XP_MATH_DIVI(S, T): mod and floordiv of integers (the floats' are in
// XP_MATH_FLOAT2).
#define XP_MATH_FLOAT2(S, T) \
	extern "C" __global__ void xp_log10_##S(xp_i64 n, T *d, const T *x) { xp_unary<8, T>(n, d, x); } \
	XP_REGISTER(xp_log10_##S, 0) \
	extern "C" __global__ void xp_log2_##S(xp_i64 n, T *d, const T *x) { xp_unary<9, T>(n, d, x); } \
	XP_REGISTER(xp_log2_##S, 0) \
	extern "C" __global__ void xp_tan_##S(xp_i64 n, T *d, const T *x) { xp_unary<10, T>(n, d, x); } \
	XP_REGISTER(xp_tan_##S, 0) \
	extern "C" __global__ void xp_arcsin_##S(xp_i64 n, T *d, const T *x) { xp_unary<11, T>(n, d, x); } \
	XP_REGISTER(xp_arcsin_##S, 0) \
	extern "C" __global__ void xp_arccos_##S(xp_i64 n, T *d, const T *x) { xp_unary<12, T>(n, d, x); } \
	XP_REGISTER(xp_arccos_##S, 0) \
	extern "C" __global__ void xp_arctan_##S(xp_i64 n, T *d, const T *x) { xp_unary<13, T>(n, d, x); } \
	XP_REGISTER(xp_arctan_##S, 0) \
	extern "C" __global__ void xp_sinh_##S(xp_i64 n, T *d, const T *x) { xp_unary<14, T>(n, d, x); } \
	XP_REGISTER(xp_sinh_##S, 0) \
	extern "C" __global__ void xp_cosh_##S(xp_i64 n, T *d, const T *x) { xp_unary<15, T>(n, d, x); } \
	XP_REGISTER(xp_cosh_##S, 0) \
	extern "C" __global__ void xp_arcsinh_##S(xp_i64 n, T *d, const T *x) { xp_unary<16, T>(n, d, x); } \
	XP_REGISTER(xp_arcsinh_##S, 0) \
	extern "C" __global__ void xp_arccosh_##S(xp_i64 n, T *d, const T *x) { xp_unary<17, T>(n, d, x); } \
	XP_REGISTER(xp_arccosh_##S, 0) \
	extern "C" __global__ void xp_arctanh_##S(xp_i64 n, T *d, const T *x) { xp_unary<18, T>(n, d, x); } \
	XP_REGISTER(xp_arctanh_##S, 0) \
	extern "C" __global__ void xp_arctan2_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_atan2k<T>(n, d, x, y); } \
	XP_REGISTER(xp_arctan2_##S, 0) \
	extern "C" __global__ void xp_mod_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_fmodk<T>(n, d, x, y); } \
	XP_REGISTER(xp_mod_##S, 0) \
	extern "C" __global__ void xp_floordiv_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_ffloordivk<T>(n, d, x, y); } \
	XP_REGISTER(xp_floordiv_##S, 0)
#define XP_MATH_ALL2(S, T) \
	extern "C" __global__ void xp_sign_##S(xp_i64 n, T *d, const T *x) { xp_signk<T>(n, d, x); } \
	XP_REGISTER(xp_sign_##S, 0) \
	extern "C" __global__ void xp_maximum_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_maximumk<T>(n, d, x, y); } \
	XP_REGISTER(xp_maximum_##S, 0) \
	extern "C" __global__ void xp_minimum_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_minimumk<T>(n, d, x, y); } \
	XP_REGISTER(xp_minimum_##S, 0)
#define XP_MATH_DIVI(S, T) \
	extern "C" __global__ void xp_mod_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_imodk<T>(n, d, x, y); } \
	XP_REGISTER(xp_mod_##S, 0) \
	extern "C" __global__ void xp_floordiv_##S(xp_i64 n, T *d, const T *x, const T *y) { xp_ifloordivk<T>(n, d, x, y); } \
	XP_REGISTER(xp_floordiv_##S, 0)

XP_MATH_FLOAT(f32, float)
XP_MATH_FLOAT(f64, double)
XP_MATH_FLOAT2(f32, float)
XP_MATH_FLOAT2(f64, double)

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

XP_MATH_ALL2(f32, float)
XP_MATH_ALL2(f64, double)
XP_MATH_ALL2(i32, int)
XP_MATH_ALL2(i64, long long)
XP_MATH_ALL2(u32, unsigned int)
XP_MATH_ALL2(u64, unsigned long long)
XP_MATH_ALL2(i8, signed char)
XP_MATH_ALL2(i16, short)
XP_MATH_ALL2(u8, unsigned char)
XP_MATH_ALL2(u16, unsigned short)
XP_MATH_DIVI(i32, int)
XP_MATH_DIVI(i64, long long)
XP_MATH_DIVI(u32, unsigned int)
XP_MATH_DIVI(u64, unsigned long long)
XP_MATH_DIVI(i8, signed char)
XP_MATH_DIVI(i16, short)
XP_MATH_DIVI(u8, unsigned char)
XP_MATH_DIVI(u16, unsigned short)
