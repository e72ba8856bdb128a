package backend

import (
	"fmt"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// Array is a one-dimensional local array of T on one device. It knows its
// backend and device; operations on it run there.
//
// After Free, every function of this package that takes the array fails
// at once with an error wrapping ErrFreed (a panic with that error value
// for those that return no error); Len, Device, Backend, DType, String
// and Freed keep answering. A view made by Slice before the Free is an
// array of its own: on a device backend (one with driver.DeviceView buffers:
// CUDA, the fake device) its use panics with the same error, since the
// allocation knows it was freed; on the host it cannot be told from live
// memory, and its use is a program error that nothing detects.
type Array[T Numeric] struct {
	b     Backend
	buf   driver.Buffer
	freed bool // Free has run
}

// New returns a zeroed array of n elements on the selected backend.
func New[T Numeric](n int) (*Array[T], error) {
	return NewOn[T](Current(), n)
}

// NewOn returns a zeroed array of n elements on backend b.
func NewOn[T Numeric](b Backend, n int) (*Array[T], error) {
	if n < 0 {
		panic(fmt.Sprintf("backend: negative length %d", n))
	}
	buf, err := b.Alloc(DTypeOf[T](), n)
	if err != nil {
		return nil, err
	}
	return &Array[T]{b: b, buf: buf}, nil
}

// Wrap returns a host array over s on the CPU backend, without copying:
// the array and s share memory.
func Wrap[T Numeric](s []T) *Array[T] {
	return &Array[T]{b: mustLookup("cpu"), buf: driver.HostBufferOf(s)}
}

// FromBuffer returns an array over a buffer of backend b.
func FromBuffer[T Numeric](b Backend, buf driver.Buffer) *Array[T] {
	if buf.DType() != DTypeOf[T]() {
		panic(fmt.Sprintf("backend: buffer of %v used as an array of %v", buf.DType(), DTypeOf[T]()))
	}
	return &Array[T]{b: b, buf: buf}
}

// Len returns the number of elements.
func (a *Array[T]) Len() int { return a.buf.Len() }

// Device returns where the array's memory is.
func (a *Array[T]) Device() Device { return a.buf.Device() }

// Backend returns the backend that owns the array's memory.
func (a *Array[T]) Backend() Backend { return a.b }

// Buffer returns the array's memory. It panics (ErrFreed) after Free.
func (a *Array[T]) Buffer() driver.Buffer {
	a.live("Buffer")
	return a.buf
}

// DType returns the element type.
func (a *Array[T]) DType() DType { return a.buf.DType() }

// Ptr returns the address of the first element (host or device), or nil
// for an empty array. It panics (ErrFreed) after Free.
func (a *Array[T]) Ptr() unsafe.Pointer {
	a.live("Ptr")
	return a.buf.Ptr()
}

// Data returns the elements of a host array as a slice that shares its
// memory. It panics for an array on a device: copy it with ToHost first;
// and (ErrFreed) after Free.
func (a *Array[T]) Data() []T {
	a.live("Data")
	return driver.HostSlice[T](a.buf)
}

// Slice returns a view of elements [lo, hi) that shares memory with a.
func (a *Array[T]) Slice(lo, hi int) *Array[T] {
	a.live("Slice")
	if lo < 0 || hi < lo || hi > a.Len() {
		panic(fmt.Sprintf("backend: slice [%d:%d] of an array of %d elements", lo, hi, a.Len()))
	}
	return &Array[T]{b: a.b, buf: a.b.Slice(a.buf, lo, hi)}
}

// Free releases the array's memory. Using the array afterwards is an
// error of kind ErrFreed (see Array); freeing it again does nothing.
func (a *Array[T]) Free() {
	if a.freed {
		return
	}
	a.freed = true
	a.b.Free(a.buf)
	a.buf = a.b.Slice(a.buf, 0, 0)
}

// Freed reports whether Free has released the array's memory.
func (a *Array[T]) Freed() bool { return a.freed }

// live panics, naming op, with an error wrapping ErrFreed if a was freed:
// one branch.
func (a *Array[T]) live(op string) {
	if a.freed {
		panic(FreedError("backend", op))
	}
}

// liveErr returns the error of op on a if a was freed, else nil.
func (a *Array[T]) liveErr(op string) error {
	if a.freed {
		return FreedError("backend", op)
	}
	return nil
}

// FreedError returns the error of operation op of package pkg on a freed
// array: "pkg: op of a freed array: array used after Free", wrapping
// ErrFreed.
func FreedError(pkg, op string) error {
	return fmt.Errorf("%s: %s of a freed array: %w", pkg, op, ErrFreed)
}

func (a *Array[T]) String() string {
	if a.freed {
		return fmt.Sprintf("Array[%v](freed, on %v)", a.DType(), a.Device())
	}
	return fmt.Sprintf("Array[%v](len %d on %v)", a.DType(), a.Len(), a.Device())
}

// same panics unless every array is live (not freed: an error wrapping
// ErrFreed) and has the device of the first and the length n.
func same[T Numeric](op string, n int, arrays ...*Array[T]) {
	for _, x := range arrays {
		if x.freed {
			panic(FreedError("backend", op))
		}
	}
	d := arrays[0].Device()
	for _, x := range arrays {
		if x.Device() != d {
			panic(fmt.Sprintf("backend: %s: arrays on %v and %v; move one with ToHost or ToDevice", op, d, x.Device()))
		}
		if x.Len() != n {
			panic(fmt.Sprintf("backend: %s: lengths %d and %d differ", op, n, x.Len()))
		}
	}
}

// Fill sets every element of x to v.
func Fill[T Numeric](x *Array[T], v T) {
	x.live("Fill")
	if complexOnHost(x) {
		hostComplex(func(h []*Array[T]) { Fill(h[0], v) }, x)
		return
	}
	x.b.Fill(x.buf, driver.ScalarOf(v))
}

// Copy copies src into dst, which must be on the same device.
func Copy[T Numeric](dst, src *Array[T]) {
	same("Copy", dst.Len(), dst, src)
	dst.b.Copy(dst.buf, src.buf)
}

// Scale multiplies x by a in place.
func Scale[T Numeric](a T, x *Array[T]) {
	x.live("Scale")
	if complexOnHost(x) {
		hostComplex(func(h []*Array[T]) { Scale(a, h[0]) }, x)
		return
	}
	x.b.Scale(x.buf, driver.ScalarOf(a))
}

// Axpy sets y = a*x + y.
func Axpy[T Numeric](a T, x, y *Array[T]) {
	same("Axpy", y.Len(), x, y)
	if complexOnHost(y) {
		hostComplex(func(h []*Array[T]) { Axpy(a, h[0], h[1]) }, x, y)
		return
	}
	y.b.Axpy(driver.ScalarOf(a), x.buf, y.buf)
}

// Axpby sets y = a*x + b*y.
func Axpby[T Numeric](a T, x *Array[T], b T, y *Array[T]) {
	same("Axpby", y.Len(), x, y)
	if complexOnHost(y) {
		hostComplex(func(h []*Array[T]) { Axpby(a, h[0], b, h[1]) }, x, y)
		return
	}
	y.b.Axpby(driver.ScalarOf(a), x.buf, driver.ScalarOf(b), y.buf)
}

// Jacobi5 applies one 5-point Jacobi sweep of src into dst, two rows x cols
// row-major grids on one device (see driver.Stencils.Jacobi5), with the stencils
// of dst's backend (driver.StencilsOf).
func Jacobi5[T Float](dst, src *Array[T], rows, cols int) {
	stencilArgs("Jacobi5", dst, src, rows, cols)
	driver.StencilsOf(dst.b).Jacobi5(dst.buf, src.buf, rows, cols)
}

// Laplace5 applies the 5-point Laplacian of src into dst, two rows x cols
// row-major grids on one device (see driver.Stencils.Laplace5), with the stencils
// of dst's backend (driver.StencilsOf).
func Laplace5[T Float](dst, src *Array[T], rows, cols int) {
	stencilArgs("Laplace5", dst, src, rows, cols)
	driver.StencilsOf(dst.b).Laplace5(dst.buf, src.buf, rows, cols)
}

func stencilArgs[T Float](op string, dst, src *Array[T], rows, cols int) {
	if dst.freed || src.freed {
		panic(FreedError("backend", op))
	}
	if rows < 0 || cols < 0 || rows*cols > dst.Len() || rows*cols > src.Len() {
		panic(fmt.Sprintf("backend: %s of a %d x %d grid over arrays of %d and %d elements", op, rows, cols, dst.Len(), src.Len()))
	}
	same(op, dst.Len(), dst)
	same(op, src.Len(), src)
	if dst.Device() != src.Device() {
		panic(fmt.Sprintf("backend: %s: arrays on %v and %v", op, dst.Device(), src.Device()))
	}
	if dst.Len() > 0 && src.Len() > 0 && dst.Ptr() == src.Ptr() {
		panic(fmt.Sprintf("backend: %s: dst and src are the same memory", op))
	}
}

// Apply sets dst = x op y elementwise. dst may be x or y.
func Apply[T Numeric](op BinaryOp, dst, x, y *Array[T]) {
	same(op.String(), dst.Len(), dst, x, y)
	if complexOnHost(dst) {
		hostComplex(func(h []*Array[T]) { Apply(op, h[0], h[1], h[2]) }, dst, x, y)
		return
	}
	dst.b.Binary(op, dst.buf, x.buf, y.buf)
}

// ApplyScalar sets dst = x op s elementwise. dst may be x.
func ApplyScalar[T Numeric](op BinaryOp, dst, x *Array[T], s T) {
	same(op.String(), dst.Len(), dst, x)
	if complexOnHost(dst) {
		hostComplex(func(h []*Array[T]) { ApplyScalar(op, h[0], h[1], s) }, dst, x)
		return
	}
	dst.b.BinaryScalar(op, dst.buf, x.buf, driver.ScalarOf(s))
}

// Sum returns the sum of x's elements. Floating-point sums accumulate in
// float64, accurately and independently of the thread count; integer sums
// wrap; complex sums accumulate their real and imaginary parts as float
// sums do.
func Sum[T Numeric](x *Array[T]) T { return driver.ValueOf[T](SumScalar(x)) }

// SumScalar returns the sum of x's elements as Backend.Sum types it (a
// Float64, Int64, Uint64 or Complex128 scalar), before the conversion to
// T that Sum makes.
func SumScalar[T Numeric](x *Array[T]) Scalar {
	x.live("Sum")
	if complexOnHost(x) {
		var s Scalar
		hostComplex(func(h []*Array[T]) { s = SumScalar(h[0]) }, x)
		return s
	}
	return x.b.Sum(x.buf)
}

// Dot returns the sum of x[i]*y[i], accumulated as Sum does. Complex x is
// not conjugated (numpy.dot).
func Dot[T Numeric](x, y *Array[T]) T { return driver.ValueOf[T](DotScalar(x, y)) }

// DotScalar returns Dot(x, y) as Backend.Dot types it, as SumScalar does.
func DotScalar[T Numeric](x, y *Array[T]) Scalar {
	same("Dot", x.Len(), x, y)
	if complexOnHost(x) {
		var s Scalar
		hostComplex(func(h []*Array[T]) { s = DotScalar(h[0], h[1]) }, x, y)
		return s
	}
	return x.b.Dot(x.buf, y.buf)
}

// Norm returns the 2-norm of x, sqrt(Dot(x, x)) accumulated in float64.
func Norm[T Float](x *Array[T]) float64 {
	x.live("Norm")
	return sqrt(x.b.Dot(x.buf, x.buf).Float64())
}

// Argmin returns the index of the first smallest element, or -1 if x is
// empty. A NaN counts as smaller than every number.
func Argmin[T Element](x *Array[T]) int {
	x.live("Argmin")
	i, _ := x.b.Argmin(x.buf)
	return i
}

// Argmax returns the index of the first largest element, or -1 if x is
// empty. A NaN counts as larger than every number.
func Argmax[T Element](x *Array[T]) int {
	x.live("Argmax")
	i, _ := x.b.Argmax(x.buf)
	return i
}

// Min returns the smallest element. It panics if x is empty.
func Min[T Element](x *Array[T]) T {
	x.live("Min")
	i, v := x.b.Argmin(x.buf)
	if i < 0 {
		panic("backend: Min of an empty array")
	}
	return driver.ValueOf[T](v)
}

// Max returns the largest element. It panics if x is empty.
func Max[T Element](x *Array[T]) T {
	x.live("Max")
	i, v := x.b.Argmax(x.buf)
	if i < 0 {
		panic("backend: Max of an empty array")
	}
	return driver.ValueOf[T](v)
}

// Map sets x[i] = f(x[i]). On the host it runs in parallel within the
// thread budget, so f must be safe for concurrent use. On a device it is a
// host call: x is copied to the host, mapped and copied back.
func Map[T Numeric](x *Array[T], f func(T) T) error {
	if err := x.liveErr("Map"); err != nil {
		return err
	}
	if x.Device().IsHost() {
		s := x.Data()
		ParallelFor(len(s), mapGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				s[i] = f(s[i])
			}
		})
		return nil
	}
	return HostCall(func(h []*Array[T]) error {
		return Map(h[0], f)
	}, x)
}

const mapGrain = 1 << 14
