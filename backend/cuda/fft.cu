// fft.cu: the discrete Fourier transforms of xpmpi's CUDA backend (the
// backend.FFTer of package backend/cuda, fft.go), appended to the module's
// source (KernelSource). It uses kernels.cu's types, XP_GRID_STRIDE and
// XP_REGISTER.
//
// Complex values are pairs of R (float for complex64, double for
// complex128): the real part, then the imaginary part. A block is pre x n
// x post complex values, transformed along the middle index; a line is
// (row, col) with row < pre, col < post, element k at (row*n + k)*post +
// col.
//
// A length that factors into 2, 3, 4 and 5 is transformed by Stockham's
// autosort algorithm: one pass per factor (radix p), out of place between
// the block and a work block of its layout, with no bit reversal. Pass
// p with ns the product of the radices before it reads, for butterfly b <
// n/p, the p values in[b + r*n/p] (r < p), multiplies value r by the
// twiddle w^(k*r*n/(ns*p)) (k = b mod ns, w = exp(-2 pi i / n) from the
// table tw, conjugated for the inverse), takes their p-point DFT, and
// writes output q to out[(b/ns)*ns*p + k + q*ns]. The twiddle table is
// computed on the host in float64 (fft.go) and uploaded once per length.
//
// Any other length n goes through Bluestein's chirp-z algorithm: with the
// chirp c_k = exp(-i pi k^2 / n) (conjugated for the inverse), the
// transform is X_k = c_k * sum_j (x_j c_j) conj(c_{k-j}), a cyclic
// convolution of length m (a power of two, at least 2n-1) computed by a
// Stockham transform of length m, a product with the transform of the
// chirp (bhat, computed on the host in float64 and divided by m), and an
// unscaled inverse Stockham transform of length m.
//
// Entries (R float: _f32, complex64; R double: _f64, complex128):
//   xp_fftpass_S(total, n, radix, ns, post, R *in, R *out, R *tw, int inverse, double scale)
//     one Stockham pass over total = pre*post*(n/radix) butterflies; every
//     output is multiplied by scale (1 but in the inverse's last pass).
//   xp_fftchirp_S(total, n, m, post, R *x, R *w, R *chirp, int inverse)
//     w[line*m + k] = x[line's k] * c_k for k < n, 0 for n <= k < m;
//     total = pre*post*m.
//   xp_fftmul_S(total, m, R *w, R *bhat, int inverse)
//     w[t] *= bhat[t % m] (conjugated for the inverse); total = pre*post*m.
//   xp_fftunchirp_S(total, n, m, post, R *w, R *x, R *chirp, int inverse, double scale)
//     x[line's k] = w[line*m + k] * c_k * scale; total = pre*post*n.

// xp_fft_root sets c and s to the cosine and sine of 2 pi t / p, for p in
// {2, 3, 4, 5} and t < p: exact where they are 0, +-1 and +-1/2.
__device__ __forceinline__ void xp_fft_root(int p, int t, double &c, double &s)
{
	const double h3 = 0.86602540378443864676; // sin(2 pi / 3)
	const double c1 = 0.30901699437494742410, s1 = 0.95105651629515357212; // 2 pi / 5
	const double c2 = -0.80901699437494742410, s2 = 0.58778525229247312917; // 4 pi / 5
	c = 1;
	s = 0;
	if (t == 0) {
		return;
	}
	if (p == 2) {
		c = -1;
	} else if (p == 3) {
		c = -0.5;
		s = t == 1 ? h3 : -h3;
	} else if (p == 4) {
		if (t == 1) {
			c = 0;
			s = 1;
		} else if (t == 2) {
			c = -1;
		} else {
			c = 0;
			s = -1;
		}
	} else if (t == 1) {
		c = c1;
		s = s1;
	} else if (t == 2) {
		c = c2;
		s = s2;
	} else if (t == 3) {
		c = c2;
		s = -s2;
	} else {
		c = c1;
		s = -s1;
	}
}

// xp_fftpass_p is one Stockham pass of radix P (see the file's comment).
template <typename R, int P>
__device__ void xp_fftpass_p(xp_i64 total, xp_i64 n, xp_i64 ns, xp_i64 post, const R *in, R *out, const R *tw,
			     int inverse, double scale)
{
	const xp_i64 m = n / P, step = n / (ns * P);
	const double sign = inverse ? 1.0 : -1.0;
	XP_GRID_STRIDE(t, total)
	{
		xp_i64 col = t % post, rest = t / post;
		xp_i64 b = rest % m, row = rest / m;
		xp_i64 base = row * n * post + col;
		xp_i64 k = b % ns;
		R vr[P], vi[P];
		for (int r = 0; r < P; r++) {
			xp_i64 at = 2 * (base + (b + r * m) * post);
			R ar = in[at], ai = in[at + 1];
			if (r > 0 && k > 0) {
				xp_i64 w = 2 * (k * r * step); // k*r*step < n
				R wr = tw[w], wi = inverse ? -tw[w + 1] : tw[w + 1];
				R pr = ar * wr - ai * wi;
				ai = ar * wi + ai * wr;
				ar = pr;
			}
			vr[r] = ar;
			vi[r] = ai;
		}
		xp_i64 ob = base + ((b / ns) * ns * P + k) * post;
		for (int q = 0; q < P; q++) {
			R sr = vr[0], si = vi[0];
			for (int r = 1; r < P; r++) {
				double c, s;
				xp_fft_root(P, (q * r) % P, c, s);
				R dr = (R)c, di = (R)(sign * s);
				sr += vr[r] * dr - vi[r] * di;
				si += vr[r] * di + vi[r] * dr;
			}
			xp_i64 at = 2 * (ob + q * ns * post);
			out[at] = sr * (R)scale;
			out[at + 1] = si * (R)scale;
		}
	}
}

template <typename R>
__device__ void xp_fftpass(xp_i64 total, xp_i64 n, xp_i64 radix, xp_i64 ns, xp_i64 post, const R *in, R *out,
			   const R *tw, int inverse, double scale)
{
	switch (radix) {
	case 2:
		xp_fftpass_p<R, 2>(total, n, ns, post, in, out, tw, inverse, scale);
		break;
	case 3:
		xp_fftpass_p<R, 3>(total, n, ns, post, in, out, tw, inverse, scale);
		break;
	case 4:
		xp_fftpass_p<R, 4>(total, n, ns, post, in, out, tw, inverse, scale);
		break;
	default:
		xp_fftpass_p<R, 5>(total, n, ns, post, in, out, tw, inverse, scale);
		break;
	}
}

template <typename R>
__device__ void xp_fftchirp(xp_i64 total, xp_i64 n, xp_i64 m, xp_i64 post, const R *x, R *w, const R *chirp, int inverse)
{
	XP_GRID_STRIDE(t, total)
	{
		xp_i64 k = t % m, line = t / m;
		R yr = 0, yi = 0;
		if (k < n) {
			xp_i64 row = line / post, col = line % post;
			xp_i64 at = 2 * ((row * n + k) * post + col);
			R ar = x[at], ai = x[at + 1];
			R cr = chirp[2 * k], ci = inverse ? -chirp[2 * k + 1] : chirp[2 * k + 1];
			yr = ar * cr - ai * ci;
			yi = ar * ci + ai * cr;
		}
		w[2 * t] = yr;
		w[2 * t + 1] = yi;
	}
}

template <typename R> __device__ void xp_fftmul(xp_i64 total, xp_i64 m, R *w, const R *bhat, int inverse)
{
	XP_GRID_STRIDE(t, total)
	{
		xp_i64 k = t % m;
		R ar = w[2 * t], ai = w[2 * t + 1];
		R br = bhat[2 * k], bi = inverse ? -bhat[2 * k + 1] : bhat[2 * k + 1];
		w[2 * t] = ar * br - ai * bi;
		w[2 * t + 1] = ar * bi + ai * br;
	}
}

template <typename R>
__device__ void xp_fftunchirp(xp_i64 total, xp_i64 n, xp_i64 m, xp_i64 post, const R *w, R *x, const R *chirp,
			      int inverse, double scale)
{
	XP_GRID_STRIDE(t, total)
	{
		xp_i64 col = t % post, rest = t / post;
		xp_i64 k = rest % n, row = rest / n;
		xp_i64 at = 2 * ((row * post + col) * m + k);
		R ar = w[at], ai = w[at + 1];
		R cr = chirp[2 * k], ci = inverse ? -chirp[2 * k + 1] : chirp[2 * k + 1];
		x[2 * t] = (ar * cr - ai * ci) * (R)scale;
		x[2 * t + 1] = (ar * ci + ai * cr) * (R)scale;
	}
}

#define XP_FFT(S, R)                                                                                          \
	extern "C" __global__ void xp_fftpass_##S(xp_i64 total, xp_i64 n, xp_i64 radix, xp_i64 ns, xp_i64 post, \
						  const R *in, R *out, const R *tw, int inverse, double scale)   \
	{                                                                                                     \
		xp_fftpass<R>(total, n, radix, ns, post, in, out, tw, inverse, scale);                        \
	}                                                                                                     \
	XP_REGISTER(xp_fftpass_##S, 0)                                                                        \
	extern "C" __global__ void xp_fftchirp_##S(xp_i64 total, xp_i64 n, xp_i64 m, xp_i64 post, const R *x,  \
						   R *w, const R *chirp, int inverse)                           \
	{                                                                                                     \
		xp_fftchirp<R>(total, n, m, post, x, w, chirp, inverse);                                      \
	}                                                                                                     \
	XP_REGISTER(xp_fftchirp_##S, 0)                                                                       \
	extern "C" __global__ void xp_fftmul_##S(xp_i64 total, xp_i64 m, R *w, const R *bhat, int inverse)     \
	{                                                                                                     \
		xp_fftmul<R>(total, m, w, bhat, inverse);                                                     \
	}                                                                                                     \
	XP_REGISTER(xp_fftmul_##S, 0)                                                                         \
	extern "C" __global__ void xp_fftunchirp_##S(xp_i64 total, xp_i64 n, xp_i64 m, xp_i64 post,           \
						     const R *w, R *x, const R *chirp, int inverse, double scale) \
	{                                                                                                     \
		xp_fftunchirp<R>(total, n, m, post, w, x, chirp, inverse, scale);                             \
	}                                                                                                     \
	XP_REGISTER(xp_fftunchirp_##S, 0)

XP_FFT(f32, float)
XP_FFT(f64, double)
