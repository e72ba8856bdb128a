// complex.cu: the complex arithmetic, math and optional kernels of xpmpi's
// CUDA backend (backend.ComplexArith, backend.ComplexMath and
// backend.ComplexKernels of package backend/cuda, complex.go), appended
// after sort.cu to make the module's source (KernelSource): it uses
// kernels.cu's types, XP_GRID_STRIDE and XP_REGISTER, stats.cu's
// xp_pairwise and XP_MOM_CHUNK, convert.cu's xp_where, xp_cpscatter and
// xp_convert and gemm.cu's xp_gemm, and includes no header.
//
// Every operation ports the CPU backend's own (backend/cpu/complex.go: Go's
// complex arithmetic and math/cmplx), compiled with --fmad=false:
//
//   - A product is Go's: the parts widened to double, (ac - bd) + (ad + bc)i
//     with each product rounded, then the parts rounded to the part type
//     (complex64 products are computed in double, as Go compiles them).
//     Sums and differences are taken part by part in the part type. A
//     quotient is Go's runtime complex128div (Smith's algorithm with C99's
//     corrections of infinities and zeros) on the arguments widened to
//     complex128, rounded to the part type at the end. So the arithmetic
//     is the CPU's bit for bit.
//   - Sum, Dot and Vdot take the CPU's order: chunks of XP_MOM_CHUNK (the
//     CPU's reduceChunk) elements summed in order in double, one thread per
//     chunk, and the chunks' real and imaginary partial sums added pairwise
//     by one thread (xp_pairwise): the CPU's bits. Prod is one thread, in
//     order (the CPU's bits).
//   - Abs is Go's math.Hypot (its amd64 assembly, which is its pure Go
//     algorithm), Angle is Go's math.Atan2 (pure Go: Cephes' atan), Sqrt is
//     math/cmplx's Sqrt over them, and Conj, Real and Imag are exact: the
//     CPU's bits. Exp, Log and Pow are math/cmplx's algorithms (their
//     special cases included) over the device's exp, log, sin, cos and pow
//     where Go uses its own: their results are within the device
//     functions' documented errors (CUDA C Programming Guide: 1 to 2 ulps
//     in double) of the CPU's, not its bits.
//   - The optional kernels take the CPU's order, so its bits: SumAxis sums
//     each part of a line in double in the order of k, one thread per line;
//     CastSums rounds each part; ScanAxis runs each line in order in the
//     element type (sums part by part in the part type, Go's products);
//     Where, Compress (convert.cu's, over the complex type) and the
//     conversions are exact moves and roundings: a real value becomes the
//     real part rounded once to the part type with +0 imaginary part, a
//     complex one converts its real part as a float of its part type
//     would convert (backend.ConvertValue), complex to complex part by
//     part. Gemm is gemm.cu's tiled kernel over the complex type: each
//     element of C summed over l in order, each product Go's rounded to
//     the element type, from +0 (or C).
//
// Entries (S is c64 for complex64 with part type T = float, c128 for
// complex128 with T = double; C is the complex type, two T; D is double):
//   xp_cfill_S(n, T re, T im, C *x)
//   xp_cscale_S(n, T re, T im, C *x)
//   xp_caxpy_S(n, T re, T im, const C *x, C *y)
//   xp_caxpby_S(n, T are, T aim, const C *x, T bre, T bim, C *y)
//   xp_cbin_S(n, int op, C *d, const C *x, const C *y)      op: backend.BinaryOp
//   xp_cbins_S(n, int op, C *d, const C *x, T re, T im)
//   xp_csum_S(n, const C *x, D *part)                        part: nc real sums, then nc imaginary
//   xp_cdot_S(n, const C *x, const C *y, int conj, D *part)  conj: Vdot
//   xp_cprod_S(n, const C *x, D *out)                        out: real, imaginary
//   xp_cunary_S(n, int op, C *d, const C *x)                 op: backend.ComplexOp Exp, Log, Sqrt, Conj
//   xp_cunaryr_S(n, int op, T *d, const C *x)                op: Abs, Angle, Real, Imag
//   xp_cpow_S(n, C *d, const C *x, const C *y)
//   xp_cpows_S(n, C *d, const C *x, D re, D im)
// and, once, xp_cfin_f64(nc, const D *part, D *res): res[0], res[1] the
// pairwise sums of the nc real and the nc imaginary partial sums. The
// optional kernels, with the parameters of the real types' entries of the
// same name (Z is complex128, two D):
//   xp_sumaxis_S(pre, n, post, Z *dst, const C *src, int squares)   squares: 0
//   xp_castsums_S(m, C *dst, const Z *acc, int sqrt)                 sqrt: 0
//   xp_scanaxis_S(pre, n, post, C *dst, C *last, const C *src, const C *carry, int prod)
//   xp_where_S(n, C *dst, const u8 *mask, const C *a, const C *b)
//   xp_cpscatter_S(n, C *dst, const C *x, const u8 *mask, const u64 *offsets)
//   xp_gemm_S(m, n, k, lda, ldb, ldc, C *c, const C *a, const C *b, int accumulate)
//   xp_cvt_S_R(n, C *dst, const R *src) and xp_cvt_R_S(n, R *dst, const C *src)
//       for every real type R (suffix f32, f64, i32, ..., u16)
// and xp_cvt_c64_c128 and xp_cvt_c128_c64.

// xp_cx is a complex number of part type T, laid out as Go's.
template <typename T> struct xp_cx {
	T re, im;
};

template <typename T> __device__ __forceinline__ xp_cx<T> xp_cmk(T re, T im)
{
	xp_cx<T> z;
	z.re = re;
	z.im = im;
	return z;
}

// xp_f64bits is the double whose bits are u.
__device__ __forceinline__ double xp_f64bits(xp_u64 u)
{
	union {
		xp_u64 u;
		double d;
	} c;
	c.u = u;
	return c.d;
}

#define XP_CINF xp_f64bits(0x7FF0000000000000ULL)
#define XP_CNAN xp_f64bits(0x7FF8000000000001ULL) // Go's math.NaN()
// Go's constants Pi, Pi/2, Pi/4 and 3*Pi/4, rounded to double.
#define XP_PI xp_f64bits(0x400921FB54442D18ULL)
#define XP_PI2 xp_f64bits(0x3FF921FB54442D18ULL)
#define XP_PI4 xp_f64bits(0x3FE921FB54442D18ULL)
#define XP_3PI4 xp_f64bits(0x4002D97C7F3321D2ULL)

__device__ __forceinline__ bool xp_isnan(double f) { return f != f; }
__device__ __forceinline__ bool xp_isfinite(double f) { return !xp_isnan(f - f); }
__device__ __forceinline__ bool xp_isinf(double f) { return !xp_isnan(f) && !xp_isfinite(f); }
__device__ __forceinline__ bool xp_signbit(double f)
{
	union {
		double d;
		xp_u64 u;
	} c;
	c.d = f;
	return (c.u >> 63) != 0;
}
__device__ __forceinline__ double xp_copysign(double x, double y)
{
	union {
		double d;
		xp_u64 u;
	} a, b;
	a.d = x;
	b.d = y;
	a.u = (a.u & ~(1ULL << 63)) | (b.u & (1ULL << 63));
	return a.d;
}
__device__ __forceinline__ double xp_fabs(double x) { return xp_copysign(x, 1.0); }

// ---- arithmetic ----

// xp_cmul is Go's product: computed in double, rounded to T.
template <typename T> __device__ __forceinline__ xp_cx<T> xp_cmul(xp_cx<T> a, xp_cx<T> b)
{
	double ar = a.re, br = b.re, ai = a.im, bi = b.im;
	return xp_cmk<T>((T)(ar * br - ai * bi), (T)(ar * bi + ai * br));
}

template <typename T> __device__ __forceinline__ xp_cx<T> xp_cadd(xp_cx<T> a, xp_cx<T> b)
{
	return xp_cmk<T>(a.re + b.re, a.im + b.im);
}

__device__ __forceinline__ double xp_inf2one(double f) { return xp_copysign(xp_isinf(f) ? 1.0 : 0.0, f); }

// xp_cdiv128 is Go's runtime complex128div: n/m.
__device__ xp_cx<double> xp_cdiv128(xp_cx<double> n, xp_cx<double> m)
{
	double e, f;
	if (xp_fabs(m.re) >= xp_fabs(m.im)) {
		double ratio = m.im / m.re;
		double denom = m.re + ratio * m.im;
		e = (n.re + n.im * ratio) / denom;
		f = (n.im - n.re * ratio) / denom;
	} else {
		double ratio = m.re / m.im;
		double denom = m.im + ratio * m.re;
		e = (n.re * ratio + n.im) / denom;
		f = (n.im * ratio - n.re) / denom;
	}
	if (xp_isnan(e) && xp_isnan(f)) {
		double a = n.re, b = n.im, c = m.re, d = m.im;
		if (c == 0 && d == 0 && (!xp_isnan(a) || !xp_isnan(b))) {
			e = xp_copysign(XP_CINF, c) * a;
			f = xp_copysign(XP_CINF, c) * b;
		} else if ((xp_isinf(a) || xp_isinf(b)) && xp_isfinite(c) && xp_isfinite(d)) {
			a = xp_inf2one(a);
			b = xp_inf2one(b);
			e = XP_CINF * (a * c + b * d);
			f = XP_CINF * (b * c - a * d);
		} else if ((xp_isinf(c) || xp_isinf(d)) && xp_isfinite(a) && xp_isfinite(b)) {
			c = xp_inf2one(c);
			d = xp_inf2one(d);
			e = 0 * (a * c + b * d);
			f = 0 * (b * c - a * d);
		}
	}
	return xp_cmk<double>(e, f);
}

// xp_cdiv is Go's quotient of T: complex128div of the widened arguments,
// rounded to T.
template <typename T> __device__ __forceinline__ xp_cx<T> xp_cdiv(xp_cx<T> a, xp_cx<T> b)
{
	xp_cx<double> q = xp_cdiv128(xp_cmk<double>(a.re, a.im), xp_cmk<double>(b.re, b.im));
	return xp_cmk<T>((T)q.re, (T)q.im);
}

// The binary operations, numbered as backend.BinaryOp: Add, Sub, Mul, Div.
template <typename T> __device__ __forceinline__ xp_cx<T> xp_capply(int op, xp_cx<T> a, xp_cx<T> b)
{
	switch (op) {
	case 0:
		return xp_cadd<T>(a, b);
	case 1:
		return xp_cmk<T>(a.re - b.re, a.im - b.im);
	case 2:
		return xp_cmul<T>(a, b);
	default:
		return xp_cdiv<T>(a, b);
	}
}

template <typename T> __device__ void xp_cfill(xp_i64 n, T re, T im, xp_cx<T> *x)
{
	XP_GRID_STRIDE(i, n) x[i] = xp_cmk<T>(re, im);
}

template <typename T> __device__ void xp_cscale(xp_i64 n, T re, T im, xp_cx<T> *x)
{
	XP_GRID_STRIDE(i, n) x[i] = xp_cmul<T>(x[i], xp_cmk<T>(re, im));
}

template <typename T> __device__ void xp_caxpy(xp_i64 n, T re, T im, const xp_cx<T> *x, xp_cx<T> *y)
{
	XP_GRID_STRIDE(i, n) y[i] = xp_cadd<T>(xp_cmul<T>(xp_cmk<T>(re, im), x[i]), y[i]);
}

template <typename T>
__device__ void xp_caxpby(xp_i64 n, T are, T aim, const xp_cx<T> *x, T bre, T bim, xp_cx<T> *y)
{
	XP_GRID_STRIDE(i, n) y[i] = xp_cadd<T>(xp_cmul<T>(xp_cmk<T>(are, aim), x[i]), xp_cmul<T>(xp_cmk<T>(bre, bim), y[i]));
}

// dst may be x or y: each element is read before it is written, by the
// same thread.
template <typename T> __device__ void xp_cbin(xp_i64 n, int op, xp_cx<T> *d, const xp_cx<T> *x, const xp_cx<T> *y)
{
	XP_GRID_STRIDE(i, n) d[i] = xp_capply<T>(op, x[i], y[i]);
}

template <typename T> __device__ void xp_cbins(xp_i64 n, int op, xp_cx<T> *d, const xp_cx<T> *x, T re, T im)
{
	XP_GRID_STRIDE(i, n) d[i] = xp_capply<T>(op, x[i], xp_cmk<T>(re, im));
}

// ---- reductions ----

// xp_csum: part[c] and part[nc+c] = the real and imaginary sums of chunk c
// of x, in order, in double.
template <typename T> __device__ void xp_csum(xp_i64 n, const xp_cx<T> *x, double *part)
{
	xp_i64 nc = (n + XP_MOM_CHUNK - 1) / XP_MOM_CHUNK;
	XP_GRID_STRIDE(c, nc)
	{
		xp_i64 lo = c * XP_MOM_CHUNK, hi = lo + XP_MOM_CHUNK < n ? lo + XP_MOM_CHUNK : n;
		double re = 0, im = 0;
		for (xp_i64 i = lo; i < hi; i++) {
			re += (double)x[i].re;
			im += (double)x[i].im;
		}
		part[c] = re;
		part[nc + c] = im;
	}
}

// xp_cdot: xp_csum of the products x[i]*y[i] (conj(x[i])*y[i] if conj),
// formed in complex128 as Go's product of the widened elements.
template <typename T> __device__ void xp_cdot(xp_i64 n, const xp_cx<T> *x, const xp_cx<T> *y, int conj, double *part)
{
	xp_i64 nc = (n + XP_MOM_CHUNK - 1) / XP_MOM_CHUNK;
	XP_GRID_STRIDE(c, nc)
	{
		xp_i64 lo = c * XP_MOM_CHUNK, hi = lo + XP_MOM_CHUNK < n ? lo + XP_MOM_CHUNK : n;
		double re = 0, im = 0;
		for (xp_i64 i = lo; i < hi; i++) {
			double xi = (double)x[i].im;
			if (conj) {
				xi = -xi;
			}
			xp_cx<double> p = xp_cmul<double>(xp_cmk<double>((double)x[i].re, xi), xp_cmk<double>((double)y[i].re, (double)y[i].im));
			re += p.re;
			im += p.im;
		}
		part[c] = re;
		part[nc + c] = im;
	}
}

// xp_cfin: the pairwise sums of the real and of the imaginary partials.
__device__ void xp_cfin(xp_i64 nc, const double *part, double *res)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		res[0] = xp_pairwise(part, nc);
		res[1] = xp_pairwise(part + nc, nc);
	}
}

// xp_cprod: the product of x in complex128, in order, by one thread.
template <typename T> __device__ void xp_cprod(xp_i64 n, const xp_cx<T> *x, double *out)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		xp_cx<double> p = xp_cmk<double>(1, 0);
		for (xp_i64 i = 0; i < n; i++) {
			p = xp_cmul<double>(p, xp_cmk<double>((double)x[i].re, (double)x[i].im));
		}
		out[0] = p.re;
		out[1] = p.im;
	}
}

// ---- math ----

// xp_hypot is Go's math.Hypot (its amd64 assembly and its pure Go code
// compute the same): max * sqrt(1 + (min/max)**2).
__device__ double xp_hypot(double p, double q)
{
	p = xp_fabs(p);
	q = xp_fabs(q);
	if (xp_isinf(p) || xp_isinf(q)) {
		return XP_CINF;
	}
	if (xp_isnan(p) || xp_isnan(q)) {
		return XP_CNAN;
	}
	if (p < q) {
		double t = p;
		p = q;
		q = t;
	}
	if (p == 0) {
		return 0;
	}
	q = q / p;
	return p * sqrt(1 + q * q);
}

// xp_xatan, xp_satan, xp_atan and xp_atan2 are Go's math (atan.go,
// atan2.go: Cephes' atan).
__device__ double xp_xatan(double x)
{
	const double P0 = -8.750608600031904122785e-01, P1 = -1.615753718733365076637e+01,
		     P2 = -7.500855792314704667340e+01, P3 = -1.228866684490136173410e+02,
		     P4 = -6.485021904942025371773e+01, Q0 = +2.485846490142306297962e+01,
		     Q1 = +1.650270098316988542046e+02, Q2 = +4.328810604912902668951e+02,
		     Q3 = +4.853903996359136964868e+02, Q4 = +1.945506571482613964425e+02;
	double z = x * x;
	z = z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4) / (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
	z = x * z + x;
	return z;
}

__device__ double xp_satan(double x)
{
	const double Morebits = 6.123233995736765886130e-17, Tan3pio8 = 2.41421356237309504880;
	if (x <= 0.66) {
		return xp_xatan(x);
	}
	if (x > Tan3pio8) {
		return XP_PI2 - xp_xatan(1 / x) + Morebits;
	}
	return XP_PI4 + xp_xatan((x - 1) / (x + 1)) + 0.5 * Morebits;
}

__device__ double xp_atan(double x)
{
	if (x == 0) {
		return x;
	}
	if (x > 0) {
		return xp_satan(x);
	}
	return -xp_satan(-x);
}

__device__ double xp_atan2(double y, double x)
{
	if (xp_isnan(y) || xp_isnan(x)) {
		return XP_CNAN;
	}
	if (y == 0) {
		if (x >= 0 && !xp_signbit(x)) {
			return xp_copysign(0, y);
		}
		return xp_copysign(XP_PI, y);
	}
	if (x == 0) {
		return xp_copysign(XP_PI2, y);
	}
	if (xp_isinf(x)) {
		if (x > 0) {
			return xp_isinf(y) ? xp_copysign(XP_PI4, y) : xp_copysign(0, y);
		}
		return xp_isinf(y) ? xp_copysign(XP_3PI4, y) : xp_copysign(XP_PI, y);
	}
	if (xp_isinf(y)) {
		return xp_copysign(XP_PI2, y);
	}
	double q = xp_atan(y / x);
	if (x < 0) {
		if (q <= 0) {
			return q + XP_PI;
		}
		return q - XP_PI;
	}
	return q;
}

// xp_cexp is math/cmplx's Exp.
__device__ xp_cx<double> xp_cexp(xp_cx<double> x)
{
	double re = x.re, im = x.im;
	if (xp_isinf(re)) {
		if (re > 0 && im == 0) {
			return x;
		}
		if (xp_isinf(im) || xp_isnan(im)) {
			if (re < 0) {
				return xp_cmk<double>(0, xp_copysign(0, im));
			}
			return xp_cmk<double>(XP_CINF, XP_CNAN);
		}
	} else if (xp_isnan(re)) {
		if (im == 0) {
			return xp_cmk<double>(XP_CNAN, im);
		}
	}
	double r = exp(re), s = sin(im), c = cos(im);
	return xp_cmk<double>(r * c, r * s);
}

// xp_clog is math/cmplx's Log.
__device__ xp_cx<double> xp_clog(xp_cx<double> x)
{
	return xp_cmk<double>(log(xp_hypot(x.re, x.im)), xp_atan2(x.im, x.re));
}

// xp_csqrt is math/cmplx's Sqrt with the CPU backend's csqrt correction:
// sqrt(NaN + iy) = NaN + iNaN for a y that is not infinite.
__device__ xp_cx<double> xp_csqrt(xp_cx<double> x)
{
	if (xp_isnan(x.re) && !xp_isinf(x.im)) {
		return xp_cmk<double>(XP_CNAN, XP_CNAN);
	}
	if (x.im == 0) {
		if (x.re == 0) {
			return xp_cmk<double>(0, x.im);
		}
		if (x.re < 0) {
			return xp_cmk<double>(0, xp_copysign(sqrt(-x.re), x.im));
		}
		return xp_cmk<double>(sqrt(x.re), x.im);
	} else if (xp_isinf(x.im)) {
		return xp_cmk<double>(XP_CINF, x.im);
	}
	if (x.re == 0) {
		if (x.im < 0) {
			double r = sqrt(-0.5 * x.im);
			return xp_cmk<double>(r, -r);
		}
		double r = sqrt(0.5 * x.im);
		return xp_cmk<double>(r, r);
	}
	double a = x.re, b = x.im, scale;
	if (xp_fabs(a) > 4 || xp_fabs(b) > 4) {
		a *= 0.25;
		b *= 0.25;
		scale = 2;
	} else {
		a *= 1.8014398509481984e16; // 2**54
		b *= 1.8014398509481984e16;
		scale = 7.450580596923828125e-9; // 2**-27
	}
	double r = xp_hypot(a, b), t;
	if (a > 0) {
		t = sqrt(0.5 * r + 0.5 * a);
		r = scale * xp_fabs((0.5 * b) / t);
		t *= scale;
	} else {
		r = sqrt(0.5 * r - 0.5 * a);
		t = scale * xp_fabs((0.5 * b) / r);
		r *= scale;
	}
	if (b < 0) {
		return xp_cmk<double>(t, -r);
	}
	return xp_cmk<double>(t, r);
}

// xp_cpow is the CPU backend's cpow: 1 for y == 0 (NumPy's x**0), else
// math/cmplx's Pow.
__device__ xp_cx<double> xp_cpow(xp_cx<double> x, xp_cx<double> y)
{
	if (y.re == 0 && y.im == 0) {
		return xp_cmk<double>(1, 0);
	}
	if (x.re == 0 && x.im == 0) {
		bool ynan = (xp_isnan(y.re) || xp_isnan(y.im)) && !xp_isinf(y.re) && !xp_isinf(y.im);
		if (ynan) {
			return xp_cmk<double>(XP_CNAN, XP_CNAN);
		}
		if (y.re == 0) {
			return xp_cmk<double>(1, 0);
		}
		if (y.re < 0) {
			if (y.im == 0) {
				return xp_cmk<double>(XP_CINF, 0);
			}
			return xp_cmk<double>(XP_CINF, XP_CINF);
		}
		if (y.re > 0) {
			return xp_cmk<double>(0, 0);
		}
		// y.re is NaN with y.im infinite: Go's Pow panics ("not
		// reached"); NaN is the honest answer here.
		return xp_cmk<double>(XP_CNAN, XP_CNAN);
	}
	double modulus = xp_hypot(x.re, x.im);
	if (modulus == 0) {
		return xp_cmk<double>(0, 0);
	}
	double r = pow(modulus, y.re);
	double arg = xp_atan2(x.im, x.re);
	double theta = y.re * arg;
	if (y.im != 0) {
		r *= exp(-y.im * arg);
		theta += y.im * log(modulus);
	}
	double s = sin(theta), c = cos(theta);
	return xp_cmk<double>(r * c, r * s);
}

// The functions with a complex result, numbered as backend.ComplexOp: Exp,
// Log, Sqrt, Conj.
template <typename T> __device__ void xp_cunary(xp_i64 n, int op, xp_cx<T> *d, const xp_cx<T> *x)
{
	XP_GRID_STRIDE(i, n)
	{
		xp_cx<double> z = xp_cmk<double>((double)x[i].re, (double)x[i].im), r;
		switch (op) {
		case 0:
			r = xp_cexp(z);
			break;
		case 1:
			r = xp_clog(z);
			break;
		case 2:
			r = xp_csqrt(z);
			break;
		default:
			r = xp_cmk<double>(z.re, -z.im);
			break;
		}
		d[i] = xp_cmk<T>((T)r.re, (T)r.im);
	}
}

// The functions with a real result, numbered as backend.ComplexOp: Abs (4),
// Angle, Real, Imag.
template <typename T> __device__ void xp_cunaryr(xp_i64 n, int op, T *d, const xp_cx<T> *x)
{
	XP_GRID_STRIDE(i, n)
	{
		double re = (double)x[i].re, im = (double)x[i].im, r;
		switch (op) {
		case 4:
			r = xp_hypot(re, im);
			break;
		case 5:
			r = xp_atan2(im, re);
			break;
		case 6:
			r = re;
			break;
		default:
			r = im;
			break;
		}
		d[i] = (T)r;
	}
}

template <typename T> __device__ void xp_cpowk(xp_i64 n, xp_cx<T> *d, const xp_cx<T> *x, const xp_cx<T> *y)
{
	XP_GRID_STRIDE(i, n)
	{
		xp_cx<double> r = xp_cpow(xp_cmk<double>((double)x[i].re, (double)x[i].im), xp_cmk<double>((double)y[i].re, (double)y[i].im));
		d[i] = xp_cmk<T>((T)r.re, (T)r.im);
	}
}

template <typename T> __device__ void xp_cpowsk(xp_i64 n, xp_cx<T> *d, const xp_cx<T> *x, double re, double im)
{
	XP_GRID_STRIDE(i, n)
	{
		xp_cx<double> r = xp_cpow(xp_cmk<double>((double)x[i].re, (double)x[i].im), xp_cmk<double>(re, im));
		d[i] = xp_cmk<T>((T)r.re, (T)r.im);
	}
}

// XP_COMPLEX(S, T) instantiates the entries of the complex type of part T,
// named with suffix S.
#define XP_COMPLEX(S, T)                                                                                       \
	extern "C" __global__ void xp_cfill_##S(xp_i64 n, T re, T im, xp_cx<T> *x) { xp_cfill<T>(n, re, im, x); } \
	XP_REGISTER(xp_cfill_##S, 0)                                                                           \
	extern "C" __global__ void xp_cscale_##S(xp_i64 n, T re, T im, xp_cx<T> *x) { xp_cscale<T>(n, re, im, x); } \
	XP_REGISTER(xp_cscale_##S, 0)                                                                          \
	extern "C" __global__ void xp_caxpy_##S(xp_i64 n, T re, T im, const xp_cx<T> *x, xp_cx<T> *y)        \
	{                                                                                                      \
		xp_caxpy<T>(n, re, im, x, y);                                                                  \
	}                                                                                                      \
	XP_REGISTER(xp_caxpy_##S, 0)                                                                           \
	extern "C" __global__ void xp_caxpby_##S(xp_i64 n, T are, T aim, const xp_cx<T> *x, T bre, T bim, xp_cx<T> *y) \
	{                                                                                                      \
		xp_caxpby<T>(n, are, aim, x, bre, bim, y);                                                     \
	}                                                                                                      \
	XP_REGISTER(xp_caxpby_##S, 0)                                                                          \
	extern "C" __global__ void xp_cbin_##S(xp_i64 n, int op, xp_cx<T> *d, const xp_cx<T> *x, const xp_cx<T> *y) \
	{                                                                                                      \
		xp_cbin<T>(n, op, d, x, y);                                                                    \
	}                                                                                                      \
	XP_REGISTER(xp_cbin_##S, 0)                                                                            \
	extern "C" __global__ void xp_cbins_##S(xp_i64 n, int op, xp_cx<T> *d, const xp_cx<T> *x, T re, T im) \
	{                                                                                                      \
		xp_cbins<T>(n, op, d, x, re, im);                                                              \
	}                                                                                                      \
	XP_REGISTER(xp_cbins_##S, 0)                                                                           \
	extern "C" __global__ void xp_csum_##S(xp_i64 n, const xp_cx<T> *x, double *part) { xp_csum<T>(n, x, part); } \
	XP_REGISTER(xp_csum_##S, 0)                                                                            \
	extern "C" __global__ void xp_cdot_##S(xp_i64 n, const xp_cx<T> *x, const xp_cx<T> *y, int conj, double *part) \
	{                                                                                                      \
		xp_cdot<T>(n, x, y, conj, part);                                                               \
	}                                                                                                      \
	XP_REGISTER(xp_cdot_##S, 0)                                                                            \
	extern "C" __global__ void xp_cprod_##S(xp_i64 n, const xp_cx<T> *x, double *out) { xp_cprod<T>(n, x, out); } \
	XP_REGISTER(xp_cprod_##S, 0)                                                                           \
	extern "C" __global__ void xp_cunary_##S(xp_i64 n, int op, xp_cx<T> *d, const xp_cx<T> *x)           \
	{                                                                                                      \
		xp_cunary<T>(n, op, d, x);                                                                     \
	}                                                                                                      \
	XP_REGISTER(xp_cunary_##S, 0)                                                                          \
	extern "C" __global__ void xp_cunaryr_##S(xp_i64 n, int op, T *d, const xp_cx<T> *x)                 \
	{                                                                                                      \
		xp_cunaryr<T>(n, op, d, x);                                                                    \
	}                                                                                                      \
	XP_REGISTER(xp_cunaryr_##S, 0)                                                                         \
	extern "C" __global__ void xp_cpow_##S(xp_i64 n, xp_cx<T> *d, const xp_cx<T> *x, const xp_cx<T> *y)  \
	{                                                                                                      \
		xp_cpowk<T>(n, d, x, y);                                                                       \
	}                                                                                                      \
	XP_REGISTER(xp_cpow_##S, 0)                                                                            \
	extern "C" __global__ void xp_cpows_##S(xp_i64 n, xp_cx<T> *d, const xp_cx<T> *x, double re, double im) \
	{                                                                                                      \
		xp_cpowsk<T>(n, d, x, re, im);                                                                 \
	}                                                                                                      \
	XP_REGISTER(xp_cpows_##S, 0)

XP_COMPLEX(c64, float)
XP_COMPLEX(c128, double)

extern "C" __global__ void xp_cfin_f64(xp_i64 nc, const double *part, double *res) { xp_cfin(nc, part, res); }
XP_REGISTER(xp_cfin_f64, 0)

// ---- the optional kernels (backend.ComplexKernels) ----
//
// The axis sums, casts, scans, selection, compaction, conversions and
// matrix product of complex buffers, each the CPU backend's order
// (backend/cpu/axis.go, stats.go, convert_ops.go, complex.go) and so its
// bits, but for Gemm, whose CPU result is BLAS's (see gemm.go).

// xp_csumaxis: dst[i][j] (complex128) = the sum over k of src[i][k][j],
// each part in double in the order of k, one thread per line (the CPU's
// sumAxisComplex). squares is not defined for complex src: the Go side
// refuses it.
template <typename T>
__device__ void xp_csumaxis(xp_i64 pre, xp_i64 n, xp_i64 post, xp_cx<double> *dst, const xp_cx<T> *src, int squares)
{
	(void)squares;
	XP_GRID_STRIDE(L, pre * post)
	{
		xp_i64 i = L / post, j = L % post;
		const xp_cx<T> *x = src + i * n * post + j;
		double re = 0, im = 0;
		for (xp_i64 k = 0; k < n; k++) {
			re += (double)x[k * post].re;
			im += (double)x[k * post].im;
		}
		dst[L] = xp_cmk<double>(re, im);
	}
}

// xp_ccastsums: dst[i] = the complex128 acc[i] rounded to dst's type, part
// by part (Go's conversion). sqrt is not defined: the Go side refuses it.
template <typename T> __device__ void xp_ccastsums(xp_i64 m, xp_cx<T> *dst, const xp_cx<double> *acc, int sq)
{
	(void)sq;
	XP_GRID_STRIDE(i, m) dst[i] = xp_cmk<T>((T)acc[i].re, (T)acc[i].im);
}

// xp_cscanaxis: the running sums (products, if prod) of each line in src's
// type, from carry[L] (or 0, or 1 for products), one thread per line, in
// the order of k: sums part by part in the part type, products Go's
// (xp_cmul), as the CPU's scanSlice computes run[j] += v and run[j] *= v.
template <typename T>
__device__ void xp_cscanaxis(xp_i64 pre, xp_i64 n, xp_i64 post, xp_cx<T> *dst, xp_cx<T> *last, const xp_cx<T> *src,
			     const xp_cx<T> *carry, int prod)
{
	XP_GRID_STRIDE(L, pre * post)
	{
		xp_i64 i = L / post, j = L % post;
		xp_i64 base = i * n * post + j;
		xp_cx<T> run = carry ? carry[L] : xp_cmk<T>(prod ? (T)1 : (T)0, (T)0);
		for (xp_i64 k = 0; k < n; k++) {
			xp_cx<T> v = src[base + k * post];
			run = prod ? xp_cmul<T>(run, v) : xp_cadd<T>(run, v);
			if (dst) {
				dst[base + k * post] = run;
			}
		}
		if (last) {
			last[L] = run;
		}
	}
}

// xp_gemm_ops of a complex type: Go's product (xp_cmul, rounded to the part
// type) added part by part, as the naive loop's s += a[i][l]*b[l][j].
template <typename P> struct xp_gemm_ops<xp_cx<P> > {
	static __device__ __forceinline__ xp_cx<P> zero() { return xp_cmk<P>((P)0, (P)0); }
	static __device__ __forceinline__ xp_cx<P> madd(xp_cx<P> acc, xp_cx<P> a, xp_cx<P> b)
	{
		return xp_cadd<P>(acc, xp_cmul<P>(a, b));
	}
};

// xp_cvtrc: a real S to the complex type of part P: the value converted to
// P as backend.ConvertValue converts it (rounded once), imaginary part +0.
template <typename P, typename S> __device__ void xp_cvtrc(xp_i64 n, xp_cx<P> *dst, const S *src)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_cmk<P>(xp_convert<P, S>(src[i]), (P)0);
}

// xp_cvtcr: a complex of part P to the real D: its real part, converted as a
// P is (floats round, integers by backend.FloatToInt's rules).
template <typename D, typename P> __device__ void xp_cvtcr(xp_i64 n, D *dst, const xp_cx<P> *src)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_convert<D, P>(src[i].re);
}

// xp_cvtcc: complex to complex, part by part.
template <typename D, typename S> __device__ void xp_cvtcc(xp_i64 n, xp_cx<D> *dst, const xp_cx<S> *src)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_cmk<D>((D)src[i].re, (D)src[i].im);
}

// XP_CKERNELS(S, T) instantiates the optional kernels of the complex type of
// part T, named with suffix S; xp_where and xp_cpscatter are convert.cu's,
// xp_gemm gemm.cu's, over the complex type.
#define XP_CKERNELS(S, T)                                                                                     \
	extern "C" __global__ void xp_sumaxis_##S(xp_i64 pre, xp_i64 n, xp_i64 post, xp_cx<double> *d,         \
						  const xp_cx<T> *x, int sq)                                   \
	{                                                                                                     \
		xp_csumaxis<T>(pre, n, post, d, x, sq);                                                       \
	}                                                                                                     \
	XP_REGISTER(xp_sumaxis_##S, 0)                                                                        \
	extern "C" __global__ void xp_castsums_##S(xp_i64 m, xp_cx<T> *d, const xp_cx<double> *acc, int sq)   \
	{                                                                                                     \
		xp_ccastsums<T>(m, d, acc, sq);                                                               \
	}                                                                                                     \
	XP_REGISTER(xp_castsums_##S, 0)                                                                       \
	extern "C" __global__ void xp_scanaxis_##S(xp_i64 pre, xp_i64 n, xp_i64 post, xp_cx<T> *d,             \
						   xp_cx<T> *last, const xp_cx<T> *x, const xp_cx<T> *carry,   \
						   int prod)                                                   \
	{                                                                                                     \
		xp_cscanaxis<T>(pre, n, post, d, last, x, carry, prod);                                       \
	}                                                                                                     \
	XP_REGISTER(xp_scanaxis_##S, 0)                                                                       \
	extern "C" __global__ void xp_where_##S(xp_i64 n, xp_cx<T> *d, const unsigned char *m,                 \
						const xp_cx<T> *a, const xp_cx<T> *b)                          \
	{                                                                                                     \
		xp_where<xp_cx<T> >(n, d, m, a, b);                                                           \
	}                                                                                                     \
	XP_REGISTER(xp_where_##S, 0)                                                                          \
	extern "C" __global__ void xp_cpscatter_##S(xp_i64 n, xp_cx<T> *d, const xp_cx<T> *x,                  \
						    const unsigned char *m, const xp_u64 *off)                 \
	{                                                                                                     \
		xp_cpscatter<xp_cx<T> >(n, d, x, m, off);                                                     \
	}                                                                                                     \
	XP_REGISTER(xp_cpscatter_##S, 1)                                                                      \
	extern "C" __global__ void xp_gemm_##S(xp_i64 m, xp_i64 n, xp_i64 k, xp_i64 lda, xp_i64 ldb,          \
					       xp_i64 ldc, xp_cx<T> *c, const xp_cx<T> *a, const xp_cx<T> *b, \
					       int accumulate)                                                 \
	{                                                                                                     \
		xp_gemm<xp_cx<T> >(m, n, k, lda, ldb, ldc, c, a, b, accumulate);                              \
	}                                                                                                     \
	XP_REGISTER(xp_gemm_##S, 1)

XP_CKERNELS(c64, float)
XP_CKERNELS(c128, double)

// XP_CCVT(CS, P, RS, R) is the conversions between the complex type of
// part P (suffix CS) and the real type R (suffix RS), both ways.
#define XP_CCVT(CS, P, RS, R)                                                                                 \
	extern "C" __global__ void xp_cvt_##CS##_##RS(xp_i64 n, xp_cx<P> *d, const R *s) { xp_cvtrc<P, R>(n, d, s); } \
	XP_REGISTER(xp_cvt_##CS##_##RS, 0)                                                                    \
	extern "C" __global__ void xp_cvt_##RS##_##CS(xp_i64 n, R *d, const xp_cx<P> *s) { xp_cvtcr<R, P>(n, d, s); } \
	XP_REGISTER(xp_cvt_##RS##_##CS, 0)

#define XP_CCVT_ALL(CS, P)                         \
	XP_CCVT(CS, P, f32, float)                 \
	XP_CCVT(CS, P, f64, double)                \
	XP_CCVT(CS, P, i32, int)                   \
	XP_CCVT(CS, P, i64, long long)             \
	XP_CCVT(CS, P, u32, unsigned int)          \
	XP_CCVT(CS, P, u64, unsigned long long)    \
	XP_CCVT(CS, P, i8, signed char)            \
	XP_CCVT(CS, P, i16, short)                 \
	XP_CCVT(CS, P, u8, unsigned char)          \
	XP_CCVT(CS, P, u16, unsigned short)

XP_CCVT_ALL(c64, float)
XP_CCVT_ALL(c128, double)

extern "C" __global__ void xp_cvt_c64_c128(xp_i64 n, xp_cx<float> *d, const xp_cx<double> *s) { xp_cvtcc<float, double>(n, d, s); }
XP_REGISTER(xp_cvt_c64_c128, 0)
extern "C" __global__ void xp_cvt_c128_c64(xp_i64 n, xp_cx<double> *d, const xp_cx<float> *s) { xp_cvtcc<double, float>(n, d, s); }
XP_REGISTER(xp_cvt_c128_c64, 0)
