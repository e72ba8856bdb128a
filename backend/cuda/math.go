package cuda

import (
	_ "embed"
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CUDA backend computes the elementwise math functions on the device,
// as a driver.Math, with the kernels of math.cu: CUDA's own functions
// (expf, exp, ...), with the maximum errors in ulps that the CUDA C
// Programming Guide states (not NumPy's or the CPU backend's bits: only
// Sqrt, Floor, Abs and Clip are exact or correctly rounded everywhere).
var _ driver.Math = (*Backend)(nil)

// mathSource is math.cu, which KernelSource appends to kernels.cu.
//
//go:embed math.cu
var mathSource string

// The operations of math.cu: floats have mathOpsFloat, every element type
// mathOpsAll. The unary ones are named as driver.UnaryOp's String.
var (
	mathOpsFloat = []string{"exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "pow", "pows",
		"log10", "log2", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "arctan2"}
	mathOpsAll = []string{"abs", "clip", "sign", "maximum", "minimum", "mod", "floordiv"}
)

// mathEntries returns the names of the entries of math.cu.
func mathEntries() []string {
	var out []string
	for dt := backend.DType(0); int(dt) < len(typeSuffix); dt++ {
		if dt.IsFloat() {
			for _, op := range mathOpsFloat {
				out = append(out, kernelName(op, dt))
			}
		}
		for _, op := range mathOpsAll {
			out = append(out, kernelName(op, dt))
		}
	}
	return out
}

// mathBufs returns dst and x as buffers of this device after checking that
// they have one type and length and, if floatOnly, that it is a float type.
func (b *Backend) mathBufs(op string, floatOnly bool, dst, x driver.Buffer) (dd, dx *devBuffer) {
	dd, dx = b.buf(op, dst), b.buf(op, x)
	sameShape(op, dd, dx)
	if floatOnly && !dd.DT.IsFloat() {
		panic(fmt.Sprintf("cuda: %s of %v: only float32 and float64 have it", op, dd.DT))
	}
	return dd, dx
}

// Unary sets dst = op(x) elementwise on the device; dst may be x. It
// panics for a floating-point-only op of integer buffers.
func (b *Backend) Unary(op driver.UnaryOp, dst, x driver.Buffer) {
	if !op.Valid() {
		panic(fmt.Sprintf("cuda: invalid UnaryOp %d", int(op)))
	}
	dd, dx := b.mathBufs(op.String(), op.FloatOnly(), dst, x)
	if dd.N == 0 {
		return
	}
	b.launch(op.String(), kernelName(op.String(), dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dx))
}

// BinaryMath sets dst = op(x, y) elementwise on the device; dst may be x
// or y. It panics for Arctan2 of integer buffers.
func (b *Backend) BinaryMath(op driver.BinaryMathOp, dst, x, y driver.Buffer) {
	if !op.Valid() {
		panic(fmt.Sprintf("cuda: invalid BinaryMathOp %d", int(op)))
	}
	dd, dx := b.mathBufs(op.String(), op.FloatOnly(), dst, x)
	dy := b.buf(op.String(), y)
	sameShape(op.String(), dd, dy)
	if dd.N == 0 {
		return
	}
	b.launch(op.String(), kernelName(op.String(), dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dx).Buffer(dy))
}

// Pow sets dst = x**y elementwise on the device (float buffers); dst may
// be x or y.
func (b *Backend) Pow(dst, x, y driver.Buffer) {
	dd, dx := b.mathBufs("Pow", true, dst, x)
	dy := b.buf("Pow", y)
	sameShape("Pow", dd, dy)
	if dd.N == 0 {
		return
	}
	b.launch("Pow", kernelName("pow", dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dx).Buffer(dy))
}

// PowScalar sets dst = x**s elementwise on the device (float buffers);
// dst may be x.
func (b *Backend) PowScalar(dst, x driver.Buffer, s driver.Scalar) {
	dd, dx := b.mathBufs("PowScalar", true, dst, x)
	if dd.N == 0 {
		return
	}
	b.launch("PowScalar", kernelName("pows", dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dx).Scalar(convert(s, dd.DT)))
}

// Clip sets dst = min(max(x, lo), hi) elementwise on the device, as
// NumPy's clip; dst may be x.
func (b *Backend) Clip(dst, x driver.Buffer, lo, hi driver.Scalar) {
	dd, dx := b.mathBufs("Clip", false, dst, x)
	if dd.N == 0 {
		return
	}
	b.launch("Clip", kernelName("clip", dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dx).Scalar(convert(lo, dd.DT)).Scalar(convert(hi, dd.DT)))
}
