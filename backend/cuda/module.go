package cuda

/*
#include <stdlib.h>
#include "xpcuda.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// Module is PTX (or a cubin) loaded on a device.
type Module struct {
	b   *Backend
	mod C.CUmodule

	mu  sync.Mutex
	fns map[string]*Function
}

// Function is a kernel of a loaded module.
type Function struct {
	m    *Module
	name string
	fn   C.CUfunction

	mu     sync.Mutex
	dynOpt int // the dynamic shared memory this function has opted in to
}

// DefaultSharedMem is the most dynamic shared memory per block, in bytes,
// that a launch gets without opting in. Launch opts a function in
// (cuFuncSetAttribute with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
// for more, up to the device's DeviceInfo.SharedMemOptin.
const DefaultSharedMem = 48 << 10

// funcAttrMaxDynamicShared is CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
const funcAttrMaxDynamicShared = 8

// LoadModule loads a PTX text or a cubin image on the backend's device.
func (b *Backend) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("cuda: LoadModule of an empty image")
	}
	m := &Module{b: b, fns: map[string]*Function{}}
	err := b.withContext(func() error {
		return check("cuModuleLoadData", C.xpcu_module_load(&m.mod, unsafe.Pointer(&image[0]), C.size_t(len(image))))
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// CompileModule compiles CUDA C source with NVRTC for the backend's device
// (its compute capability, or the newest older architecture the loaded
// NVRTC knows), with the given extra options, and loads it. PTX is cached
// in memory and on disk (see the package documentation).
func (b *Backend) CompileModule(src, name string, opts ...string) (*Module, error) {
	ptx, _, err := compileCached(src, name, archCandidates(b.info.Major, b.info.Minor), opts)
	if err != nil {
		return nil, err
	}
	return b.LoadModule(ptx)
}

// Function returns the kernel called name (an extern "C" entry).
func (m *Module) Function(name string) (*Function, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.fns[name]; ok {
		return f, nil
	}
	if m.mod == nil {
		return nil, fmt.Errorf("cuda: Function %s of an unloaded module", name)
	}
	f := &Function{m: m, name: name}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	err := m.b.withContext(func() error {
		return check("cuModuleGetFunction("+name+")", C.xpcu_cuModuleGetFunction(&f.fn, m.mod, cname))
	})
	if err != nil {
		return nil, err
	}
	m.fns[name] = f
	return f, nil
}

// Unload unloads the module; its functions must not be launched afterwards.
func (m *Module) Unload() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mod == nil {
		return nil
	}
	err := m.b.withContext(func() error { return check("cuModuleUnload", C.xpcu_cuModuleUnload(m.mod)) })
	m.mod = nil
	m.fns = map[string]*Function{}
	return err
}

// Name returns the kernel's name.
func (f *Function) Name() string { return f.name }

// Dim3 is a grid or block size; a zero component counts as 1.
type Dim3 struct{ X, Y, Z int }

func (d Dim3) dims() (x, y, z C.uint) {
	one := func(v int) C.uint {
		if v < 1 {
			return 1
		}
		return C.uint(v)
	}
	return one(d.X), one(d.Y), one(d.Z)
}

// Launch launches the kernel on stream s (nil: the backend's stream) with
// the given grid, block, dynamic shared memory in bytes, and arguments.
// Dynamic shared memory over DefaultSharedMem opts the function in first,
// once per size (an error past the device's SharedMemOptin, naming the
// kernel). It returns when the launch is queued; errors of the kernel
// itself show at the next synchronization.
func (f *Function) Launch(grid, block Dim3, sharedMem int, s *Stream, args *Args) error {
	if args == nil {
		args = &Args{}
	}
	if sharedMem < 0 {
		return fmt.Errorf("cuda: %s: %d bytes of dynamic shared memory", f.name, sharedMem)
	}
	if sharedMem > DefaultSharedMem {
		if err := f.optIn(sharedMem); err != nil {
			return err
		}
	}
	if len(args.sizes) > MaxArgs {
		return fmt.Errorf("cuda: %s: %d arguments, at most %d", f.name, len(args.sizes), MaxArgs)
	}
	stream := f.m.b.stream.s
	if s != nil {
		stream = s.s
	}
	gx, gy, gz := grid.dims()
	bx, by, bz := block.dims()
	// args keeps the buffers of Args.Buffer reachable until the launch
	// is queued (see devHandle).
	defer runtime.KeepAlive(args)
	if testHookLaunch != nil {
		testHookLaunch() // tests: a collection after the addresses are taken
	}
	return f.m.b.withContext(func() error {
		var data *C.uchar
		var sizes *C.int
		if len(args.sizes) > 0 {
			data = (*C.uchar)(unsafe.Pointer(&args.data[0]))
			sizes = &args.sizes[0]
		}
		r := C.xpcu_launch(f.fn, gx, gy, gz, bx, by, bz, C.uint(sharedMem), stream,
			C.int(len(args.sizes)), data, sizes)
		return check("cuLaunchKernel("+f.name+")", r)
	})
}

// testHookLaunch, when set (by a test, before any launch), runs in Launch
// between the packing of the arguments and the launch: TestGPULifetime
// collects garbage there.
var testHookLaunch func()

// MaxArgs is the most arguments a kernel launch takes, and MaxArgBytes the
// most bytes of one (a struct passed by value).
const (
	MaxArgs     = C.XP_MAX_ARGS
	MaxArgBytes = C.XP_MAX_ARG_BYTES
)

// Args are the arguments of a kernel launch, each packed at its true size:
// 1 byte for an int8 or uint8, 2 for an int16 or uint16, 4 for a
// float32, int32 or uint32, 8 for a float64, int64, uint64 or a device
// pointer. The methods append one argument and return a for
// chaining.
type Args struct {
	data  []byte
	sizes []C.int
	bufs  []driver.Buffer // Buffer's, kept reachable until the launch
}

func (a *Args) add(b []byte) *Args {
	if len(b) == 0 || len(b) > MaxArgBytes {
		panic(fmt.Sprintf("cuda: a kernel argument of %d bytes (1 to %d)", len(b), MaxArgBytes))
	}
	a.data = append(a.data, b...)
	a.sizes = append(a.sizes, C.int(len(b)))
	return a
}

// Uint32 appends a 4-byte unsigned integer.
func (a *Args) Uint32(v uint32) *Args { return a.add(binary.LittleEndian.AppendUint32(nil, v)) }

// Int32 appends a 4-byte integer.
func (a *Args) Int32(v int32) *Args { return a.Uint32(uint32(v)) }

// Uint64 appends an 8-byte unsigned integer.
func (a *Args) Uint64(v uint64) *Args { return a.add(binary.LittleEndian.AppendUint64(nil, v)) }

// Int64 appends an 8-byte integer.
func (a *Args) Int64(v int64) *Args { return a.Uint64(uint64(v)) }

// Float32 appends a 4-byte float.
func (a *Args) Float32(v float32) *Args { return a.Uint32(math.Float32bits(v)) }

// Float64 appends an 8-byte float.
func (a *Args) Float64(v float64) *Args { return a.Uint64(math.Float64bits(v)) }

// DevicePtr appends a device address (8 bytes). An address keeps nothing
// reachable: the caller keeps the buffer it came from reachable until the
// launch returns (runtime.KeepAlive), or the buffer's memory may be freed
// by its cleanup first. Buffer does that itself.
func (a *Args) DevicePtr(p uint64) *Args { return a.Uint64(p) }

// Buffer appends the device address of a buffer of this package (8 bytes;
// 0 for an empty buffer). It panics for a buffer of another backend, and,
// with an error wrapping driver.ErrFreed, for a buffer whose allocation
// was freed (a kernel must not be launched on it). The Args keep b
// reachable until the launch that takes them returns.
func (a *Args) Buffer(b driver.Buffer) *Args {
	if f, ok := b.(interface{ Freed() bool }); ok && f.Freed() {
		panic(fmt.Errorf("cuda: kernel argument: a buffer on %v whose allocation was freed: %w", b.Device(), driver.ErrFreed))
	}
	p, ok := DevicePtr(b)
	if !ok {
		panic(fmt.Sprintf("cuda: kernel argument: a buffer on %v is not CUDA device memory", b.Device()))
	}
	a.bufs = append(a.bufs, b)
	return a.Uint64(p)
}

// Scalar appends s at the size of its type: 1, 2, 4 or 8 bytes.
func (a *Args) Scalar(s driver.Scalar) *Args {
	switch s.DType().Size() {
	case 1:
		return a.add([]byte{byte(s.Bits())})
	case 2:
		return a.add(binary.LittleEndian.AppendUint16(nil, uint16(s.Bits())))
	case 4:
		return a.Uint32(uint32(s.Bits()))
	}
	return a.Uint64(s.Bits())
}

// Bytes appends an argument of len(b) bytes, as a struct passed by value
// (its layout must be the kernel's).
func (a *Args) Bytes(b []byte) *Args { return a.add(append([]byte(nil), b...)) }

// Len returns the number of arguments.
func (a *Args) Len() int { return len(a.sizes) }

// Sizes returns the size in bytes of each argument.
func (a *Args) Sizes() []int {
	out := make([]int, len(a.sizes))
	for i, s := range a.sizes {
		out[i] = int(s)
	}
	return out
}

// Packed returns the arguments' bytes, back to back.
func (a *Args) Packed() []byte { return append([]byte(nil), a.data...) }

// optIn lets the function use n bytes of dynamic shared memory per block,
// more than DefaultSharedMem, if the device allows it.
func (f *Function) optIn(n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n <= f.dynOpt {
		return nil
	}
	if max := f.m.b.info.SharedMemOptin; n > max {
		return fmt.Errorf("cuda: %s: %d bytes of dynamic shared memory, more than the %d a block of %s may opt in to", f.name, n, max, f.m.b.info.Name)
	}
	err := f.m.b.withContext(func() error {
		return check("cuFuncSetAttribute("+f.name+", MAX_DYNAMIC_SHARED_SIZE_BYTES)",
			C.xpcu_cuFuncSetAttribute(f.fn, funcAttrMaxDynamicShared, C.int(n)))
	})
	if err == nil {
		f.dynOpt = n
	}
	return err
}
