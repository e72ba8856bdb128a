package driver

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dtype"
)

// CompareOp is an elementwise comparison.
type CompareOp int

// The comparisons. Every comparison with a NaN is false, except NotEqual,
// which is true: NumPy's (and IEEE 754's) rule.
const (
	Less CompareOp = iota
	LessEqual
	Greater
	GreaterEqual
	Equal
	NotEqual
)

func (o CompareOp) String() string {
	switch o {
	case Less:
		return "less"
	case LessEqual:
		return "less_equal"
	case Greater:
		return "greater"
	case GreaterEqual:
		return "greater_equal"
	case Equal:
		return "equal"
	case NotEqual:
		return "not_equal"
	}
	return fmt.Sprintf("CompareOp(%d)", int(o))
}

// Converter is implemented by a backend that compares, selects, compacts
// and converts elements on its own device, so that dist's masks and Astype
// of a device array stay on the device. A mask is a Uint8 buffer holding 0
// and 1 (NumPy's bool storage); where a mask is read, any nonzero byte
// counts as true.
//
// The CPU backend, the fake device and CUDA implement it (and
// ComplexKernels, so Where, Compress and Convert take complex buffers
// too); a backend that does not has the blocks copied to the host for
// these operations and the results copied back, recorded as the copies
// they are, and so has complex blocks on a backend that is not also a
// ComplexKernels.
type Converter interface {
	// Compare sets mask[i] to 1 where x[i] op y[i] holds and to 0
	// elsewhere. x and y have one type; all three have one length.
	Compare(op CompareOp, mask, x, y Buffer)
	// CompareScalar sets mask[i] to 1 where x[i] op s holds (s of x's
	// type) and to 0 elsewhere.
	CompareScalar(op CompareOp, mask, x Buffer, s Scalar)
	// Where sets dst[i] to a[i] where mask[i] is nonzero and to b[i]
	// elsewhere. dst may be a or b. On a backend that is also a
	// ComplexKernels it takes complex buffers too.
	Where(dst, mask, a, b Buffer)
	// Compress copies the elements x[i] whose mask[i] is nonzero, in
	// order, to the start of dst (at least as long as their count), and
	// returns their count. It waits for the work queued before it. On a
	// backend that is also a ComplexKernels it takes complex buffers too.
	Compress(dst, x, mask Buffer) int
	// Convert sets dst[i] to src[i] converted to dst's type by the rules
	// of ConvertValue; dst and src have one length and may have any two
	// element types. A real value becomes a complex one's real part
	// (rounded to its part type), complex converts to complex part by
	// part, and complex to real converts the real part (dist decides
	// whether dropping the imaginary part is allowed).
	Convert(dst, src Buffer)
}

// ConvertValue returns v converted to D, by the rules of dist.Astype:
// NumPy's on x86-64 where C defines the conversion, and x86-64's where it
// does not.
//
//   - Between integers the value wraps (is reduced modulo 2^bits of D), as
//     in Go and C.
//   - Integers to floats and floats to narrower floats round to nearest,
//     ties to even; floats too large for float32 become ±Inf; NaN stays
//     NaN.
//   - Floats to integers truncate toward zero where the truncated value
//     fits D.
//   - Where it does not (NaN, ±Inf, or out of range), C leaves the result
//     undefined; ConvertValue gives what x86-64's truncating conversion
//     gives, as NumPy's scalar loops do there: the value goes through
//     int32 for int8, int16, int32, uint8 and uint16 targets and through
//     int64 for int64, uint32 and uint64 targets (uint64 also taking
//     [2^63, 2^64) exactly), a NaN or a value that does not fit that
//     intermediate becomes its minimum (-2^31 or -2^63, the "integer
//     indefinite" value), and the intermediate then wraps to D. So NaN
//     and ±Inf become -2^31 as int32, -2^63 as int64, 2^63 as uint64, and
//     0 as int8, int16, uint8, uint16 and uint32; 300.7 becomes 44 as
//     int8; -1.5 becomes 2^64-1 as uint64. (NumPy's vectorized loops for
//     uint32 and uint64 targets give other values on some CPUs; this
//     rule does not depend on the CPU or the backend.)
func ConvertValue[D, S dtype.Element](v S) D {
	if !dtype.Of[S]().IsFloat() || dtype.Of[D]().IsFloat() {
		return D(v)
	}
	return FloatToInt[D](float64(v))
}

// FloatToInt returns f converted to the integer type D by the rules of
// ConvertValue. It panics if D is a floating-point type.
func FloatToInt[D dtype.Element](f float64) D {
	switch dt := dtype.Of[D](); dt {
	case dtype.Int64, dtype.Uint32:
		return D(truncInt64(f))
	case dtype.Uint64:
		if f >= 0x1p63 && f < 0x1p64 {
			return D(uint64(f))
		}
		return D(truncInt64(f))
	case dtype.Int8, dtype.Int16, dtype.Int32, dtype.Uint8, dtype.Uint16:
		return D(truncInt32(f))
	default:
		panic(fmt.Sprintf("backend: FloatToInt to %v", dt))
	}
}

// truncInt64 is x86-64's cvttsd2si to 64 bits: f truncated toward zero, or
// -2^63 where that does not fit or f is NaN.
func truncInt64(f float64) int64 {
	if f >= -0x1p63 && f < 0x1p63 {
		return int64(f)
	}
	return -1 << 63
}

// truncInt32 is x86-64's cvttsd2si to 32 bits: f truncated toward zero, or
// -2^31 where that does not fit or f is NaN.
func truncInt32(f float64) int32 {
	if f > -0x1p31-1 && f < 0x1p31 {
		return int32(f)
	}
	return -1 << 31
}
