package cuda

/*
#include "xpcuda.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// devMemory is one allocation of device memory.
type devMemory struct {
	b     *Backend
	ptr   uint64 // device address
	bytes int
	freed atomic.Bool
}

// free releases the memory once; it waits for the device's work first, so
// that no queued kernel still uses it.
func (m *devMemory) free() {
	if m.freed.Swap(true) {
		return
	}
	m.b.withContext(func() error {
		C.xpcu_cuCtxSynchronize()
		return check("cuMemFree", C.xpcu_cuMemFree(C.CUdeviceptr(m.ptr)))
	})
}

// devHandle is what buffers refer to: when no buffer refers to it any
// more, a cleanup frees the memory (if Free was not called).
//
// A device address is not a Go pointer: it keeps nothing reachable. Code
// that takes a buffer's address for C (a kernel argument, a copy, a
// library call, MPI) must keep the buffer reachable until the work that
// uses the address is queued (free waits for queued work): Args.Buffer
// keeps its buffers for the launch, the copies and library calls here
// call keep, and package staging keeps an array handed to MPI until MPI
// returns. Otherwise a buffer whose last use is the call can be collected,
// and its memory freed, between the taking of its address and its use.
type devHandle struct{ m *devMemory }

// At returns device address of byte off of the allocation, as an
// unsafe.Pointer that Go code must not dereference.
func (h *devHandle) At(off int) unsafe.Pointer {
	a := h.m.ptr + uint64(off)
	// A device address is not Go memory: reinterpret the integer's bits.
	return *(*unsafe.Pointer)(unsafe.Pointer(&a))
}

// Freed reports whether the memory has been freed.
func (h *devHandle) Freed() bool { return h.m.freed.Load() }

// devBuffer is a driver.Buffer in device memory: an allocation, or a view
// of one. Its Ptr is a device address: Go code must not dereference it; it
// is for calls that take device pointers (CUDA-aware MPI, CUDA libraries).
type devBuffer = driver.DeviceView[*devHandle]

// keep keeps the buffers reachable up to this call (see devHandle): defer
// it in a function that queues work on their addresses.
func keep(bufs ...driver.Buffer) { runtime.KeepAlive(bufs) }

// addr returns the device address of d's first element (0 when empty).
func addr(d *devBuffer) uint64 {
	if d.Empty() {
		return 0
	}
	return d.Mem.m.ptr + uint64(d.Off)
}

// DevicePtr returns the device address of a buffer of this package and
// true, or 0 and false for a buffer of another backend. An empty buffer
// has address 0.
func DevicePtr(b driver.Buffer) (uint64, bool) {
	d, ok := b.(*devBuffer)
	if !ok {
		return 0, false
	}
	return addr(d), true
}

// buf returns x as a buffer of this backend, checking that it lives on its
// device and was not freed.
func (b *Backend) buf(op string, x driver.Buffer) *devBuffer {
	return driver.LiveViewOf[*devHandle]("cuda", op, x, b.Device())
}

// view returns x as a buffer of this backend, which may have been freed.
func (b *Backend) view(op string, x driver.Buffer) *devBuffer {
	return driver.ViewOf[*devHandle]("cuda", op, x, b.Device())
}

// Alloc returns a zeroed buffer of n elements in device memory. The memory
// is freed by Free, or when no buffer refers to it any more.
func (b *Backend) Alloc(dt backend.DType, n int) (driver.Buffer, error) {
	if n < 0 {
		panic(fmt.Sprintf("cuda: Alloc of %d elements", n))
	}
	size := dt.Size() // panics for an invalid DType
	d := &devBuffer{N: n, DT: dt, Dev: b.Device(), Root: true}
	if n == 0 {
		return d, nil
	}
	if n > math.MaxInt/size {
		return nil, fmt.Errorf("cuda: cannot allocate %d elements of %v", n, dt)
	}
	bytes := n * size
	var p C.CUdeviceptr
	err := b.withContext(func() error {
		if err := check("cuMemAlloc", C.xpcu_cuMemAlloc(&p, C.size_t(bytes))); err != nil {
			return err
		}
		// On the legacy default stream, which every stream of the backend
		// waits for: the zeros are there before any later work.
		if err := check("cuMemsetD8", C.xpcu_cuMemsetD8(p, 0, C.size_t(bytes))); err != nil {
			C.xpcu_cuMemFree(p)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: cannot allocate %d elements of %v (%d bytes) on device %d: %w", n, dt, bytes, b.id, err)
	}
	m := &devMemory{b: b, ptr: uint64(p), bytes: bytes}
	d.Mem = &devHandle{m: m}
	runtime.AddCleanup(d.Mem, func(m *devMemory) { m.free() }, m)
	return d, nil
}

// Free releases a buffer made by Alloc, after the work queued on the device
// has finished. Freeing a view, an empty buffer or a freed buffer does
// nothing.
func (b *Backend) Free(x driver.Buffer) {
	d, ok := x.(*devBuffer)
	if !ok || !d.Root || d.Mem == nil {
		return
	}
	d.Mem.m.free()
}

// Slice returns a view of elements [lo, hi) of x, sharing its memory.
func (b *Backend) Slice(x driver.Buffer, lo, hi int) driver.Buffer {
	return b.view("Slice", x).Slice("cuda", lo, hi)
}

// CopyFromHost copies dst.Len() elements from host memory at src into dst
// and waits for the copy (after the work queued before it).
func (b *Backend) CopyFromHost(dst driver.Buffer, src unsafe.Pointer) error {
	defer keep(dst)
	d := b.buf("CopyFromHost", dst)
	if d.N == 0 {
		return nil
	}
	return b.withContext(func() error {
		return check("cuMemcpyHtoDAsync", C.xpcu_htod_sync(C.CUdeviceptr(addr(d)), src, C.size_t(d.Bytes()), b.stream.s))
	})
}

// CopyToHost copies src into host memory at dst, after the work queued
// before it, and waits for the copy.
func (b *Backend) CopyToHost(dst unsafe.Pointer, src driver.Buffer) error {
	defer keep(src)
	s := b.buf("CopyToHost", src)
	if s.N == 0 {
		return nil
	}
	return b.withContext(func() error {
		return check("cuMemcpyDtoHAsync", C.xpcu_dtoh_sync(dst, C.CUdeviceptr(addr(s)), C.size_t(s.Bytes()), b.stream.s))
	})
}

// CopyFromHostAsync queues a copy of dst.Len() elements from host memory at
// src into dst on stream s (nil: the backend's stream) and returns at once.
// src must be pinned host memory (AllocHost, or Go memory registered with
// RegisterHost) that stays untouched until the copy is done.
func (b *Backend) CopyFromHostAsync(dst driver.Buffer, src unsafe.Pointer, s driver.Stream) error {
	defer keep(dst)
	d := b.buf("CopyFromHostAsync", dst)
	if d.N == 0 {
		return nil
	}
	st := b.streamOf(s)
	return b.withContext(func() error {
		return check("cuMemcpyHtoDAsync", C.xpcu_cuMemcpyHtoDAsync(C.CUdeviceptr(addr(d)), src, C.size_t(d.Bytes()), st))
	})
}

// CopyToHostAsync queues a copy of src into host memory at dst on stream s
// (nil: the backend's stream) and returns at once. dst must be pinned host
// memory (AllocHost, or Go memory registered with RegisterHost); wait for
// the stream, or an event recorded after the copy, before reading it.
func (b *Backend) CopyToHostAsync(dst unsafe.Pointer, src driver.Buffer, s driver.Stream) error {
	defer keep(src)
	sb := b.buf("CopyToHostAsync", src)
	if sb.N == 0 {
		return nil
	}
	st := b.streamOf(s)
	return b.withContext(func() error {
		return check("cuMemcpyDtoHAsync", C.xpcu_cuMemcpyDtoHAsync(dst, C.CUdeviceptr(addr(sb)), C.size_t(sb.Bytes()), st))
	})
}

// CopyAsync queues a copy of src into dst, two buffers of the same length
// and type on this device, on stream s (nil: the backend's stream).
func (b *Backend) CopyAsync(dst, src driver.Buffer, s driver.Stream) error {
	defer keep(dst, src)
	d, sb := b.buf("CopyAsync", dst), b.buf("CopyAsync", src)
	if d.Bytes() != sb.Bytes() {
		panic(fmt.Sprintf("cuda: CopyAsync of %d bytes into %d", sb.Bytes(), d.Bytes()))
	}
	if d.N == 0 {
		return nil
	}
	st := b.streamOf(s)
	return b.withContext(func() error {
		return check("cuMemcpyDtoDAsync", C.xpcu_cuMemcpyDtoDAsync(C.CUdeviceptr(addr(d)), C.CUdeviceptr(addr(sb)), C.size_t(d.Bytes()), st))
	})
}

// streamOf returns the CUDA stream of s: the backend's own for nil. A
// stream of another backend is a caller's mistake and panics.
func (b *Backend) streamOf(s driver.Stream) C.CUstream {
	if s == nil {
		return b.stream.s
	}
	cs, ok := s.(*Stream)
	if !ok || cs == nil {
		if !ok {
			panic(fmt.Sprintf("cuda: a %T is not a CUDA stream", s))
		}
		return b.stream.s
	}
	return cs.s
}

// AllocPinned returns n bytes of pinned host memory (driver.Async); free
// it with FreePinned.
func (b *Backend) AllocPinned(n int) (unsafe.Pointer, error) {
	h, err := b.AllocHost(n)
	if err != nil {
		return nil, err
	}
	b.pinned.Store(h.p, h)
	return h.p, nil
}

// FreePinned releases memory from AllocPinned.
func (b *Backend) FreePinned(p unsafe.Pointer) {
	if h, ok := b.pinned.LoadAndDelete(p); ok {
		h.(*HostMemory).Free()
	}
}

// HostMemory is pinned (page-locked) host memory from AllocHost: copies
// between it and the device run at full speed and can be asynchronous. It
// is C memory, not Go memory: Go code may read and write it through Bytes,
// Buffer or Ptr until Free.
type HostMemory struct {
	b     *Backend
	p     unsafe.Pointer
	bytes int
}

// AllocHost allocates bytes of pinned host memory.
func (b *Backend) AllocHost(bytes int) (*HostMemory, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: AllocHost of %d bytes", bytes)
	}
	var p unsafe.Pointer
	err := b.withContext(func() error { return check("cuMemAllocHost", C.xpcu_cuMemAllocHost(&p, C.size_t(bytes))) })
	if err != nil {
		return nil, fmt.Errorf("cuda: cannot allocate %d bytes of pinned host memory: %w", bytes, err)
	}
	return &HostMemory{b: b, p: p, bytes: bytes}, nil
}

// Ptr returns the address of the memory (nil after Free).
func (h *HostMemory) Ptr() unsafe.Pointer { return h.p }

// Len returns the size in bytes.
func (h *HostMemory) Len() int { return h.bytes }

// Bytes returns the memory as a byte slice, valid until Free.
func (h *HostMemory) Bytes() []byte {
	if h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.bytes)
}

// Buffer returns a host buffer of n elements of type dt over the start of
// the memory, valid until Free; the CPU backend works on it.
func (h *HostMemory) Buffer(dt backend.DType, n int) *driver.HostBuffer {
	if n < 0 || n*dt.Size() > h.bytes {
		panic(fmt.Sprintf("cuda: a buffer of %d %v over %d bytes of pinned memory", n, dt, h.bytes))
	}
	return driver.NewHostBuffer(h.p, n, dt)
}

// Free releases the memory; it must not be used afterwards.
func (h *HostMemory) Free() error {
	if h.p == nil {
		return nil
	}
	p := h.p
	h.p = nil
	return h.b.withContext(func() error { return check("cuMemFreeHost", C.xpcu_cuMemFreeHost(p)) })
}

// Registration is host memory registered with the driver (page-locked) by
// RegisterHost, kept pinned for Go's garbage collector until Unregister.
type Registration struct {
	b      *Backend
	p      unsafe.Pointer
	bytes  int
	pinner runtime.Pinner
}

// memHostRegisterPortable is CU_MEMHOSTREGISTER_PORTABLE: the memory is
// pinned for every context.
const memHostRegisterPortable = 1

// RegisterHost page-locks bytes of host memory at p (Go memory, or C
// memory) so that copies with it run at full speed and can be
// asynchronous. Go memory is pinned with a runtime.Pinner until
// Unregister, so that the driver may keep its address.
func (b *Backend) RegisterHost(p unsafe.Pointer, bytes int) (*Registration, error) {
	if p == nil || bytes <= 0 {
		return nil, fmt.Errorf("cuda: RegisterHost of %d bytes at %p", bytes, p)
	}
	r := &Registration{b: b, p: p, bytes: bytes}
	r.pinner.Pin(p) // does nothing for non-Go memory
	err := b.withContext(func() error {
		return check("cuMemHostRegister", C.xpcu_cuMemHostRegister(p, C.size_t(bytes), memHostRegisterPortable))
	})
	if err != nil {
		r.pinner.Unpin()
		return nil, fmt.Errorf("cuda: cannot register %d bytes of host memory: %w", bytes, err)
	}
	return r, nil
}

// RegisterSlice registers the memory of a Go slice with RegisterHost.
func RegisterSlice[T backend.Element](b *Backend, s []T) (*Registration, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("cuda: RegisterSlice of an empty slice")
	}
	var z T
	return b.RegisterHost(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(z)))
}

// Ptr returns the address of the registered memory.
func (r *Registration) Ptr() unsafe.Pointer { return r.p }

// Len returns the size in bytes of the registered memory.
func (r *Registration) Len() int { return r.bytes }

// Unregister unregisters the memory and unpins it.
func (r *Registration) Unregister() error {
	if r.p == nil {
		return nil
	}
	p := r.p
	r.p = nil
	err := r.b.withContext(func() error { return check("cuMemHostUnregister", C.xpcu_cuMemHostUnregister(p)) })
	r.pinner.Unpin()
	return err
}
