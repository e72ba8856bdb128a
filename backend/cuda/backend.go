package cuda

/*
#include "xpcuda.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/launch"
)

// Backend is the CUDA backend on one device: buffers are device memory,
// operations are kernels queued on the backend's stream, and everything it
// does runs in the device's primary context. It is safe for concurrent
// use. Backends are made once per device and never released.
type Backend struct {
	id     int
	dev    C.CUdevice
	ctx    C.CUcontext
	stream *Stream
	info   DeviceInfo
	pinned sync.Map // AllocPinned's memory: pointer -> *HostMemory

	kernelsOnce sync.Once
	kernels     *Module
	kernelsErr  error
	kernelArch  string

	fnMu sync.RWMutex
	fns  map[string]*Function

	// scratchMu serializes the operations that use scratch: reductions and
	// the integer division check.
	scratchMu sync.Mutex
	scratch   uint64 // device memory for partial results

	vendor vendorState // cuBLAS and cuFFT (vendor.go)
}

// Check at compile time that Backend is a backend.
var (
	_ driver.Backend   = (*Backend)(nil)
	_ driver.Describer = (*Backend)(nil)
)

func init() {
	driver.Register("cuda", func() (driver.Backend, error) {
		b, err := Default()
		if err != nil {
			return nil, err
		}
		return b, nil
	})
}

var backends struct {
	mu   sync.Mutex
	byID map[int]*Backend
}

// Default returns the backend on this process's device (ChooseDevice: the
// local rank modulo the number of devices, or XPMPI_DEVICE), which package
// backend registers as "cuda". The first call loads the driver and NVRTC;
// where either or a device is missing, it returns an error that says which.
func Default() (*Backend, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	id, err := ChooseDevice(libcuda.count)
	if err != nil {
		return nil, err
	}
	return Open(id)
}

// Open returns the backend on device ordinal id, making it on first use:
// it retains the device's primary context, makes the backend's stream and
// loads NVRTC (the kernels are compiled at their first use).
func Open(id int) (*Backend, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	if id < 0 || id >= libcuda.count {
		return nil, fmt.Errorf("cuda: no device %d (this process sees %d)", id, libcuda.count)
	}
	backends.mu.Lock()
	defer backends.mu.Unlock()
	if b, ok := backends.byID[id]; ok {
		return b, nil
	}
	b, err := open(id)
	if err != nil {
		return nil, err
	}
	if backends.byID == nil {
		backends.byID = map[int]*Backend{}
	}
	backends.byID[id] = b
	return b, nil
}

func open(id int) (*Backend, error) {
	info, err := deviceInfo(id)
	if err != nil {
		return nil, err
	}
	mode, err := LibModeFromEnv()
	if err != nil {
		return nil, err
	}
	b := &Backend{id: id, info: info, fns: map[string]*Function{}}
	b.vendor.mode = mode
	if err := check("cuDeviceGet", C.xpcu_cuDeviceGet(&b.dev, C.int(id))); err != nil {
		return nil, err
	}
	if err := check("cuDevicePrimaryCtxRetain", C.xpcu_cuDevicePrimaryCtxRetain(&b.ctx, b.dev)); err != nil {
		return nil, fmt.Errorf("cuda: cannot use device %d (%s): %v", id, info.Name, err)
	}
	release := func() { C.xpcu_cuDevicePrimaryCtxRelease(b.dev) }
	if err := loadNVRTC(libcuda.version); err != nil {
		release()
		return nil, err
	}
	b.stream = &Stream{b: b}
	err = b.withContext(func() error { return check("cuStreamCreate", C.xpcu_cuStreamCreate(&b.stream.s, 0)) })
	if err != nil {
		release()
		return nil, err
	}
	return b, nil
}

// withContext runs f with the backend's context current on the calling OS
// thread, which it keeps for the goroutine while f runs: CUDA's current
// context is per thread, and goroutines move between threads.
func (b *Backend) withContext(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := check("cuCtxSetCurrent", C.xpcu_cuCtxSetCurrent(b.ctx)); err != nil {
		return err
	}
	return f()
}

// Name returns "cuda".
func (b *Backend) Name() string { return "cuda" }

// Device returns {driver.CUDA, ordinal}.
func (b *Backend) Device() driver.Device { return driver.Device{Kind: driver.CUDA, ID: b.id} }

// Info describes the backend's device.
func (b *Backend) Info() DeviceInfo { return b.info }

// MemInfo returns the free and total memory of the device in bytes.
func (b *Backend) MemInfo() (free, total uint64, err error) {
	var f, t C.size_t
	err = b.withContext(func() error { return check("cuMemGetInfo", C.xpcu_cuMemGetInfo(&f, &t)) })
	return uint64(f), uint64(t), err
}

// Describe says what the backend runs on, for xpmpi info: the driver's
// CUDA version, the device and its memory, NVRTC's version, and how the
// device was chosen for this rank.
func (b *Backend) Describe() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "CUDA driver %s; device %d of %d: %s (sm_%d%d, %d SMs", versionString(libcuda.version),
		b.id, libcuda.count, b.info.Name, b.info.Major, b.info.Minor, b.info.Multiprocessors)
	if free, total, err := b.MemInfo(); err == nil {
		fmt.Fprintf(&sb, ", %s of %s free", formatBytes(free), formatBytes(total))
	} else {
		fmt.Fprintf(&sb, ", %s", formatBytes(b.info.TotalMemory))
	}
	fmt.Fprintf(&sb, ", PCI %s)", b.info.PCIBusID)
	if v, path, err := NVRTC(); err == nil {
		fmt.Fprintf(&sb, "; NVRTC %s (%s)", v, path)
	}
	if d := strings.TrimSpace(os.Getenv("XPMPI_DEVICE")); d != "" {
		fmt.Fprintf(&sb, "; device from XPMPI_DEVICE=%s", d)
	} else {
		fmt.Fprintf(&sb, "; device = local rank %d %% %d", launch.LocalRank(), libcuda.count)
	}
	return sb.String()
}

// Synchronize waits until all work queued on the device has finished, and
// returns the first error of that work (a faulting kernel, say).
func (b *Backend) Synchronize() error {
	return b.withContext(func() error { return check("cuCtxSynchronize", C.xpcu_cuCtxSynchronize()) })
}

// kernelModule compiles and loads the backend's kernels on first use.
func (b *Backend) kernelModule() (*Module, error) {
	b.kernelsOnce.Do(func() {
		ptx, arch, err := compileCached(KernelSource, "kernels.cu", archCandidates(b.info.Major, b.info.Minor), kernelOptions)
		if err != nil {
			b.kernelsErr = err
			return
		}
		b.kernelArch = arch
		b.kernels, b.kernelsErr = b.LoadModule(ptx)
	})
	return b.kernels, b.kernelsErr
}

// Prepare compiles and loads the backend's kernels now rather than at
// their first use, and returns what went wrong. The operations panic if
// this fails at their first use.
func (b *Backend) Prepare() error {
	if _, err := b.kernelModule(); err != nil {
		return err
	}
	for _, name := range KernelEntries() {
		if _, err := b.function(name); err != nil {
			return err
		}
	}
	return nil
}

// KernelArch returns the architecture the backend's kernels were compiled
// for, or "" before they are.
func (b *Backend) KernelArch() string { return b.kernelArch }

// function returns the backend's kernel called name.
func (b *Backend) function(name string) (*Function, error) {
	b.fnMu.RLock()
	f, ok := b.fns[name]
	b.fnMu.RUnlock()
	if ok {
		return f, nil
	}
	m, err := b.kernelModule()
	if err != nil {
		return nil, err
	}
	f, err = m.Function(name)
	if err != nil {
		return nil, err
	}
	b.fnMu.Lock()
	b.fns[name] = f
	b.fnMu.Unlock()
	return f, nil
}

// The CUDA backend is a device backend: package staging uses its pinned
// memory, streams and events.
var (
	_ driver.Async  = (*Backend)(nil)
	_ driver.Stream = (*Stream)(nil)
	_ driver.Event  = (*Event)(nil)
)
