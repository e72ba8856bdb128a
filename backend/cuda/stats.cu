// stats.cu: the axis reductions and statistics of xpmpi's CUDA backend
// (backend.AxisReducer and backend.StatsReducer of package backend/cuda,
// stats.go), appended to kernels.cu and math.cu to make the module's source
// (KernelSource): it uses their types, XP_GRID_STRIDE, XP_BLOCK,
// xp_block_sum and XP_REGISTER, and includes no header.
//
// Every result is the CPU backend's bit for bit: each kernel takes its
// floating-point operations in the CPU backend's order (backend/cpu/axis.go
// and stats.go), which fixes the parallelism.
//
//   - Along an axis (SumAxis, ExtremeAxis, MomentsAxis, ScanAxis), a block
//     is pre x n x post elements and one thread runs each of the pre*post
//     lines, over k in order. Neighbouring threads read neighbouring
//     elements (j), so the loads coalesce where post is large; a line is
//     serial, so a 1-D Cumsum or a reduction with pre*post small is one or
//     few threads.
//   - Moments splits x into chunks of 4096 elements (the CPU's
//     reduceChunk), one thread each, and one thread adds the chunks'
//     partial sums pairwise as the CPU's pairwise does.
//   - Prod of floats is one thread, in order (a product's overflow, NaN
//     and rounding depend on the order); of integers it is a wrapping
//     product in any order (exact).
//   - CountNonzero and Histogram count, exactly, in any order; Histogram
//     adds to its bins with 64-bit integer atomicAdd (never a float atomic).
//
// Entries (S the type suffix; D is double for float types and T for
// integers):
//   xp_sumaxis_S(pre, n, post, D *dst, const T *src, int squares)
//   xp_extaxis_S(pre, n, post, offset, T *vals, i64 *idx, const T *src, int max)
//   xp_combext_S(m, p, T *vals, i64 *idx, const T *allv, const i64 *alli, int max)
//   xp_momaxis_S(pre, n, post, double *mom, const T *src)
//   xp_mom1_S(n, const T *x, double *part)          chunk sums
//   xp_mom2_S(n, const T *x, const double *res, double *pdev, double *pm2)
//   xp_prodf_S(n, const T *x, double *out)          (floats)
//   xp_prodi_S(n, const T *x, u64 *partial)         (integers)
//   xp_nnz_S(n, const T *x, u64 *partial)
//   xp_hist_S(n, const T *x, double lo, double hi, i64 bins, u64 *counts)
//   xp_scanaxis_S(pre, n, post, T *dst, T *last, const T *src, const T *carry, int prod)
//   xp_castsums_S(m, T *dst, const double *acc, int sqrt) (floats)
// and, once: xp_momfin1_f64(nc, part, res), xp_momfin2_f64(nc, n, pdev,
// pm2, res), xp_combmom_f64(m, p, mom, all, counts), xp_ratio_f64(m, dst,
// num, den, sqrt), xp_prod2_u64(nb, partial, out).

// XP_MOM_CHUNK is the chunk of Moments: the CPU backend's reduceChunk.
#define XP_MOM_CHUNK 4096

// xp_acc is the accumulator of SumAxis: double for floats, the element
// type (wrapping) for integers.
template <typename T, bool F = xp_type<T>::is_float> struct xp_acc;
template <typename T> struct xp_acc<T, true> {
	typedef double D;
	static __device__ __forceinline__ D add(D a, T v, bool sq)
	{
		double w = (double)v;
		return sq ? a + w * w : a + w;
	}
};
template <typename T> struct xp_acc<T, false> {
	typedef T D;
	static __device__ __forceinline__ D add(D a, T v, bool sq)
	{
		return sq ? xp_ops<T>::add(a, xp_ops<T>::mul(v, v)) : xp_ops<T>::add(a, v);
	}
};

// xp_line_index is the thread's line of a pre x post set of lines, and
// whether it has one.
#define XP_LINES(L, m) XP_GRID_STRIDE(L, m)

template <typename T>
__device__ void xp_sumaxis(xp_i64 pre, xp_i64 n, xp_i64 post, typename xp_acc<T>::D *dst, const T *src, int squares)
{
	typedef typename xp_acc<T>::D D;
	XP_LINES(L, pre * post)
	{
		xp_i64 i = L / post, j = L % post;
		const T *x = src + i * n * post + j;
		D a = (D)0;
		for (xp_i64 k = 0; k < n; k++) {
			a = xp_acc<T>::add(a, x[k * post], squares != 0);
		}
		dst[L] = a;
	}
}

// xp_alg_better is algorithms.Better: whether (v, i) replaces (bv, bi) as
// the first smallest (largest, if max) element, NaN beating every number.
template <typename T> __device__ __forceinline__ bool xp_alg_better(T v, xp_i64 i, T bv, xp_i64 bi, bool max)
{
	if (bi < 0) {
		return i >= 0;
	}
	if (i < 0) {
		return false;
	}
	bool vn = xp_ops<T>::isnan(v), bn = xp_ops<T>::isnan(bv);
	if (vn || bn) {
		if (vn && bn) {
			return i < bi;
		}
		return vn;
	}
	if (v == bv) {
		return i < bi;
	}
	return max ? v > bv : v < bv;
}

template <typename T>
__device__ void xp_extaxis(xp_i64 pre, xp_i64 n, xp_i64 post, xp_i64 offset, T *vals, xp_i64 *idx, const T *src, int max)
{
	XP_LINES(L, pre * post)
	{
		xp_i64 i = L / post, j = L % post;
		const T *x = src + i * n * post + j;
		T bv = (T)0;
		xp_i64 bi = -1;
		for (xp_i64 k = 0; k < n; k++) {
			T v = x[k * post];
			if (xp_alg_better<T>(v, offset + k, bv, bi, max != 0)) {
				bv = v;
				bi = offset + k;
			}
		}
		vals[L] = bv;
		idx[L] = bi;
	}
}

template <typename T>
__device__ void xp_combext(xp_i64 m, xp_i64 p, T *vals, xp_i64 *idx, const T *allv, const xp_i64 *alli, int max)
{
	XP_GRID_STRIDE(j, m)
	{
		T bv = allv[j];
		xp_i64 bi = alli[j];
		for (xp_i64 r = 1; r < p; r++) {
			if (xp_alg_better<T>(allv[r * m + j], alli[r * m + j], bv, bi, max != 0)) {
				bv = allv[r * m + j];
				bi = alli[r * m + j];
			}
		}
		vals[j] = bv;
		idx[j] = bi;
	}
}

// xp_momaxis: the sums over k, then the deviations from sum/n and their
// squares over k, then m2 -= dev*dev/n, as the CPU's momentsAxis.
template <typename T> __device__ void xp_momaxis(xp_i64 pre, xp_i64 n, xp_i64 post, double *mom, const T *src)
{
	xp_i64 m = pre * post;
	XP_LINES(L, m)
	{
		xp_i64 i = L / post, j = L % post;
		const T *x = src + i * n * post + j;
		double s = 0, d = 0, q = 0;
		if (n > 0) {
			for (xp_i64 k = 0; k < n; k++) {
				s += (double)x[k * post];
			}
			for (xp_i64 k = 0; k < n; k++) {
				double e = (double)x[k * post] - s / (double)n;
				d += e;
				q += e * e;
			}
			q -= d * d / (double)n;
		}
		mom[L] = s;
		mom[m + L] = d;
		mom[2 * m + L] = q;
	}
}

// xp_pairwise is the CPU backend's pairwise: up to 4 values added in
// order, else the two halves' sums added.
__device__ double xp_pairwise(const double *p, xp_i64 len)
{
	if (len <= 4) {
		double s = 0;
		for (xp_i64 i = 0; i < len; i++) {
			s += p[i];
		}
		return s;
	}
	xp_i64 h = len / 2;
	return xp_pairwise(p, h) + xp_pairwise(p + h, len - h);
}

// xp_mom1: part[c] = the sum of chunk c of x, in order.
template <typename T> __device__ void xp_mom1(xp_i64 n, const T *x, double *part)
{
	xp_i64 nc = (n + XP_MOM_CHUNK - 1) / XP_MOM_CHUNK;
	XP_GRID_STRIDE(c, nc)
	{
		xp_i64 lo = c * XP_MOM_CHUNK, hi = lo + XP_MOM_CHUNK < n ? lo + XP_MOM_CHUNK : n;
		double s = 0;
		for (xp_i64 i = lo; i < hi; i++) {
			s += (double)x[i];
		}
		part[c] = s;
	}
}

// xp_mom2: the chunk sums of the deviations from mean = res[0]/n and of
// their squares.
template <typename T> __device__ void xp_mom2(xp_i64 n, const T *x, const double *res, double *pdev, double *pm2)
{
	xp_i64 nc = (n + XP_MOM_CHUNK - 1) / XP_MOM_CHUNK;
	double mean = res[0] / (double)n;
	XP_GRID_STRIDE(c, nc)
	{
		xp_i64 lo = c * XP_MOM_CHUNK, hi = lo + XP_MOM_CHUNK < n ? lo + XP_MOM_CHUNK : n;
		double s = 0, q = 0;
		for (xp_i64 i = lo; i < hi; i++) {
			double d = (double)x[i] - mean;
			s += d;
			q += d * d;
		}
		pdev[c] = s;
		pm2[c] = q;
	}
}

// xp_prodf: the product of a float x in order, in double, by one thread.
template <typename T> __device__ void xp_prodf(xp_i64 n, const T *x, double *out)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		double p = 1;
		for (xp_i64 i = 0; i < n; i++) {
			p *= (double)x[i];
		}
		out[0] = p;
	}
}

// xp_block_prod is xp_block_sum with a wrapping product.
__device__ void xp_block_prod(xp_u64 *sh, xp_u64 acc, xp_u64 *out)
{
	unsigned int t = threadIdx.x;
	sh[t] = acc;
	__syncthreads();
	for (unsigned int s = XP_BLOCK / 2; s > 0; s >>= 1) {
		if (t < s) {
			sh[t] *= sh[t + s];
		}
		__syncthreads();
	}
	if (t == 0) {
		*out = sh[0];
	}
}

// xp_prodi: the wrapping products of the blocks of an integer x (elements
// sign- or zero-extended to 64 bits), one partial per block.
template <typename T> __device__ void xp_prodi(xp_i64 n, const T *x, xp_u64 *partial)
{
	__shared__ xp_u64 sh[XP_BLOCK];
	xp_u64 acc = 1;
	XP_GRID_STRIDE(i, n) acc *= xp_ops<T>::widen(x[i]);
	xp_block_prod(sh, acc, partial + blockIdx.x);
}

// xp_nnz: the number of nonzero elements (a NaN is nonzero) of each block.
template <typename T> __device__ void xp_nnz(xp_i64 n, const T *x, xp_u64 *partial)
{
	__shared__ xp_u64 sh[XP_BLOCK];
	xp_u64 acc = 0;
	XP_GRID_STRIDE(i, n)
	{
		if (x[i] != (T)0) {
			acc++;
		}
	}
	xp_block_sum<xp_u64>(sh, acc, partial + blockIdx.x);
}

// xp_edge is backend.HistogramEdges' edge i of bins over [lo, hi].
__device__ __forceinline__ double xp_edge(xp_i64 i, xp_i64 bins, double lo, double hi, double step)
{
	if (i == bins) {
		return hi;
	}
	if (step == 0) {
		return (double)i / (double)bins * (hi - lo) + lo;
	}
	return (double)i * step + lo;
}

// xp_hist counts the elements of x in equal-width bins over [lo, hi] with
// NumPy's rule, as the CPU's histogram.
template <typename T> __device__ void xp_hist(xp_i64 n, const T *x, double lo, double hi, xp_i64 bins, xp_u64 *counts)
{
	double step = (hi - lo) / (double)bins;
	double norm = (double)bins / (hi - lo);
	XP_GRID_STRIDE(e, n)
	{
		double v = (double)x[e];
		if (!(v >= lo && v <= hi)) {
			continue;
		}
		xp_i64 i = (xp_i64)((v - lo) * norm);
		if (i >= bins) {
			i = bins - 1;
		}
		if (v < xp_edge(i, bins, lo, hi, step)) {
			i--;
		}
		if (v >= xp_edge(i + 1, bins, lo, hi, step) && i != bins - 1) {
			i++;
		}
		atomicAdd(counts + i, (xp_u64)1);
	}
}

template <typename T>
__device__ void xp_scanaxis(xp_i64 pre, xp_i64 n, xp_i64 post, T *dst, T *last, const T *src, const T *carry, int prod)
{
	XP_LINES(L, pre * post)
	{
		xp_i64 i = L / post, j = L % post;
		xp_i64 base = i * n * post + j;
		T run = carry ? carry[L] : (prod ? (T)1 : (T)0);
		for (xp_i64 k = 0; k < n; k++) {
			T v = src[base + k * post];
			run = prod ? xp_ops<T>::mul(run, v) : xp_ops<T>::add(run, v);
			if (dst) {
				dst[base + k * post] = run;
			}
		}
		if (last) {
			last[L] = run;
		}
	}
}

template <typename T> __device__ void xp_castsums(xp_i64 m, T *dst, const double *acc, int sq)
{
	XP_GRID_STRIDE(i, m)
	{
		double v = acc[i];
		if (sq) {
			v = sqrt(v);
		}
		dst[i] = (T)v;
	}
}

// ---- the entries of one element type ----

#define XP_STATS_ALL(S, T)                                                                                   \
	extern "C" __global__ void xp_sumaxis_##S(xp_i64 pre, xp_i64 n, xp_i64 post, xp_acc<T>::D *d,         \
						  const T *x, int sq)                                         \
	{                                                                                                    \
		xp_sumaxis<T>(pre, n, post, d, x, sq);                                                       \
	}                                                                                                    \
	XP_REGISTER(xp_sumaxis_##S, 0)                                                                       \
	extern "C" __global__ void xp_extaxis_##S(xp_i64 pre, xp_i64 n, xp_i64 post, xp_i64 off, T *v,        \
						  xp_i64 *ix, const T *x, int mx)                             \
	{                                                                                                    \
		xp_extaxis<T>(pre, n, post, off, v, ix, x, mx);                                              \
	}                                                                                                    \
	XP_REGISTER(xp_extaxis_##S, 0)                                                                       \
	extern "C" __global__ void xp_combext_##S(xp_i64 m, xp_i64 p, T *v, xp_i64 *ix, const T *av,         \
						  const xp_i64 *ai, int mx)                                   \
	{                                                                                                    \
		xp_combext<T>(m, p, v, ix, av, ai, mx);                                                      \
	}                                                                                                    \
	XP_REGISTER(xp_combext_##S, 0)                                                                       \
	extern "C" __global__ void xp_momaxis_##S(xp_i64 pre, xp_i64 n, xp_i64 post, double *mom, const T *x) \
	{                                                                                                    \
		xp_momaxis<T>(pre, n, post, mom, x);                                                         \
	}                                                                                                    \
	XP_REGISTER(xp_momaxis_##S, 0)                                                                       \
	extern "C" __global__ void xp_mom1_##S(xp_i64 n, const T *x, double *part) { xp_mom1<T>(n, x, part); } \
	XP_REGISTER(xp_mom1_##S, 0)                                                                          \
	extern "C" __global__ void xp_mom2_##S(xp_i64 n, const T *x, const double *res, double *pd, double *pq) \
	{                                                                                                    \
		xp_mom2<T>(n, x, res, pd, pq);                                                               \
	}                                                                                                    \
	XP_REGISTER(xp_mom2_##S, 0)                                                                          \
	extern "C" __global__ void xp_nnz_##S(xp_i64 n, const T *x, xp_u64 *partial) { xp_nnz<T>(n, x, partial); } \
	XP_REGISTER(xp_nnz_##S, 1)                                                                           \
	extern "C" __global__ void xp_hist_##S(xp_i64 n, const T *x, double lo, double hi, xp_i64 bins,       \
					       xp_u64 *counts)                                                \
	{                                                                                                    \
		xp_hist<T>(n, x, lo, hi, bins, counts);                                                      \
	}                                                                                                    \
	XP_REGISTER(xp_hist_##S, 0)                                                                          \
	extern "C" __global__ void xp_scanaxis_##S(xp_i64 pre, xp_i64 n, xp_i64 post, T *d, T *last,         \
						   const T *x, const T *carry, int prod)                      \
	{                                                                                                    \
		xp_scanaxis<T>(pre, n, post, d, last, x, carry, prod);                                       \
	}                                                                                                    \
	XP_REGISTER(xp_scanaxis_##S, 0)

#define XP_STATS_FLOAT(S, T)                                                                                 \
	extern "C" __global__ void xp_prodf_##S(xp_i64 n, const T *x, double *out) { xp_prodf<T>(n, x, out); } \
	XP_REGISTER(xp_prodf_##S, 0)                                                                         \
	extern "C" __global__ void xp_castsums_##S(xp_i64 m, T *d, const double *acc, int sq)                 \
	{                                                                                                    \
		xp_castsums<T>(m, d, acc, sq);                                                               \
	}                                                                                                    \
	XP_REGISTER(xp_castsums_##S, 0)

#define XP_STATS_INT(S, T)                                                                                   \
	extern "C" __global__ void xp_prodi_##S(xp_i64 n, const T *x, xp_u64 *partial) { xp_prodi<T>(n, x, partial); } \
	XP_REGISTER(xp_prodi_##S, 1)

XP_STATS_ALL(f32, float)
XP_STATS_ALL(f64, double)
XP_STATS_ALL(i32, int)
XP_STATS_ALL(i64, long long)
XP_STATS_ALL(u32, unsigned int)
XP_STATS_ALL(u64, unsigned long long)
XP_STATS_ALL(i8, signed char)
XP_STATS_ALL(i16, short)
XP_STATS_ALL(u8, unsigned char)
XP_STATS_ALL(u16, unsigned short)

XP_STATS_FLOAT(f32, float)
XP_STATS_FLOAT(f64, double)

XP_STATS_INT(i32, int)
XP_STATS_INT(i64, long long)
XP_STATS_INT(u32, unsigned int)
XP_STATS_INT(u64, unsigned long long)
XP_STATS_INT(i8, signed char)
XP_STATS_INT(i16, short)
XP_STATS_INT(u8, unsigned char)
XP_STATS_INT(u16, unsigned short)

// ---- entries of no element type ----

// xp_momfin1_f64: res[0] = the pairwise sum of the nc chunk sums.
extern "C" __global__ void xp_momfin1_f64(xp_i64 nc, const double *part, double *res)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		res[0] = xp_pairwise(part, nc);
	}
}
XP_REGISTER(xp_momfin1_f64, 0)

// xp_momfin2_f64: res[1] = dev, the pairwise sum of the chunks'
// deviations, and res[2] = the pairwise sum of their squares - dev*dev/n.
extern "C" __global__ void xp_momfin2_f64(xp_i64 nc, xp_i64 n, const double *pdev, const double *pm2, double *res)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		double d = xp_pairwise(pdev, nc);
		double q = xp_pairwise(pm2, nc);
		res[1] = d;
		res[2] = q - d * d / (double)n;
	}
}
XP_REGISTER(xp_momfin2_f64, 0)

// xp_combmom_f64 merges the moments of p parts (rows of all, p x 3m) with
// counts[q] elements per line, as the CPU's combineMoments: Chan, Golub and
// LeVeque's pairwise formula in the order of q, each part's mean held as
// sum/count plus dev/count; empty parts skipped; the devs set to 0.
extern "C" __global__ void xp_combmom_f64(xp_i64 m, xp_i64 p, double *mom, const double *all, const xp_i64 *counts)
{
	XP_GRID_STRIDE(j, m)
	{
		xp_i64 na = 0;
		double sa = 0, ha = 0, la = 0, qa = 0;
		for (xp_i64 q = 0; q < p; q++) {
			xp_i64 nb = counts[q];
			if (nb == 0) {
				continue;
			}
			const double *row = all + q * 3 * m;
			double sb = row[j], qb = row[2 * m + j];
			double hb = sb / (double)nb, lb = row[m + j] / (double)nb;
			if (na == 0) {
				na = nb;
				sa = sb;
				ha = hb;
				la = lb;
				qa = qb;
				continue;
			}
			xp_i64 nn = na + nb;
			double d = (hb - ha) + (lb - la);
			qa += qb + d * d * ((double)na * (double)nb / (double)nn);
			la += d * ((double)nb / (double)nn);
			sa += sb;
			na = nn;
		}
		mom[j] = sa;
		mom[m + j] = 0;
		mom[2 * m + j] = qa;
	}
}
XP_REGISTER(xp_combmom_f64, 0)

// xp_ratio_f64: dst[i] = num[i]/den, or its square root.
extern "C" __global__ void xp_ratio_f64(xp_i64 m, double *dst, const double *num, double den, int sq)
{
	XP_GRID_STRIDE(i, m)
	{
		double r = num[i] / den;
		dst[i] = sq ? sqrt(r) : r;
	}
}
XP_REGISTER(xp_ratio_f64, 0)

// xp_prod2_u64: out[0] = the wrapping product of the nb partials of
// xp_prodi, in one block.
extern "C" __global__ void xp_prod2_u64(int nb, const xp_u64 *partial, xp_u64 *out)
{
	__shared__ xp_u64 sh[XP_BLOCK];
	xp_u64 acc = 1;
	for (int i = threadIdx.x; i < nb; i += XP_BLOCK) {
		acc *= partial[i];
	}
	xp_block_prod(sh, acc, out);
}
XP_REGISTER(xp_prod2_u64, 1)
