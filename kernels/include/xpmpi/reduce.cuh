/*
 * xpmpi/reduce.cuh: a deterministic block reduction for CUDA kernels (C++).
 * The values of a block, one per thread in shared memory, are added in a
 * fixed pairwise tree that does not depend on timing, so that a kernel's
 * sum is the same on every run and equals the Go host function
 * kernels.BlockSum bit for bit (for float and double, compiled without
 * fused multiply-add contraction, which sums never use).
 *
 * The tree over n values: p is the smallest power of two >= n; for
 * stride = p/2, p/4, ..., 1, value i (i < stride, i + stride < n) becomes
 * s[i] + s[i + stride]. s[0] is then the sum.
 *
 *   xpmpi_tree_step(s, n, stride, i)   one thread's part of one level
 *   xpmpi_tree_first_stride(n)         p/2 (0 for n <= 1)
 *   xpmpi_block_sum(s)                 (device) the sum of s[0..blockDim.x)
 *                                      for a 1-D block; every thread of the
 *                                      block must call it; s is overwritten
 *
 * Under nvcc and NVRTC xpmpi_block_sum is a __device__ function; the step
 * functions are __host__ __device__, and plain inline C++ elsewhere (the
 * tests of package kernels run the tree with them on the host).
 *
 * Template parameters are named XpmpiT, so that a kernel may #define T
 * (the element type of package kernels' variants).
 */
#ifndef XPMPI_REDUCE_CUH
#define XPMPI_REDUCE_CUH

#if defined(__CUDACC__)
#define XPMPI_REDUCE_FN static __host__ __device__ __forceinline__
#else
#define XPMPI_REDUCE_FN static inline
#endif

/* XP_HOST_EMULATION: backend/cuda's fake driver for tests, which runs
 * kernels compiled as C++ on the host with the threads of a block as
 * fibers. */
#if defined(__CUDACC__) || defined(XP_HOST_EMULATION)
#define XPMPI_REDUCE_DEVICE 1
#endif

XPMPI_REDUCE_FN unsigned int xpmpi_tree_first_stride(unsigned int n)
{
	unsigned int p = 1;
	while (p < n) {
		p <<= 1;
	}
	return p / 2;
}

template <typename XpmpiT> XPMPI_REDUCE_FN void xpmpi_tree_step(XpmpiT *s, unsigned int n, unsigned int stride, unsigned int i)
{
	if (i < stride && i + stride < n) {
		s[i] = s[i] + s[i + stride];
	}
}

#if defined(XPMPI_REDUCE_DEVICE)
template <typename XpmpiT> static __device__ __forceinline__ XpmpiT xpmpi_block_sum(XpmpiT *s)
{
	const unsigned int n = blockDim.x;
	__syncthreads();
	for (unsigned int stride = xpmpi_tree_first_stride(n); stride > 0; stride >>= 1) {
		xpmpi_tree_step(s, n, stride, threadIdx.x);
		__syncthreads();
	}
	return s[0];
}
#endif

#endif
