package cuda

import (
	_ "embed"
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CUDA backend computes with complex64 and complex128 buffers on its
// device, with the kernels of complex.cu: its Backend methods of arithmetic
// (Fill, Scale, Axpy, Axpby, Binary, BinaryScalar, Sum, Dot) take complex
// buffers (driver.ComplexArith), and it computes the elementwise
// functions, Prod and Vdot of complex buffers (driver.ComplexMath).
//
// The arithmetic, Sum, Dot, Vdot and Prod are the CPU backend's bit for
// bit (Go's complex product and quotient, the CPU's summation order), and
// so are Conj, Real, Imag, Abs (Go's math.Hypot), Angle (Go's math.Atan2)
// and Sqrt (math/cmplx's, over those). Exp, Log and Pow follow math/cmplx's
// algorithms, special cases included, over the device's exp, log, sin, cos
// and pow: they agree with the CPU's to a few units in the last place of
// the result's modulus (the device functions' errors, 1 to 2 ulps in
// double, against Go's), not bit for bit.
//
// The backend is a driver.ComplexKernels too: its AxisReducer's SumAxis
// and CastSums, its StatsReducer's ScanAxis, its Converter's Where,
// Compress and Convert and its GEMM take complex buffers, with complex.cu's
// kernels, so that dist's axis sums and means, Cumsum, Cumprod, ProdAxis,
// Where, Compact, Astype and MatMul of complex CUDA arrays stay on the
// device. All but Gemm are the CPU backend's bits (its order of
// operations; conversions as driver.ConvertValue, a complex value's real
// part converted to a real type). Gemm sums over l in order, each product
// Go's complex product rounded to the element type, from +0 or C: the
// naive loop's bits; the CPU backend's complex products are BLAS's
// (OpenBLAS's or gonum's cgemm and zgemm), whose order is their own, so the
// two agree to within the bound Backend.Gemm states, not bit for bit.
var (
	_ driver.ComplexArith   = (*Backend)(nil)
	_ driver.ComplexMath    = (*Backend)(nil)
	_ driver.ComplexKernels = (*Backend)(nil)
)

// complexSource is complex.cu, which KernelSource appends after sort.cu.
//
//go:embed complex.cu
var complexSource string

// complexOps are the operations of complex.cu, each with an entry per
// complex type (xp_cfill_c64, xp_cfill_c128, ...); complexKernelOps those
// of its optional kernels (driver.ComplexKernels), named as the real
// types' entries of the operation (xp_sumaxis_c64, ...); and complexPlain
// those with one entry. Besides them, complex.cu has the conversions
// between each complex type and every other type (cvtName).
var (
	complexOps       = []string{"cfill", "cscale", "caxpy", "caxpby", "cbin", "cbins", "csum", "cdot", "cprod", "cunary", "cunaryr", "cpow", "cpows"}
	complexKernelOps = []string{"sumaxis", "castsums", "scanaxis", "where", "cpscatter", "gemm"}
	complexPlain     = []string{"xp_cfin_f64"}
)

// complexName returns the entry of complex.cu's operation op for the
// complex type dt, as xp_cfill_c64.
func complexName(op string, dt backend.DType) string {
	switch dt {
	case backend.Complex64:
		return "xp_" + op + "_c64"
	case backend.Complex128:
		return "xp_" + op + "_c128"
	}
	panic(fmt.Sprintf("cuda: no complex %s kernel for %v", op, dt))
}

// entryName returns the entry of operation op for element type dt:
// kernelName's for a real type, complexName's for a complex one.
func entryName(op string, dt backend.DType) string {
	if dt.IsComplex() {
		return complexName(op, dt)
	}
	return kernelName(op, dt)
}

// complexEntries returns the names of the entries of complex.cu.
func complexEntries() []string {
	var out []string
	cplx := []backend.DType{backend.Complex64, backend.Complex128}
	for _, dt := range cplx {
		for _, op := range complexOps {
			out = append(out, complexName(op, dt))
		}
		for _, op := range complexKernelOps {
			out = append(out, complexName(op, dt))
		}
		for rt := backend.DType(0); int(rt) < len(typeSuffix); rt++ {
			out = append(out, cvtName(dt, rt), cvtName(rt, dt))
		}
	}
	out = append(out, cvtName(backend.Complex64, backend.Complex128), cvtName(backend.Complex128, backend.Complex64))
	return append(out, complexPlain...)
}

// ComplexArith marks the CUDA backend as one whose arithmetic takes
// complex buffers on the device (driver.ComplexArith).
func (*Backend) ComplexArith() {}

// ComplexKernels marks the CUDA backend as one whose optional kernels
// (SumAxis, CastSums, ScanAxis, Where, Compress, Convert and Gemm) take
// complex buffers on the device too (driver.ComplexKernels).
func (*Backend) ComplexKernels() {}

// cscalar appends s, converted to the complex type dt, as its two parts
// (float32 for complex64, float64 for complex128).
func cscalar(a *Args, dt backend.DType, s driver.Scalar) *Args {
	if dt == backend.Complex64 {
		v := driver.ValueOf[complex64](s)
		return a.Float32(real(v)).Float32(imag(v))
	}
	v := driver.ValueOf[complex128](s)
	return a.Float64(real(v)).Float64(imag(v))
}

// celem launches the elementwise kernel op over d's n elements with args
// (less n, which goes first).
func (b *Backend) celem(name, op string, d *devBuffer, args func(a *Args) *Args) {
	if d.N == 0 {
		return
	}
	b.launch(name, complexName(op, d.DT), elemGrid(d.N), Dim3{X: blockSize}, args((&Args{}).Int64(int64(d.N))))
}

// complexFill is Fill of a complex buffer.
func (b *Backend) complexFill(x driver.Buffer, v driver.Scalar) {
	d := b.buf("Fill", x)
	b.celem("Fill", "cfill", d, func(a *Args) *Args { return cscalar(a, d.DT, v).Buffer(d) })
}

// complexScale is Scale of a complex buffer: x[i] = x[i]*a.
func (b *Backend) complexScale(x driver.Buffer, s driver.Scalar) {
	d := b.buf("Scale", x)
	b.celem("Scale", "cscale", d, func(a *Args) *Args { return cscalar(a, d.DT, s).Buffer(d) })
}

// complexAxpy is Axpy of complex buffers: y = a*x + y.
func (b *Backend) complexAxpy(s driver.Scalar, x, y driver.Buffer) {
	dx, dy := b.buf("Axpy", x), b.buf("Axpy", y)
	sameShape("Axpy", dy, dx)
	b.celem("Axpy", "caxpy", dy, func(a *Args) *Args { return cscalar(a, dy.DT, s).Buffer(dx).Buffer(dy) })
}

// complexAxpby is Axpby of complex buffers: y = a*x + c*y.
func (b *Backend) complexAxpby(s driver.Scalar, x driver.Buffer, c driver.Scalar, y driver.Buffer) {
	dx, dy := b.buf("Axpby", x), b.buf("Axpby", y)
	sameShape("Axpby", dy, dx)
	b.celem("Axpby", "caxpby", dy, func(a *Args) *Args {
		return cscalar(cscalar(a, dy.DT, s).Buffer(dx), dy.DT, c).Buffer(dy)
	})
}

// complexBinary is Binary of complex buffers (op already checked).
func (b *Backend) complexBinary(op driver.BinaryOp, dst, x, y driver.Buffer) {
	dd, dx, dy := b.buf(op.String(), dst), b.buf(op.String(), x), b.buf(op.String(), y)
	sameShape(op.String(), dd, dx, dy)
	b.celem(op.String(), "cbin", dd, func(a *Args) *Args { return a.Int32(int32(op)).Buffer(dd).Buffer(dx).Buffer(dy) })
}

// complexBinaryScalar is BinaryScalar of complex buffers (op already
// checked).
func (b *Backend) complexBinaryScalar(op driver.BinaryOp, dst, x driver.Buffer, s driver.Scalar) {
	dd, dx := b.buf(op.String(), dst), b.buf(op.String(), x)
	sameShape(op.String(), dd, dx)
	b.celem(op.String(), "cbins", dd, func(a *Args) *Args { return cscalar(a.Int32(int32(op)).Buffer(dd).Buffer(dx), dd.DT, s) })
}

// creduce runs a complex reduction in the CPU backend's order over n > 0
// elements: the kernel first (arguments n, args, then the partials: nc
// real sums and nc imaginary ones, one per chunk of momChunk elements),
// then xp_cfin_f64, which adds each half pairwise; it returns the sum. The
// partials are in the scratch memory where they fit, in a temporary
// buffer otherwise.
func (b *Backend) creduce(op, first string, n int, args func(a *Args) *Args) complex128 {
	nc := (n + momChunk - 1) / momChunk
	b.scratchMu.Lock()
	defer b.scratchMu.Unlock()
	var part uint64
	if 2*nc+2 <= maxReduceGrid+2 {
		part = b.scratchLocked(op)
	} else {
		t := b.temp(op, backend.Float64, 2*nc+2)
		defer b.Free(t)
		part = addr(b.buf(op, t))
	}
	res := part + uint64(16*nc)
	b.launch(op, first, elemGrid(nc), Dim3{X: blockSize}, args((&Args{}).Int64(int64(n))).DevicePtr(part))
	b.launch(op, "xp_cfin_f64", Dim3{X: 1}, Dim3{X: 1}, (&Args{}).Int64(int64(nc)).DevicePtr(part).DevicePtr(res))
	var r [2]uint64
	b.readScratch(op, res, r[:])
	return complex(math.Float64frombits(r[0]), math.Float64frombits(r[1]))
}

// complexSum is Sum of a complex buffer: a Complex128 scalar.
func (b *Backend) complexSum(x driver.Buffer) driver.Scalar {
	d := b.buf("Sum", x)
	if d.N == 0 {
		return driver.ScalarOf(complex128(0))
	}
	return driver.ScalarOf(b.creduce("Sum", complexName("csum", d.DT), d.N, func(a *Args) *Args { return a.Buffer(d) }))
}

// complexDot is Dot (Vdot if conj) of complex buffers: a Complex128
// scalar.
func (b *Backend) complexDot(op string, x, y driver.Buffer, conj bool) driver.Scalar {
	dx, dy := b.buf(op, x), b.buf(op, y)
	if !dx.DT.IsComplex() {
		panic(fmt.Sprintf("cuda: %s of %v", op, dx.DT))
	}
	sameShape(op, dx, dy)
	if dx.N == 0 {
		return driver.ScalarOf(complex128(0))
	}
	return driver.ScalarOf(b.creduce(op, complexName("cdot", dx.DT), dx.N, func(a *Args) *Args {
		return a.Buffer(dx).Buffer(dy).Int32(flag(conj))
	}))
}

// ComplexUnary sets dst = op(x) elementwise on the device: dst has x's
// complex type, or its part type where op.RealResult(); dst may be x when
// it has x's type. Conj, Real, Imag, Abs, Angle and Sqrt are the CPU
// backend's bits; Exp and Log agree with its results to a few units in the
// last place (see the package's note on complex.cu).
func (b *Backend) ComplexUnary(op driver.ComplexOp, dst, x driver.Buffer) {
	if op < driver.CExp || op > driver.CImag {
		panic(fmt.Sprintf("cuda: invalid ComplexOp %d", int(op)))
	}
	dd, dx := b.buf(op.String(), dst), b.buf(op.String(), x)
	if dd.N != dx.N || !dx.DT.IsComplex() {
		panic(fmt.Sprintf("cuda: %v of %d %v into %d %v", op, dx.N, dx.DT, dd.N, dd.DT))
	}
	want, kernel := dx.DT, "cunary"
	if op.RealResult() {
		want, kernel = dx.DT.Real(), "cunaryr"
	}
	if dd.DT != want {
		panic(fmt.Sprintf("cuda: %v of %v into %v (want %v)", op, dx.DT, dd.DT, want))
	}
	if dd.N == 0 {
		return
	}
	b.launch(op.String(), complexName(kernel, dx.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Int32(int32(op)).Buffer(dd).Buffer(dx))
}

// complexBufs returns dst and x as complex buffers of this device of one
// type and length.
func (b *Backend) complexBufs(op string, dst, x driver.Buffer) (dd, dx *devBuffer) {
	dd, dx = b.buf(op, dst), b.buf(op, x)
	sameShape(op, dd, dx)
	if !dd.DT.IsComplex() {
		panic(fmt.Sprintf("cuda: %s of %v", op, dd.DT))
	}
	return dd, dx
}

// ComplexPow sets dst = x**y elementwise on the device (math/cmplx's Pow,
// with x**0 = 1 for every x as NumPy's); dst may be x or y.
func (b *Backend) ComplexPow(dst, x, y driver.Buffer) {
	dd, dx := b.complexBufs("ComplexPow", dst, x)
	dy := b.buf("ComplexPow", y)
	sameShape("ComplexPow", dd, dy)
	b.celem("ComplexPow", "cpow", dd, func(a *Args) *Args { return a.Buffer(dd).Buffer(dx).Buffer(dy) })
}

// ComplexPowScalar sets dst = x**s elementwise on the device, s taken as a
// complex128; dst may be x.
func (b *Backend) ComplexPowScalar(dst, x driver.Buffer, s driver.Scalar) {
	dd, dx := b.complexBufs("ComplexPowScalar", dst, x)
	e := s.Complex128()
	b.celem("ComplexPowScalar", "cpows", dd, func(a *Args) *Args {
		return a.Buffer(dd).Buffer(dx).Float64(real(e)).Float64(imag(e))
	})
}

// ComplexProd returns the product of x's elements multiplied in
// complex128 in order, by one device thread (the CPU backend's bits), as a
// Complex128 scalar (1 for an empty x). It waits for the work queued
// before it.
func (b *Backend) ComplexProd(x driver.Buffer) driver.Scalar {
	d := b.buf("ComplexProd", x)
	if !d.DT.IsComplex() {
		panic(fmt.Sprintf("cuda: ComplexProd of %v", d.DT))
	}
	if d.N == 0 {
		return driver.ScalarOf(complex128(1))
	}
	b.scratchMu.Lock()
	defer b.scratchMu.Unlock()
	p := b.scratchLocked("ComplexProd")
	b.launch("ComplexProd", complexName("cprod", d.DT), Dim3{X: 1}, Dim3{X: 1}, (&Args{}).Int64(int64(d.N)).Buffer(d).DevicePtr(p))
	var r [2]uint64
	b.readScratch("ComplexProd", p, r[:])
	return driver.ScalarOf(complex(math.Float64frombits(r[0]), math.Float64frombits(r[1])))
}

// ComplexVdot returns the sum of conj(x[i])*y[i], accumulated as Dot
// accumulates complex products (the CPU backend's bits), as a Complex128
// scalar. It waits for the work queued before it.
func (b *Backend) ComplexVdot(x, y driver.Buffer) driver.Scalar {
	return b.complexDot("ComplexVdot", x, y, true)
}
