// convert.cu: the comparisons, selection, compaction and conversions of
// xpmpi's CUDA backend (backend.Converter of package backend/cuda,
// convert.go), appended after stats.cu to make the module's source
// (KernelSource): it uses kernels.cu's types, XP_GRID_STRIDE, XP_BLOCK and
// XP_REGISTER, and includes no header.
//
// Every result is exact, the CPU backend's: comparisons follow IEEE 754
// (every comparison with a NaN false but !=); conversions follow
// backend.ConvertValue, with the float-to-integer cases C leaves undefined
// written out as x86-64 gives them (a CUDA cvt would saturate instead).
// Compress keeps the order of the elements: a count per tile of
// XP_CP_TILE elements, an exclusive scan of the counts by one thread, and
// a scatter in which each tile's threads scan their own counts in shared
// memory.
//
// Entries (S, D the type suffixes):
//   xp_cmp_S(n, int op, u8 *mask, const T *x, const T *y)
//   xp_cmps_S(n, int op, u8 *mask, const T *x, T s)
//   xp_where_S(n, T *dst, const u8 *mask, const T *a, const T *b)
//   xp_cpscatter_S(n, T *dst, const T *x, const u8 *mask, const u64 *offsets)
//   xp_cvt_D_S(n, D *dst, const S *src)
// and once: xp_cpcount_u8(n, const u8 *mask, u64 *counts) and
// xp_cpscan_u64(nb, u64 *counts) (counts[nb] gets the total).

// XP_CP_TILE is the tile of Compress: XP_BLOCK threads of XP_CP_ITEMS
// consecutive elements each (convert.go's cpTile).
#define XP_CP_ITEMS 4
#define XP_CP_TILE (XP_BLOCK * XP_CP_ITEMS)

// xp_compare is backend.CompareOp op (Less, LessEqual, Greater,
// GreaterEqual, Equal, NotEqual) of a and b, as a mask byte.
template <typename T> __device__ __forceinline__ unsigned char xp_compare(int op, T a, T b)
{
	bool r;
	switch (op) {
	case 0:
		r = a < b;
		break;
	case 1:
		r = a <= b;
		break;
	case 2:
		r = a > b;
		break;
	case 3:
		r = a >= b;
		break;
	case 4:
		r = a == b;
		break;
	default:
		r = a != b;
	}
	return r ? 1 : 0;
}

template <typename T> __device__ void xp_cmp(xp_i64 n, int op, unsigned char *mask, const T *x, const T *y)
{
	XP_GRID_STRIDE(i, n) mask[i] = xp_compare<T>(op, x[i], y[i]);
}

template <typename T> __device__ void xp_cmps(xp_i64 n, int op, unsigned char *mask, const T *x, T s)
{
	XP_GRID_STRIDE(i, n) mask[i] = xp_compare<T>(op, x[i], s);
}

// dst may be a or b: each element is read before it is written, by the
// same thread.
template <typename T> __device__ void xp_where(xp_i64 n, T *dst, const unsigned char *mask, const T *a, const T *b)
{
	XP_GRID_STRIDE(i, n) dst[i] = mask[i] != 0 ? a[i] : b[i];
}

// xp_cpcount: counts[t] = the number of nonzero mask bytes of tile t.
__device__ void xp_cpcount(xp_i64 n, const unsigned char *mask, xp_u64 *counts)
{
	__shared__ xp_u64 sh[XP_BLOCK];
	xp_i64 lo = (xp_i64)blockIdx.x * XP_CP_TILE + (xp_i64)threadIdx.x * XP_CP_ITEMS;
	xp_u64 c = 0;
	for (xp_i64 i = lo; i < lo + XP_CP_ITEMS && i < n; i++) {
		c += mask[i] != 0;
	}
	xp_block_sum<xp_u64>(sh, c, counts + blockIdx.x);
}

// xp_cpscatter copies the selected elements of one tile to dst from
// offsets[tile], in order.
template <typename T>
__device__ void xp_cpscatter(xp_i64 n, T *dst, const T *x, const unsigned char *mask, const xp_u64 *offsets)
{
	__shared__ xp_u64 sh[XP_BLOCK];
	unsigned int t = threadIdx.x;
	xp_i64 lo = (xp_i64)blockIdx.x * XP_CP_TILE + (xp_i64)t * XP_CP_ITEMS;
	xp_u64 c = 0;
	for (xp_i64 i = lo; i < lo + XP_CP_ITEMS && i < n; i++) {
		c += mask[i] != 0;
	}
	sh[t] = c;
	__syncthreads();
	if (t == 0) { // the exclusive scan of the threads' counts
		xp_u64 run = 0;
		for (unsigned int k = 0; k < XP_BLOCK; k++) {
			xp_u64 v = sh[k];
			sh[k] = run;
			run += v;
		}
	}
	__syncthreads();
	xp_u64 at = offsets[blockIdx.x] + sh[t];
	for (xp_i64 i = lo; i < lo + XP_CP_ITEMS && i < n; i++) {
		if (mask[i] != 0) {
			dst[at++] = x[i];
		}
	}
}

// xp_f2i is backend.FloatToInt: f truncated toward zero where that fits
// the intermediate (int32 for 8-, 16- and 32-bit signed and 8- and 16-bit
// unsigned targets, int64 for int64, uint32 and uint64; uint64 also takes
// [2^63, 2^64)), else the intermediate's minimum, then wrapped to D.
template <typename D> __device__ __forceinline__ D xp_f2i(double f)
{
	typedef typename xp_type<D>::U U;
	if (sizeof(D) == 8 || (sizeof(D) == 4 && !xp_type<D>::is_signed)) {
		if (sizeof(D) == 8 && !xp_type<D>::is_signed && f >= 9223372036854775808.0 && f < 18446744073709551616.0) {
			return (D)(xp_u64)f;
		}
		xp_i64 v = (f >= -9223372036854775808.0 && f < 9223372036854775808.0) ? (xp_i64)f : (xp_i64)(1ULL << 63);
		return (D)(U)(xp_u64)v;
	}
	int v = (f > -2147483649.0 && f < 2147483648.0) ? (int)f : (int)(1U << 31);
	return (D)(U)(unsigned int)v;
}

// xp_convert is backend.ConvertValue: C's conversion (integers wrap, floats
// round to nearest) except from a float to an integer.
template <typename D, typename S> __device__ __forceinline__ D xp_convert(S v)
{
	if (xp_type<S>::is_float && !xp_type<D>::is_float) {
		return xp_f2i<D>((double)v);
	}
	if (!xp_type<S>::is_float && !xp_type<D>::is_float) {
		typedef typename xp_type<D>::U U;
		return (D)(U)v; // the low bits: C's conversion to unsigned is modular
	}
	return (D)v;
}

template <typename D, typename S> __device__ void xp_cvt(xp_i64 n, D *dst, const S *src)
{
	XP_GRID_STRIDE(i, n) dst[i] = xp_convert<D, S>(src[i]);
}

#define XP_CONVERT_ONE(S, T)                                                                                 \
	extern "C" __global__ void xp_cmp_##S(xp_i64 n, int op, unsigned char *m, const T *x, const T *y)     \
	{                                                                                                    \
		xp_cmp<T>(n, op, m, x, y);                                                                   \
	}                                                                                                    \
	XP_REGISTER(xp_cmp_##S, 0)                                                                           \
	extern "C" __global__ void xp_cmps_##S(xp_i64 n, int op, unsigned char *m, const T *x, T s)           \
	{                                                                                                    \
		xp_cmps<T>(n, op, m, x, s);                                                                  \
	}                                                                                                    \
	XP_REGISTER(xp_cmps_##S, 0)                                                                          \
	extern "C" __global__ void xp_where_##S(xp_i64 n, T *d, const unsigned char *m, const T *a, const T *b) \
	{                                                                                                    \
		xp_where<T>(n, d, m, a, b);                                                                  \
	}                                                                                                    \
	XP_REGISTER(xp_where_##S, 0)                                                                         \
	extern "C" __global__ void xp_cpscatter_##S(xp_i64 n, T *d, const T *x, const unsigned char *m,      \
						    const xp_u64 *off)                                        \
	{                                                                                                    \
		xp_cpscatter<T>(n, d, x, m, off);                                                            \
	}                                                                                                    \
	XP_REGISTER(xp_cpscatter_##S, 1)

// XP_CVT(DS, D, SS, S) is the conversion entry from S to D.
#define XP_CVT(DS, D, SS, S)                                                                                 \
	extern "C" __global__ void xp_cvt_##DS##_##SS(xp_i64 n, D *d, const S *s) { xp_cvt<D, S>(n, d, s); } \
	XP_REGISTER(xp_cvt_##DS##_##SS, 0)

// XP_CVT_TO(DS, D) is the conversions to D from every type.
#define XP_CVT_TO(DS, D)                           \
	XP_CVT(DS, D, f32, float)                  \
	XP_CVT(DS, D, f64, double)                 \
	XP_CVT(DS, D, i32, int)                    \
	XP_CVT(DS, D, i64, long long)              \
	XP_CVT(DS, D, u32, unsigned int)           \
	XP_CVT(DS, D, u64, unsigned long long)     \
	XP_CVT(DS, D, i8, signed char)             \
	XP_CVT(DS, D, i16, short)                  \
	XP_CVT(DS, D, u8, unsigned char)           \
	XP_CVT(DS, D, u16, unsigned short)

#define XP_CONVERT_TYPE(S, T) \
	XP_CONVERT_ONE(S, T)  \
	XP_CVT_TO(S, T)

XP_CONVERT_TYPE(f32, float)
XP_CONVERT_TYPE(f64, double)
XP_CONVERT_TYPE(i32, int)
XP_CONVERT_TYPE(i64, long long)
XP_CONVERT_TYPE(u32, unsigned int)
XP_CONVERT_TYPE(u64, unsigned long long)
XP_CONVERT_TYPE(i8, signed char)
XP_CONVERT_TYPE(i16, short)
XP_CONVERT_TYPE(u8, unsigned char)
XP_CONVERT_TYPE(u16, unsigned short)

extern "C" __global__ void xp_cpcount_u8(xp_i64 n, const unsigned char *mask, xp_u64 *counts) { xp_cpcount(n, mask, counts); }
XP_REGISTER(xp_cpcount_u8, 1)

// xp_cpscan_u64 replaces counts[0..nb) by their exclusive running sums and
// sets counts[nb] to the total, in one thread.
extern "C" __global__ void xp_cpscan_u64(xp_i64 nb, xp_u64 *counts)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		xp_u64 run = 0;
		for (xp_i64 k = 0; k < nb; k++) {
			xp_u64 v = counts[k];
			counts[k] = run;
			run += v;
		}
		counts[nb] = run;
	}
}
XP_REGISTER(xp_cpscan_u64, 0)
