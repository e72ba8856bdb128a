package cpu

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CPU backend computes the elementwise math functions as a
// driver.Math, in float64: a float32 element is converted to float64, the
// function applied, and the result rounded to float32 (exact for Abs and
// Floor, correctly rounded for Sqrt, and for the others within 1 ulp of
// the exact result, since their float64 error is far below half a float32
// ulp). In float64 Floor and Abs are exact and Sqrt correctly rounded; Exp
// (fdlibm's algorithm, exp below), Log (math.Log, logSub below), Tanh
// (math.Tanh) and Pow (pow below, in double-double) are within about 1 ulp
// but not correctly rounded (Pow is, but for rare double roundings, for
// integer y up to 64 in magnitude, and x**0.5 is Sqrt), and Sin and Cos are math.Sin and math.Cos,
// whose argument reduction loses bits near multiples of pi/2 (sin(pi) is 7
// ulps off) and for huge arguments (25 ulps at 1.8e308). dist/math_test.go
// states the measured bounds against NumPy.
var _ driver.Math = (*Backend)(nil)

// mathOps is the type-erased form of the math functions for one element
// type.
type mathOps interface {
	unary(op driver.UnaryOp, dst, x driver.Buffer)
	binary(op driver.BinaryMathOp, dst, x, y driver.Buffer)
	pow(dst, x, y driver.Buffer)
	powScalar(dst, x driver.Buffer, s driver.Scalar)
	clip(dst, x driver.Buffer, lo, hi driver.Scalar)
}

// mathOpsFor returns the math functions of dt: floats have all of them,
// integers Abs and Clip.
func mathOpsFor(dt backend.DType) mathOps {
	switch dt {
	case backend.Float32:
		return floatMath[float32]{}
	case backend.Float64:
		return floatMath[float64]{}
	case backend.Int32:
		return intMath[int32]{}
	case backend.Int64:
		return intMath[int64]{}
	case backend.Uint32:
		return intMath[uint32]{}
	case backend.Uint64:
		return intMath[uint64]{}
	case backend.Int8:
		return intMath[int8]{}
	case backend.Int16:
		return intMath[int16]{}
	case backend.Uint8:
		return intMath[uint8]{}
	case backend.Uint16:
		return intMath[uint16]{}
	}
	panic(fmt.Sprintf("cpu: invalid DType %d", int(dt)))
}

// Unary sets dst = op(x) elementwise; dst may be x. It panics for a
// floating-point-only op of integer buffers.
func (*Backend) Unary(op driver.UnaryOp, dst, x driver.Buffer) {
	if !op.Valid() {
		panic(fmt.Sprintf("cpu: invalid UnaryOp %d", int(op)))
	}
	sameBufs(op.String(), dst, x)
	mathOpsFor(dst.DType()).unary(op, dst, x)
}

// Pow sets dst = x**y elementwise (float buffers); dst may be x or y.
func (*Backend) Pow(dst, x, y driver.Buffer) {
	sameBufs("pow", dst, x, y)
	mathOpsFor(dst.DType()).pow(dst, x, y)
}

// PowScalar sets dst = x**s elementwise (float buffers); dst may be x.
func (*Backend) PowScalar(dst, x driver.Buffer, s driver.Scalar) {
	sameBufs("pow", dst, x)
	mathOpsFor(dst.DType()).powScalar(dst, x, s)
}

// Clip sets dst = min(max(x, lo), hi) elementwise as NumPy's clip; dst may
// be x.
func (*Backend) Clip(dst, x driver.Buffer, lo, hi driver.Scalar) {
	sameBufs("clip", dst, x)
	mathOpsFor(dst.DType()).clip(dst, x, lo, hi)
}

// sameBufs panics unless the buffers have the type and length of the
// first.
func sameBufs(op string, bufs ...driver.Buffer) {
	for _, x := range bufs[1:] {
		if x.DType() != bufs[0].DType() || x.Len() != bufs[0].Len() {
			panic(fmt.Sprintf("cpu: %s of %d %v and %d %v", op, bufs[0].Len(), bufs[0].DType(), x.Len(), x.DType()))
		}
	}
}

// floatFuncs are the float64 functions of the float-only UnaryOps.
var floatFuncs = [...]func(float64) float64{
	driver.Exp:   exp,
	driver.Log:   logSub,
	driver.Sqrt:  math.Sqrt,
	driver.Sin:   math.Sin,
	driver.Cos:   math.Cos,
	driver.Tanh:  math.Tanh,
	driver.Floor: math.Floor,
	driver.Abs:   math.Abs,
	// math_more.go
	driver.Log10:   log10,
	driver.Log2:    log2,
	driver.Tan:     math.Tan,
	driver.Arcsin:  asin,
	driver.Arccos:  acos,
	driver.Arctan:  math.Atan,
	driver.Sinh:    sinh,
	driver.Cosh:    cosh,
	driver.Arcsinh: math.Asinh,
	driver.Arccosh: math.Acosh,
	driver.Arctanh: math.Atanh,
	driver.Sign:    sign,
}

type floatMath[T backend.Float] struct{}

func (floatMath[T]) unary(op driver.UnaryOp, dst, x driver.Buffer) {
	f := floatFuncs[op]
	mapK(hs[T](dst), hs[T](x), func(v T) T { return T(f(float64(v))) })
}

func (floatMath[T]) pow(dst, x, y driver.Buffer) {
	d, a, b := hs[T](dst), hs[T](x), hs[T](y)
	if n := len(d); n >= elemParMin {
		parallel(n, func(lo, hi int) { powK(d[lo:hi], a[lo:hi], b[lo:hi]) })
		return
	}
	powK(d, a, b)
}

func powK[T backend.Float](dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = T(pow(float64(x[i]), float64(y[i])))
	}
}

func (floatMath[T]) powScalar(dst, x driver.Buffer, s driver.Scalar) {
	e := float64(driver.ValueOf[T](s))
	mapK(hs[T](dst), hs[T](x), func(v T) T { return T(pow(float64(v), e)) })
}

func (floatMath[T]) clip(dst, x driver.Buffer, lo, hi driver.Scalar) {
	clipAll(hs[T](dst), hs[T](x), driver.ValueOf[T](lo), driver.ValueOf[T](hi))
}

// intMath are the math functions of an integer type: Abs and Clip.
type intMath[T backend.Element] struct{}

func (intMath[T]) unary(op driver.UnaryOp, dst, x driver.Buffer) {
	if op == driver.Sign {
		mapK(hs[T](dst), hs[T](x), intSign[T])
		return
	}
	if op != driver.Abs {
		panic(fmt.Sprintf("cpu: %v of %v: only float32 and float64 have it", op, dst.DType()))
	}
	// -v wraps for the most negative signed integer, as NumPy's abs; an
	// unsigned v is never negative.
	mapK(hs[T](dst), hs[T](x), func(v T) T {
		if v < 0 {
			return -v
		}
		return v
	})
}

func (intMath[T]) pow(dst, x, y driver.Buffer) {
	panic(fmt.Sprintf("cpu: pow of %v: only float32 and float64 have it", dst.DType()))
}

func (intMath[T]) powScalar(dst, x driver.Buffer, s driver.Scalar) {
	panic(fmt.Sprintf("cpu: pow of %v: only float32 and float64 have it", dst.DType()))
}

func (intMath[T]) clip(dst, x driver.Buffer, lo, hi driver.Scalar) {
	clipAll(hs[T](dst), hs[T](x), driver.ValueOf[T](lo), driver.ValueOf[T](hi))
}

// mapK sets dst[i] = f(x[i]), in parallel above the elementwise threshold.
func mapK[T backend.Element](dst, x []T, f func(T) T) {
	k := func(d, s []T) {
		s = s[:len(d)]
		for i := range d {
			d[i] = f(s[i])
		}
	}
	if n := len(dst); n >= elemParMin {
		parallel(n, func(lo, hi int) { k(dst[lo:hi], x[lo:hi]) })
		return
	}
	k(dst, x)
}

func clipAll[T backend.Element](dst, x []T, lo, hi T) {
	if n := len(dst); n >= elemParMin {
		parallel(n, func(l, h int) { clipK(dst[l:h], x[l:h], lo, hi) })
		return
	}
	clipK(dst, x, lo, hi)
}

// clipK is NumPy's clip, min(max(v, lo), hi) with its maximum and minimum
// of npy_math: max(a, b) is a if a is NaN, else (a > b ? a : b); min(a, b)
// is a if a is NaN, else (a < b ? a : b). So a NaN v, lo or hi gives NaN,
// lo > hi gives hi, and of -0 and +0 the bound is kept unless v is
// strictly beyond it.
func clipK[T backend.Element](dst, x []T, lo, hi T) {
	x = x[:len(dst)]
	for i, v := range x {
		if v == v { // not NaN
			if !(v > lo) {
				v = lo
			}
			if v == v && !(v < hi) {
				v = hi
			}
		}
		dst[i] = v
	}
}

// exp is e**x in float64, by fdlibm's algorithm (e_exp.c, as Go's pure-Go
// math.Exp): x = k*ln2 + r, |r| <= ln2/2, with ln2 in two parts so that
// r is hi - lo exactly, and a rational approximation of e**r; error below
// 1 ulp. It stands in for math.Exp, whose amd64 assembly returns +Inf
// from about x = 709.5 on (go1.26: math.Exp(709.5) = +Inf; the result is
// 1.35e308, and exp overflows only above 709.78).
func exp(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)
	)
	switch {
	case x != x || x > overflow: // NaN, or +Inf and overflow
		return x * math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	if x < 0 {
		k = int(log2e*x - 0.5)
	} else {
		k = int(log2e*x + 0.5)
	}
	hi := x - float64(k)*ln2Hi
	lo := float64(k) * ln2Lo
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	r := hi - lo
	t := r * r
	c := r - t*(p1+t*(p2+t*(p3+t*(p4+t*p5))))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// logSub is math.Log, also for subnormal x: math.Log's amd64 assembly
// takes a subnormal x for a normal one (go1.26: math.Log(5e-324) =
// -709.09; the result is -744.44), so logSub scales a subnormal by 2**54
// (exactly) and subtracts 54*ln2, in two parts.
func logSub(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		const (
			ln2Hi = 6.93147180369123816490e-01 // 54*ln2Hi is exact
			ln2Lo = 1.90821492927058770002e-10
		)
		return (math.Log(x*0x1p54) - 54*ln2Hi) - 54*ln2Lo
	}
	return math.Log(x)
}

// pow is x**y in float64, within about 1 ulp: e**(y*log(x)) with log(x) in
// double-double precision (logDD) and the product y*log(x) too, so that
// the error of the exponent, which the exponential multiplies by up to
// 745, stays far below an ulp. It stands in for math.Pow, which multiplies
// out the integer part of y (tens of ulps: math.Pow(1e-30, -1.5) is 22 ulps
// from glibc's) and whose amd64 Log and Exp fail for subnormal x and for
// results above about e**709.5 (exp, logSub). The special cases of C99's
// pow, which are exact, are math.Pow's.
func pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case x != x || y != y:
		return math.NaN()
	case x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0):
		return math.Pow(x, y)
	}
	sign := 1.0
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		if math.Abs(y) < 1<<53 && int64(y)&1 == 1 {
			sign = -1
		}
		x = -x
	}
	if y == 0.5 {
		return math.Sqrt(x) // correctly rounded (x > 0 here)
	}
	if y == math.Trunc(y) && math.Abs(y) <= 64 {
		if r, ok := powInt(x, int(y)); ok {
			return sign * r
		}
	}
	lh, ll := logDD(x)
	ph := y * lh
	switch { // far beyond overflow or underflow (y*lh may be infinite)
	case ph > 800:
		return sign * math.Inf(1)
	case ph < -800:
		return sign * 0
	}
	pl := math.FMA(y, lh, -ph) + y*ll
	h := ph + pl
	l := pl - (h - ph)
	e := exp(h)
	if math.IsInf(e, 0) || e == 0 {
		return sign * e
	}
	return sign * math.FMA(e, l, e) // e**h * (1 + l)
}

// powInt returns x**n for x > 0 and 0 < |n| <= 64 by binary powering in
// double-double and one rounding at the end (for n < 0, of the double-double
// reciprocal): exact where x**n is a float64, correctly rounded but for
// rare double roundings otherwise. It reports false where an intermediate
// power leaves the normal range, for pow's general path.
func powInt(x float64, n int) (float64, bool) {
	neg := n < 0
	if neg {
		n = -n
	}
	rh, rl := 1.0, 0.0
	bh, bl := x, 0.0
	for {
		if n&1 == 1 {
			rh, rl = mulDD(rh, rl, bh, bl)
		}
		if n >>= 1; n == 0 {
			break
		}
		bh, bl = mulDD(bh, bl, bh, bl)
		if !normal(bh) {
			return 0, false
		}
	}
	if !normal(rh) {
		return 0, false
	}
	if neg {
		q := 1 / rh
		ql := (math.FMA(-q, rh, 1) - q*rl) / rh
		if !normal(q) {
			return 0, false
		}
		return q + ql, true
	}
	return rh + rl, true
}

// normal reports whether v is a normal float64 (finite, not zero or
// subnormal), where double-double arithmetic keeps its precision.
func normal(v float64) bool {
	a := math.Abs(v)
	return a >= 0x1p-1022 && a <= math.MaxFloat64
}

// mulDD returns the double-double product of ah + al and bh + bl.
func mulDD(ah, al, bh, bl float64) (float64, float64) {
	p := ah * bh
	e := math.FMA(ah, bh, -p) + (ah*bl + al*bh)
	h := p + e
	return h, e - (h - p)
}

// logDD returns log(x) for a finite x > 0 (subnormals included) as a sum
// hi + lo of two float64s, with an error of about 2**-70 relative: x =
// 2**k * m, m in [1, 2), m near c = 1 + j/64, log(m) = log(c) +
// 2*atanh(s) with s = (m - c) / (m + c), |s| <= 2**-8, its series to s**7.
func logDD(x float64) (hi, lo float64) {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 32 bits: k*ln2Hi is exact
		ln2Lo = 1.90821492927058770002e-10
	)
	m, k := math.Frexp(x) // m in [0.5, 1)
	m, k = 2*m, k-1
	j := int((m-1)*64 + 0.5)
	c := 1 + float64(j)/64
	u := m - c // exact
	vh, vl := twoSum(m, c)
	sh := u / vh
	sl := (math.FMA(-sh, vh, u) - sh*vl) / vh
	s2 := sh * sh
	t := 2 * sh * s2 * (1.0/3 + s2*(1.0/5+s2*(1.0/7)))
	hi, lo = twoSum(float64(k)*ln2Hi, logTable[j][0])
	lo += float64(k)*ln2Lo + logTable[j][1]
	var e float64
	hi, e = twoSum(hi, 2*sh)
	lo += e + 2*sl + t
	h := hi + lo
	return h, lo - (h - hi)
}

// twoSum returns a + b rounded and its rounding error, exactly.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// logTable holds log(1 + j/64), j = 0 to 64, as hi + lo, from Python:
//
//	from decimal import Decimal, getcontext
//	getcontext().prec = 60
//	for j in range(65):
//	    d = (Decimal(1) + Decimal(j) / 64).ln()
//	    hi = float(d); lo = float(d - Decimal(hi))
var logTable = [65][2]float64{
	{0.0, 0.0},
	{0.015504186535965254, -3.278321022892429e-19},
	{0.030771658666753687, 1.0431732029005968e-18},
	{0.0458095360312942, 1.902959866474257e-18},
	{0.06062462181643484, 2.6424025938726934e-18},
	{0.07522342123758753, -5.930604196293241e-18},
	{0.08961215868968714, -5.4268129336647135e-18},
	{0.10379679368164356, 5.47772415726659e-18},
	{0.11778303565638346, -1.1971685747593677e-18},
	{0.13157635778871926, 1.1123000879729588e-17},
	{0.1451820098444979, 8.242418783022475e-18},
	{0.15860503017663857, 1.1257003872182592e-17},
	{0.17185025692665923, -6.0224538210113705e-18},
	{0.184922338494012, 3.0236614153574064e-18},
	{0.19782574332991987, 1.2821194372980142e-17},
	{0.21056476910734964, -4.249405314729895e-18},
	{0.22314355131420976, -9.091270597324799e-18},
	{0.2355660713127669, -2.3943371495187355e-18},
	{0.24783616390458127, -1.2432209578702523e-17},
	{0.25995752443692605, 2.069806938978935e-17},
	{0.27193371548364176, 7.83319637697442e-19},
	{0.2837681731306446, -2.032665581126656e-17},
	{0.2954642128938359, -2.16461086040599e-17},
	{0.3070250352949119, -1.2319916200101964e-17},
	{0.3184537311185346, 2.7114779367326236e-17},
	{0.329753286372468, 2.122020616196946e-18},
	{0.3409265869705932, 1.7467136443544747e-17},
	{0.3519764231571782, -1.2953893030191963e-17},
	{0.3629054936893685, -2.1492361455310972e-17},
	{0.37371640979358406, 2.1836211281198184e-17},
	{0.38441169891033206, -1.612149700764673e-17},
	{0.394993808240869, -1.5113724418336168e-17},
	{0.4054651081081644, -2.8811380259626426e-18},
	{0.415827895143711, -2.48753990369597e-17},
	{0.4260843953109001, -2.499176776547466e-17},
	{0.43623676677491807, -1.8379648230620457e-18},
	{0.44628710262841953, -1.8182541194649598e-17},
	{0.4562374334815876, 2.122222784062318e-17},
	{0.46608972992459924, -1.4116523239904406e-17},
	{0.4758459048699639, -6.181952722542219e-18},
	{0.4855078157817008, -1.6618350693852048e-17},
	{0.4950772667978515, -8.307950959627356e-18},
	{0.5045560107523953, -2.4888518873597905e-17},
	{0.5139457511022343, 3.397548559332142e-17},
	{0.5232481437645479, -3.1833882216350925e-17},
	{0.5324647988694718, -9.149239241180804e-19},
	{0.5415972824327444, -3.748764246125639e-17},
	{0.5506471179526623, -2.239429485856908e-17},
	{0.5596157879354227, 2.685492580212308e-17},
	{0.5685047353526688, -5.4267346029482773e-17},
	{0.5773153650348236, -8.903591846974013e-18},
	{0.5860490450035782, -3.058363205263577e-17},
	{0.5947071077466928, 1.3751689964323675e-17},
	{0.6032908514380843, 9.9400563470175e-18},
	{0.6118015411059929, -3.7397759448726e-17},
	{0.6202404097518576, -3.989161064307651e-17},
	{0.6286086594223741, 4.3538742607970387e-17},
	{0.6369074622370692, 5.422955873465247e-17},
	{0.6451379613735847, 9.346960920120906e-19},
	{0.6533012720127457, -4.306892322029408e-17},
	{0.661398482245365, -7.603333785634003e-18},
	{0.6694306539426292, 2.823733943928343e-17},
	{0.6773988235918061, -2.0978183882652005e-18},
	{0.6853040030989194, 4.893484946270261e-17},
	{0.6931471805599453, 2.3190468138462996e-17},
}
