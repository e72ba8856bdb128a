package driver

import "fmt"

// UnaryOp is an elementwise function of one argument, as Math.Unary
// applies it.
type UnaryOp int

// The elementwise functions of one argument. Abs and Sign are defined for
// every element type; the others for float32 and float64 only. Their
// special values are NumPy's (np.log10, np.arcsin, ...): log10 and log2 of
// ±0 are -Inf and of x < 0 NaN; arcsin and arccos of |x| > 1, arccosh of
// x < 1 and arctanh of |x| > 1 are NaN; arctanh(±1) = ±Inf; tan, sin and
// cos of ±Inf are NaN; Sign is -1, 0 or 1 (+0 for ±0, NaN for NaN, 0 or 1
// for unsigned integers).
const (
	Exp UnaryOp = iota
	Log
	Sqrt
	Sin
	Cos
	Tanh
	Floor
	Abs
	Log10
	Log2
	Tan
	Arcsin
	Arccos
	Arctan
	Sinh
	Cosh
	Arcsinh
	Arccosh
	Arctanh
	Sign
)

var unaryNames = [...]string{"exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "abs",
	"log10", "log2", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "sign"}

// NumUnaryOps is the number of UnaryOps: they are 0 to NumUnaryOps-1.
const NumUnaryOps = len(unaryNames)

func (o UnaryOp) String() string {
	if o < 0 || int(o) >= len(unaryNames) {
		return fmt.Sprintf("UnaryOp(%d)", int(o))
	}
	return unaryNames[o]
}

// Valid reports whether o is one of the UnaryOps.
func (o UnaryOp) Valid() bool { return o >= 0 && int(o) < len(unaryNames) }

// FloatOnly reports whether o is defined for floating-point elements only
// (every UnaryOp but Abs and Sign).
func (o UnaryOp) FloatOnly() bool { return o != Abs && o != Sign }

// BinaryMathOp is an elementwise function of two arguments, as
// Math.BinaryMath applies it (the arithmetic of Backend.Binary is
// BinaryOp's).
type BinaryMathOp int

// The elementwise functions of two arguments, NumPy's ufuncs of the same
// names. Maximum, Minimum, Mod and FloorDivide are defined for every real
// element type; Arctan2 for float32 and float64 only.
//
//   - Maximum and Minimum propagate NaN: a NaN in either argument gives
//     NaN. Of equal arguments (+0 and -0) they return y, as NumPy 1.24's
//     loops do on x86-64: maximum(+0, -0) = -0.
//   - Mod is np.remainder: x - floor(x/y)*y, with the sign of y (a zero
//     result is a zero of y's sign), computed as NumPy's npy_divmod from
//     fmod; mod(x, ±0) = NaN, mod(±Inf, y) = NaN, mod(x, ±Inf) = x where x
//     has y's sign (or is ±0) and ±Inf otherwise.
//   - FloorDivide is np.floor_divide: floor(x/y) as npy_divmod computes
//     it, with x/y's value where y is ±0 (±Inf, or NaN for 0/0).
//   - For integers, Mod and FloorDivide by 0 give 0, as NumPy (which also
//     warns), and the most negative signed integer divided by -1 is itself
//     (it wraps) with remainder 0.
//   - Arctan2 is C's atan2(x, y), the angle of the point (y, x): NumPy's
//     np.arctan2(x1=x, x2=y), special values included (atan2(±0, -0) =
//     ±pi, atan2(±Inf, ±Inf) = ±pi/4 or ±3pi/4).
const (
	Maximum BinaryMathOp = iota
	Minimum
	Mod
	FloorDivide
	Arctan2
)

var binaryMathNames = [...]string{"maximum", "minimum", "mod", "floordiv", "arctan2"}

// NumBinaryMathOps is the number of BinaryMathOps: they are 0 to
// NumBinaryMathOps-1.
const NumBinaryMathOps = len(binaryMathNames)

func (o BinaryMathOp) String() string {
	if !o.Valid() {
		return fmt.Sprintf("BinaryMathOp(%d)", int(o))
	}
	return binaryMathNames[o]
}

// Valid reports whether o is one of the BinaryMathOps.
func (o BinaryMathOp) Valid() bool { return o >= 0 && int(o) < len(binaryMathNames) }

// FloatOnly reports whether o is defined for floating-point elements only
// (Arctan2).
func (o BinaryMathOp) FloatOnly() bool { return o == Arctan2 }

// Math is implemented by a backend that computes elementwise math
// functions on its own device, so that dist's Exp, Log, ..., Pow and Clip
// of a device array stay on the device. In every method dst and x are
// buffers of the same length and type on the backend's device, and dst
// may be x (each element is read before it is written); y too may be dst.
//
// Results are NumPy's for the same element type, special values included:
// log(0) = -Inf, log(x < 0) = NaN, sqrt(x < 0) = NaN, exp of a large x =
// +Inf, pow(0, y < 0) = +Inf, pow(x < 0, non-integer y) = NaN, pow(x, 0) =
// 1 and pow(1, y) = 1 even for a NaN x or y; Abs of the most negative
// signed integer is itself (it wraps) and Abs of an unsigned integer is
// the identity. Rounding may differ from NumPy's by a few units in the last
// place: each implementation states its bound.
//
// The CPU backend, the fake device and CUDA implement it; a backend that
// does not has the block copied to the host and back by dist, recorded as
// the copies they are.
type Math interface {
	// Unary sets dst[i] = op(x[i]). It panics for a floating-point-only op
	// (op.FloatOnly()) of integer buffers.
	Unary(op UnaryOp, dst, x Buffer)
	// BinaryMath sets dst[i] = op(x[i], y[i]), for real buffers; dst may
	// be x or y. It panics for a floating-point-only op (op.FloatOnly())
	// of integer buffers.
	BinaryMath(op BinaryMathOp, dst, x, y Buffer)
	// Pow sets dst[i] = x[i] raised to y[i], for float buffers.
	Pow(dst, x, y Buffer)
	// PowScalar sets dst[i] = x[i] raised to s, for float buffers; s is a
	// Scalar of x's type.
	PowScalar(dst, x Buffer, s Scalar)
	// Clip sets dst[i] = min(max(x[i], lo), hi), lo and hi Scalars of x's
	// type, as NumPy's clip: a NaN among x[i], lo and hi gives NaN, and
	// lo > hi gives hi everywhere.
	Clip(dst, x Buffer, lo, hi Scalar)
}
