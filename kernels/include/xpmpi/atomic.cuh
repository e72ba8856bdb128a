/*
 * xpmpi/atomic.cuh: atomic minimum and maximum of float and double for
 * CUDA kernels (C++), by compare-and-swap on the bits. The result does not
 * depend on the order of the updates, and follows the rule of xpmpi's
 * reductions (backend.Min, backend.Max and the Go host functions
 * kernels.MinNaN and kernels.MaxNaN): a NaN wins over every number (the
 * first NaN stored stays), and otherwise the smaller (larger) value; -0
 * counts as smaller than +0, so that the result is the same bits whatever
 * the order.
 *
 *   xpmpi_min_nan(a, b), xpmpi_max_nan(a, b)         the rule, on values
 *   xpmpi_atomic_min(addr, v), xpmpi_atomic_max(addr, v)
 *                                                    (device) update *addr,
 *                                                    return the old value
 *
 * Template parameters are named XpmpiT, so that a kernel may #define T
 * (the element type of package kernels' variants).
 */
#ifndef XPMPI_ATOMIC_CUH
#define XPMPI_ATOMIC_CUH

#if defined(__CUDACC__)
#define XPMPI_ATOMIC_FN static __host__ __device__ __forceinline__
#else
#define XPMPI_ATOMIC_FN static inline
#endif

/* xpmpi_less orders numbers with -0 < +0; NaNs are handled by the callers. */
template <typename XpmpiT> XPMPI_ATOMIC_FN bool xpmpi_less(XpmpiT a, XpmpiT b)
{
	if (a == b) {
		return a == (XpmpiT)0 && (1 / a) < (1 / b); /* -0 before +0 */
	}
	return a < b;
}

template <typename XpmpiT> XPMPI_ATOMIC_FN XpmpiT xpmpi_min_nan(XpmpiT a, XpmpiT b)
{
	if (a != a) {
		return a;
	}
	if (b != b) {
		return b;
	}
	return xpmpi_less(b, a) ? b : a;
}

template <typename XpmpiT> XPMPI_ATOMIC_FN XpmpiT xpmpi_max_nan(XpmpiT a, XpmpiT b)
{
	if (a != a) {
		return a;
	}
	if (b != b) {
		return b;
	}
	return xpmpi_less(a, b) ? b : a;
}

#if defined(__CUDACC__)
static __device__ __forceinline__ double xpmpi_atomic_min(double *addr, double v)
{
	unsigned long long *p = (unsigned long long *)addr;
	unsigned long long old = *p, assumed;
	do {
		assumed = old;
		double next = xpmpi_min_nan(__longlong_as_double((long long)assumed), v);
		old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(next));
	} while (old != assumed);
	return __longlong_as_double((long long)old);
}

static __device__ __forceinline__ double xpmpi_atomic_max(double *addr, double v)
{
	unsigned long long *p = (unsigned long long *)addr;
	unsigned long long old = *p, assumed;
	do {
		assumed = old;
		double next = xpmpi_max_nan(__longlong_as_double((long long)assumed), v);
		old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(next));
	} while (old != assumed);
	return __longlong_as_double((long long)old);
}

static __device__ __forceinline__ float xpmpi_atomic_min(float *addr, float v)
{
	unsigned int *p = (unsigned int *)addr;
	unsigned int old = *p, assumed;
	do {
		assumed = old;
		float next = xpmpi_min_nan(__uint_as_float(assumed), v);
		old = atomicCAS(p, assumed, __float_as_uint(next));
	} while (old != assumed);
	return __uint_as_float(old);
}

static __device__ __forceinline__ float xpmpi_atomic_max(float *addr, float v)
{
	unsigned int *p = (unsigned int *)addr;
	unsigned int old = *p, assumed;
	do {
		assumed = old;
		float next = xpmpi_max_nan(__uint_as_float(assumed), v);
		old = atomicCAS(p, assumed, __float_as_uint(next));
	} while (old != assumed);
	return __uint_as_float(old);
}
#endif

#endif
