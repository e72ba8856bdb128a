//go:build cgo

package cpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

// OpenBLAS's CBLAS entry points, declared here (no header needed to
// build): row-major is 101, no transpose 111; blasint is int in Debian's
// libopenblas0 (the LP64 interface).
typedef void (*xpb_dgemm_t)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
typedef void (*xpb_sgemm_t)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*xpb_zgemm_t)(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *, int);
typedef void (*xpb_threads_t)(int);
typedef char *(*xpb_config_t)(void);

static xpb_dgemm_t xpb_dgemm;
static xpb_sgemm_t xpb_sgemm;
static xpb_zgemm_t xpb_zgemm;
static xpb_zgemm_t xpb_cgemm;
static xpb_threads_t xpb_threads;
static xpb_config_t xpb_config;

// xpb_open loads the library at path and binds the four functions; it
// returns 0, or -1 with the reason in err.
static int xpb_open(const char *path, char *err, int errlen) {
	dlerror();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return -1;
	}
	const char *names[6] = {"cblas_dgemm", "cblas_sgemm", "openblas_set_num_threads", "openblas_get_config", "cblas_zgemm", "cblas_cgemm"};
	void *f[6];
	for (int i = 0; i < 6; i++) {
		f[i] = dlsym(h, names[i]);
		if (f[i] == NULL) {
			snprintf(err, errlen, "%s: no symbol %s", path, names[i]);
			dlclose(h);
			return -1;
		}
	}
	xpb_dgemm = (xpb_dgemm_t)f[0];
	xpb_sgemm = (xpb_sgemm_t)f[1];
	xpb_threads = (xpb_threads_t)f[2];
	xpb_config = (xpb_config_t)f[3];
	xpb_zgemm = (xpb_zgemm_t)f[4];
	xpb_cgemm = (xpb_zgemm_t)f[5];
	return 0;
}

static const char *xpb_get_config(void) { return xpb_config(); }
static void xpb_set_threads(int n) { xpb_threads(n); }

static void xpb_call_dgemm(int m, int n, int k, const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc) {
	xpb_dgemm(101, 111, 111, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

static void xpb_call_sgemm(int m, int n, int k, const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
	xpb_sgemm(101, 111, 111, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

// xpb_call_zgemm and xpb_call_cgemm take alpha = 1 and beta (its real part
// given; its imaginary part 0) as the complex numbers CBLAS points to.
static void xpb_call_zgemm(int m, int n, int k, const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc) {
	double one[2] = {1.0, 0.0}, bt[2] = {beta, 0.0};
	xpb_zgemm(101, 111, 111, m, n, k, one, a, lda, b, ldb, bt, c, ldc);
}

static void xpb_call_cgemm(int m, int n, int k, const void *a, int lda, const void *b, int ldb, float beta, void *c, int ldc) {
	float one[2] = {1.0f, 0.0f}, bt[2] = {beta, 0.0f};
	xpb_cgemm(101, 111, 111, m, n, k, one, a, lda, b, ldb, bt, c, ldc);
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// openblasLoad loads OpenBLAS from path (dlopen) and returns its build
// configuration (openblas_get_config).
func openblasLoad(path string) (string, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var msg [512]C.char
	if C.xpb_open(cpath, &msg[0], C.int(len(msg))) != 0 {
		return "", errors.New(C.GoString(&msg[0]))
	}
	return C.GoString(C.xpb_get_config()), nil
}

// openblasThreads sets OpenBLAS's thread count.
func openblasThreads(n int) { C.xpb_set_threads(C.int(n)) }

// openblasGemm calls cblas_dgemm, cblas_sgemm, cblas_zgemm or cblas_cgemm
// for row-major matrices with m, n, k > 0 that fit in a C int; beta is 0
// or 1.
func openblasGemm[T blasType](c, a, b []T, m, n, k, lda, ldb, ldc int, beta T) {
	switch c := any(c).(type) {
	case []complex128:
		a, b := any(a).([]complex128), any(b).([]complex128)
		C.xpb_call_zgemm(C.int(m), C.int(n), C.int(k), unsafe.Pointer(&a[0]), C.int(lda), unsafe.Pointer(&b[0]), C.int(ldb),
			C.double(real(any(beta).(complex128))), unsafe.Pointer(&c[0]), C.int(ldc))
	case []complex64:
		a, b := any(a).([]complex64), any(b).([]complex64)
		C.xpb_call_cgemm(C.int(m), C.int(n), C.int(k), unsafe.Pointer(&a[0]), C.int(lda), unsafe.Pointer(&b[0]), C.int(ldb),
			C.float(real(any(beta).(complex64))), unsafe.Pointer(&c[0]), C.int(ldc))
	case []float64:
		a, b := any(a).([]float64), any(b).([]float64)
		C.xpb_call_dgemm(C.int(m), C.int(n), C.int(k), (*C.double)(&a[0]), C.int(lda), (*C.double)(&b[0]), C.int(ldb),
			C.double(any(beta).(float64)), (*C.double)(&c[0]), C.int(ldc))
	case []float32:
		a, b := any(a).([]float32), any(b).([]float32)
		C.xpb_call_sgemm(C.int(m), C.int(n), C.int(k), (*C.float)(&a[0]), C.int(lda), (*C.float)(&b[0]), C.int(ldb),
			C.float(any(beta).(float32)), (*C.float)(&c[0]), C.int(ldc))
	}
}
