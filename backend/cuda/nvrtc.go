package cuda

/*
#include <stdlib.h>
#include "xpcuda.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"
)

// nvrtcNames are the NVRTC libraries tried, newest first.
var nvrtcNames = []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}

// NVRTCCandidates returns the files tried, in order, to load NVRTC: the
// path in XPMPI_NVRTC if it is set (and then only it), otherwise
// libnvrtc.so.13, .12, .11.2 and libnvrtc.so by plain name (the loader's
// path), then under $CUDA_HOME/lib64, $CUDA_PATH/lib64 and
// /usr/local/cuda/lib64.
func NVRTCCandidates() []string {
	if p := strings.TrimSpace(os.Getenv("XPMPI_NVRTC")); p != "" {
		return []string{p}
	}
	out := append([]string(nil), nvrtcNames...)
	seen := map[string]bool{}
	for _, dir := range []string{os.Getenv("CUDA_HOME"), os.Getenv("CUDA_PATH"), "/usr/local/cuda"} {
		dir = strings.TrimSpace(dir)
		if dir == "" {
			continue
		}
		lib := filepath.Join(dir, "lib64")
		if seen[lib] {
			continue
		}
		seen[lib] = true
		for _, n := range nvrtcNames {
			out = append(out, filepath.Join(lib, n))
		}
	}
	return out
}

// nvrtcState is NVRTC once loaded.
var nvrtcState struct {
	mu     sync.Mutex
	done   bool
	err    error
	path   string
	major  int
	minor  int
	notes  []string // why candidates were passed over
	maxVer int      // the driver's CUDA version when NVRTC was loaded, or 0
}

// loadNVRTC loads NVRTC once. maxVersion, when not 0, is the driver's CUDA
// version (1000*major + 10*minor): a library newer than the driver makes
// PTX the driver cannot load, so an older one found later is preferred
// (the newer one is still used if nothing else is found).
func loadNVRTC(maxVersion int) error {
	st := &nvrtcState
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return st.err
	}
	st.done = true
	st.maxVer = maxVersion
	cands := NVRTCCandidates()
	explicit := os.Getenv("XPMPI_NVRTC") != ""
	var fallback string
	var tried []string
	for _, c := range cands {
		if filepath.IsAbs(c) || strings.Contains(c, "/") {
			if _, err := os.Stat(c); err != nil {
				tried = append(tried, c+": "+shortErr(err))
				continue
			}
		}
		if err := openNVRTC(c); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		v := st.major*1000 + st.minor*10
		if maxVersion > 0 && v > maxVersion && !explicit {
			st.notes = append(st.notes, fmt.Sprintf("%s is NVRTC %d.%d, newer than the driver's CUDA %s", c, st.major, st.minor, versionString(maxVersion)))
			if fallback == "" {
				fallback = c
			}
			C.xpcu_nvrtc_unload()
			continue
		}
		st.path = c
		return nil
	}
	if fallback != "" {
		if err := openNVRTC(fallback); err == nil {
			st.path = fallback
			return nil
		}
	}
	if explicit {
		st.err = fmt.Errorf("cuda: cannot load NVRTC from XPMPI_NVRTC: %s", strings.Join(tried, "; "))
	} else {
		st.err = fmt.Errorf("cuda: NVRTC (the run-time compiler of the CUDA kernels) not found: tried %s, also under $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64; set XPMPI_NVRTC to the path of libnvrtc.so",
			strings.Join(nvrtcNames, ", "))
	}
	return st.err
}

// shortErr drops the path that an *os.PathError repeats.
func shortErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// openNVRTC loads one candidate and reads its version into nvrtcState.
// Before a library named by its path, it loads the libnvrtc-builtins
// libraries of the same folder, which NVRTC opens by their plain name: that
// way they are found even where the folder is not on the loader's path.
func openNVRTC(path string) error {
	var buf [512]C.char
	if strings.Contains(path, "/") {
		dir := filepath.Dir(path)
		builtins, _ := filepath.Glob(filepath.Join(dir, "libnvrtc-builtins.so*"))
		for _, b := range builtins {
			cb := C.CString(b)
			C.xpcu_dlopen_global(cb, &buf[0], C.size_t(len(buf)))
			C.free(unsafe.Pointer(cb))
		}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.xpcu_nvrtc_load(cpath, &buf[0], C.size_t(len(buf))); rc != 0 {
		return errors.New(C.GoString(&buf[0]))
	}
	var major, minor C.int
	if r := C.xpcu_nvrtc_version(&major, &minor); r != 0 {
		C.xpcu_nvrtc_unload()
		return fmt.Errorf("%s: nvrtcVersion: %s", path, C.GoString(C.xpcu_nvrtc_error_string(r)))
	}
	nvrtcState.major, nvrtcState.minor = int(major), int(minor)
	return nil
}

// NVRTC describes the loaded NVRTC library: its version as "11.8" and the
// file it was loaded from. It loads NVRTC if that was not done yet.
func NVRTC() (version, path string, err error) {
	if err := loadNVRTC(driverMaxVersion()); err != nil {
		return "", "", err
	}
	return fmt.Sprintf("%d.%d", nvrtcState.major, nvrtcState.minor), nvrtcState.path, nil
}

// driverMaxVersion returns the driver's CUDA version if the driver is
// loaded, else 0. It does not load the driver.
func driverMaxVersion() int {
	if driverLoaded() && libcuda.version > 0 {
		return libcuda.version
	}
	return 0
}

// CompileError is a failed NVRTC compilation, with NVRTC's log.
type CompileError struct {
	Name    string   // the program's name
	Options []string // the options it was compiled with
	Code    int      // the nvrtcResult
	Message string   // NVRTC's name of the result
	Log     string   // the compiler's messages
}

// Error names the program and the result, followed by NVRTC's log.
func (e *CompileError) Error() string {
	msg := fmt.Sprintf("cuda: NVRTC cannot compile %s (%s)", e.Name, e.Message)
	if e.Log != "" {
		msg += ":\n" + strings.TrimSpace(e.Log)
	}
	return msg
}

// CompilePTX compiles CUDA C source src, named name in messages, to PTX
// with NVRTC and the given options (as "--gpu-architecture=compute_90").
// NVRTC is given no include files: src can include only what NVRTC has
// built in, so a source with an #include of a file must have its text in
// place (package kernels does this for its shipped headers, xpmpi/*.cuh,
// which its kernels include: see kernels.Headers). It loads NVRTC on
// first use; it needs no driver and no GPU.
func CompilePTX(src, name string, opts ...string) ([]byte, error) {
	if err := loadNVRTC(driverMaxVersion()); err != nil {
		return nil, err
	}
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var copts **C.char
	if len(opts) > 0 {
		copts = (**C.char)(C.malloc(C.size_t(len(opts)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
		defer C.free(unsafe.Pointer(copts))
		list := unsafe.Slice(copts, len(opts))
		for i, o := range opts {
			list[i] = C.CString(o)
		}
		defer func() {
			for _, p := range list {
				C.free(unsafe.Pointer(p))
			}
		}()
	}
	var ptx, log *C.char
	var ptxLen, logLen C.size_t
	r := C.xpcu_nvrtc_compile(csrc, cname, C.int(len(opts)), copts, &ptx, &ptxLen, &log, &logLen)
	defer C.free(unsafe.Pointer(ptx))
	defer C.free(unsafe.Pointer(log))
	var logText string
	if log != nil {
		logText = C.GoStringN(log, C.int(logLen))
	}
	if r != 0 {
		return nil, &CompileError{Name: name, Options: opts, Code: int(r),
			Message: C.GoString(C.xpcu_nvrtc_error_string(r)), Log: logText}
	}
	if ptx == nil || ptxLen == 0 {
		return nil, &CompileError{Name: name, Options: opts, Message: "no PTX produced", Log: logText}
	}
	return C.GoBytes(unsafe.Pointer(ptx), C.int(ptxLen)), nil
}

// nvrtcInvalidOption is NVRTC_ERROR_INVALID_OPTION, returned for an
// architecture the library does not know.
const nvrtcInvalidOption = C.XP_NVRTC_ERROR_INVALID_OPTION
