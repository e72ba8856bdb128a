/*
 * xpvendor.h: xpmpi's own declarations of the parts of cuBLAS and cuFFT that
 * backend/cuda uses (vendor.go). Both libraries are loaded at run time
 * (dlopen) where present, as the driver is, so that the build needs no
 * NVIDIA header or library and a binary runs where they are missing.
 *
 * The types are ours and match the libraries' ABI: cublasStatus_t,
 * cufftResult, the enums and cufftHandle are ints, cublasHandle_t is a
 * pointer to an opaque struct, streams are the driver's CUstream, and the
 * complex scalars are pairs of floats or doubles.
 */
#ifndef XPMPI_XPVENDOR_H
#define XPMPI_XPVENDOR_H

#include <stddef.h>
#include "xpcuda.h"

typedef struct xpCublasContext *xpCublasHandle;
typedef int xpCufftHandle;

enum {
	XP_CUBLAS_OP_N = 0,
	XP_CUFFT_C2C = 0x29,
	XP_CUFFT_Z2Z = 0x69,
	XP_CUFFT_FORWARD = -1,
	XP_CUFFT_INVERSE = 1
};

/* Loading: 0 on success, 1 when the library cannot be opened, 2 when a
 * symbol is missing (err says which). Each library is loaded once. */
int xpv_cublas_load(const char *path, char *err, size_t errlen);
int xpv_cufft_load(const char *path, char *err, size_t errlen);

/* cuBLAS (the _v2 entry points; cublasGetProperty with 0, 1, 2 for the
 * major, minor and patch version). */
int xpv_cublasGetProperty(int type, int *value);
int xpv_cublasCreate(xpCublasHandle *h);
int xpv_cublasSetStream(xpCublasHandle h, CUstream s);
int xpv_cublasSgemm(xpCublasHandle h, int m, int n, int k, float alpha, unsigned long long a, int lda,
		    unsigned long long b, int ldb, float beta, unsigned long long c, int ldc);
int xpv_cublasDgemm(xpCublasHandle h, int m, int n, int k, double alpha, unsigned long long a, int lda,
		    unsigned long long b, int ldb, double beta, unsigned long long c, int ldc);
int xpv_cublasCgemm(xpCublasHandle h, int m, int n, int k, float beta_re, unsigned long long a, int lda,
		    unsigned long long b, int ldb, unsigned long long c, int ldc);
int xpv_cublasZgemm(xpCublasHandle h, int m, int n, int k, double beta_re, unsigned long long a, int lda,
		    unsigned long long b, int ldb, unsigned long long c, int ldc);

/* cuFFT: one-dimensional batched plans of length n with the stride and
 * distance given (in and out alike), C2C or Z2Z. */
int xpv_cufftGetVersion(int *v);
int xpv_cufftPlanMany(xpCufftHandle *plan, int n, int stride, int dist, int type, int batch);
int xpv_cufftSetStream(xpCufftHandle plan, CUstream s);
int xpv_cufftExec(xpCufftHandle plan, int type, unsigned long long in, unsigned long long out, int direction);
int xpv_cufftDestroy(xpCufftHandle plan);

#endif
