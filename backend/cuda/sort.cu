// sort.cu: the sort steps of xpmpi's CUDA backend (backend.Sorter of
// package backend/cuda, sort.go), appended after fft.cu to the module's
// source (KernelSource). It uses kernels.cu's types, xp_bits,
// XP_GRID_STRIDE, XP_BLOCK and XP_REGISTER, and includes no header.
//
// Keys are ordered as cmp.Compare orders them (the CPU backend's order):
// xp_order maps a key to an unsigned integer of its width whose order is
// that one: unsigned integers as they are, signed ones with the sign bit
// flipped, floats with every NaN mapped to 0 (below -Inf), -0 and +0 to
// the sign bit alone, negatives complemented and positives with the sign
// bit set. Keys move with their own bits (a -0 stays -0, a NaN keeps its
// payload); only the digits come from the map.
//
// The sort is a stable LSD radix sort of 4-bit digits, deterministic and
// without atomics. The Go side first reduces the keys' mapped bits to
// their AND and OR (xp_sortbits, xp_sortbits2), and runs a pass only for
// the digits in which the keys differ. A pass is three kernels over tiles
// of XP_SORT_TILE keys (XP_BLOCK threads of XP_SORT_ITEMS consecutive
// keys each):
//   1. xp_sortcount: each tile counts its keys of each digit, into
//      counts[digit * tiles + tile] (digit-major);
//   2. xp_sortscan: a block per digit scans that digit's counts over the
//      tiles (exclusive) and stores their total after them, in
//      counts[XP_SORT_RADIX * tiles + digit];
//   3. xp_sortscatter: each tile ranks its keys among the tile's keys of
//      the same digit (a thread's count of its earlier keys of the digit,
//      plus the counts of the earlier threads, from an exclusive scan of
//      the threads' counts in shared memory) and writes each key (and its
//      int64 value, if any) to its place, the keys of lower digits (the
//      sum of their totals) plus the digit's keys of earlier tiles plus
//      its rank: equal digits keep their order.
// 4-bit digits keep the threads' counts of every digit in 16 KiB of shared
// memory (16 digits x XP_BLOCK threads), where 8-bit ones would need 256.
//
// Entries (S the key type's suffix; E an element's size in bytes):
//   xp_sortbits_S(n, const T *keys, u64 *partial)            2 words per block: AND, OR
//   xp_sortbits2_u64(int nb, const u64 *partial, u64 *out)   out[0] AND, out[1] OR
//   xp_sortcount_S(n, int shift, const T *keys, i64 tiles, i64 *counts)
//   xp_sortscan_i64(i64 tiles, i64 *counts)                  XP_SORT_RADIX blocks, in place
//   xp_sortscatter_S(n, int shift, const T *kin, T *kout, const i64 *vin, i64 *vout, i64 tiles, const i64 *offsets)
//   xp_sortiota_i64(n, i64 *dst, i64 base)                   dst[i] = base + i
//   xp_cut_S(n, const T *keys, i64 base, i64 m, const u64 *splitKeys, const i64 *splitIdx, i64 *cuts)
//   xp_take_bE(n, E *dst, const E *src, const i64 *pos)      dst[j] = src[pos[j]], E = 1, 2, 4, 8, 16
// vin and vout may both be null (no values).

// XP_SORT_ITEMS is the number of consecutive keys of a thread, and
// XP_SORT_TILE the keys of a block (sort.go's sortTile); XP_SORT_RADIX the
// values of a digit (sort.go's sortRadix).
#define XP_SORT_ITEMS 4
#define XP_SORT_TILE (XP_BLOCK * XP_SORT_ITEMS)
#define XP_SORT_BITS 4
#define XP_SORT_RADIX (1 << XP_SORT_BITS)

// xp_order returns the image of v under the order-preserving map.
template <typename T> __device__ __forceinline__ xp_u64 xp_order(T v)
{
	const int w = 8 * (int)sizeof(T);
	const xp_u64 sign = 1ULL << (w - 1);
	const xp_u64 all = ~0ULL >> (64 - w);
	xp_u64 b = xp_bits<T>(v);
	if (xp_type<T>::is_float) {
		const xp_u64 inf = w == 64 ? 0x7ff0000000000000ULL : 0x7f800000ULL;
		xp_u64 mag = b & ~sign;
		if (mag > inf) {
			return 0; // a NaN: below -Inf
		}
		if (mag == 0) {
			return sign; // -0 is +0
		}
		return (b & sign) != 0 ? (~b & all) : (b | sign);
	}
	return xp_type<T>::is_signed ? b ^ sign : b;
}

// xp_scan_block sets sh[t] to the inclusive sum of sh[0..t] of the block's
// XP_BLOCK values, in a fixed tree (Hillis and Steele), and returns the
// exclusive sum of thread t. All threads must call it.
template <typename A> __device__ A xp_scan_block(A *sh)
{
	unsigned int t = threadIdx.x;
	A own = sh[t];
	__syncthreads();
	for (unsigned int off = 1; off < XP_BLOCK; off <<= 1) {
		A add = t >= off ? sh[t - off] : (A)0;
		__syncthreads();
		sh[t] += add;
		__syncthreads();
	}
	return sh[t] - own;
}

// xp_sort_rank loads the thread's keys of the block's tile into k, their
// digits (at shift) into dig (-1 past the end) and into rank the number of
// the thread's earlier keys with the same digit; cnt (XP_SORT_RADIX x
// XP_BLOCK counters, digit-major) ends as the exclusive scan of the
// threads' counts of each digit: cnt[d*XP_BLOCK + t] is the number of the
// tile's keys of a digit below d, plus those of digit d of threads below t.
template <typename T>
__device__ void xp_sort_rank(xp_i64 n, int shift, const T *keys, unsigned int *cnt, unsigned int *sh, T *k, int *dig,
			     unsigned int *rank)
{
	unsigned int t = threadIdx.x;
	xp_i64 lo = (xp_i64)blockIdx.x * XP_SORT_TILE + (xp_i64)t * XP_SORT_ITEMS;
	for (int d = 0; d < XP_SORT_RADIX; d++) {
		cnt[d * XP_BLOCK + t] = 0;
	}
	for (int j = 0; j < XP_SORT_ITEMS; j++) {
		xp_i64 i = lo + j;
		dig[j] = -1;
		rank[j] = 0;
		if (i < n) {
			k[j] = keys[i];
			int d = (int)((xp_order<T>(k[j]) >> shift) & (XP_SORT_RADIX - 1));
			dig[j] = d;
			rank[j] = cnt[d * XP_BLOCK + t]++;
		}
	}
	__syncthreads();
	// Thread t scans the XP_SORT_RADIX counters from t*XP_SORT_RADIX on
	// (XP_SORT_RADIX * XP_BLOCK counters, XP_SORT_RADIX per thread).
	unsigned int *mine = cnt + t * XP_SORT_RADIX;
	unsigned int s = 0;
	for (int e = 0; e < XP_SORT_RADIX; e++) {
		unsigned int v = mine[e];
		mine[e] = s;
		s += v;
	}
	sh[t] = s;
	unsigned int before = xp_scan_block<unsigned int>(sh);
	for (int e = 0; e < XP_SORT_RADIX; e++) {
		mine[e] += before;
	}
	__syncthreads();
}

// xp_sortcount sets counts[d*tiles + tile] to the number of keys of digit
// d in the block's tile.
template <typename T> __device__ void xp_sortcount(xp_i64 n, int shift, const T *keys, xp_i64 tiles, xp_i64 *counts)
{
	__shared__ unsigned int cnt[XP_SORT_RADIX * XP_BLOCK];
	__shared__ unsigned int sh[XP_BLOCK];
	T k[XP_SORT_ITEMS];
	int dig[XP_SORT_ITEMS];
	unsigned int rank[XP_SORT_ITEMS];
	xp_sort_rank<T>(n, shift, keys, cnt, sh, k, dig, rank);
	unsigned int t = threadIdx.x;
	if (t < XP_SORT_RADIX) {
		xp_i64 first = (xp_i64)blockIdx.x * XP_SORT_TILE;
		unsigned int total = (unsigned int)(n - first < XP_SORT_TILE ? n - first : XP_SORT_TILE);
		unsigned int end = t + 1 < XP_SORT_RADIX ? cnt[(t + 1) * XP_BLOCK] : total;
		counts[(xp_i64)t * tiles + blockIdx.x] = (xp_i64)(end - cnt[t * XP_BLOCK]);
	}
}

// xp_sortscan replaces the tiles counts of digit blockIdx.x,
// counts[digit * tiles ...], by their exclusive scan, and sets
// counts[XP_SORT_RADIX * tiles + digit] to their sum: thread t adds a
// chunk of consecutive counts, the block scans the chunks' sums, and each
// thread writes its chunk's running sums.
__device__ void xp_sortscan(xp_i64 tiles, xp_i64 *counts)
{
	__shared__ xp_i64 sh[XP_BLOCK];
	unsigned int t = threadIdx.x;
	xp_i64 m = tiles;
	xp_i64 *total = counts + (xp_i64)XP_SORT_RADIX * tiles + blockIdx.x;
	counts += (xp_i64)blockIdx.x * tiles;
	xp_i64 chunk = (m + XP_BLOCK - 1) / XP_BLOCK;
	xp_i64 lo = (xp_i64)t * chunk, hi = lo + chunk < m ? lo + chunk : m;
	xp_i64 s = 0;
	for (xp_i64 i = lo; i < hi; i++) {
		s += counts[i];
	}
	sh[t] = s;
	xp_i64 run = xp_scan_block<xp_i64>(sh);
	for (xp_i64 i = lo; i < hi; i++) {
		xp_i64 v = counts[i];
		counts[i] = run;
		run += v;
	}
	if (t == XP_BLOCK - 1) {
		*total = run;
	}
}

// xp_sortscatter writes the keys of the block's tile (and their values, if
// vin is not null) to their places in kout (and vout): the number of keys
// of lower digits, plus the tile's first place among the keys of their
// digit, offsets[d*tiles + tile], plus their rank in the tile among the
// keys of that digit.
template <typename T>
__device__ void xp_sortscatter(xp_i64 n, int shift, const T *kin, T *kout, const xp_i64 *vin, xp_i64 *vout, xp_i64 tiles,
			       const xp_i64 *offsets)
{
	__shared__ unsigned int cnt[XP_SORT_RADIX * XP_BLOCK];
	__shared__ unsigned int sh[XP_BLOCK];
	__shared__ xp_i64 below[XP_SORT_RADIX];
	T k[XP_SORT_ITEMS];
	int dig[XP_SORT_ITEMS];
	unsigned int rank[XP_SORT_ITEMS];
	unsigned int t = threadIdx.x;
	if (t == 0) { // the keys of lower digits (xp_sort_rank synchronizes)
		xp_i64 s = 0;
		for (int d = 0; d < XP_SORT_RADIX; d++) {
			below[d] = s;
			s += offsets[(xp_i64)XP_SORT_RADIX * tiles + d];
		}
	}
	xp_sort_rank<T>(n, shift, kin, cnt, sh, k, dig, rank);
	xp_i64 lo = (xp_i64)blockIdx.x * XP_SORT_TILE + (xp_i64)t * XP_SORT_ITEMS;
	for (int j = 0; j < XP_SORT_ITEMS; j++) {
		int d = dig[j];
		if (d < 0) {
			continue;
		}
		xp_i64 at = below[d] + offsets[(xp_i64)d * tiles + blockIdx.x] + (xp_i64)(cnt[d * XP_BLOCK + t] - cnt[d * XP_BLOCK]) +
			    rank[j];
		kout[at] = k[j];
		if (vout != 0) {
			vout[at] = vin[lo + j];
		}
	}
}

// xp_sort_andor reduces the block's AND and OR values in a fixed tree into
// out[0] and out[1] (thread 0).
__device__ void xp_sort_andor(xp_u64 *sa, xp_u64 *so, xp_u64 a, xp_u64 o, xp_u64 *out)
{
	unsigned int t = threadIdx.x;
	sa[t] = a;
	so[t] = o;
	__syncthreads();
	for (unsigned int s = XP_BLOCK / 2; s > 0; s >>= 1) {
		if (t < s) {
			sa[t] &= sa[t + s];
			so[t] |= so[t + s];
		}
		__syncthreads();
	}
	if (t == 0) {
		out[0] = sa[0];
		out[1] = so[0];
	}
}

// xp_sortbits sets partial[2b], partial[2b+1] to the AND and the OR of the
// mapped keys of block b's grid-stride sequence.
template <typename T> __device__ void xp_sortbits(xp_i64 n, const T *keys, xp_u64 *partial)
{
	__shared__ xp_u64 sa[XP_BLOCK];
	__shared__ xp_u64 so[XP_BLOCK];
	xp_u64 a = ~0ULL, o = 0;
	XP_GRID_STRIDE(i, n)
	{
		xp_u64 u = xp_order<T>(keys[i]);
		a &= u;
		o |= u;
	}
	xp_sort_andor(sa, so, a, o, partial + 2 * blockIdx.x);
}

// xp_sortbits2 combines the nb pairs of xp_sortbits into out[0], out[1].
__device__ void xp_sortbits2(int nb, const xp_u64 *partial, xp_u64 *out)
{
	__shared__ xp_u64 sa[XP_BLOCK];
	__shared__ xp_u64 so[XP_BLOCK];
	xp_u64 a = ~0ULL, o = 0;
	for (int i = threadIdx.x; i < nb; i += XP_BLOCK) {
		a &= partial[2 * i];
		o |= partial[2 * i + 1];
	}
	xp_sort_andor(sa, so, a, o, out);
}

// xp_cut sets cuts[j] to the number of leading keys that come before the
// splitter (splitKeys[j], splitIdx[j]) in (key, index) order, key i having
// index base+i: a binary search per splitter over the sorted keys, whose
// equal keys are in index order. splitKeys are mapped as xp_order maps.
template <typename T>
__device__ void xp_cut(xp_i64 n, const T *keys, xp_i64 base, xp_i64 m, const xp_u64 *splitKeys, const xp_i64 *splitIdx,
		       xp_i64 *cuts)
{
	XP_GRID_STRIDE(j, m)
	{
		xp_u64 sk = splitKeys[j];
		xp_i64 si = splitIdx[j];
		xp_i64 lo = 0, hi = n;
		while (lo < hi) {
			xp_i64 mid = lo + (hi - lo) / 2;
			xp_u64 u = xp_order<T>(keys[mid]);
			if (u > sk || (u == sk && base + mid >= si)) {
				hi = mid;
			} else {
				lo = mid + 1;
			}
		}
		cuts[j] = lo;
	}
}

// xp_b16 is a 16-byte element (a complex128), moved as two words.
struct xp_b16 {
	xp_u64 lo, hi;
};

template <typename E> __device__ void xp_take(xp_i64 n, E *dst, const E *src, const xp_i64 *pos)
{
	XP_GRID_STRIDE(j, n) dst[j] = src[pos[j]];
}

#define XP_SORT_ENTRIES(S, T)                                                                                \
	extern "C" __global__ void xp_sortbits_##S(xp_i64 n, const T *keys, xp_u64 *partial)                  \
	{                                                                                                    \
		xp_sortbits<T>(n, keys, partial);                                                            \
	}                                                                                                    \
	XP_REGISTER(xp_sortbits_##S, 1)                                                                      \
	extern "C" __global__ void xp_sortcount_##S(xp_i64 n, int shift, const T *keys, xp_i64 tiles,         \
						    xp_i64 *counts)                                           \
	{                                                                                                    \
		xp_sortcount<T>(n, shift, keys, tiles, counts);                                              \
	}                                                                                                    \
	XP_REGISTER(xp_sortcount_##S, 1)                                                                     \
	extern "C" __global__ void xp_sortscatter_##S(xp_i64 n, int shift, const T *kin, T *kout,             \
						      const xp_i64 *vin, xp_i64 *vout, xp_i64 tiles,          \
						      const xp_i64 *offsets)                                  \
	{                                                                                                    \
		xp_sortscatter<T>(n, shift, kin, kout, vin, vout, tiles, offsets);                           \
	}                                                                                                    \
	XP_REGISTER(xp_sortscatter_##S, 1)                                                                   \
	extern "C" __global__ void xp_cut_##S(xp_i64 n, const T *keys, xp_i64 base, xp_i64 m,                 \
					      const xp_u64 *splitKeys, const xp_i64 *splitIdx, xp_i64 *cuts)  \
	{                                                                                                    \
		xp_cut<T>(n, keys, base, m, splitKeys, splitIdx, cuts);                                      \
	}                                                                                                    \
	XP_REGISTER(xp_cut_##S, 0)

XP_SORT_ENTRIES(f32, float)
XP_SORT_ENTRIES(f64, double)
XP_SORT_ENTRIES(i32, int)
XP_SORT_ENTRIES(i64, long long)
XP_SORT_ENTRIES(u32, unsigned int)
XP_SORT_ENTRIES(u64, unsigned long long)
XP_SORT_ENTRIES(i8, signed char)
XP_SORT_ENTRIES(i16, short)
XP_SORT_ENTRIES(u8, unsigned char)
XP_SORT_ENTRIES(u16, unsigned short)

extern "C" __global__ void xp_sortbits2_u64(int nb, const xp_u64 *partial, xp_u64 *out)
{
	xp_sortbits2(nb, partial, out);
}
XP_REGISTER(xp_sortbits2_u64, 1)

extern "C" __global__ void xp_sortscan_i64(xp_i64 tiles, xp_i64 *counts)
{
	xp_sortscan(tiles, counts);
}
XP_REGISTER(xp_sortscan_i64, 1)

extern "C" __global__ void xp_sortiota_i64(xp_i64 n, xp_i64 *dst, xp_i64 base)
{
	XP_GRID_STRIDE(i, n) dst[i] = base + i;
}
XP_REGISTER(xp_sortiota_i64, 0)

#define XP_TAKE(S, E)                                                                                        \
	extern "C" __global__ void xp_take_##S(xp_i64 n, E *dst, const E *src, const xp_i64 *pos)             \
	{                                                                                                    \
		xp_take<E>(n, dst, src, pos);                                                                \
	}                                                                                                    \
	XP_REGISTER(xp_take_##S, 0)

XP_TAKE(b1, unsigned char)
XP_TAKE(b2, unsigned short)
XP_TAKE(b4, unsigned int)
XP_TAKE(b8, xp_u64)
XP_TAKE(b16, xp_b16)
