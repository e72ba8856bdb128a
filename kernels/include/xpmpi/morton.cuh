/*
 * xpmpi/morton.cuh: Morton (Z-order) keys for CUDA kernels, bit for bit
 * those of package algorithms (Morton2, Morton3 and their Decode
 * functions). Header-only; __host__ __device__ under nvcc and NVRTC, plain
 * static inline C/C++ elsewhere. Offered to NVRTC by package kernels as
 * #include "xpmpi/morton.cuh".
 *
 *   xpmpi_morton2(x, y)            bit 2b is bit b of x, bit 2b+1 bit b of y
 *   xpmpi_morton2_decode(k, &x, &y)
 *   xpmpi_morton3(x, y, z)         bit 3b+a is bit b of axis a, b < 21;
 *                                  coordinates are masked to 21 bits (Go's
 *                                  Morton3 panics on larger ones)
 *   xpmpi_morton3_decode(k, &x, &y, &z)
 */
#ifndef XPMPI_MORTON_CUH
#define XPMPI_MORTON_CUH

#if defined(__CUDACC__)
#define XPMPI_MORTON_FN static __host__ __device__ __forceinline__
#else
#define XPMPI_MORTON_FN static inline
#endif

XPMPI_MORTON_FN unsigned long long xpmpi_spread2(unsigned int x)
{
	unsigned long long v = x;
	v = (v | v << 16) & 0x0000FFFF0000FFFFull;
	v = (v | v << 8) & 0x00FF00FF00FF00FFull;
	v = (v | v << 4) & 0x0F0F0F0F0F0F0F0Full;
	v = (v | v << 2) & 0x3333333333333333ull;
	v = (v | v << 1) & 0x5555555555555555ull;
	return v;
}

XPMPI_MORTON_FN unsigned int xpmpi_compact2(unsigned long long v)
{
	v &= 0x5555555555555555ull;
	v = (v | v >> 1) & 0x3333333333333333ull;
	v = (v | v >> 2) & 0x0F0F0F0F0F0F0F0Full;
	v = (v | v >> 4) & 0x00FF00FF00FF00FFull;
	v = (v | v >> 8) & 0x0000FFFF0000FFFFull;
	v = (v | v >> 16) & 0x00000000FFFFFFFFull;
	return (unsigned int)v;
}

XPMPI_MORTON_FN unsigned long long xpmpi_spread3(unsigned int x)
{
	unsigned long long v = x & 0x1FFFFFu;
	v = (v | v << 32) & 0x001F00000000FFFFull;
	v = (v | v << 16) & 0x001F0000FF0000FFull;
	v = (v | v << 8) & 0x100F00F00F00F00Full;
	v = (v | v << 4) & 0x10C30C30C30C30C3ull;
	v = (v | v << 2) & 0x1249249249249249ull;
	return v;
}

XPMPI_MORTON_FN unsigned int xpmpi_compact3(unsigned long long v)
{
	v &= 0x1249249249249249ull;
	v = (v | v >> 2) & 0x10C30C30C30C30C3ull;
	v = (v | v >> 4) & 0x100F00F00F00F00Full;
	v = (v | v >> 8) & 0x001F0000FF0000FFull;
	v = (v | v >> 16) & 0x001F00000000FFFFull;
	v = (v | v >> 32) & 0x00000000001FFFFFull;
	return (unsigned int)v;
}

XPMPI_MORTON_FN unsigned long long xpmpi_morton2(unsigned int x, unsigned int y)
{
	return xpmpi_spread2(x) | xpmpi_spread2(y) << 1;
}

XPMPI_MORTON_FN void xpmpi_morton2_decode(unsigned long long k, unsigned int *x, unsigned int *y)
{
	*x = xpmpi_compact2(k);
	*y = xpmpi_compact2(k >> 1);
}

XPMPI_MORTON_FN unsigned long long xpmpi_morton3(unsigned int x, unsigned int y, unsigned int z)
{
	return xpmpi_spread3(x) | xpmpi_spread3(y) << 1 | xpmpi_spread3(z) << 2;
}

XPMPI_MORTON_FN void xpmpi_morton3_decode(unsigned long long k, unsigned int *x, unsigned int *y, unsigned int *z)
{
	*x = xpmpi_compact3(k);
	*y = xpmpi_compact3(k >> 1);
	*z = xpmpi_compact3(k >> 2);
}

#endif
