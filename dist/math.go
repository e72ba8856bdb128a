package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// The elementwise math functions below are not collective: each rank works
// on its own block, without communication. The arrays must have the same
// layout (a different layout panics, naming both) and their blocks must be
// on the same device; dst may be x (and, for Pow, y).
//
// Results are NumPy's (numpy 1.24) for the same element type, special
// values included, and the tests check them against NumPy's values
// (dist/testdata/math_gen.py): log(0) = -Inf, log(x < 0) = NaN,
// sqrt(x < 0) = NaN, sqrt(-0) = -0, exp(1000) = +Inf, exp(-1000) = 0,
// sin(±Inf) = NaN, tanh(±Inf) = ±1, floor(-0.5) = -0, NaN in gives NaN
// out. Floor, Abs and Clip are exact and Sqrt is correctly rounded on every
// backend. Exp, Log, Sin, Cos, Tanh and Pow are not correctly rounded
// (neither are NumPy's) and may differ from NumPy's results in the last
// bits. On the CPU backend (and the fake device) float32 results are
// computed in float64 and rounded once, and are within 2 ulps of NumPy's
// float32 results (NumPy's float32 exp is the one 2 ulps off); float64
// results are within 1 ulp of NumPy's for Exp, Log and Tanh, 2 for Pow,
// and 25 ulps for Sin and 7 for Cos (Go's Sin and Cos lose bits in the
// argument reduction near multiples of pi/2 and for huge arguments): the
// largest distances over the tests' fixtures, dist/math_test.go. On CUDA the functions are CUDA's
// (expf, exp, ...; no fast-math intrinsics), with the maximum errors that
// the CUDA C Programming Guide's appendix on mathematical functions states;
// the tests check their host (g++ and glibc) build against Go's results,
// not a GPU.
//
// On a backend that implements backend.Math (the CPU backend, the fake
// device and CUDA) the functions run on the block's device and never fail.
// On another backend the block is copied to the host, computed there and
// copied back, each copy recorded (package profiling), and a failed copy is
// returned as the error.

// Exp sets dst = e**x elementwise; dst may be x. Overflow gives +Inf
// (exp(1000)), underflow 0, exp(-Inf) = 0. For complex arrays Exp, Log,
// Sqrt, Pow and PowScalar are math/cmplx's, with the special values that
// complex.go lists where they differ from NumPy's.
func Exp[T backend.Inexact](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Exp")
	}
	if isComplex[T]() {
		return complexUnary("Exp", backend.CExp, dst, x)
	}
	return realMath(dst, func(d *Array[float32]) error { return unary(backend.Exp, "Exp", d, any(x).(*Array[float32])) },
		func(d *Array[float64]) error { return unary(backend.Exp, "Exp", d, any(x).(*Array[float64])) })
}

// Log sets dst to the natural logarithm of x elementwise; dst may be x.
// log(±0) = -Inf, log(x < 0) = NaN, log(+Inf) = +Inf.
func Log[T backend.Inexact](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Log")
	}
	if isComplex[T]() {
		return complexUnary("Log", backend.CLog, dst, x)
	}
	return realMath(dst, func(d *Array[float32]) error { return unary(backend.Log, "Log", d, any(x).(*Array[float32])) },
		func(d *Array[float64]) error { return unary(backend.Log, "Log", d, any(x).(*Array[float64])) })
}

// Sqrt sets dst to the square root of x elementwise, correctly rounded;
// dst may be x. sqrt(x < 0) = NaN, sqrt(-0) = -0.
func Sqrt[T backend.Inexact](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Sqrt")
	}
	if isComplex[T]() {
		return complexUnary("Sqrt", backend.CSqrt, dst, x)
	}
	return realMath(dst, func(d *Array[float32]) error { return unary(backend.Sqrt, "Sqrt", d, any(x).(*Array[float32])) },
		func(d *Array[float64]) error { return unary(backend.Sqrt, "Sqrt", d, any(x).(*Array[float64])) })
}

// Sin sets dst = sin(x) elementwise (x in radians); dst may be x.
// sin(±Inf) = NaN.
func Sin[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Sin")
	}
	return unary(backend.Sin, "Sin", dst, x)
}

// Cos sets dst = cos(x) elementwise (x in radians); dst may be x.
// cos(±Inf) = NaN.
func Cos[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Cos")
	}
	return unary(backend.Cos, "Cos", dst, x)
}

// Tanh sets dst = tanh(x) elementwise; dst may be x. tanh(±Inf) = ±1.
func Tanh[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Tanh")
	}
	return unary(backend.Tanh, "Tanh", dst, x)
}

// Floor sets dst to the largest integer not above x, elementwise; dst may
// be x. It is exact; floor(-0.5) = -0, and ±Inf and NaN are kept.
func Floor[T backend.Float](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Floor")
	}
	return unary(backend.Floor, "Floor", dst, x)
}

// Abs sets dst = |x| elementwise, for every element type; dst may be x.
// For floats abs(-0) = +0 and abs(NaN) is NaN; Abs of an unsigned integer
// is the identity, and of the most negative signed integer (-2**31,
// -2**63) is itself, as NumPy's abs (the negation wraps).
func Abs[T backend.Element](dst, x *Array[T]) error {
	if dst.freed || x.freed {
		return freedError("Abs")
	}
	return unary(backend.Abs, "Abs", dst, x)
}

// Pow sets dst = x**y elementwise; dst may be x or y. As NumPy (and C's
// pow): pow(x, ±0) = 1 and pow(1, y) = 1 even for a NaN x or y;
// pow(±0, y < 0) = +Inf (-Inf for -0 and an odd integer y), so
// pow(0, -1) = +Inf; pow(x < 0, non-integer y) = NaN; overflow gives ±Inf.
// On the CPU backend and the fake device, a power with an integer y up to
// 64 in magnitude is correctly rounded (exact where the result is a
// float64: 3**2 = 9, 2**-4 = 0.0625), and x**0.5 is Sqrt(x).
func Pow[T backend.Inexact](dst, x, y *Array[T]) error {
	if dst.freed || x.freed || y.freed {
		return freedError("Pow")
	}
	if isComplex[T]() {
		return complexPow(dst, x, y)
	}
	return realMath(dst, func(d *Array[float32]) error { return pow(d, any(x).(*Array[float32]), any(y).(*Array[float32])) },
		func(d *Array[float64]) error { return pow(d, any(x).(*Array[float64]), any(y).(*Array[float64])) })
}

func pow[T backend.Float](dst, x, y *Array[T]) error {
	return onMath("Pow", func(m backend.Math, b []backend.Buffer) { m.Pow(b[0], b[1], b[2]) }, dst, x, y)
}

// PowScalar sets dst = x**s elementwise; dst may be x. Special values are
// Pow's.
func PowScalar[T backend.Inexact](dst, x *Array[T], s T) error {
	if dst.freed || x.freed {
		return freedError("PowScalar")
	}
	if isComplex[T]() {
		return complexPowScalar(dst, x, s)
	}
	return realMath(dst, func(d *Array[float32]) error { return powScalar(d, any(x).(*Array[float32]), any(s).(float32)) },
		func(d *Array[float64]) error { return powScalar(d, any(x).(*Array[float64]), any(s).(float64)) })
}

func powScalar[T backend.Float](dst, x *Array[T], s T) error {
	return onMath("PowScalar", func(m backend.Math, b []backend.Buffer) {
		m.PowScalar(b[0], b[1], backend.ScalarOf(s))
	}, dst, x)
}

// Clip sets dst = min(max(x, lo), hi) elementwise, for every element type,
// as NumPy's clip ufunc; dst may be x. A NaN x gives NaN, lo > hi gives hi
// everywhere, and of -0 and +0 the element is kept unless it is strictly
// beyond the bound. A NaN bound gives NaN everywhere, as the ufunc and as
// np.clip with array bounds; np.clip 1.24 with a scalar NaN bound treats it
// as no bound, which it deprecates in favour of NaN.
func Clip[T backend.Element](dst, x *Array[T], lo, hi T) error {
	if dst.freed || x.freed {
		return freedError("Clip")
	}
	return onMath("Clip", func(m backend.Math, b []backend.Buffer) {
		m.Clip(b[0], b[1], backend.ScalarOf(lo), backend.ScalarOf(hi))
	}, dst, x)
}

func unary[T backend.Element](op backend.UnaryOp, name string, dst, x *Array[T]) error {
	return onMath(name, func(m backend.Math, b []backend.Buffer) { m.Unary(op, b[0], b[1]) }, dst, x)
}

// onMath checks that arrays (dst first, then the operands) have one layout
// and one device, and runs f with the blocks' backend.Math and buffers: the
// backend of the blocks, or, if it is not a backend.Math, the CPU backend
// on host copies of the operands (recorded), whose result is then copied
// into dst's block (recorded).
func onMath[T backend.Element](name string, f func(m backend.Math, bufs []backend.Buffer), arrays ...*Array[T]) error {
	sameLayout(name, arrays...)
	dev := arrays[0].local.Device()
	for _, a := range arrays[1:] {
		if d := a.local.Device(); d != dev {
			panic(fmt.Sprintf("dist: %s: blocks on %v and %v; move one with ToHost or ToDevice", name, dev, d))
		}
	}
	bufs := make([]backend.Buffer, len(arrays))
	if m, ok := arrays[0].local.Backend().(backend.Math); ok {
		for i, a := range arrays {
			bufs[i] = a.local.Buffer()
		}
		f(m, bufs)
		return nil
	}
	dst := arrays[0].local
	if dst.Len() == 0 {
		return nil
	}
	// A backend without math functions on its device: compute on host
	// copies. Each operand is copied once (dst, if an operand, reuses its
	// copy), and dst's block, written completely, is not copied to the host
	// unless it is an operand.
	hosts := make([]*backend.Array[T], len(arrays))
	for i := 1; i < len(arrays); i++ {
		a := arrays[i].local
		for j := 1; j < i; j++ {
			if arrays[j].local == a {
				hosts[i] = hosts[j]
			}
		}
		if hosts[i] == nil {
			h, err := backend.ToHost(a)
			if err != nil {
				return err
			}
			hosts[i] = h
		}
		if a == dst {
			hosts[0] = hosts[i]
		}
	}
	if hosts[0] == nil || hosts[0] == arrays[0].local {
		// A host dst not on the CPU backend must not be written through it
		// either: compute into a fresh slice.
		hosts[0] = backend.Wrap(make([]T, dst.Len()))
	}
	for i, h := range hosts {
		bufs[i] = h.Buffer()
	}
	f(backend.Wrap([]T{}).Backend().(backend.Math), bufs)
	return backend.CopyFromHostSlice(dst, hosts[0].Data())
}
