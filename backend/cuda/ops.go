package cuda

/*
#include "xpcuda.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// Launch configuration of the backend's kernels.
const (
	// blockSize is the block of the elementwise kernels.
	blockSize = 256
	// maxElemGrid caps the grid of the elementwise kernels: their threads
	// loop over the elements with a grid stride.
	maxElemGrid = 1 << 16
	// reduceBlock is the block of the reductions; kernels.cu's XP_BLOCK.
	reduceBlock = 256
	// reducePerThread is the least number of elements per thread of a
	// reduction's first pass, and maxReduceGrid its most blocks (partials).
	reducePerThread = 4
	maxReduceGrid   = 1024
	// The block of Jacobi5: 32 elements of a row by 8 rows.
	jacobiBX, jacobiBY = 32, 8
)

// elemGrid returns the grid of an elementwise kernel over n > 0 elements.
func elemGrid(n int) Dim3 { return Dim3{X: min((n+blockSize-1)/blockSize, maxElemGrid)} }

// reduceGrid returns the number of blocks (and partials) of a reduction
// over n > 0 elements. It depends on n only, never on the device, so that
// results are the same everywhere.
func reduceGrid(n int) int {
	return max(1, min((n+reduceBlock*reducePerThread-1)/(reduceBlock*reducePerThread), maxReduceGrid))
}

// jacobiGrid returns the grid of Jacobi5 on a rows x cols grid (both >= 3).
func jacobiGrid(rows, cols int) Dim3 {
	return Dim3{X: min((cols-2+jacobiBX-1)/jacobiBX, 1<<16), Y: min((rows-2+jacobiBY-1)/jacobiBY, 65535)}
}

// fail panics for a failure of the driver in an operation that has no
// error result (it happens only when the device is lost or a kernel
// faulted), with a *driver.DeviceError as the panic's value, which
// package dist's reductions return as an error on every rank.
func fail(op string, err error) {
	panic(&driver.DeviceError{Device: driver.Device{Kind: driver.CUDA}, Op: op, Err: err})
}

// launch launches the backend's kernel name on its stream.
func (b *Backend) launch(op, name string, grid, block Dim3, args *Args) {
	f, err := b.function(name)
	if err != nil {
		fail(op, err)
	}
	if err := f.Launch(grid, block, 0, nil, args); err != nil {
		fail(op, err)
	}
}

// convert returns s as a scalar of type dt (unchanged if it is one).
func convert(s driver.Scalar, dt backend.DType) driver.Scalar {
	if s.DType() == dt {
		return s
	}
	switch dt {
	case backend.Float32:
		return driver.ScalarOf(driver.ValueOf[float32](s))
	case backend.Float64:
		return driver.ScalarOf(driver.ValueOf[float64](s))
	case backend.Int32:
		return driver.ScalarOf(driver.ValueOf[int32](s))
	case backend.Int64:
		return driver.ScalarOf(driver.ValueOf[int64](s))
	case backend.Uint32:
		return driver.ScalarOf(driver.ValueOf[uint32](s))
	case backend.Int8:
		return driver.ScalarOf(driver.ValueOf[int8](s))
	case backend.Int16:
		return driver.ScalarOf(driver.ValueOf[int16](s))
	case backend.Uint8:
		return driver.ScalarOf(driver.ValueOf[uint8](s))
	case backend.Uint16:
		return driver.ScalarOf(driver.ValueOf[uint16](s))
	default:
		return driver.ScalarOf(driver.ValueOf[uint64](s))
	}
}

// scalarFromBits returns the scalar of type dt whose bits are the low
// dt.Size() bytes of bits.
func scalarFromBits(dt backend.DType, bits uint64) driver.Scalar {
	switch dt {
	case backend.Float32:
		return driver.ScalarOf(math.Float32frombits(uint32(bits)))
	case backend.Float64:
		return driver.ScalarOf(math.Float64frombits(bits))
	case backend.Int32:
		return driver.ScalarOf(int32(uint32(bits)))
	case backend.Int64:
		return driver.ScalarOf(int64(bits))
	case backend.Uint32:
		return driver.ScalarOf(uint32(bits))
	case backend.Int8:
		return driver.ScalarOf(int8(uint8(bits)))
	case backend.Int16:
		return driver.ScalarOf(int16(uint16(bits)))
	case backend.Uint8:
		return driver.ScalarOf(uint8(bits))
	case backend.Uint16:
		return driver.ScalarOf(uint16(bits))
	default:
		return driver.ScalarOf(bits)
	}
}

// sameShape panics unless the buffers have the type and length of the
// first.
func sameShape(op string, bufs ...*devBuffer) {
	for _, x := range bufs[1:] {
		if x.DT != bufs[0].DT || x.N != bufs[0].N {
			panic(fmt.Sprintf("cuda: %s of %d %v and %d %v", op, bufs[0].N, bufs[0].DT, x.N, x.DT))
		}
	}
}

// Fill sets every element of x to v.
func (b *Backend) Fill(x driver.Buffer, v driver.Scalar) {
	if x.DType().IsComplex() {
		b.complexFill(x, v)
		return
	}
	defer keep(x)
	d := b.buf("Fill", x)
	if d.N == 0 {
		return
	}
	v = convert(v, d.DT)
	if v.Bits() == 0 { // a zero, but not -0
		err := b.withContext(func() error {
			return check("cuMemsetD8Async", C.xpcu_cuMemsetD8Async(C.CUdeviceptr(addr(d)), 0, C.size_t(d.Bytes()), b.stream.s))
		})
		if err != nil {
			fail("Fill", err)
		}
		return
	}
	b.launch("Fill", kernelName("fill", d.DT), elemGrid(d.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(d.N)).Scalar(v).Buffer(d))
}

// Copy copies src into dst, two buffers of the same length and type on
// this device. They may overlap (the copy then goes through a temporary
// buffer).
func (b *Backend) Copy(dst, src driver.Buffer) {
	d, s := b.buf("Copy", dst), b.buf("Copy", src)
	sameShape("Copy", d, s)
	if d.N == 0 || addr(d) == addr(s) {
		return
	}
	if overlap(addr(d), addr(s), d.Bytes()) {
		tmp, err := b.Alloc(d.DT, d.N)
		if err != nil {
			fail("Copy", err)
		}
		defer b.Free(tmp)
		b.Copy(tmp, s)
		b.Copy(d, tmp)
		return
	}
	if err := b.CopyAsync(d, s, nil); err != nil {
		fail("Copy", err)
	}
}

// overlap reports whether [a, a+n) and [c, c+n) share a byte.
func overlap(a, c uint64, n int) bool { return a < c+uint64(n) && c < a+uint64(n) }

// Scale multiplies x by a in place.
func (b *Backend) Scale(x driver.Buffer, a driver.Scalar) {
	if x.DType().IsComplex() {
		b.complexScale(x, a)
		return
	}
	d := b.buf("Scale", x)
	if d.N == 0 {
		return
	}
	b.launch("Scale", kernelName("scale", d.DT), elemGrid(d.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(d.N)).Scalar(convert(a, d.DT)).Buffer(d))
}

// Axpy sets y = a*x + y (a*x rounded before the addition, as on the CPU).
func (b *Backend) Axpy(a driver.Scalar, x, y driver.Buffer) {
	if y.DType().IsComplex() {
		b.complexAxpy(a, x, y)
		return
	}
	dx, dy := b.buf("Axpy", x), b.buf("Axpy", y)
	sameShape("Axpy", dy, dx)
	if dy.N == 0 {
		return
	}
	b.launch("Axpy", kernelName("axpy", dy.DT), elemGrid(dy.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dy.N)).Scalar(convert(a, dy.DT)).Buffer(dx).Buffer(dy))
}

// Axpby sets y = a*x + b*y (each product rounded before the addition, as
// on the CPU).
func (b *Backend) Axpby(a driver.Scalar, x driver.Buffer, c driver.Scalar, y driver.Buffer) {
	if y.DType().IsComplex() {
		b.complexAxpby(a, x, c, y)
		return
	}
	dx, dy := b.buf("Axpby", x), b.buf("Axpby", y)
	sameShape("Axpby", dy, dx)
	if dy.N == 0 {
		return
	}
	b.launch("Axpby", kernelName("axpby", dy.DT), elemGrid(dy.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dy.N)).Scalar(convert(a, dy.DT)).Buffer(dx).Scalar(convert(c, dy.DT)).Buffer(dy))
}

// binaryNames are the kernels of the binary operations, by BinaryOp.
var (
	binaryNames       = [...]string{driver.Add: "add", driver.Sub: "sub", driver.Mul: "mul", driver.Div: "div"}
	binaryScalarNames = [...]string{driver.Add: "adds", driver.Sub: "subs", driver.Mul: "muls", driver.Div: "divs"}
)

// Binary sets dst = x op y elementwise; dst may be x or y. Integer
// division by zero panics with a message that starts "cuda: integer
// division by zero", before any element is written.
func (b *Backend) Binary(op driver.BinaryOp, dst, x, y driver.Buffer) {
	if op < driver.Add || op > driver.Div {
		panic(fmt.Sprintf("cuda: invalid BinaryOp %d", int(op)))
	}
	if dst.DType().IsComplex() {
		b.complexBinary(op, dst, x, y)
		return
	}
	dd, dx, dy := b.buf(op.String(), dst), b.buf(op.String(), x), b.buf(op.String(), y)
	sameShape(op.String(), dd, dx, dy)
	if dd.N == 0 {
		return
	}
	if op == driver.Div && !dd.DT.IsFloat() {
		b.checkDivisor(dy)
	}
	b.launch(op.String(), kernelName(binaryNames[op], dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dx).Buffer(dy))
}

// BinaryScalar sets dst = x op s elementwise; dst may be x. Integer
// division by zero panics as in Binary.
func (b *Backend) BinaryScalar(op driver.BinaryOp, dst, x driver.Buffer, s driver.Scalar) {
	if op < driver.Add || op > driver.Div {
		panic(fmt.Sprintf("cuda: invalid BinaryOp %d", int(op)))
	}
	if dst.DType().IsComplex() {
		b.complexBinaryScalar(op, dst, x, s)
		return
	}
	dd, dx := b.buf(op.String(), dst), b.buf(op.String(), x)
	sameShape(op.String(), dd, dx)
	s = convert(s, dd.DT)
	if op == driver.Div && !dd.DT.IsFloat() && s.Bits() == 0 {
		panic("cuda: integer division by zero (the scalar divisor is 0)")
	}
	if dd.N == 0 {
		return
	}
	b.launch(op.String(), kernelName(binaryScalarNames[op], dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dx).Scalar(s))
}

// scratchBytes is the size of the scratch memory: maxReduceGrid partials
// and two words of result.
const scratchBytes = (maxReduceGrid + 2) * 8

// scratchLocked returns the device address of the scratch memory,
// allocating it on first use. The caller holds scratchMu.
func (b *Backend) scratchLocked(op string) uint64 {
	if b.scratch != 0 {
		return b.scratch
	}
	var p C.CUdeviceptr
	err := b.withContext(func() error { return check("cuMemAlloc", C.xpcu_cuMemAlloc(&p, scratchBytes)) })
	if err != nil {
		fail(op, err)
	}
	b.scratch = uint64(p)
	return b.scratch
}

// readScratch copies n words of device memory at p to the host, after the
// work queued on the backend's stream.
func (b *Backend) readScratch(op string, p uint64, out []uint64) {
	err := b.withContext(func() error {
		return check("cuMemcpyDtoHAsync", C.xpcu_dtoh_sync(unsafe.Pointer(&out[0]), C.CUdeviceptr(p), C.size_t(8*len(out)), b.stream.s))
	})
	if err != nil {
		fail(op, err)
	}
}

// checkDivisor panics if the integer buffer y holds a zero, naming the
// first.
func (b *Backend) checkDivisor(y *devBuffer) {
	b.scratchMu.Lock()
	defer b.scratchMu.Unlock()
	p := b.scratchLocked("div")
	err := b.withContext(func() error {
		return check("cuMemsetD8Async", C.xpcu_cuMemsetD8Async(C.CUdeviceptr(p), 0xff, 8, b.stream.s))
	})
	if err != nil {
		fail("div", err)
	}
	b.launch("div", kernelName("zeroidx", y.DT), elemGrid(y.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(y.N)).Buffer(y).DevicePtr(p))
	var first [1]uint64
	b.readScratch("div", p, first[:])
	if first[0] != math.MaxUint64 {
		panic(fmt.Sprintf("cuda: integer division by zero (element %d of the divisor)", first[0]))
	}
}

// reduce runs a sum-like reduction (op "sum" or "dot") over n > 0 elements
// whose buffers are xs, and returns the bits of the float64 or wrapping
// uint64 result.
func (b *Backend) reduce(op string, dt backend.DType, n int, xs ...*devBuffer) uint64 {
	second := "xp_sum2_u64"
	if dt.IsFloat() {
		second = "xp_sum2_f64"
	}
	return b.reduceWith(op, kernelName(op, dt), second, n, xs...)
}

// reduceWith runs the two-stage reduction of reduce with the kernels first
// (arguments n, xs, the partials; one partial per block of a reduceGrid(n)
// grid) and second (the partials' count, the partials, the result), in the
// backend's scratch memory, and returns the result's bits.
func (b *Backend) reduceWith(op, first, second string, n int, xs ...*devBuffer) uint64 {
	b.scratchMu.Lock()
	defer b.scratchMu.Unlock()
	p := b.scratchLocked(op)
	out := p + maxReduceGrid*8
	g := reduceGrid(n)
	args := (&Args{}).Int64(int64(n))
	for _, x := range xs {
		args.Buffer(x)
	}
	b.launch(op, first, Dim3{X: g}, Dim3{X: reduceBlock}, args.DevicePtr(p))
	b.launch(op, second, Dim3{X: 1}, Dim3{X: reduceBlock}, (&Args{}).Int32(int32(g)).DevicePtr(p).DevicePtr(out))
	var res [1]uint64
	b.readScratch(op, out, res[:])
	return res[0]
}

// reduced returns the result of Sum or Dot over elements of type dt: a
// Float64 scalar for floats, Int64 for signed and Uint64 for unsigned
// integers.
func reduced(dt backend.DType, bits uint64) driver.Scalar {
	switch {
	case dt.IsFloat():
		return driver.ScalarOf(math.Float64frombits(bits))
	case dt.IsSigned():
		return driver.ScalarOf(int64(bits))
	default:
		return driver.ScalarOf(bits)
	}
}

// Sum returns the sum of x: a Float64 scalar for floating-point x (summed
// in float64, in an order fixed by the length of x only), an Int64 scalar
// for signed and a Uint64 scalar for unsigned integers (wrapping). A
// complex x gives a Complex128 scalar summed in the CPU backend's order
// (complex.cu: its bits).
func (b *Backend) Sum(x driver.Buffer) driver.Scalar {
	if x.DType().IsComplex() {
		return b.complexSum(x)
	}
	d := b.buf("Sum", x)
	if d.N == 0 {
		return reduced(d.DT, 0)
	}
	return reduced(d.DT, b.reduce("sum", d.DT, d.N, d))
}

// Dot returns the sum of x[i]*y[i], accumulated and typed as Sum's result.
// Products of float32 elements are formed in float64, exactly. Complex x
// and y give a Complex128 scalar, x not conjugated, as the CPU backend's
// (complex.cu: its bits).
func (b *Backend) Dot(x, y driver.Buffer) driver.Scalar {
	if x.DType().IsComplex() {
		return b.complexDot("Dot", x, y, false)
	}
	dx, dy := b.buf("Dot", x), b.buf("Dot", y)
	sameShape("Dot", dx, dy)
	if dx.N == 0 {
		return reduced(dx.DT, 0)
	}
	return reduced(dx.DT, b.reduce("dot", dx.DT, dx.N, dx, dy))
}

// arg runs Argmin (op "argmin") or Argmax ("argmax").
func (b *Backend) arg(op string, x driver.Buffer) (int, driver.Scalar) {
	d := b.buf(op, x)
	if d.N == 0 {
		return -1, scalarFromBits(d.DT, 0)
	}
	b.scratchMu.Lock()
	defer b.scratchMu.Unlock()
	p := b.scratchLocked(op)
	out := p + maxReduceGrid*8
	g := reduceGrid(d.N)
	b.launch(op, kernelName(op, d.DT), Dim3{X: g}, Dim3{X: reduceBlock},
		(&Args{}).Int64(int64(d.N)).Buffer(d).DevicePtr(p))
	b.launch(op, kernelName(op+"2", d.DT), Dim3{X: 1}, Dim3{X: reduceBlock},
		(&Args{}).Int32(int32(g)).Buffer(d).DevicePtr(p).DevicePtr(out))
	var res [2]uint64
	b.readScratch(op, out, res[:])
	i := int(int64(res[0]))
	if i < 0 || i >= d.N {
		panic(fmt.Sprintf("cuda: %s found index %d of %d elements", op, i, d.N))
	}
	return i, scalarFromBits(d.DT, res[1])
}

// Argmin returns the index of the first smallest element of x and its value
// (a Scalar of x's type), or -1 and a zero of x's type for an empty x. A NaN
// counts as smaller than every number, so the first NaN wins.
func (b *Backend) Argmin(x driver.Buffer) (int, driver.Scalar) { return b.arg("argmin", x) }

// Argmax returns the index of the first largest element of x and its value,
// or -1 and a zero of x's type for an empty x. A NaN counts as larger than
// every number, so the first NaN wins.
func (b *Backend) Argmax(x driver.Buffer) (int, driver.Scalar) { return b.arg("argmax", x) }

// Jacobi5 applies one 5-point Jacobi sweep to a rows x cols row-major
// float32 or float64 grid: for 1 <= i < rows-1 and 1 <= j < cols-1,
// dst[i][j] = 0.25*(src[i-1][j] + src[i+1][j] + src[i][j-1] + src[i][j+1]),
// summed in that order (the CPU backend's results, bit for bit). Other
// elements of dst are left as they are. It panics for integer grids, for
// buffers shorter than rows*cols, and if dst and src overlap.
func (b *Backend) Jacobi5(dst, src driver.Buffer, rows, cols int) {
	b.stencil("Jacobi5", "jacobi5", dst, src, rows, cols)
}

// Laplace5 applies the 5-point Laplacian to a rows x cols row-major float32
// or float64 grid: for 1 <= i < rows-1 and 1 <= j < cols-1,
// dst[i][j] = 4*src[i][j] - src[i-1][j] - src[i+1][j] - src[i][j-1] - src[i][j+1],
// subtracted in that order (the CPU backend's results, bit for bit). Other
// elements of dst are left as they are. It panics as Jacobi5 does.
func (b *Backend) Laplace5(dst, src driver.Buffer, rows, cols int) {
	b.stencil("Laplace5", "laplace5", dst, src, rows, cols)
}

// stencil checks the arguments of a 5-point stencil and launches it.
func (b *Backend) stencil(op, kernel string, dst, src driver.Buffer, rows, cols int) {
	d, s := b.checkGrid(op, dst, src, rows, cols)
	if rows < 3 || cols < 3 {
		return
	}
	b.launch(op, kernelName(kernel, d.DT), jacobiGrid(rows, cols), Dim3{X: jacobiBX, Y: jacobiBY},
		(&Args{}).Int64(int64(rows)).Int64(int64(cols)).Buffer(d).Buffer(s))
}

// checkGrid panics unless dst and src are float grids of this device, of
// one type, with at least rows*cols elements that do not overlap, and
// returns them.
func (b *Backend) checkGrid(op string, dst, src driver.Buffer, rows, cols int) (d, s *devBuffer) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("cuda: %s of a %d x %d grid", op, rows, cols))
	}
	d, s = b.buf(op, dst), b.buf(op, src)
	if d.DT != s.DT {
		panic(fmt.Sprintf("cuda: %s from %v to %v", op, s.DT, d.DT))
	}
	if d.N < rows*cols || s.N < rows*cols {
		panic(fmt.Sprintf("cuda: %s of a %d x %d grid on buffers of %d and %d elements", op, rows, cols, d.N, s.N))
	}
	if !d.DT.IsFloat() {
		panic(fmt.Sprintf("cuda: %s needs a float32 or float64 grid, not %v", op, d.DT))
	}
	if rows*cols > 0 && overlap(addr(d), addr(s), rows*cols*d.DT.Size()) {
		panic(fmt.Sprintf("cuda: %s: dst and src overlap", op))
	}
	return d, s
}
