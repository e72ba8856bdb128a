/*
 * xpcuda.h: xpmpi's own declarations of the parts of the CUDA driver API and
 * of NVRTC that backend/cuda uses. Both libraries are loaded at run time
 * (dlopen) and every entry point is bound by its explicit versioned name
 * (cuMemAlloc_v2, ...), so that the build needs no NVIDIA header or library
 * and the binary's only library dependency stays libc.
 *
 * The types are ours: CUresult, CUdevice and nvrtcResult are ints,
 * CUdeviceptr is an unsigned 64-bit integer, and the handles are pointers to
 * opaque structs. They match the ABI of the driver API (all of its handles
 * are pointers, its enums are ints).
 */
#ifndef XPMPI_XPCUDA_H
#define XPMPI_XPCUDA_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct xpCUctx *CUcontext;
typedef struct xpCUstream *CUstream;
typedef struct xpCUevent *CUevent;
typedef struct xpCUmodule *CUmodule;
typedef struct xpCUfunction *CUfunction;

typedef int nvrtcResult;
typedef struct xpNvrtcProgram *nvrtcProgram;

/* Result codes the Go side tests for. */
enum {
	XP_CUDA_SUCCESS = 0,
	XP_CUDA_ERROR_INVALID_VALUE = 1,
	XP_CUDA_ERROR_NOT_INITIALIZED = 3,
	XP_CUDA_ERROR_NO_DEVICE = 100,
	XP_CUDA_ERROR_NOT_READY = 600,
	XP_NVRTC_SUCCESS = 0,
	XP_NVRTC_ERROR_INVALID_OPTION = 5,
	XP_NVRTC_ERROR_COMPILATION = 6
};

/* The most kernel arguments xpcu_launch passes, and the most bytes of one. */
#define XP_MAX_ARGS 32
#define XP_MAX_ARG_BYTES 64

/* Loading. They return 0 on success; otherwise 1 when the library cannot be
 * opened, 2 when a symbol is missing, and write why into err. */
int xpcu_cuda_load(const char *path, char *err, size_t errlen);
int xpcu_nvrtc_load(const char *path, char *err, size_t errlen);
void xpcu_nvrtc_unload(void);
/* xpcu_dlopen_global opens a library with RTLD_NOW|RTLD_GLOBAL and keeps it
 * open (used to preload libnvrtc-builtins next to libnvrtc). */
int xpcu_dlopen_global(const char *path, char *err, size_t errlen);

/* The driver API, through the bound pointers. */
CUresult xpcu_cuInit(unsigned int flags);
CUresult xpcu_cuDriverGetVersion(int *v);
CUresult xpcu_cuDeviceGetCount(int *n);
CUresult xpcu_cuDeviceGet(CUdevice *d, int ordinal);
CUresult xpcu_cuDeviceGetName(char *name, int len, CUdevice d);
CUresult xpcu_cuDeviceTotalMem(size_t *bytes, CUdevice d);
CUresult xpcu_cuDeviceGetAttribute(int *v, int attrib, CUdevice d);
CUresult xpcu_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d);
CUresult xpcu_cuDevicePrimaryCtxRelease(CUdevice d);
CUresult xpcu_cuCtxSetCurrent(CUcontext c);
CUresult xpcu_cuCtxSynchronize(void);
CUresult xpcu_cuMemAlloc(CUdeviceptr *p, size_t bytes);
CUresult xpcu_cuMemFree(CUdeviceptr p);
CUresult xpcu_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult xpcu_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult xpcu_cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult xpcu_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
CUresult xpcu_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
CUresult xpcu_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
CUresult xpcu_cuMemsetD8(CUdeviceptr p, unsigned char v, size_t n);
CUresult xpcu_cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s);
CUresult xpcu_cuMemAllocHost(void **p, size_t bytes);
CUresult xpcu_cuMemFreeHost(void *p);
CUresult xpcu_cuMemHostRegister(void *p, size_t bytes, unsigned int flags);
CUresult xpcu_cuMemHostUnregister(void *p);
CUresult xpcu_cuMemGetInfo(size_t *free, size_t *total);
CUresult xpcu_cuStreamCreate(CUstream *s, unsigned int flags);
CUresult xpcu_cuStreamDestroy(CUstream s);
CUresult xpcu_cuStreamSynchronize(CUstream s);
CUresult xpcu_cuStreamQuery(CUstream s);
CUresult xpcu_cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags);
CUresult xpcu_cuEventCreate(CUevent *e, unsigned int flags);
CUresult xpcu_cuEventDestroy(CUevent e);
CUresult xpcu_cuEventRecord(CUevent e, CUstream s);
CUresult xpcu_cuEventQuery(CUevent e);
CUresult xpcu_cuEventSynchronize(CUevent e);
CUresult xpcu_cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult xpcu_cuModuleUnload(CUmodule m);
CUresult xpcu_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult xpcu_cuFuncSetAttribute(CUfunction f, int attrib, int value);
/* xpcu_error_name and xpcu_error_string never return NULL. */
const char *xpcu_error_name(CUresult r);
const char *xpcu_error_string(CUresult r);

/* xpcu_module_load loads a PTX or cubin image of n bytes (PTX needs no
 * terminating NUL: it is copied and terminated here). */
CUresult xpcu_module_load(CUmodule *m, const void *image, size_t n);

/* xpcu_htod_sync and xpcu_dtoh_sync copy on stream s and wait for the copy, in
 * one call, so that host memory (Go memory included) is used only while the
 * call lasts. */
CUresult xpcu_htod_sync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
CUresult xpcu_dtoh_sync(void *dst, CUdeviceptr src, size_t bytes, CUstream s);

/* xpcu_launch launches f with nargs arguments packed back to back in packed,
 * argument i of sizes[i] bytes. Each argument is copied into its own slot of
 * C storage and kernelParams[i] points at it, so that the driver reads each
 * argument at its true size. */
CUresult xpcu_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		   unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
		   CUstream s, int nargs, const unsigned char *packed, const int *sizes);

/* NVRTC. */
const char *xpcu_nvrtc_error_string(nvrtcResult r);
nvrtcResult xpcu_nvrtc_version(int *major, int *minor);
/* xpcu_nvrtc_compile compiles src (named name) with the options and returns
 * the PTX and the log in malloc'd memory that the caller frees (either may
 * be NULL). */
nvrtcResult xpcu_nvrtc_compile(const char *src, const char *name, int nopts, const char *const *opts,
			     char **ptx, size_t *ptxlen, char **log, size_t *loglen);

#endif
