package backend

import "fmt"

// UnaryOp is an elementwise function of one argument, as Math.Unary
// applies it.
type UnaryOp int

// The elementwise functions of one argument. Abs is defined for every
// element type; the others for float32 and float64 only.
const (
	Exp UnaryOp = iota
	Log
	Sqrt
	Sin
	Cos
	Tanh
	Floor
	Abs
)

var unaryNames = [...]string{"exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "abs"}

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
// (every UnaryOp but Abs).
func (o UnaryOp) FloatOnly() bool { return o != Abs }

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
