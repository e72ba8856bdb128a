package cpu

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// Thresholds of the elementwise loops, measured with BenchmarkGrain (see
// doc.go): on the 2-core development machine, splitting an AXPY of 2^17
// float64s in two was a loss (78 against 58 us), 2^18 about even (148
// against 168 us), 2^19 a clear gain (273 against 499 us). Goroutines start
// in about a microsecond, but waking an idle core, or sharing a busy one,
// costs tens.
const (
	// elemGrain is the number of elements per goroutine of an elementwise
	// loop (about: ParallelFor cuts equal ranges); arrays of fewer than
	// elemParMin elements run on the calling goroutine.
	elemGrain  = 1 << 17
	elemParMin = 2 * elemGrain
	// stencilGrain is the least number of grid points per goroutine of
	// Jacobi5, whose points cost about twice an AXPY element.
	stencilGrain = 1 << 16
	// copyGrain is the least number of bytes per goroutine of a copy;
	// copies of fewer than copyParMin bytes run on the calling goroutine.
	copyGrain  = 1 << 21
	copyParMin = 2 * copyGrain
)

// parallel runs kernel over [0, n) in ranges of about elemGrain elements.
// The caller handles n < elemParMin itself, without making a closure.
func parallel(n int, kernel func(lo, hi int)) { backend.ParallelFor(n, elemGrain, kernel) }

func fill[T backend.Element](x []T, v T) {
	if n := len(x); n >= elemParMin {
		parallel(n, func(lo, hi int) { fillK(x[lo:hi], v) })
		return
	}
	fillK(x, v)
}

func fillK[T backend.Element](x []T, v T) {
	if driver.ScalarOf(v).Bits() == 0 { // a zero, but not -0
		clear(x) // memclr
		return
	}
	i := 0
	for ; i < len(x)-3; i += 4 {
		x[i], x[i+1], x[i+2], x[i+3] = v, v, v, v
	}
	for ; i < len(x); i++ {
		x[i] = v
	}
}

func scale[T backend.Element](x []T, a T) {
	if n := len(x); n >= elemParMin {
		parallel(n, func(lo, hi int) { scaleK(x[lo:hi], a) })
		return
	}
	scaleK(x, a)
}

func scaleK[T backend.Element](x []T, a T) {
	i := 0
	for ; i < len(x)-3; i += 4 {
		x[i] *= a
		x[i+1] *= a
		x[i+2] *= a
		x[i+3] *= a
	}
	for ; i < len(x); i++ {
		x[i] *= a
	}
}

func axpy[T backend.Element](a T, x, y []T) {
	if n := len(y); n >= elemParMin {
		parallel(n, func(lo, hi int) { axpyK(a, x[lo:hi], y[lo:hi]) })
		return
	}
	axpyK(a, x, y)
}

// axpyK sets y = a*x + y. float64 and float32 go to gonum's SSE2 assembly,
// which is faster than the Go loop (see axpyGo and BenchmarkAxpyKernel).
func axpyK[T backend.Element](a T, x, y []T) {
	switch a := any(a).(type) {
	case float64:
		axpy64(a, any(x).([]float64), any(y).([]float64))
		return
	case float32:
		axpy32(a, any(x).([]float32), any(y).([]float32))
		return
	}
	axpyGo(a, x, y)
}

// axpyGo is the Go loop of axpyK, unrolled by 4.
func axpyGo[T backend.Element](a T, x, y []T) {
	x = x[:len(y)]
	i := 0
	for ; i < len(y)-3; i += 4 {
		y[i] = a*x[i] + y[i]
		y[i+1] = a*x[i+1] + y[i+1]
		y[i+2] = a*x[i+2] + y[i+2]
		y[i+3] = a*x[i+3] + y[i+3]
	}
	for ; i < len(y); i++ {
		y[i] = a*x[i] + y[i]
	}
}

func binary[T backend.Element](op driver.BinaryOp, dst, x, y []T) {
	var k func(dst, x, y []T)
	switch op {
	case driver.Add:
		k = addK[T]
	case driver.Sub:
		k = subK[T]
	case driver.Mul:
		k = mulK[T]
	case driver.Div:
		if !isFloat[T]() {
			for i, v := range y {
				if v == 0 {
					panic(fmt.Sprintf("cpu: integer division by zero (element %d of the divisor)", i))
				}
			}
		}
		k = divK[T]
	default:
		panic(fmt.Sprintf("cpu: invalid BinaryOp %d", int(op)))
	}
	if n := len(dst); n >= elemParMin {
		parallel(n, func(lo, hi int) { k(dst[lo:hi], x[lo:hi], y[lo:hi]) })
		return
	}
	k(dst, x, y)
}

func addK[T backend.Element](dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] + y[i]
		dst[i+1] = x[i+1] + y[i+1]
		dst[i+2] = x[i+2] + y[i+2]
		dst[i+3] = x[i+3] + y[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] + y[i]
	}
}

func subK[T backend.Element](dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] - y[i]
		dst[i+1] = x[i+1] - y[i+1]
		dst[i+2] = x[i+2] - y[i+2]
		dst[i+3] = x[i+3] - y[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] - y[i]
	}
}

func mulK[T backend.Element](dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] * y[i]
		dst[i+1] = x[i+1] * y[i+1]
		dst[i+2] = x[i+2] * y[i+2]
		dst[i+3] = x[i+3] * y[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] * y[i]
	}
}

// divK divides elementwise. The caller has checked integer divisors for
// zero.
func divK[T backend.Element](dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] / y[i]
		dst[i+1] = x[i+1] / y[i+1]
		dst[i+2] = x[i+2] / y[i+2]
		dst[i+3] = x[i+3] / y[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] / y[i]
	}
}

func binaryScalar[T backend.Element](op driver.BinaryOp, dst, x []T, s T) {
	var k func(dst, x []T, s T)
	switch op {
	case driver.Add:
		k = addSK[T]
	case driver.Sub:
		k = subSK[T]
	case driver.Mul:
		k = mulSK[T]
	case driver.Div:
		if !isFloat[T]() && s == 0 {
			panic("cpu: integer division by zero (the scalar divisor is 0)")
		}
		k = divSK[T]
	default:
		panic(fmt.Sprintf("cpu: invalid BinaryOp %d", int(op)))
	}
	if n := len(dst); n >= elemParMin {
		parallel(n, func(lo, hi int) { k(dst[lo:hi], x[lo:hi], s) })
		return
	}
	k(dst, x, s)
}

func addSK[T backend.Element](dst, x []T, s T) {
	x = x[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] + s
		dst[i+1] = x[i+1] + s
		dst[i+2] = x[i+2] + s
		dst[i+3] = x[i+3] + s
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] + s
	}
}

func subSK[T backend.Element](dst, x []T, s T) {
	x = x[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] - s
		dst[i+1] = x[i+1] - s
		dst[i+2] = x[i+2] - s
		dst[i+3] = x[i+3] - s
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] - s
	}
}

func mulSK[T backend.Element](dst, x []T, s T) {
	x = x[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] * s
		dst[i+1] = x[i+1] * s
		dst[i+2] = x[i+2] * s
		dst[i+3] = x[i+3] * s
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] * s
	}
}

// divSK divides by s, which the caller has checked is not an integer zero.
// It divides rather than multiplying by 1/s, so that float results are
// correctly rounded.
func divSK[T backend.Element](dst, x []T, s T) {
	x = x[:len(dst)]
	i := 0
	for ; i < len(dst)-3; i += 4 {
		dst[i] = x[i] / s
		dst[i+1] = x[i+1] / s
		dst[i+2] = x[i+2] / s
		dst[i+3] = x[i+3] / s
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] / s
	}
}
