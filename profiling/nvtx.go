package profiling

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// NVTX ranges. The library is loaded on first use with dlopen, trying in
// turn the names of nvtxLibraryNames through the dynamic loader's search
// (LD_LIBRARY_PATH, the cache, ...), then in the lib64 folders of
// $CUDA_HOME, $CUDA_PATH and /usr/local/cuda. Without one, or in a build
// without cgo, ranges are no-ops that cost a function call.

// nvtxLibraryNames are the libraries that export the NVTX v2 range API:
// libnvToolsExt up to CUDA 12, libnvtx3interop from CUDA 13 on.
var nvtxLibraryNames = []string{
	"libnvToolsExt.so.1",
	"libnvtx3interop.so.1",
	"libnvToolsExt.so",
	"libnvtx3interop.so",
}

var (
	nvtxOnce sync.Once
	nvtx     *nvtxLib
)

// nvtxCandidates returns the paths that loadNVTX tries, in order.
func nvtxCandidates() []string {
	paths := append([]string(nil), nvtxLibraryNames...)
	seen := map[string]bool{}
	for _, root := range []string{os.Getenv("CUDA_HOME"), os.Getenv("CUDA_PATH"), "/usr/local/cuda"} {
		if root == "" || seen[root] {
			continue
		}
		seen[root] = true
		for _, name := range nvtxLibraryNames {
			paths = append(paths, filepath.Join(root, "lib64", name))
		}
	}
	return paths
}

// loadNVTX returns the NVTX library, loading it on the first call, or nil
// if there is none.
func loadNVTX() *nvtxLib {
	nvtxOnce.Do(func() {
		for _, p := range nvtxCandidates() {
			if l := openNVTX(p); l != nil {
				nvtx = l
				return
			}
		}
	})
	return nvtx
}

// NVTXLibrary returns the NVTX library that ranges go to (the name or path
// it was loaded by), or "" if there is none and ranges are no-ops. The first
// call (of it, PushRange, Range or Region) loads the library.
func NVTXLibrary() string {
	if l := loadNVTX(); l != nil {
		return l.path
	}
	return ""
}

func noop() {}

// Range starts an NVTX range called name and returns the function that
// ends it:
//
//	defer profiling.Range("halo exchange")()
//
// The range may end on another goroutine or thread than it started on
// (nvtxRangeStartA/nvtxRangeEnd; where the library lacks them, the range is
// a PushRange/PopRange pair and must end on the goroutine that started it).
// Without NVTX it does nothing.
func Range(name string) (end func()) { return rangeOn(loadNVTX(), name) }

func rangeOn(l *nvtxLib, name string) (end func()) {
	if l == nil {
		return noop
	}
	if l.hasStartEnd() {
		id := l.start(name)
		return func() { l.end(id) }
	}
	pushOn(l, name)
	return func() { popOn(l) }
}

// PushRange opens a nested NVTX range called name on the calling goroutine;
// PopRange closes the innermost one. NVTX nests ranges per OS thread, so
// while a pushed range is open the goroutine stays on its thread
// (runtime.LockOSThread, undone by PopRange): push and pop on the same
// goroutine. Without NVTX both do nothing.
func PushRange(name string) { pushOn(loadNVTX(), name) }

// PopRange closes the innermost range that PushRange opened on the calling
// goroutine.
func PopRange() { popOn(loadNVTX()) }

func pushOn(l *nvtxLib, name string) {
	if l == nil {
		return
	}
	runtime.LockOSThread()
	l.push(name)
}

func popOn(l *nvtxLib) {
	if l == nil {
		return
	}
	l.pop()
	runtime.UnlockOSThread()
}
