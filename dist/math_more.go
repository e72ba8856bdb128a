package dist

import (
	"github.com/xpmpi/xpmpi/backend"
)

// The elementwise functions below (NumPy's log10, log2, tan, arcsin,
// arccos, arctan, sinh, cosh, arcsinh, arccosh, arctanh, sign, maximum,
// minimum, remainder, floor_divide and arctan2) follow the rules of
// math.go's: they are not collective, each rank works on its own block;
// the arrays must have the same layout (a different layout panics) and
// their blocks must be on the same device; dst may be any operand. On a
// backend.Math (the CPU backend, the fake device, CUDA's kernels in
// backend/cuda/math.cu) they run on the block's device and never fail;
// elsewhere the block is computed on a host copy, recorded.
//
// Special values are NumPy's (numpy 1.24, checked in math_more_test.go
// against testdata/math_more.json): log10 and log2 of ±0 are -Inf, of x < 0
// NaN; arcsin and arccos of |x| > 1, arccosh of x < 1 and arctanh of
// |x| > 1 are NaN, arctanh(±1) = ±Inf; tan(±Inf) = NaN; sinh and cosh
// overflow to ±Inf and +Inf only beyond |x| = 710.47. Accuracy on the CPU
// backend and the fake device, against NumPy's results (glibc's) over the
// fixtures: Log10 and Log2 are correctly rounded but for rare double
// roundings (exact at powers of 10 and 2); the others within the ulps that
// math_more_test.go states (Tan loses bits in Go's argument reduction as
// Sin does: 26 ulps at 1.8e308). On CUDA they are CUDA's functions, with
// the errors the CUDA C Programming Guide states. Maximum, Minimum, Mod,
// FloorDivide and Sign are exact everywhere.

// Log10 sets dst to the base-10 logarithm of x elementwise; dst may be x.
// log10(±0) = -Inf, log10(x < 0) = NaN, log10(10**k) = k exactly.
func Log10[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Log10")
	}
	return unary(backend.Log10, "Log10", dst, x)
}

// Log2 sets dst to the base-2 logarithm of x elementwise; dst may be x.
// log2(±0) = -Inf, log2(x < 0) = NaN, log2(2**k) = k exactly.
func Log2[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Log2")
	}
	return unary(backend.Log2, "Log2", dst, x)
}

// Tan sets dst = tan(x) elementwise (x in radians); dst may be x.
// tan(±Inf) = NaN, tan(±0) = ±0.
func Tan[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Tan")
	}
	return unary(backend.Tan, "Tan", dst, x)
}

// Arcsin sets dst to the inverse sine of x elementwise, in [-pi/2, pi/2];
// dst may be x. arcsin(|x| > 1) = NaN.
func Arcsin[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Arcsin")
	}
	return unary(backend.Arcsin, "Arcsin", dst, x)
}

// Arccos sets dst to the inverse cosine of x elementwise, in [0, pi]; dst
// may be x. arccos(|x| > 1) = NaN.
func Arccos[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Arccos")
	}
	return unary(backend.Arccos, "Arccos", dst, x)
}

// Arctan sets dst to the inverse tangent of x elementwise, in
// [-pi/2, pi/2]; dst may be x. arctan(±Inf) = ±pi/2.
func Arctan[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Arctan")
	}
	return unary(backend.Arctan, "Arctan", dst, x)
}

// Sinh sets dst = sinh(x) elementwise; dst may be x. sinh(±Inf) = ±Inf.
func Sinh[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Sinh")
	}
	return unary(backend.Sinh, "Sinh", dst, x)
}

// Cosh sets dst = cosh(x) elementwise; dst may be x. cosh(±Inf) = +Inf.
func Cosh[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Cosh")
	}
	return unary(backend.Cosh, "Cosh", dst, x)
}

// Arcsinh sets dst to the inverse hyperbolic sine of x elementwise; dst
// may be x. arcsinh(±Inf) = ±Inf.
func Arcsinh[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Arcsinh")
	}
	return unary(backend.Arcsinh, "Arcsinh", dst, x)
}

// Arccosh sets dst to the inverse hyperbolic cosine of x elementwise; dst
// may be x. arccosh(x < 1) = NaN, arccosh(1) = 0.
func Arccosh[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Arccosh")
	}
	return unary(backend.Arccosh, "Arccosh", dst, x)
}

// Arctanh sets dst to the inverse hyperbolic tangent of x elementwise; dst
// may be x. arctanh(±1) = ±Inf, arctanh(|x| > 1) = NaN.
func Arctanh[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Arctanh")
	}
	return unary(backend.Arctanh, "Arctanh", dst, x)
}

// Sign sets dst to NumPy's sign of x elementwise, for every real element
// type: -1 for x < 0, 1 for x > 0, 0 for ±0 (+0, as NumPy), NaN for NaN;
// 0 or 1 for unsigned integers. dst may be x.
func Sign[T backend.Element](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Sign")
	}
	return unary(backend.Sign, "Sign", dst, x)
}

// Maximum sets dst to the larger of x and y elementwise, as np.maximum,
// for every real element type; dst may be x or y. A NaN in either gives
// NaN (np.fmax's NaN-ignoring form is not provided). Of equal elements
// (+0 and -0) it returns y's, as NumPy 1.24 does on x86-64: maximum(+0,
// -0) = -0.
func Maximum[T backend.Element](dst, x, y *Array[T]) error {
	return binaryMath(backend.Maximum, "Maximum", dst, x, y)
}

// Minimum sets dst to the smaller of x and y elementwise, as np.minimum;
// NaN and equal elements as Maximum.
func Minimum[T backend.Element](dst, x, y *Array[T]) error {
	return binaryMath(backend.Minimum, "Minimum", dst, x, y)
}

// Mod sets dst to the remainder of x divided by y elementwise, as
// np.remainder (np.mod, Python's %): x - FloorDivide(x, y)*y, with the
// sign of y, for every real element type; dst may be x or y. Floats:
// mod(5, -3) = -1, mod(-5, 3) = 1, a zero result is a zero of y's sign,
// mod(x, ±0) = NaN, mod(±Inf, y) = NaN, mod(x, ±Inf) = x if x has y's sign
// (or is ±0) and ±Inf (y's sign) otherwise, as NumPy's npy_divmod. Integers
// divided by 0 give 0, as NumPy (which also warns; integer division has no
// NaN to return, and an error would make an elementwise function
// collective): choose Where on a mask of y == 0 to say otherwise.
func Mod[T backend.Element](dst, x, y *Array[T]) error {
	return binaryMath(backend.Mod, "Mod", dst, x, y)
}

// FloorDivide sets dst = floor(x / y) elementwise, as np.floor_divide
// (Python's //), for every real element type; dst may be x or y. Div is
// the truncating quotient of integers; FloorDivide rounds toward -Inf:
// floor_divide(-5, 3) = -2. Floats: as NumPy's npy_divmod,
// floor_divide(x, ±0) = x/±0 (±Inf, NaN for 0/0), floor_divide(±Inf, y) =
// NaN, floor_divide(-5, +Inf) = -1 and (5, +Inf) = 0. Integers: division
// by 0 gives 0, as NumPy (see Mod), and the most negative signed integer
// divided by -1 is itself (it wraps, as NumPy's).
func FloorDivide[T backend.Element](dst, x, y *Array[T]) error {
	return binaryMath(backend.FloorDivide, "FloorDivide", dst, x, y)
}

// Arctan2 sets dst to the angle in radians, in [-pi, pi], of the point
// (y, x) elementwise: np.arctan2(x, y), C's atan2(x, y), so that x is the
// ordinate; dst may be x or y. arctan2(±0, -0) = ±pi, arctan2(±0, +0) =
// ±0, arctan2(±Inf, +Inf) = ±pi/4, arctan2(±Inf, -Inf) = ±3pi/4.
func Arctan2[T backend.Float](dst, x, y *Array[T]) error {
	return binaryMath(backend.Arctan2, "Arctan2", dst, x, y)
}

func binaryMath[T backend.Element](op backend.BinaryMathOp, name string, dst, x, y *Array[T]) error {
	if dst.freed || x.freed || y.freed {
		return freedError(name)
	}
	return onMath(name, func(m backend.Math, b []backend.Buffer) { m.BinaryMath(op, b[0], b[1], b[2]) }, dst, x, y)
}
