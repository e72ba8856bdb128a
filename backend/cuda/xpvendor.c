/*
 * xpvendor.c: cuBLAS and cuFFT loaded at run time (xpvendor.h). Every entry
 * point is bound by name with dlsym into a pointer of our own declaration;
 * a missing symbol leaves the library unloaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "xpvendor.h"

typedef struct { float x, y; } xp_cf;
typedef struct { double x, y; } xp_cd;

static void *cublas_lib, *cufft_lib;

static int (*p_cublasGetProperty)(int, int *);
static int (*p_cublasCreate_v2)(xpCublasHandle *);
static int (*p_cublasSetStream_v2)(xpCublasHandle, CUstream);
static int (*p_cublasSgemm_v2)(xpCublasHandle, int, int, int, int, int, const float *, const void *, int,
			       const void *, int, const float *, void *, int);
static int (*p_cublasDgemm_v2)(xpCublasHandle, int, int, int, int, int, const double *, const void *, int,
			       const void *, int, const double *, void *, int);
static int (*p_cublasCgemm_v2)(xpCublasHandle, int, int, int, int, int, const xp_cf *, const void *, int,
			       const void *, int, const xp_cf *, void *, int);
static int (*p_cublasZgemm_v2)(xpCublasHandle, int, int, int, int, int, const xp_cd *, const void *, int,
			       const void *, int, const xp_cd *, void *, int);

static int (*p_cufftGetVersion)(int *);
static int (*p_cufftPlanMany)(xpCufftHandle *, int, int *, int *, int, int, int *, int, int, int, int);
static int (*p_cufftSetStream)(xpCufftHandle, CUstream);
static int (*p_cufftExecC2C)(xpCufftHandle, void *, void *, int);
static int (*p_cufftExecZ2Z)(xpCufftHandle, void *, void *, int);
static int (*p_cufftDestroy)(xpCufftHandle);

struct vbinding {
	const char *name;
	void **slot;
};

#define VB(sym, slot) { #sym, (void **)&slot }

static const struct vbinding cublas_bindings[] = {
	VB(cublasGetProperty, p_cublasGetProperty),
	VB(cublasCreate_v2, p_cublasCreate_v2),
	VB(cublasSetStream_v2, p_cublasSetStream_v2),
	VB(cublasSgemm_v2, p_cublasSgemm_v2),
	VB(cublasDgemm_v2, p_cublasDgemm_v2),
	VB(cublasCgemm_v2, p_cublasCgemm_v2),
	VB(cublasZgemm_v2, p_cublasZgemm_v2),
};

static const struct vbinding cufft_bindings[] = {
	VB(cufftGetVersion, p_cufftGetVersion),
	VB(cufftPlanMany, p_cufftPlanMany),
	VB(cufftSetStream, p_cufftSetStream),
	VB(cufftExecC2C, p_cufftExecC2C),
	VB(cufftExecZ2Z, p_cufftExecZ2Z),
	VB(cufftDestroy, p_cufftDestroy),
};

static int vload(void **lib, const char *path, const struct vbinding *tab, size_t n, char *err, size_t errlen)
{
	void *tmp[16];
	void *h;
	size_t i;
	if (*lib != NULL) {
		return 0;
	}
	dlerror();
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return 1;
	}
	for (i = 0; i < n && i < sizeof tmp / sizeof tmp[0]; i++) {
		dlerror();
		tmp[i] = dlsym(h, tab[i].name);
		if (tmp[i] == NULL) {
			const char *e = dlerror();
			snprintf(err, errlen, "missing symbol %s: %s", tab[i].name, e ? e : "not found");
			dlclose(h);
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		*tab[i].slot = tmp[i];
	}
	*lib = h;
	return 0;
}

int xpv_cublas_load(const char *path, char *err, size_t errlen)
{
	return vload(&cublas_lib, path, cublas_bindings, sizeof cublas_bindings / sizeof cublas_bindings[0], err, errlen);
}

int xpv_cufft_load(const char *path, char *err, size_t errlen)
{
	return vload(&cufft_lib, path, cufft_bindings, sizeof cufft_bindings / sizeof cufft_bindings[0], err, errlen);
}

/* Not loaded: CUBLAS_STATUS_NOT_INITIALIZED (1), CUFFT_SETUP_FAILED (7). */
#define CUBLAS(p, ...) (p == NULL ? 1 : p(__VA_ARGS__))
#define CUFFT(p, ...) (p == NULL ? 7 : p(__VA_ARGS__))

int xpv_cublasGetProperty(int type, int *value) { return CUBLAS(p_cublasGetProperty, type, value); }
int xpv_cublasCreate(xpCublasHandle *h) { return CUBLAS(p_cublasCreate_v2, h); }
int xpv_cublasSetStream(xpCublasHandle h, CUstream s) { return CUBLAS(p_cublasSetStream_v2, h, s); }

int xpv_cublasSgemm(xpCublasHandle h, int m, int n, int k, float alpha, unsigned long long a, int lda,
		    unsigned long long b, int ldb, float beta, unsigned long long c, int ldc)
{
	return CUBLAS(p_cublasSgemm_v2, h, XP_CUBLAS_OP_N, XP_CUBLAS_OP_N, m, n, k, &alpha, (const void *)(size_t)a, lda, (const void *)(size_t)b, ldb, &beta, (void *)(size_t)c, ldc);
}

int xpv_cublasDgemm(xpCublasHandle h, int m, int n, int k, double alpha, unsigned long long a, int lda,
		    unsigned long long b, int ldb, double beta, unsigned long long c, int ldc)
{
	return CUBLAS(p_cublasDgemm_v2, h, XP_CUBLAS_OP_N, XP_CUBLAS_OP_N, m, n, k, &alpha, (const void *)(size_t)a, lda, (const void *)(size_t)b, ldb, &beta, (void *)(size_t)c, ldc);
}

int xpv_cublasCgemm(xpCublasHandle h, int m, int n, int k, float beta_re, unsigned long long a, int lda,
		    unsigned long long b, int ldb, unsigned long long c, int ldc)
{
	xp_cf alpha = {1, 0}, beta = {beta_re, 0};
	return CUBLAS(p_cublasCgemm_v2, h, XP_CUBLAS_OP_N, XP_CUBLAS_OP_N, m, n, k, &alpha, (const void *)(size_t)a, lda, (const void *)(size_t)b, ldb, &beta, (void *)(size_t)c, ldc);
}

int xpv_cublasZgemm(xpCublasHandle h, int m, int n, int k, double beta_re, unsigned long long a, int lda,
		    unsigned long long b, int ldb, unsigned long long c, int ldc)
{
	xp_cd alpha = {1, 0}, beta = {beta_re, 0};
	return CUBLAS(p_cublasZgemm_v2, h, XP_CUBLAS_OP_N, XP_CUBLAS_OP_N, m, n, k, &alpha, (const void *)(size_t)a, lda, (const void *)(size_t)b, ldb, &beta, (void *)(size_t)c, ldc);
}

int xpv_cufftGetVersion(int *v) { return CUFFT(p_cufftGetVersion, v); }

int xpv_cufftPlanMany(xpCufftHandle *plan, int n, int stride, int dist, int type, int batch)
{
	int dims[1] = {n}, embed[1] = {n};
	return CUFFT(p_cufftPlanMany, plan, 1, dims, embed, stride, dist, embed, stride, dist, type, batch);
}

int xpv_cufftSetStream(xpCufftHandle plan, CUstream s) { return CUFFT(p_cufftSetStream, plan, s); }

int xpv_cufftExec(xpCufftHandle plan, int type, unsigned long long in, unsigned long long out, int direction)
{
	if (type == XP_CUFFT_C2C) {
		return CUFFT(p_cufftExecC2C, plan, (void *)(size_t)in, (void *)(size_t)out, direction);
	}
	return CUFFT(p_cufftExecZ2Z, plan, (void *)(size_t)in, (void *)(size_t)out, direction);
}

int xpv_cufftDestroy(xpCufftHandle plan) { return CUFFT(p_cufftDestroy, plan); }
