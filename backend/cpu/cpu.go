package cpu

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/internal/sysmem"
)

// Backend is the CPU backend: buffers are host memory (*driver.HostBuffer
// over Go slices) and every operation is a Go loop, run on up to
// backend.Threads() goroutines above a size threshold. It has no state; use
// Default.
type Backend struct{}

// Default is the CPU backend, registered with package backend as "cpu".
var Default = &Backend{}

func init() {
	driver.Register("cpu", func() (driver.Backend, error) { return Default, nil })
}

// Check at compile time that Backend is a backend.
var (
	_ driver.Backend   = (*Backend)(nil)
	_ driver.Describer = (*Backend)(nil)
)

// Name returns "cpu".
func (*Backend) Name() string { return "cpu" }

// Device returns driver.Host.
func (*Backend) Device() driver.Device { return driver.Host }

// Describe says what the backend runs on: the Go version, the platform, the
// number of CPUs and the thread budget of this rank.
func (*Backend) Describe() string {
	return fmt.Sprintf("pure Go (%s %s/%s), %d CPUs, thread budget %d",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), backend.Threads())
}

// Alloc returns a zeroed host buffer of n elements of type dt: a Go slice,
// which the garbage collector frees once no buffer refers to it. It returns
// an error if n elements cannot be addressed.
func (*Backend) Alloc(dt backend.DType, n int) (driver.Buffer, error) {
	if n < 0 {
		panic(fmt.Sprintf("cpu: Alloc of %d elements", n))
	}
	size := dt.Size() // panics for an invalid DType
	if n > math.MaxInt/size || n > maxAlloc/size {
		return nil, fmt.Errorf("cpu: cannot allocate %d elements of %v: more than %s", n, dt, sysmem.Bytes(maxAlloc))
	}
	if bytes := uint64(n) * uint64(size); bytes >= checkAbove {
		// Go ends the process on an allocation the system refuses; ask
		// first, for large ones.
		if avail, err := sysmem.Available(); err == nil && bytes > avail.Bytes {
			return nil, fmt.Errorf("cpu: allocating %s (%d elements of %v): this node has %v", sysmem.Bytes(bytes), n, dt, avail)
		}
	}
	var p unsafe.Pointer
	switch dt {
	case backend.Float32:
		p = unsafe.Pointer(unsafe.SliceData(make([]float32, n)))
	case backend.Float64:
		p = unsafe.Pointer(unsafe.SliceData(make([]float64, n)))
	case backend.Int32:
		p = unsafe.Pointer(unsafe.SliceData(make([]int32, n)))
	case backend.Int64:
		p = unsafe.Pointer(unsafe.SliceData(make([]int64, n)))
	case backend.Uint32:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint32, n)))
	case backend.Uint64:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint64, n)))
	case backend.Int8:
		p = unsafe.Pointer(unsafe.SliceData(make([]int8, n)))
	case backend.Int16:
		p = unsafe.Pointer(unsafe.SliceData(make([]int16, n)))
	case backend.Uint8:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint8, n)))
	case backend.Uint16:
		p = unsafe.Pointer(unsafe.SliceData(make([]uint16, n)))
	case backend.Complex64:
		p = unsafe.Pointer(unsafe.SliceData(make([]complex64, n)))
	case backend.Complex128:
		p = unsafe.Pointer(unsafe.SliceData(make([]complex128, n)))
	}
	return driver.NewHostBuffer(p, n, dt), nil
}

// maxAlloc is the largest allocation in bytes that Alloc attempts (1 TiB):
// larger requests are errors rather than a fatal out-of-memory crash.
const maxAlloc = 1 << 40

// checkAbove is the size in bytes from which Alloc first compares a request
// with the memory available (reading it costs a few microseconds).
const checkAbove = 64 << 20

// Free does nothing: the garbage collector frees host buffers.
func (*Backend) Free(b driver.Buffer) {}

// Slice returns a view of elements [lo, hi) of b, sharing its memory.
func (*Backend) Slice(b driver.Buffer, lo, hi int) driver.Buffer {
	if hb, ok := b.(*driver.HostBuffer); ok {
		return hb.Slice(lo, hi)
	}
	// Another kind of host buffer (pinned memory, say): view it the same way.
	if lo < 0 || hi < lo || hi > b.Len() {
		panic(fmt.Sprintf("cpu: slice [%d:%d] of a buffer of %d elements", lo, hi, b.Len()))
	}
	if !b.Device().IsHost() {
		panic(fmt.Sprintf("cpu: Slice of a buffer on %v", b.Device()))
	}
	if lo == hi {
		return driver.NewHostBuffer(nil, 0, b.DType())
	}
	return driver.NewHostBuffer(unsafe.Add(b.Ptr(), lo*b.DType().Size()), hi-lo, b.DType())
}

// Synchronize returns nil: CPU operations finish before they return.
func (*Backend) Synchronize() error { return nil }

// CopyFromHost copies dst.Len() elements from host memory at src into dst.
func (*Backend) CopyFromHost(dst driver.Buffer, src unsafe.Pointer) error {
	n := dst.Len() * dst.DType().Size()
	if n == 0 {
		return nil
	}
	memmove(dst.Ptr(), src, n)
	return nil
}

// CopyToHost copies src into host memory at dst.
func (*Backend) CopyToHost(dst unsafe.Pointer, src driver.Buffer) error {
	n := src.Len() * src.DType().Size()
	if n == 0 {
		return nil
	}
	memmove(dst, src.Ptr(), n)
	return nil
}

// Copy copies src into dst, which have the same length and type. The two
// may overlap.
func (*Backend) Copy(dst, src driver.Buffer) {
	n := dst.Len() * dst.DType().Size()
	if n == 0 {
		return
	}
	memmove(dst.Ptr(), src.Ptr(), n)
}

// memmove copies n > 0 bytes from src to dst; large copies of disjoint
// memory run in parallel.
func memmove(dst, src unsafe.Pointer, n int) {
	d := unsafe.Slice((*byte)(dst), n)
	s := unsafe.Slice((*byte)(src), n)
	if n < copyParMin || overlap(dst, src, n) {
		copy(d, s)
		return
	}
	backend.ParallelFor(n, copyGrain, func(lo, hi int) { copy(d[lo:hi], s[lo:hi]) })
}

// overlap reports whether [a, a+n) and [b, b+n) share a byte.
func overlap(a, b unsafe.Pointer, n int) bool {
	x, y := uintptr(a), uintptr(b)
	return x < y+uintptr(n) && y < x+uintptr(n)
}

// Fill sets every element of x to v.
func (*Backend) Fill(x driver.Buffer, v driver.Scalar) { opsFor(x.DType()).fill(x, v) }

// Scale multiplies x by a in place.
func (*Backend) Scale(x driver.Buffer, a driver.Scalar) { opsFor(x.DType()).scale(x, a) }

// Axpy sets y = a*x + y.
func (*Backend) Axpy(a driver.Scalar, x, y driver.Buffer) { opsFor(y.DType()).axpy(a, x, y) }

// Binary sets dst = x op y elementwise; dst may be x or y. Integer division
// by zero panics with a message that starts "cpu: integer division by
// zero", before any element is written.
func (*Backend) Binary(op driver.BinaryOp, dst, x, y driver.Buffer) {
	opsFor(dst.DType()).binary(op, dst, x, y)
}

// BinaryScalar sets dst = x op s elementwise; dst may be x. Integer
// division by zero panics as in Binary.
func (*Backend) BinaryScalar(op driver.BinaryOp, dst, x driver.Buffer, s driver.Scalar) {
	opsFor(dst.DType()).binaryScalar(op, dst, x, s)
}

// Sum returns the sum of x: a Float64 scalar for floating-point x (summed in
// float64 over fixed chunks of 4096 elements whose partial sums are added
// pairwise, so that the result does not depend on the thread count), an
// Int64 scalar for signed and a Uint64 scalar for unsigned integers
// (wrapping), a Complex128 scalar for complex x (real and imaginary parts
// summed as floats are).
func (*Backend) Sum(x driver.Buffer) driver.Scalar { return opsFor(x.DType()).sum(x) }

// Dot returns the sum of x[i]*y[i], accumulated and typed as Sum's result.
// Products of float32 elements are formed in float64, exactly; complex
// products are not conjugated (NumPy's dot) and are formed in complex128.
func (*Backend) Dot(x, y driver.Buffer) driver.Scalar { return opsFor(x.DType()).dot(x, y) }

// Argmin returns the index of the first smallest element of x and its value
// (a Scalar of x's type), or -1 and a zero of x's type for an empty x. A NaN
// counts as smaller than every number, so the first NaN wins.
func (*Backend) Argmin(x driver.Buffer) (int, driver.Scalar) { return opsFor(x.DType()).argmin(x) }

// Argmax returns the index of the first largest element of x and its value,
// or -1 and a zero of x's type for an empty x. A NaN counts as larger than
// every number, so the first NaN wins.
func (*Backend) Argmax(x driver.Buffer) (int, driver.Scalar) { return opsFor(x.DType()).argmax(x) }

// Jacobi5 applies one 5-point Jacobi sweep to a rows x cols row-major
// float32 or float64 grid: for 1 <= i < rows-1 and 1 <= j < cols-1,
// dst[i][j] = 0.25*(src[i-1][j] + src[i+1][j] + src[i][j-1] + src[i][j+1]),
// summed in that order, in parallel over rows. Other elements of dst are
// left as they are. It panics for integer grids, for buffers shorter than
// rows*cols, and if dst and src overlap.
func (*Backend) Jacobi5(dst, src driver.Buffer, rows, cols int) {
	checkGrid("Jacobi5", dst, src, rows, cols)
	switch dst.DType() {
	case backend.Float32:
		stencil(jacobiRows[float32], driver.HostSlice[float32](dst), driver.HostSlice[float32](src), rows, cols)
	case backend.Float64:
		stencil(jacobiRows[float64], driver.HostSlice[float64](dst), driver.HostSlice[float64](src), rows, cols)
	}
}
