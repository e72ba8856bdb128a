//go:build mpi || petsc

// The C side of the binding of the bench's reference library
// (bench_ref_mpi.go): cgo cannot call a C function pointer, so these
// helpers open the library and call its functions for the Go side.

#include <dlfcn.h>
#include <stdio.h>

#include "xpref.h"

void *xpb_open(const char *path, char *err, int errlen) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) snprintf(err, errlen, "%s", dlerror());
	return h;
}

void *xpb_sym(void *h, const char *name) { return dlsym(h, name); }

void xpb_close(void *h) { dlclose(h); }

int xpb_abi(void *fn) { return ((int (*)(void))fn)(); }

const char *xpb_str(void *fn) { return ((const char *(*)(void))fn)(); }

int xpb_call(void *fn, const xpref_params *p, xpref_result *r) {
	return ((int (*)(const xpref_params *, xpref_result *))fn)(p, r);
}
