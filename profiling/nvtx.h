// Declarations of nvtx.c; see nvtx_cgo.go.

#ifndef XPMPI_PROFILING_NVTX_H
#define XPMPI_PROFILING_NVTX_H

#include <stdint.h>

// The NVTX entry points that we use, bound by dlsym. start and end are
// NULL where the library lacks them.
typedef struct {
	void *handle;
	int (*push)(const char *);
	int (*pop)(void);
	uint64_t (*start)(const char *);
	void (*end)(uint64_t);
} xpmpi_nvtx;

// xpmpi_nvtx_open loads the library at path and binds its entry points
// into l; it returns 1, or 0 if the library or push/pop is missing.
int xpmpi_nvtx_open(const char *path, xpmpi_nvtx *l);
int xpmpi_nvtx_push(xpmpi_nvtx *l, const char *name);
int xpmpi_nvtx_pop(xpmpi_nvtx *l);
uint64_t xpmpi_nvtx_start(xpmpi_nvtx *l, const char *name);
void xpmpi_nvtx_end(xpmpi_nvtx *l, uint64_t id);

#endif
