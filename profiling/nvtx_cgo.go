//go:build cgo

package profiling

/*
#include <stdlib.h>
#include "nvtx.h"
*/
import "C"

import "unsafe"

// nvtxLib is a loaded NVTX library.
type nvtxLib struct {
	c    C.xpmpi_nvtx
	path string
}

// openNVTX loads the NVTX library at path (a file name for the dynamic
// loader's search, or a path), or returns nil if it cannot.
func openNVTX(path string) *nvtxLib {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	l := &nvtxLib{path: path}
	if C.xpmpi_nvtx_open(cs, &l.c) == 0 {
		return nil
	}
	return l
}

// hasStartEnd reports whether the library has nvtxRangeStartA and
// nvtxRangeEnd.
func (l *nvtxLib) hasStartEnd() bool { return l.c.start != nil }

// push calls nvtxRangePushA and returns its result (the nesting level of
// the new range, or a negative number on error).
func (l *nvtxLib) push(name string) int {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return int(C.xpmpi_nvtx_push(&l.c, cs))
}

// pop calls nvtxRangePop and returns its result (the nesting level of the
// ended range, or a negative number on error).
func (l *nvtxLib) pop() int { return int(C.xpmpi_nvtx_pop(&l.c)) }

// start calls nvtxRangeStartA and returns the range's id.
func (l *nvtxLib) start(name string) uint64 {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return uint64(C.xpmpi_nvtx_start(&l.c, cs))
}

// end calls nvtxRangeEnd.
func (l *nvtxLib) end(id uint64) { C.xpmpi_nvtx_end(&l.c, C.uint64_t(id)) }
