package driver

import (
	"fmt"
	"unsafe"

	"github.com/xpmpi/xpmpi/dtype"
)

// Allocation is one allocation of a device backend's memory, as a
// DeviceView refers to it.
type Allocation interface {
	comparable
	// At returns the address of byte off of the allocation: a device
	// address that Go code must not dereference (host memory for the fake
	// device).
	At(off int) unsafe.Pointer
	// Freed reports whether the allocation has been freed.
	Freed() bool
}

// DeviceView is a Buffer in a device backend's memory: a whole allocation
// (Root, made by Alloc) or a view of part of one. The CUDA backend and the
// fake device share it, so that lengths, slicing and the checks of a
// buffer's device are written once. The zero Mem is the memory of an empty
// buffer.
type DeviceView[A Allocation] struct {
	Mem  A           // the allocation; zero for an empty buffer
	Off  int         // bytes from the start of the allocation
	N    int         // elements
	DT   dtype.DType // element type
	Dev  Device      // the device of the allocation
	Root bool        // made by Alloc: the backend's Free frees it
}

// Device returns the buffer's device.
func (v *DeviceView[A]) Device() Device { return v.Dev }

// DType returns the element type.
func (v *DeviceView[A]) DType() dtype.DType { return v.DT }

// Len returns the number of elements.
func (v *DeviceView[A]) Len() int { return v.N }

// Bytes returns the size of the elements in bytes.
func (v *DeviceView[A]) Bytes() int { return v.N * v.DT.Size() }

// Empty reports whether the buffer has no memory: no elements.
func (v *DeviceView[A]) Empty() bool {
	var zero A
	return v.N == 0 || v.Mem == zero
}

// Freed reports whether the allocation under the buffer has been freed
// (false for an empty buffer, which has none).
func (v *DeviceView[A]) Freed() bool {
	var zero A
	return v.Mem != zero && v.Mem.Freed()
}

// Ptr returns the address of the first element, or nil when Len is 0. It is
// a device address: Go code must not dereference it; it is for calls that
// take device pointers (CUDA-aware MPI, CUDA libraries).
func (v *DeviceView[A]) Ptr() unsafe.Pointer {
	if v.Empty() {
		return nil
	}
	return v.Mem.At(v.Off)
}

// Slice returns a view of elements [lo, hi), sharing the memory. pkg names
// the backend in the panic of a range out of bounds.
func (v *DeviceView[A]) Slice(pkg string, lo, hi int) *DeviceView[A] {
	if lo < 0 || hi < lo || hi > v.N {
		panic(fmt.Sprintf("%s: slice [%d:%d] of a buffer of %d elements", pkg, lo, hi, v.N))
	}
	if lo == hi {
		return &DeviceView[A]{DT: v.DT, Dev: v.Dev}
	}
	return &DeviceView[A]{Mem: v.Mem, Off: v.Off + lo*v.DT.Size(), N: hi - lo, DT: v.DT, Dev: v.Dev}
}

// ViewOf returns x as a view of allocations of type A on device dev, which
// may have been freed; it panics, naming pkg and op, for a buffer of
// another backend or device.
func ViewOf[A Allocation](pkg, op string, x Buffer, dev Device) *DeviceView[A] {
	v, ok := x.(*DeviceView[A])
	if !ok || v.Dev != dev {
		panic(fmt.Sprintf("%s: %s of a buffer on %v, on the backend of %v", pkg, op, x.Device(), dev))
	}
	return v
}

// LiveViewOf is ViewOf for a buffer that must not have been freed: it
// panics with an error wrapping ErrFreed for one that was.
func LiveViewOf[A Allocation](pkg, op string, x Buffer, dev Device) *DeviceView[A] {
	v := ViewOf[A](pkg, op, x, dev)
	var zero A
	if v.Mem != zero && v.Mem.Freed() {
		panic(fmt.Errorf("%s: %s of a freed buffer: %w", pkg, op, ErrFreed))
	}
	return v
}

// String describes the buffer: device, length, type and address.
func (v *DeviceView[A]) String() string {
	return fmt.Sprintf("%v buffer of %d %v at %p", v.Dev, v.N, v.DT, v.Ptr())
}
