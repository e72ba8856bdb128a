//go:build mpi || petsc

package bench

/*
#cgo CFLAGS: -I${SRCDIR}/ref
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "xpref.h"

void *xpb_open(const char *path, char *err, int errlen);
void *xpb_sym(void *h, const char *name);
void xpb_close(void *h);
int xpb_abi(void *fn);
const char *xpb_str(void *fn);
int xpb_call(void *fn, const xpref_params *p, xpref_result *r);
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/xpmpi/xpmpi/mpi"
)

// benchRefFuncs are the functions the bench calls in the reference library.
var benchRefFuncs = []string{
	"xpref_triad", "xpref_dot", "xpref_jacobi", "xpref_cg", "xpref_sort",
	"xpref_allreduce", "xpref_pingpong", "xpref_allreduce1", "xpref_noop", "xpref_filewrite",
	"xpref_kepler", "xpref_rk45", "xpref_cg_fused", "xpref_matmul", "xpref_fft2",
	"xpref_blas_threads",
}

// cRef is the reference library, loaded with dlopen into this process: it
// shares the MPI library, and so MPI_COMM_WORLD, with the mpi package.
type cRef struct {
	path string
	h    unsafe.Pointer
	fns  map[string]unsafe.Pointer
}

// OpenReference loads the reference library at path and checks that it has the
// functions and the struct layout (XPREF_ABI) this binary was built for,
// compiled for the MPI library this binary runs. Not collective: each rank
// loads its own copy, and Run makes the ranks agree that all have one.
func OpenReference(path string) (Reference, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var msg [512]C.char
	h := C.xpb_open(cpath, &msg[0], C.int(len(msg)))
	if h == nil {
		return nil, fmt.Errorf("bench: loading the reference library: %s (scripts/bench.sh builds it: %s)", C.GoString(&msg[0]), RefBuildCommand)
	}
	r := &cRef{path: path, h: h, fns: map[string]unsafe.Pointer{}}
	sym := func(name string) unsafe.Pointer {
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		return C.xpb_sym(h, cname)
	}
	abi := sym("xpref_abi")
	if abi == nil {
		r.Close()
		return nil, fmt.Errorf("bench: %s is not the bench's reference library (no xpref_abi)", path)
	}
	if v := int(C.xpb_abi(abi)); v != C.XPREF_ABI {
		r.Close()
		return nil, fmt.Errorf("bench: %s has reference ABI %d, this binary needs %d: rebuild it with scripts/bench.sh", path, v, int(C.XPREF_ABI))
	}
	// Loaded into a process that runs another MPI library, the reference
	// would call that library with its own mpi.h's handles: refuse.
	impl := sym("xpref_mpi_impl")
	if impl == nil {
		r.Close()
		return nil, fmt.Errorf("bench: %s lacks xpref_mpi_impl: rebuild it with scripts/bench.sh", path)
	}
	if lib, own := C.GoString(C.xpb_str(impl)), mpi.LibraryInfo().Implementation; lib != own {
		r.Close()
		return nil, fmt.Errorf("bench: %s was compiled for %s but this binary runs %s: build both with the same MPI (scripts/bench.sh)", path, lib, own)
	}
	for _, name := range benchRefFuncs {
		f := sym(name)
		if f == nil {
			r.Close()
			return nil, fmt.Errorf("bench: %s lacks %s: rebuild it with scripts/bench.sh", path, name)
		}
		r.fns[name] = f
	}
	return r, nil
}

func cParams(p Params) C.xpref_params {
	return C.xpref_params{
		n: C.int64_t(p.N), iters: C.int64_t(p.Iters), threads: C.int64_t(p.Threads),
		seed: C.uint64_t(p.Seed), tol: C.double(p.Tol),
	}
}

func (r *cRef) fn(name string) unsafe.Pointer {
	f, ok := r.fns[name]
	if !ok {
		panic("bench: no reference function " + name)
	}
	return f
}

// Call runs one repetition of a reference function.
func (r *cRef) Call(name string, p Params) (Sample, error) {
	cp := cParams(p)
	var res C.xpref_result
	if rc := C.xpb_call(r.fn(name), &cp, &res); rc != 0 {
		if rc == -1 {
			return Sample{}, fmt.Errorf("bench: reference %s: out of memory", name)
		}
		if rc == C.XPREF_NO_FFTW {
			return Sample{}, fmt.Errorf("bench: reference %s: FFTW (libfftw3.so.3) cannot be loaded: install libfftw3-dev", name)
		}
		return Sample{}, fmt.Errorf("bench: reference %s: MPI error %d", name, int(rc))
	}
	s := Sample{Seconds: float64(res.seconds), Checksum: float64(res.checksum), OK: res.ok != 0}
	for i := range s.Extra {
		s.Extra[i] = float64(res.extra[i])
	}
	return s, nil
}

// CallLoop calls a reference function calls times from a Go loop, one cgo
// call each, and returns the elapsed seconds.
func (r *cRef) CallLoop(name string, calls int) (float64, error) {
	f := r.fn(name)
	var cp C.xpref_params
	var res C.xpref_result
	start := time.Now()
	for i := 0; i < calls; i++ {
		if rc := C.xpb_call(f, &cp, &res); rc != 0 {
			return 0, fmt.Errorf("bench: reference %s: error %d", name, int(rc))
		}
	}
	return time.Since(start).Seconds(), nil
}

// Close unloads the library.
func (r *cRef) Close() {
	if r.h != nil {
		C.xpb_close(r.h)
		r.h = nil
	}
}
