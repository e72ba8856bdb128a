package cuda

/*
#include <stdlib.h>
#include "xpcuda.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// DriverLibrary is the name of the CUDA driver library that is loaded
// (with dlopen) the first time the backend is looked up. XPMPI_LIBCUDA, if
// set, names another file to load instead (for tests, and for drivers
// installed outside the loader's path).
const DriverLibrary = "libcuda.so.1"

// Result codes of the driver API that the package tests for.
const (
	codeNoDevice = C.XP_CUDA_ERROR_NO_DEVICE
	codeNotReady = C.XP_CUDA_ERROR_NOT_READY
)

// Error is a failed call of the CUDA driver API.
type Error struct {
	Call string // the driver API call, as cuMemAlloc
	Code int    // the CUresult
}

// Error names the call, the result code and its description.
func (e *Error) Error() string {
	name, desc := errorText(e.Code)
	return fmt.Sprintf("cuda: %s: %s (%s)", e.Call, name, desc)
}

// errorText returns the name and the description of a CUresult, from the
// driver where it is loaded.
func errorText(code int) (name, desc string) {
	if !driverLoaded() {
		return fmt.Sprintf("CUDA error %d", code), "driver not loaded"
	}
	r := C.CUresult(code)
	return C.GoString(C.xpcu_error_name(r)), C.GoString(C.xpcu_error_string(r))
}

// check returns nil for CUDA_SUCCESS and an *Error naming call otherwise.
func check(call string, r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return &Error{Call: call, Code: int(r)}
}

// libcuda is the state of the loaded driver: loaded once, on first use.
var libcuda struct {
	once    sync.Once
	err     error
	path    string
	version int // as cuDriverGetVersion gives it: 1000*major + 10*minor
	count   int // number of devices
	loaded  atomic.Bool
}

// driverLoaded reports whether the driver library's symbols are bound.
func driverLoaded() bool { return libcuda.loaded.Load() }

// loadDriver loads the driver library, initializes it and counts the
// devices, once. Its error says what is missing: the driver library, a
// symbol of it, or a device.
func loadDriver() error {
	libcuda.once.Do(func() { libcuda.err = openDriver() })
	return libcuda.err
}

func openDriver() error {
	path := strings.TrimSpace(os.Getenv("XPMPI_LIBCUDA"))
	if path == "" {
		path = DriverLibrary
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var buf [512]C.char
	switch C.xpcu_cuda_load(cpath, &buf[0], C.size_t(len(buf))) {
	case 0:
	case 1:
		return fmt.Errorf("cuda: cannot load %s (no NVIDIA driver): %s", path, C.GoString(&buf[0]))
	default:
		return fmt.Errorf("cuda: %s is not a usable CUDA driver (too old?): %s", path, C.GoString(&buf[0]))
	}
	libcuda.path = path
	libcuda.loaded.Store(true)
	if r := C.xpcu_cuInit(0); r != 0 {
		msg := strings.TrimPrefix(check("cuInit", r).Error(), "cuda: ")
		if r == codeNoDevice {
			return fmt.Errorf("cuda: driver loaded but no CUDA device: %s", msg)
		}
		return fmt.Errorf("cuda: driver loaded but it does not start: %s", msg)
	}
	var v, n C.int
	if err := check("cuDriverGetVersion", C.xpcu_cuDriverGetVersion(&v)); err != nil {
		return err
	}
	libcuda.version = int(v)
	if err := check("cuDeviceGetCount", C.xpcu_cuDeviceGetCount(&n)); err != nil {
		return fmt.Errorf("cuda: driver loaded but no CUDA device: %s", strings.TrimPrefix(err.Error(), "cuda: "))
	}
	if n <= 0 {
		return fmt.Errorf("cuda: driver loaded but no CUDA device: cuDeviceGetCount found none (CUDA_VISIBLE_DEVICES=%q)", os.Getenv("CUDA_VISIBLE_DEVICES"))
	}
	libcuda.count = int(n)
	return nil
}

// Available returns nil if the CUDA driver loads and sees at least one
// device, and otherwise an error that says which is missing. The first call
// loads the driver; nothing is loaded before.
func Available() error { return loadDriver() }

// DriverVersion returns the CUDA version of the driver, as "13.0". It loads
// the driver.
func DriverVersion() (string, error) {
	if err := loadDriver(); err != nil {
		return "", err
	}
	return versionString(libcuda.version), nil
}

// versionString formats a CUDA version number (1000*major + 10*minor).
func versionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// DeviceCount returns the number of CUDA devices this process sees (after
// CUDA_VISIBLE_DEVICES). It loads the driver.
func DeviceCount() (int, error) {
	if err := loadDriver(); err != nil {
		return 0, err
	}
	return libcuda.count, nil
}
