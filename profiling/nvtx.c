//go:build cgo

// Run-time binding of the NVTX range API (nvtxRangePushA, nvtxRangePop,
// nvtxRangeStartA, nvtxRangeEnd) from libnvToolsExt or libnvtx3interop,
// with our own declarations: no NVIDIA header is needed.

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include "nvtx.h"

int xpmpi_nvtx_open(const char *path, xpmpi_nvtx *l) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		return 0;
	}
	l->push = (int (*)(const char *))dlsym(h, "nvtxRangePushA");
	l->pop = (int (*)(void))dlsym(h, "nvtxRangePop");
	l->start = (uint64_t(*)(const char *))dlsym(h, "nvtxRangeStartA");
	l->end = (void (*)(uint64_t))dlsym(h, "nvtxRangeEnd");
	if (l->push == NULL || l->pop == NULL) {
		dlclose(h);
		l->push = NULL;
		l->pop = NULL;
		l->start = NULL;
		l->end = NULL;
		return 0;
	}
	if (l->start == NULL || l->end == NULL) {
		l->start = NULL;
		l->end = NULL;
	}
	l->handle = h;
	return 1;
}

int xpmpi_nvtx_push(xpmpi_nvtx *l, const char *name) { return l->push(name); }

int xpmpi_nvtx_pop(xpmpi_nvtx *l) { return l->pop(); }

uint64_t xpmpi_nvtx_start(xpmpi_nvtx *l, const char *name) { return l->start(name); }

void xpmpi_nvtx_end(xpmpi_nvtx *l, uint64_t id) { l->end(id); }
