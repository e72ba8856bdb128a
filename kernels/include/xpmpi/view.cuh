/*
 * xpmpi/view.cuh: views of row-major N-D arrays for CUDA kernels (C++):
 * a pointer with extents, indexed as backend arrays and dist blocks are
 * laid out (the last index varies fastest). With XPMPI_DEBUG defined
 * (XPMPI_CUDA_DEBUG=1) every index is checked: an index out of range
 * traps the kernel on the device (the launch fails, and the failure is
 * reported naming the kernel) and aborts on the host.
 *
 *   xpmpi_view2<T> v = xpmpi_make_view2(ptr, rows, cols);
 *   v(i, j)       element (i, j): ptr[i*cols + j]
 *   xpmpi_view3<T> w = xpmpi_make_view3(ptr, n0, n1, n2);
 *   w(i, j, k)    ptr[(i*n1 + j)*n2 + k]
 *
 * Template parameters are named XpmpiT, so that a kernel may #define T
 * (the element type of package kernels' variants).
 */
#ifndef XPMPI_VIEW_CUH
#define XPMPI_VIEW_CUH

#if defined(__CUDACC__)
#define XPMPI_VIEW_FN __host__ __device__ __forceinline__
#else
#define XPMPI_VIEW_FN inline
#endif

#if defined(XPMPI_DEBUG)
#if defined(__CUDA_ARCH__)
#define XPMPI_VIEW_CHECK(ok) \
	do { \
		if (!(ok)) { \
			__trap(); \
		} \
	} while (0)
#elif defined(__CUDACC_RTC__)
#define XPMPI_VIEW_CHECK(ok) ((void)0)
#else
#include <stdlib.h>
#define XPMPI_VIEW_CHECK(ok) \
	do { \
		if (!(ok)) { \
			abort(); \
		} \
	} while (0)
#endif
#else
#define XPMPI_VIEW_CHECK(ok) ((void)0)
#endif

template <typename XpmpiT> struct xpmpi_view2 {
	XpmpiT *data;
	long long n0, n1;
	XPMPI_VIEW_FN XpmpiT &operator()(long long i, long long j) const
	{
		XPMPI_VIEW_CHECK(i >= 0 && i < n0 && j >= 0 && j < n1);
		return data[i * n1 + j];
	}
	XPMPI_VIEW_FN long long size() const { return n0 * n1; }
};

template <typename XpmpiT> struct xpmpi_view3 {
	XpmpiT *data;
	long long n0, n1, n2;
	XPMPI_VIEW_FN XpmpiT &operator()(long long i, long long j, long long k) const
	{
		XPMPI_VIEW_CHECK(i >= 0 && i < n0 && j >= 0 && j < n1 && k >= 0 && k < n2);
		return data[(i * n1 + j) * n2 + k];
	}
	XPMPI_VIEW_FN long long size() const { return n0 * n1 * n2; }
};

template <typename XpmpiT> XPMPI_VIEW_FN xpmpi_view2<XpmpiT> xpmpi_make_view2(XpmpiT *p, long long n0, long long n1)
{
	xpmpi_view2<XpmpiT> v = {p, n0, n1};
	return v;
}

template <typename XpmpiT> XPMPI_VIEW_FN xpmpi_view3<XpmpiT> xpmpi_make_view3(XpmpiT *p, long long n0, long long n1, long long n2)
{
	xpmpi_view3<XpmpiT> v = {p, n0, n1, n2};
	return v;
}

#endif
