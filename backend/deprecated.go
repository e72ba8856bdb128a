package backend

import (
	"unsafe"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// The names below moved to package backend/driver, which holds what an
// implementation of a backend needs. They are forwarded here for a
// forwarding period (see CHANGELOG.md), so that code that names them
// keeps compiling: backend.Buffer is driver.Buffer.

// Buffer is memory for Len elements of one DType on one device.
//
// Deprecated: use driver.Buffer.
type Buffer = driver.Buffer

// Factory makes a backend, or says why it cannot run here.
//
// Deprecated: use driver.Factory.
type Factory = driver.Factory

// Register makes a backend available under name.
//
// Deprecated: use driver.Register.
func Register(name string, f Factory) { driver.Register(name, f) }

// Describer is implemented by backends that can say more about themselves.
//
// Deprecated: use driver.Describer.
type Describer = driver.Describer

// ScalarOf returns v as a Scalar.
//
// Deprecated: use driver.ScalarOf.
func ScalarOf[T Numeric](v T) Scalar { return driver.ScalarOf(v) }

// ValueOf returns s converted to T.
//
// Deprecated: use driver.ValueOf.
func ValueOf[T Numeric](s Scalar) T { return driver.ValueOf[T](s) }

// Async is implemented by device backends: pinned memory, streams and
// asynchronous copies.
//
// Deprecated: use driver.Async.
type Async = driver.Async

// Stream is an ordered queue of device work.
//
// Deprecated: use driver.Stream.
type Stream = driver.Stream

// Event marks a point in a stream.
//
// Deprecated: use driver.Event.
type Event = driver.Event

// AxisReducer is implemented by a backend that reduces a block along one
// axis on its own device.
//
// Deprecated: use driver.AxisReducer.
type AxisReducer = driver.AxisReducer

// ComplexArith is implemented by a backend whose arithmetic takes complex
// buffers.
//
// Deprecated: use driver.ComplexArith.
type ComplexArith = driver.ComplexArith

// ComplexKernels is implemented by a ComplexArith backend whose optional
// kernels take complex buffers too.
//
// Deprecated: use driver.ComplexKernels.
type ComplexKernels = driver.ComplexKernels

// ComplexMath is implemented by a backend that computes the elementwise
// functions of complex arrays on its own device.
//
// Deprecated: use driver.ComplexMath.
type ComplexMath = driver.ComplexMath

// ComplexOp is an elementwise function of a complex argument.
//
// Deprecated: use driver.ComplexOp.
type ComplexOp = driver.ComplexOp

// The elementwise functions of a complex argument.
//
// Deprecated: use driver.CExp, driver.CLog, and so on.
const (
	CExp   = driver.CExp
	CLog   = driver.CLog
	CSqrt  = driver.CSqrt
	CConj  = driver.CConj
	CAbs   = driver.CAbs
	CAngle = driver.CAngle
	CReal  = driver.CReal
	CImag  = driver.CImag
)

// CompareOp is an elementwise comparison.
//
// Deprecated: use driver.CompareOp.
type CompareOp = driver.CompareOp

// The comparisons.
//
// Deprecated: use driver.Less, driver.LessEqual, and so on.
const (
	Less         = driver.Less
	LessEqual    = driver.LessEqual
	Greater      = driver.Greater
	GreaterEqual = driver.GreaterEqual
	Equal        = driver.Equal
	NotEqual     = driver.NotEqual
)

// Converter is implemented by a backend that compares, selects, compacts
// and converts elements on its own device.
//
// Deprecated: use driver.Converter.
type Converter = driver.Converter

// ConvertValue returns v converted to D, by the rules of dist.Astype.
//
// Deprecated: use driver.ConvertValue.
func ConvertValue[D, S Element](v S) D { return driver.ConvertValue[D](v) }

// FloatToInt returns f converted to the integer type D by the rules of
// ConvertValue.
//
// Deprecated: use driver.FloatToInt.
func FloatToInt[D Element](f float64) D { return driver.FloatToInt[D](f) }

// Allocation is one allocation of a device backend's memory.
//
// Deprecated: use driver.Allocation.
type Allocation = driver.Allocation

// DeviceView is a Buffer in a device backend's memory.
//
// Deprecated: use driver.DeviceView.
type DeviceView[A Allocation] = driver.DeviceView[A]

// ViewOf returns x as a view of allocations of type A on device dev.
//
// Deprecated: use driver.ViewOf.
func ViewOf[A Allocation](pkg, op string, x Buffer, dev Device) *DeviceView[A] {
	return driver.ViewOf[A](pkg, op, x, dev)
}

// LiveViewOf is ViewOf for a buffer that must not have been freed.
//
// Deprecated: use driver.LiveViewOf.
func LiveViewOf[A Allocation](pkg, op string, x Buffer, dev Device) *DeviceView[A] {
	return driver.LiveViewOf[A](pkg, op, x, dev)
}

// FFTer is implemented by a backend that computes discrete Fourier
// transforms on its own device.
//
// Deprecated: use driver.FFTer.
type FFTer = driver.FFTer

// CheckFFT panics, saying why, unless x is a complex buffer of pre*n*post
// elements.
//
// Deprecated: use driver.CheckFFT.
func CheckFFT(x Buffer, pre, n, post int) { driver.CheckFFT(x, pre, n, post) }

// GEMM is implemented by a backend that multiplies matrices on its own
// device.
//
// Deprecated: use driver.GEMM.
type GEMM = driver.GEMM

// CheckGemm panics, saying why, if the arguments of a Gemm do not describe
// matrices that the buffers hold.
//
// Deprecated: use driver.CheckGemm.
func CheckGemm(c, a, b Buffer, m, n, k, lda, ldb, ldc int) {
	driver.CheckGemm(c, a, b, m, n, k, lda, ldb, ldc)
}

// HostBuffer is a Buffer over host memory.
//
// Deprecated: use driver.HostBuffer.
type HostBuffer = driver.HostBuffer

// NewHostBuffer returns a HostBuffer over n elements of type dt at p.
//
// Deprecated: use driver.NewHostBuffer.
func NewHostBuffer(p unsafe.Pointer, n int, dt DType) *HostBuffer {
	return driver.NewHostBuffer(p, n, dt)
}

// HostBufferOf returns a HostBuffer over s, without copying.
//
// Deprecated: use driver.HostBufferOf.
func HostBufferOf[T Numeric](s []T) *HostBuffer { return driver.HostBufferOf(s) }

// HostSlice returns the elements of a host buffer as a Go slice, without
// copying.
//
// Deprecated: use driver.HostSlice (or, for an array, Array.Data).
func HostSlice[T Numeric](b Buffer) []T { return driver.HostSlice[T](b) }

// Math is implemented by a backend that computes elementwise math
// functions on its own device.
//
// Deprecated: use driver.Math.
type Math = driver.Math

// UnaryOp is an elementwise function of one argument.
//
// Deprecated: use driver.UnaryOp.
type UnaryOp = driver.UnaryOp

// The elementwise functions of one argument.
//
// Deprecated: use driver.Exp, driver.Log, and so on.
const (
	Exp     = driver.Exp
	Log     = driver.Log
	Sqrt    = driver.Sqrt
	Sin     = driver.Sin
	Cos     = driver.Cos
	Tanh    = driver.Tanh
	Floor   = driver.Floor
	Abs     = driver.Abs
	Log10   = driver.Log10
	Log2    = driver.Log2
	Tan     = driver.Tan
	Arcsin  = driver.Arcsin
	Arccos  = driver.Arccos
	Arctan  = driver.Arctan
	Sinh    = driver.Sinh
	Cosh    = driver.Cosh
	Arcsinh = driver.Arcsinh
	Arccosh = driver.Arccosh
	Arctanh = driver.Arctanh
	Sign    = driver.Sign
)

// NumUnaryOps is the number of UnaryOps.
//
// Deprecated: use driver.NumUnaryOps.
const NumUnaryOps = driver.NumUnaryOps

// BinaryMathOp is an elementwise function of two arguments.
//
// Deprecated: use driver.BinaryMathOp.
type BinaryMathOp = driver.BinaryMathOp

// The elementwise functions of two arguments.
//
// Deprecated: use driver.Maximum, driver.Minimum, and so on.
const (
	Maximum     = driver.Maximum
	Minimum     = driver.Minimum
	Mod         = driver.Mod
	FloorDivide = driver.FloorDivide
	Arctan2     = driver.Arctan2
)

// NumBinaryMathOps is the number of BinaryMathOps.
//
// Deprecated: use driver.NumBinaryMathOps.
const NumBinaryMathOps = driver.NumBinaryMathOps

// RandomKind names a fill of package rng that a RandomFiller runs on its
// device.
//
// Deprecated: use driver.RandomKind.
type RandomKind = driver.RandomKind

// The random fills.
//
// Deprecated: use driver.RandomUniform, driver.RandomNormal and
// driver.RandomInts.
const (
	RandomUniform = driver.RandomUniform
	RandomNormal  = driver.RandomNormal
	RandomInts    = driver.RandomInts
)

// RandomFill says which of package rng's fills a RandomFiller runs and its
// parameters.
//
// Deprecated: use driver.RandomFill.
type RandomFill = driver.RandomFill

// RandomFiller is implemented by a backend that fills its buffers with
// package rng's random numbers on its own device.
//
// Deprecated: use driver.RandomFiller.
type RandomFiller = driver.RandomFiller

// CheckRandom panics, saying why, if a FillRandom does not fit dst.
//
// Deprecated: use driver.CheckRandom.
func CheckRandom(dst Buffer, f RandomFill, runs, n int) { driver.CheckRandom(dst, f, runs, n) }

// Sorter is implemented by a backend that sorts on its own device.
//
// Deprecated: use driver.Sorter.
type Sorter = driver.Sorter

// StatsReducer is implemented by a backend that computes dist's statistics
// on its own device.
//
// Deprecated: use driver.StatsReducer.
type StatsReducer = driver.StatsReducer

// HistogramEdges returns the bins+1 edges of equal-width bins over
// [lo, hi].
//
// Deprecated: use driver.HistogramEdges.
func HistogramEdges(bins int, lo, hi float64) []float64 { return driver.HistogramEdges(bins, lo, hi) }

// Stencils are the 5-point stencils of the heat and Poisson solvers.
//
// Deprecated: use driver.Stencils.
type Stencils = driver.Stencils

// UseStencils makes s the stencils of the backend named name.
//
// Deprecated: use driver.UseStencils.
func UseStencils(name string, s Stencils) { driver.UseStencils(name, s) }

// StencilsOf returns the stencils of backend b.
//
// Deprecated: use driver.StencilsOf.
func StencilsOf(b Backend) Stencils { return driver.StencilsOf(b) }

// WeightedStencils are stencils with weights given by the caller.
//
// Deprecated: use driver.WeightedStencils.
type WeightedStencils = driver.WeightedStencils

// WeightedStencilsOf returns backend b's weighted stencils, and false if
// it has none.
//
// Deprecated: use driver.WeightedStencilsOf.
func WeightedStencilsOf(b Backend) (WeightedStencils, bool) { return driver.WeightedStencilsOf(b) }

// StencilDots are stencils that return a dot product of their input and
// output.
//
// Deprecated: use driver.StencilDots.
type StencilDots = driver.StencilDots
