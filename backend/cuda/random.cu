// random.cu: the random fills of xpmpi's CUDA backend (backend.RandomFiller
// of package backend/cuda, random.go), appended after rng's philox.cuh (Go
// side: rng.CUDAHeader) to the module's source (KernelSource). It uses
// kernels.cu's types, XP_GRID_STRIDE and XP_REGISTER; for the host
// emulation of the fake driver (XP_HOST_EMULATION) it includes philox.cuh
// itself, from rng/ of the repository.
//
// Element i of dst, in run r = i / len at j = i % len, is element
// g = first + r*stride + j (modulo 2^64) of package rng's Fill functions
// under (seed, draw): stream g, counter draw, one Philox block per
// element. Uniform deviates and integers are rng's bit for bit; normal
// deviates are Box-Muller in double as rng's, to the accuracy of the
// device's log, sqrt and cos (about 1e-14), then rounded to T.
//
// Entries:
//   xp_randf_f32, xp_randf_f64(n, len, T *dst, u64 seed, u64 draw, u64 first, u64 stride, int normal)
//   xp_randi_S(n, len, T *dst, u64 seed, u64 draw, u64 first, u64 stride, u64 lo, u64 span)   (integers)

#ifdef XP_HOST_EMULATION
#include "../../rng/philox.cuh"
#endif

// xp_rand_global is the global flat index of element i of a fill.
__device__ __forceinline__ xp_u64 xp_rand_global(xp_i64 i, xp_i64 len, xp_u64 first, xp_u64 stride)
{
	xp_u64 r = (xp_u64)i / (xp_u64)len, j = (xp_u64)i % (xp_u64)len;
	return first + r * stride + j;
}

// xp_rand_uniform is rng.FillUniform's element g for T.
template <typename T> struct xp_rand_uniform;
template <> struct xp_rand_uniform<float> {
	static __device__ __forceinline__ float at(xp_u64 seed, xp_u64 g, xp_u64 draw)
	{
		return xpmpi_uniform_f32(seed, g, draw);
	}
};
template <> struct xp_rand_uniform<double> {
	static __device__ __forceinline__ double at(xp_u64 seed, xp_u64 g, xp_u64 draw)
	{
		double u0, u1;
		xpmpi_uniform2(seed, g, draw, &u0, &u1);
		return u0;
	}
};

template <typename T>
__device__ void xp_randf(xp_i64 n, xp_i64 len, T *dst, xp_u64 seed, xp_u64 draw, xp_u64 first, xp_u64 stride, int normal)
{
	XP_GRID_STRIDE(i, n)
	{
		xp_u64 g = xp_rand_global(i, len, first, stride);
		if (normal) {
			double z0, z1;
			xpmpi_normal2(seed, g, draw, &z0, &z1);
			dst[i] = (T)z0;
		} else {
			dst[i] = xp_rand_uniform<T>::at(seed, g, draw);
		}
	}
}

template <typename T>
__device__ void xp_randi(xp_i64 n, xp_i64 len, T *dst, xp_u64 seed, xp_u64 draw, xp_u64 first, xp_u64 stride, xp_u64 lo,
			 xp_u64 span)
{
	XP_GRID_STRIDE(i, n)
	{
		xp_u64 g = xp_rand_global(i, len, first, stride);
		dst[i] = (T)(lo + xpmpi_intn(seed, g, draw, span));
	}
}

#define XP_RANDF(S, T)                                                                                       \
	extern "C" __global__ void xp_randf_##S(xp_i64 n, xp_i64 len, T *dst, xp_u64 seed, xp_u64 draw,       \
						xp_u64 first, xp_u64 stride, int normal)                       \
	{                                                                                                    \
		xp_randf<T>(n, len, dst, seed, draw, first, stride, normal);                                 \
	}                                                                                                    \
	XP_REGISTER(xp_randf_##S, 0)

#define XP_RANDI(S, T)                                                                                       \
	extern "C" __global__ void xp_randi_##S(xp_i64 n, xp_i64 len, T *dst, xp_u64 seed, xp_u64 draw,       \
						xp_u64 first, xp_u64 stride, xp_u64 lo, xp_u64 span)           \
	{                                                                                                    \
		xp_randi<T>(n, len, dst, seed, draw, first, stride, lo, span);                               \
	}                                                                                                    \
	XP_REGISTER(xp_randi_##S, 0)

XP_RANDF(f32, float)
XP_RANDF(f64, double)
XP_RANDI(i32, int)
XP_RANDI(i64, long long)
XP_RANDI(u32, unsigned int)
XP_RANDI(u64, unsigned long long)
XP_RANDI(i8, signed char)
XP_RANDI(i16, short)
XP_RANDI(u8, unsigned char)
XP_RANDI(u16, unsigned short)
