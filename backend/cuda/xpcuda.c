/*
 * xpcuda.c: loads the CUDA driver API (libcuda.so.1) and NVRTC at run time
 * and calls them through pointers bound by their explicit versioned names.
 * No NVIDIA header is used: the declarations are ours (xpcuda.h). dlopen is
 * in glibc's libc since 2.34, so nothing else is linked.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpcuda.h"

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	if (err != NULL && errlen > 0) {
		snprintf(err, errlen, fmt, a ? a : "", b ? b : "");
	}
}

/* ---- the driver API ---- */

static void *cuda_handle;

static CUresult (*p_cuInit)(unsigned int);
static CUresult (*p_cuDriverGetVersion)(int *);
static CUresult (*p_cuDeviceGetCount)(int *);
static CUresult (*p_cuDeviceGet)(CUdevice *, int);
static CUresult (*p_cuDeviceGetName)(char *, int, CUdevice);
static CUresult (*p_cuDeviceTotalMem_v2)(size_t *, CUdevice);
static CUresult (*p_cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRelease_v2)(CUdevice);
static CUresult (*p_cuCtxSetCurrent)(CUcontext);
static CUresult (*p_cuCtxSynchronize)(void);
static CUresult (*p_cuMemAlloc_v2)(CUdeviceptr *, size_t);
static CUresult (*p_cuMemFree_v2)(CUdeviceptr);
static CUresult (*p_cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
static CUresult (*p_cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
static CUresult (*p_cuMemcpyDtoD_v2)(CUdeviceptr, CUdeviceptr, size_t);
static CUresult (*p_cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void *, size_t, CUstream);
static CUresult (*p_cuMemcpyDtoHAsync_v2)(void *, CUdeviceptr, size_t, CUstream);
static CUresult (*p_cuMemcpyDtoDAsync_v2)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
static CUresult (*p_cuMemsetD8_v2)(CUdeviceptr, unsigned char, size_t);
static CUresult (*p_cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
static CUresult (*p_cuMemAllocHost_v2)(void **, size_t);
static CUresult (*p_cuMemFreeHost)(void *);
static CUresult (*p_cuMemHostRegister_v2)(void *, size_t, unsigned int);
static CUresult (*p_cuMemHostUnregister)(void *);
static CUresult (*p_cuMemGetInfo_v2)(size_t *, size_t *);
static CUresult (*p_cuStreamCreate)(CUstream *, unsigned int);
static CUresult (*p_cuStreamDestroy_v2)(CUstream);
static CUresult (*p_cuStreamSynchronize)(CUstream);
static CUresult (*p_cuStreamQuery)(CUstream);
static CUresult (*p_cuStreamWaitEvent)(CUstream, CUevent, unsigned int);
static CUresult (*p_cuEventCreate)(CUevent *, unsigned int);
static CUresult (*p_cuEventDestroy_v2)(CUevent);
static CUresult (*p_cuEventRecord)(CUevent, CUstream);
static CUresult (*p_cuEventQuery)(CUevent);
static CUresult (*p_cuEventSynchronize)(CUevent);
static CUresult (*p_cuEventElapsedTime)(float *, CUevent, CUevent);
static CUresult (*p_cuModuleLoadData)(CUmodule *, const void *);
static CUresult (*p_cuModuleUnload)(CUmodule);
static CUresult (*p_cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*p_cuFuncSetAttribute)(CUfunction, int, int);
static CUresult (*p_cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
				    unsigned int, unsigned int, unsigned int, unsigned int,
				    CUstream, void **, void **);
static CUresult (*p_cuGetErrorName)(CUresult, const char **);
static CUresult (*p_cuGetErrorString)(CUresult, const char **);

struct binding {
	const char *name;
	void **slot;
};

#define B(sym) {#sym, (void **)&p_##sym}

static const struct binding cuda_bindings[] = {
	B(cuInit),
	B(cuDriverGetVersion),
	B(cuDeviceGetCount),
	B(cuDeviceGet),
	B(cuDeviceGetName),
	B(cuDeviceTotalMem_v2),
	B(cuDeviceGetAttribute),
	B(cuDevicePrimaryCtxRetain),
	B(cuDevicePrimaryCtxRelease_v2),
	B(cuCtxSetCurrent),
	B(cuCtxSynchronize),
	B(cuMemAlloc_v2),
	B(cuMemFree_v2),
	B(cuMemcpyHtoD_v2),
	B(cuMemcpyDtoH_v2),
	B(cuMemcpyDtoD_v2),
	B(cuMemcpyHtoDAsync_v2),
	B(cuMemcpyDtoHAsync_v2),
	B(cuMemcpyDtoDAsync_v2),
	B(cuMemsetD8_v2),
	B(cuMemsetD8Async),
	B(cuMemAllocHost_v2),
	B(cuMemFreeHost),
	B(cuMemHostRegister_v2),
	B(cuMemHostUnregister),
	B(cuMemGetInfo_v2),
	B(cuStreamCreate),
	B(cuStreamDestroy_v2),
	B(cuStreamSynchronize),
	B(cuStreamQuery),
	B(cuStreamWaitEvent),
	B(cuEventCreate),
	B(cuEventDestroy_v2),
	B(cuEventRecord),
	B(cuEventQuery),
	B(cuEventSynchronize),
	B(cuEventElapsedTime),
	B(cuModuleLoadData),
	B(cuModuleUnload),
	B(cuModuleGetFunction),
	B(cuFuncSetAttribute),
	B(cuLaunchKernel),
	B(cuGetErrorName),
	B(cuGetErrorString),
};

/* bind resolves every symbol of the table in h into temporaries first, and
 * stores them only if all are found. */
static int bind(void *h, const struct binding *tab, size_t n, char *err, size_t errlen)
{
	void *tmp[64];
	size_t i;
	if (n > sizeof tmp / sizeof tmp[0]) {
		set_err(err, errlen, "%s%s", "internal error: binding table too long", NULL);
		return 2;
	}
	for (i = 0; i < n; i++) {
		dlerror();
		tmp[i] = dlsym(h, tab[i].name);
		if (tmp[i] == NULL) {
			const char *e = dlerror();
			set_err(err, errlen, "missing symbol %s: %s", tab[i].name, e ? e : "not found");
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		*tab[i].slot = tmp[i];
	}
	return 0;
}

int xpcu_cuda_load(const char *path, char *err, size_t errlen)
{
	void *h;
	int rc;
	if (cuda_handle != NULL) {
		return 0;
	}
	dlerror();
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		const char *e = dlerror();
		set_err(err, errlen, "%s%s", e ? e : "dlopen failed", NULL);
		return 1;
	}
	rc = bind(h, cuda_bindings, sizeof cuda_bindings / sizeof cuda_bindings[0], err, errlen);
	if (rc != 0) {
		dlclose(h);
		return rc;
	}
	cuda_handle = h;
	return 0;
}

int xpcu_dlopen_global(const char *path, char *err, size_t errlen)
{
	dlerror();
	if (dlopen(path, RTLD_NOW | RTLD_GLOBAL) == NULL) {
		const char *e = dlerror();
		set_err(err, errlen, "%s%s", e ? e : "dlopen failed", NULL);
		return 1;
	}
	return 0;
}

/* CALL calls a bound entry point, or returns CUDA_ERROR_NOT_INITIALIZED if
 * the driver is not loaded. */
#define CALL(sym, ...) (p_##sym ? p_##sym(__VA_ARGS__) : XP_CUDA_ERROR_NOT_INITIALIZED)

CUresult xpcu_cuInit(unsigned int flags) { return CALL(cuInit, flags); }
CUresult xpcu_cuDriverGetVersion(int *v) { return CALL(cuDriverGetVersion, v); }
CUresult xpcu_cuDeviceGetCount(int *n) { return CALL(cuDeviceGetCount, n); }
CUresult xpcu_cuDeviceGet(CUdevice *d, int ordinal) { return CALL(cuDeviceGet, d, ordinal); }
CUresult xpcu_cuDeviceGetName(char *name, int len, CUdevice d) { return CALL(cuDeviceGetName, name, len, d); }
CUresult xpcu_cuDeviceTotalMem(size_t *bytes, CUdevice d) { return CALL(cuDeviceTotalMem_v2, bytes, d); }
CUresult xpcu_cuDeviceGetAttribute(int *v, int attrib, CUdevice d) { return CALL(cuDeviceGetAttribute, v, attrib, d); }
CUresult xpcu_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { return CALL(cuDevicePrimaryCtxRetain, c, d); }
CUresult xpcu_cuDevicePrimaryCtxRelease(CUdevice d) { return CALL(cuDevicePrimaryCtxRelease_v2, d); }
CUresult xpcu_cuCtxSetCurrent(CUcontext c) { return CALL(cuCtxSetCurrent, c); }
CUresult xpcu_cuCtxSynchronize(void) { return p_cuCtxSynchronize ? p_cuCtxSynchronize() : XP_CUDA_ERROR_NOT_INITIALIZED; }
CUresult xpcu_cuMemAlloc(CUdeviceptr *p, size_t bytes) { return CALL(cuMemAlloc_v2, p, bytes); }
CUresult xpcu_cuMemFree(CUdeviceptr p) { return CALL(cuMemFree_v2, p); }
CUresult xpcu_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) { return CALL(cuMemcpyHtoD_v2, dst, src, bytes); }
CUresult xpcu_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) { return CALL(cuMemcpyDtoH_v2, dst, src, bytes); }
CUresult xpcu_cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) { return CALL(cuMemcpyDtoD_v2, dst, src, bytes); }
CUresult xpcu_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s) { return CALL(cuMemcpyHtoDAsync_v2, dst, src, bytes, s); }
CUresult xpcu_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s) { return CALL(cuMemcpyDtoHAsync_v2, dst, src, bytes, s); }
CUresult xpcu_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) { return CALL(cuMemcpyDtoDAsync_v2, dst, src, bytes, s); }
CUresult xpcu_cuMemsetD8(CUdeviceptr p, unsigned char v, size_t n) { return CALL(cuMemsetD8_v2, p, v, n); }
CUresult xpcu_cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s) { return CALL(cuMemsetD8Async, p, v, n, s); }
CUresult xpcu_cuMemAllocHost(void **p, size_t bytes) { return CALL(cuMemAllocHost_v2, p, bytes); }
CUresult xpcu_cuMemFreeHost(void *p) { return CALL(cuMemFreeHost, p); }
CUresult xpcu_cuMemHostRegister(void *p, size_t bytes, unsigned int flags) { return CALL(cuMemHostRegister_v2, p, bytes, flags); }
CUresult xpcu_cuMemHostUnregister(void *p) { return CALL(cuMemHostUnregister, p); }
CUresult xpcu_cuMemGetInfo(size_t *free, size_t *total) { return CALL(cuMemGetInfo_v2, free, total); }
CUresult xpcu_cuStreamCreate(CUstream *s, unsigned int flags) { return CALL(cuStreamCreate, s, flags); }
CUresult xpcu_cuStreamDestroy(CUstream s) { return CALL(cuStreamDestroy_v2, s); }
CUresult xpcu_cuStreamSynchronize(CUstream s) { return CALL(cuStreamSynchronize, s); }
CUresult xpcu_cuStreamQuery(CUstream s) { return CALL(cuStreamQuery, s); }
CUresult xpcu_cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) { return CALL(cuStreamWaitEvent, s, e, flags); }
CUresult xpcu_cuEventCreate(CUevent *e, unsigned int flags) { return CALL(cuEventCreate, e, flags); }
CUresult xpcu_cuEventDestroy(CUevent e) { return CALL(cuEventDestroy_v2, e); }
CUresult xpcu_cuEventRecord(CUevent e, CUstream s) { return CALL(cuEventRecord, e, s); }
CUresult xpcu_cuEventQuery(CUevent e) { return CALL(cuEventQuery, e); }
CUresult xpcu_cuEventSynchronize(CUevent e) { return CALL(cuEventSynchronize, e); }
CUresult xpcu_cuEventElapsedTime(float *ms, CUevent start, CUevent end) { return CALL(cuEventElapsedTime, ms, start, end); }
CUresult xpcu_cuModuleUnload(CUmodule m) { return CALL(cuModuleUnload, m); }
CUresult xpcu_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) { return CALL(cuModuleGetFunction, f, m, name); }
CUresult xpcu_cuFuncSetAttribute(CUfunction f, int attrib, int value) { return CALL(cuFuncSetAttribute, f, attrib, value); }

const char *xpcu_error_name(CUresult r)
{
	const char *s = NULL;
	if (p_cuGetErrorName == NULL || p_cuGetErrorName(r, &s) != 0 || s == NULL) {
		return "CUDA_ERROR_UNKNOWN_CODE";
	}
	return s;
}

const char *xpcu_error_string(CUresult r)
{
	const char *s = NULL;
	if (p_cuGetErrorString == NULL || p_cuGetErrorString(r, &s) != 0 || s == NULL) {
		return "unknown error code";
	}
	return s;
}

CUresult xpcu_module_load(CUmodule *m, const void *image, size_t n)
{
	CUresult r;
	char *copy;
	if (p_cuModuleLoadData == NULL) {
		return XP_CUDA_ERROR_NOT_INITIALIZED;
	}
	copy = malloc(n + 1);
	if (copy == NULL) {
		return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	}
	memcpy(copy, image, n);
	copy[n] = 0;
	r = p_cuModuleLoadData(m, copy);
	free(copy);
	return r;
}

CUresult xpcu_htod_sync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	CUresult r = CALL(cuMemcpyHtoDAsync_v2, dst, src, bytes, s);
	if (r == 0) {
		r = CALL(cuStreamSynchronize, s);
	}
	return r;
}

CUresult xpcu_dtoh_sync(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	CUresult r = CALL(cuMemcpyDtoHAsync_v2, dst, src, bytes, s);
	if (r == 0) {
		r = CALL(cuStreamSynchronize, s);
	}
	return r;
}

CUresult xpcu_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		   unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
		   CUstream s, int nargs, const unsigned char *packed, const int *sizes)
{
	/* One slot of XP_MAX_ARG_BYTES per argument, 16-byte aligned; the bytes
	 * past an argument's size are filled with a pattern, so that a kernel
	 * that reads more than was packed sees garbage rather than zeros. */
	union {
		unsigned char b[XP_MAX_ARGS][XP_MAX_ARG_BYTES];
		long double align;
	} storage;
	void *params[XP_MAX_ARGS];
	size_t off = 0;
	int i;
	if (p_cuLaunchKernel == NULL) {
		return XP_CUDA_ERROR_NOT_INITIALIZED;
	}
	if (nargs < 0 || nargs > XP_MAX_ARGS) {
		return XP_CUDA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < nargs; i++) {
		if (sizes[i] <= 0 || sizes[i] > XP_MAX_ARG_BYTES) {
			return XP_CUDA_ERROR_INVALID_VALUE;
		}
		memset(storage.b[i], 0xA5, XP_MAX_ARG_BYTES);
		memcpy(storage.b[i], packed + off, (size_t)sizes[i]);
		off += (size_t)sizes[i];
		params[i] = storage.b[i];
	}
	return p_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, s, nargs > 0 ? params : NULL, NULL);
}

/* ---- NVRTC ---- */

static void *nvrtc_handle;

static const char *(*p_nvrtcGetErrorString)(nvrtcResult);
static nvrtcResult (*p_nvrtcVersion)(int *, int *);
static nvrtcResult (*p_nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
					   const char *const *, const char *const *);
static nvrtcResult (*p_nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
static nvrtcResult (*p_nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
static nvrtcResult (*p_nvrtcGetProgramLog)(nvrtcProgram, char *);
static nvrtcResult (*p_nvrtcGetPTXSize)(nvrtcProgram, size_t *);
static nvrtcResult (*p_nvrtcGetPTX)(nvrtcProgram, char *);
static nvrtcResult (*p_nvrtcDestroyProgram)(nvrtcProgram *);

static const struct binding nvrtc_bindings[] = {
	B(nvrtcGetErrorString),
	B(nvrtcVersion),
	B(nvrtcCreateProgram),
	B(nvrtcCompileProgram),
	B(nvrtcGetProgramLogSize),
	B(nvrtcGetProgramLog),
	B(nvrtcGetPTXSize),
	B(nvrtcGetPTX),
	B(nvrtcDestroyProgram),
};

int xpcu_nvrtc_load(const char *path, char *err, size_t errlen)
{
	void *h;
	int rc;
	if (nvrtc_handle != NULL) {
		return 0;
	}
	dlerror();
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		set_err(err, errlen, "%s%s", e ? e : "dlopen failed", NULL);
		return 1;
	}
	rc = bind(h, nvrtc_bindings, sizeof nvrtc_bindings / sizeof nvrtc_bindings[0], err, errlen);
	if (rc != 0) {
		dlclose(h);
		return rc;
	}
	nvrtc_handle = h;
	return 0;
}

void xpcu_nvrtc_unload(void)
{
	size_t i;
	if (nvrtc_handle == NULL) {
		return;
	}
	for (i = 0; i < sizeof nvrtc_bindings / sizeof nvrtc_bindings[0]; i++) {
		*nvrtc_bindings[i].slot = NULL;
	}
	dlclose(nvrtc_handle);
	nvrtc_handle = NULL;
}

const char *xpcu_nvrtc_error_string(nvrtcResult r)
{
	const char *s = p_nvrtcGetErrorString ? p_nvrtcGetErrorString(r) : NULL;
	return s ? s : "NVRTC_ERROR (unknown)";
}

nvrtcResult xpcu_nvrtc_version(int *major, int *minor)
{
	return p_nvrtcVersion ? p_nvrtcVersion(major, minor) : 7; /* NVRTC_ERROR_BUILTIN_OPERATION_FAILURE */
}

nvrtcResult xpcu_nvrtc_compile(const char *src, const char *name, int nopts, const char *const *opts,
			     char **ptx, size_t *ptxlen, char **log, size_t *loglen)
{
	nvrtcProgram prog = NULL;
	nvrtcResult r, rc;
	size_t n = 0;
	*ptx = NULL;
	*ptxlen = 0;
	*log = NULL;
	*loglen = 0;
	if (nvrtc_handle == NULL) {
		return 7;
	}
	r = p_nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
	if (r != 0) {
		return r;
	}
	rc = p_nvrtcCompileProgram(prog, nopts, opts);
	if (p_nvrtcGetProgramLogSize(prog, &n) == 0 && n > 1) {
		*log = malloc(n);
		if (*log != NULL && p_nvrtcGetProgramLog(prog, *log) == 0) {
			*loglen = strnlen(*log, n);
		}
	}
	if (rc == 0) {
		n = 0;
		r = p_nvrtcGetPTXSize(prog, &n);
		if (r == 0 && n > 0) {
			*ptx = malloc(n);
			if (*ptx == NULL) {
				r = 1; /* NVRTC_ERROR_OUT_OF_MEMORY */
			} else {
				r = p_nvrtcGetPTX(prog, *ptx);
				*ptxlen = strnlen(*ptx, n);
			}
		}
		rc = r;
	}
	p_nvrtcDestroyProgram(&prog);
	return rc;
}
