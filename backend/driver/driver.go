package driver

import (
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/dtype"
)

// Backend is a place where arrays live and local compute runs. Its methods
// are type-erased: buffers carry their DType, scalars are Scalar values of
// the buffer's DType. Callers (the generic functions of package backend) have
// checked that lengths, types and devices agree before a method is called;
// backends may assume it.
//
// Integer arithmetic wraps as Go's does; integer division by zero panics on
// the CPU. Reductions of floating-point data accumulate in float64 with a
// summation whose result does not depend on the number of threads.
type Backend interface {
	// Name returns the backend's name, as XPMPI_BACKEND spells it.
	Name() string
	// Device returns the device where the backend makes new arrays.
	Device() Device

	// Alloc returns a zeroed buffer of n elements.
	Alloc(dt dtype.DType, n int) (Buffer, error)
	// Free releases a buffer made by Alloc. Views need not be freed.
	Free(b Buffer)
	// Slice returns a view of elements [lo, hi) of b.
	Slice(b Buffer, lo, hi int) Buffer
	// Synchronize waits until all work queued on the device has finished.
	Synchronize() error

	// CopyFromHost copies len(b) elements from host memory at src into b.
	CopyFromHost(dst Buffer, src unsafe.Pointer) error
	// CopyToHost copies b into host memory at dst.
	CopyToHost(dst unsafe.Pointer, src Buffer) error

	// Fill sets every element of x to v.
	Fill(x Buffer, v Scalar)
	// Copy copies src into dst, two buffers on this backend's device that
	// must not overlap.
	Copy(dst, src Buffer)
	// Scale multiplies x by a in place.
	Scale(x Buffer, a Scalar)
	// Axpy sets y = a*x + y.
	Axpy(a Scalar, x, y Buffer)
	// Axpby sets y = a*x + b*y.
	Axpby(a Scalar, x Buffer, b Scalar, y Buffer)
	// Binary sets dst = x op y elementwise; dst may be x or y.
	Binary(op BinaryOp, dst, x, y Buffer)
	// BinaryScalar sets dst = x op s elementwise; dst may be x.
	BinaryScalar(op BinaryOp, dst, x Buffer, s Scalar)

	// Sum returns the sum of x: a Float64 scalar for floating-point x, an
	// Int64 or Uint64 scalar (wrapping) for integers, a Complex128 scalar
	// for complex x.
	Sum(x Buffer) Scalar
	// Dot returns the sum of x[i]*y[i], typed as Sum's result (complex x
	// is not conjugated).
	Dot(x, y Buffer) Scalar
	// Argmin returns the index of the first smallest element and its value
	// as a Scalar of x's type, or -1 and a zero of x's type for an empty x.
	// A NaN counts as smaller than every number.
	Argmin(x Buffer) (int, Scalar)
	// Argmax returns the index of the first largest element and its value
	// as a Scalar of x's type, or -1 and a zero of x's type for an empty x.
	// A NaN counts as larger than every number.
	Argmax(x Buffer) (int, Scalar)
}

// Factory makes a backend, or says why it cannot run here.
type Factory func() (Backend, error)

var registry struct {
	mu        sync.Mutex
	factories map[string]Factory
}

// Register makes a backend available under name, as package backend's
// Lookup, Select and Names see it. Backends register in their package's
// init function; registering a name twice panics.
func Register(name string, f Factory) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.factories == nil {
		registry.factories = map[string]Factory{}
	}
	if _, dup := registry.factories[name]; dup {
		panic("backend: Register called twice for " + name)
	}
	registry.factories[name] = f
}

// Registered returns the registered factories by name, a copy that the
// caller may keep. Package backend makes, caches and selects backends
// from it; an implementation has no need of it.
func Registered() map[string]Factory {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	m := make(map[string]Factory, len(registry.factories))
	for n, f := range registry.factories {
		m[n] = f
	}
	return m
}

// Describer is implemented by backends that can say more about themselves
// (driver and compiler versions, device names).
type Describer interface {
	Describe() string
}
