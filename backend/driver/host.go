package driver

import (
	"fmt"
	"unsafe"

	"github.com/xpmpi/xpmpi/dtype"
)

// HostBuffer is a Buffer over host memory: the buffers of the CPU backend,
// and the buffers that backend.Wrap makes over Go slices.
type HostBuffer struct {
	p  unsafe.Pointer
	n  int
	dt dtype.DType
}

// NewHostBuffer returns a HostBuffer over n elements of type dt at p.
// The memory must stay alive and unmoved while the buffer is used (Go memory
// does not move; C memory must not be freed).
func NewHostBuffer(p unsafe.Pointer, n int, dt dtype.DType) *HostBuffer {
	if n == 0 {
		p = nil
	}
	return &HostBuffer{p: p, n: n, dt: dt}
}

// HostBufferOf returns a HostBuffer over s, without copying.
func HostBufferOf[T dtype.Numeric](s []T) *HostBuffer {
	return NewHostBuffer(unsafe.Pointer(unsafe.SliceData(s)), len(s), dtype.Of[T]())
}

// Device returns Host.
func (b *HostBuffer) Device() Device { return Host }

// DType returns the element type.
func (b *HostBuffer) DType() dtype.DType { return b.dt }

// Len returns the number of elements.
func (b *HostBuffer) Len() int { return b.n }

// Ptr returns the address of the first element, or nil if Len is 0.
func (b *HostBuffer) Ptr() unsafe.Pointer { return b.p }

// Slice returns a view of elements [lo, hi).
func (b *HostBuffer) Slice(lo, hi int) *HostBuffer {
	if lo < 0 || hi < lo || hi > b.n {
		panic(fmt.Sprintf("backend: slice [%d:%d] of a buffer of %d elements", lo, hi, b.n))
	}
	if hi == lo {
		return &HostBuffer{dt: b.dt}
	}
	return &HostBuffer{p: unsafe.Add(b.p, lo*b.dt.Size()), n: hi - lo, dt: b.dt}
}

// HostSlice returns the elements of a host buffer as a Go slice, without
// copying. It panics if b is not host memory or not of type T.
func HostSlice[T dtype.Numeric](b Buffer) []T {
	if !b.Device().IsHost() {
		panic(fmt.Sprintf("backend: the data of a buffer on %v is not host memory; copy it with ToHost first", b.Device()))
	}
	if b.DType() != dtype.Of[T]() {
		panic(fmt.Sprintf("backend: buffer of %v read as %v", b.DType(), dtype.Of[T]()))
	}
	if b.Len() == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(b.Ptr()), b.Len())
}
