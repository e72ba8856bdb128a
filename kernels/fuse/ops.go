package fuse

import (
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// The chunk kernels: tight loops over the values of one chunk (at most
// ChunkLen elements), each slice cut to the length of the first so that the
// compiler drops the bounds checks. Products and quotients are converted to
// T before they are added, which forbids a fused multiply-add: results are
// those of the operators one at a time.

type integer interface {
	int32 | int64 | uint32 | uint64
}

// worker is the state of one goroutine evaluating chunks.
type worker struct {
	ptr   []unsafe.Pointer // per node: where the chunk's values are
	lo    int              // first element of the current chunk
	chunk int              // index of the current chunk
	rs    *runState
	arena []uint64 // the chunk buffers of temporaries
}

// step evaluates one operation on the n elements of the current chunk.
type step func(w *worker, n int)

func vec[T any](w *worker, s int32, n int) []T { return unsafe.Slice((*T)(w.ptr[s]), n) }

func scal[T any](w *worker, s int32) T { return *(*T)(unsafe.Pointer(&w.rs.sc[s])) }

// Binary arithmetic, vector with vector.

func addVV[T backend.Element](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func subVV[T backend.Element](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func mulVV[T backend.Element](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

func divVV[T backend.Float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] / b[i]
	}
}

func minVV[T backend.Element](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = min(a[i], b[i])
	}
}

func maxVV[T backend.Element](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = max(a[i], b[i])
	}
}

func powVV[T backend.Float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = T(math.Pow(float64(a[i]), float64(b[i])))
	}
}

// Binary arithmetic with a scalar s: d = a op s, or d = s op a (rev).

func addVS[T backend.Element](d, a []T, s T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] + s
	}
}

func subVS[T backend.Element](d, a []T, s T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] - s
	}
}

func subSV[T backend.Element](d, a []T, s T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = s - a[i]
	}
}

func mulVS[T backend.Element](d, a []T, s T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] * s
	}
}

func divVS[T backend.Float](d, a []T, s T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] / s
	}
}

func divSV[T backend.Float](d, a []T, s T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = s / a[i]
	}
}

// axpyK sets d = y + T(s*x), unrolled by 4.
func axpyK[T backend.Element](d []T, s T, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		v, a, b := d[i:i+4:i+4], x[i:i+4:i+4], y[i:i+4:i+4]
		v[0] = b[0] + T(s*a[0])
		v[1] = b[1] + T(s*a[1])
		v[2] = b[2] + T(s*a[2])
		v[3] = b[3] + T(s*a[3])
	}
	for ; i < len(d); i++ {
		d[i] = y[i] + T(s*x[i])
	}
}

// axmyK sets d = y - T(s*x), unrolled by 4.
func axmyK[T backend.Element](d []T, s T, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		v, a, b := d[i:i+4:i+4], x[i:i+4:i+4], y[i:i+4:i+4]
		v[0] = b[0] - T(s*a[0])
		v[1] = b[1] - T(s*a[1])
		v[2] = b[2] - T(s*a[2])
		v[3] = b[3] - T(s*a[3])
	}
	for ; i < len(d); i++ {
		d[i] = y[i] - T(s*x[i])
	}
}

// Comparisons.

func ltK[T backend.Element](d []bool, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] < b[i]
	}
}

func leK[T backend.Element](d []bool, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] <= b[i]
	}
}

func gtK[T backend.Element](d []bool, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] > b[i]
	}
}

func geK[T backend.Element](d []bool, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] >= b[i]
	}
}

func eqK[T backend.Element](d []bool, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] == b[i]
	}
}

func neK[T backend.Element](d []bool, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] != b[i]
	}
}

func andK(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] && b[i]
	}
}

func orK(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] || b[i]
	}
}

func notK(d, a []bool) {
	a = a[:len(d)]
	for i := range d {
		d[i] = !a[i]
	}
}

func whereK[T any](d []T, c []bool, a, b []T) {
	c, a, b = c[:len(d)], a[:len(d)], b[:len(d)]
	for i := range d {
		if c[i] {
			d[i] = a[i]
		} else {
			d[i] = b[i]
		}
	}
}

// Unary operations.

func negK[T backend.Element](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = -a[i]
	}
}

func absIK[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		v := a[i]
		if v < 0 {
			v = -v
		}
		d[i] = v
	}
}

func absFK[T backend.Float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Abs(float64(a[i])))
	}
}

func sqrtK[T backend.Float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Sqrt(float64(a[i])))
	}
}

func expK[T backend.Float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Exp(float64(a[i])))
	}
}

func logK[T backend.Float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Log(float64(a[i])))
	}
}

func castK[D, S backend.Element](d []D, a []S) {
	a = a[:len(d)]
	for i := range d {
		d[i] = D(a[i])
	}
}

func castBoolK[D backend.Element](d []D, a []bool) {
	a = a[:len(d)]
	for i := range d {
		var v D
		if a[i] {
			v = 1
		}
		d[i] = v
	}
}

// Reductions of one chunk. Float sums use 16 lanes: element j of the
// chunk is added to lane j%16 (each lane starting at +0) while a whole
// group of 16 is left, the lanes are combined by lanes16, and the last
// len%16 elements are then added to that sum in order. Products are
// rounded to float64 before they are added (prod), which forbids a fused
// multiply-add. The AVX2 kernels of package internal/fvec keep lane 4k+i
// in lane i of YMM accumulator k and add in exactly this order.

// lanes16 returns the sum of the 16 lanes l as the AVX2 kernels combine
// their four accumulators A0..A3 (lane 4k+i is lane i of Ak): the vector
// c = (A0+A2)+(A1+A3), then (c0+c2)+(c1+c3).
func lanes16(l *[16]float64) float64 {
	c0 := (l[0] + l[8]) + (l[4] + l[12])
	c1 := (l[1] + l[9]) + (l[5] + l[13])
	c2 := (l[2] + l[10]) + (l[6] + l[14])
	c3 := (l[3] + l[11]) + (l[7] + l[15])
	return (c0 + c2) + (c1 + c3)
}

// prod returns float64(a)*float64(b) rounded to float64 (the explicit
// conversion keeps the compiler from fusing it into an addition).
func prod[T backend.Float](a, b T) float64 { return float64(float64(a) * float64(b)) }

func sumFK[T backend.Float](a []T) float64 {
	var l [16]float64
	m := len(a) &^ 15
	// Each lane adds its elements in order whatever the other lanes do:
	// lanes 0-7, then lanes 8-15, keep 8 sums in registers.
	for g := 0; g < 16; g += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float64
		for i := g; i < m; i += 16 {
			v := a[i : i+8 : i+8]
			s0 += float64(v[0])
			s1 += float64(v[1])
			s2 += float64(v[2])
			s3 += float64(v[3])
			s4 += float64(v[4])
			s5 += float64(v[5])
			s6 += float64(v[6])
			s7 += float64(v[7])
		}
		l[g], l[g+1], l[g+2], l[g+3], l[g+4], l[g+5], l[g+6], l[g+7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	s := lanes16(&l)
	for _, v := range a[m:] {
		s += float64(v)
	}
	return s
}

// dotFK returns the sum of prod(a[i], b[i]) in the order of sumFK.
func dotFK[T backend.Float](a, b []T) float64 {
	b = b[:len(a)]
	var l [16]float64
	m := len(a) &^ 15
	for g := 0; g < 16; g += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float64
		for i := g; i < m; i += 16 {
			v, w := a[i:i+8:i+8], b[i:i+8:i+8]
			s0 += prod(v[0], w[0])
			s1 += prod(v[1], w[1])
			s2 += prod(v[2], w[2])
			s3 += prod(v[3], w[3])
			s4 += prod(v[4], w[4])
			s5 += prod(v[5], w[5])
			s6 += prod(v[6], w[6])
			s7 += prod(v[7], w[7])
		}
		l[g], l[g+1], l[g+2], l[g+3], l[g+4], l[g+5], l[g+6], l[g+7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	return dotTail(lanes16(&l), a[m:], b[m:])
}

// dotTail returns s plus prod(a[i], b[i]) added in order.
func dotTail[T backend.Float](s float64, a, b []T) float64 {
	b = b[:len(a)]
	for i, v := range a {
		s += prod(v, b[i])
	}
	return s
}

// sumIK returns the wrapping sum of a in 64 bits (signed values
// sign-extended).
func sumIK[T integer](a []T) uint64 {
	var s uint64
	for _, v := range a {
		s += uint64(v)
	}
	return s
}

func dotIK[T integer](a, b []T) uint64 {
	b = b[:len(a)]
	var s uint64
	for i, v := range a {
		s += uint64(v) * uint64(b[i])
	}
	return s
}

// maxK returns the largest element of the non-empty a, NaN if a has one.
func maxK[T backend.Element](a []T) T {
	m := a[0]
	for _, v := range a[1:] {
		if v > m || v != v {
			m = v
		}
	}
	return m
}

// minK returns the smallest element of the non-empty a, NaN if a has one.
func minK[T backend.Element](a []T) T {
	m := a[0]
	for _, v := range a[1:] {
		if v < m || v != v {
			m = v
		}
	}
	return m
}

// fillBits sets n values of size bytes at p to the low bytes of bits.
func fillBits(p unsafe.Pointer, size, n int, bits uint64) {
	switch size {
	case 8:
		s := unsafe.Slice((*uint64)(p), n)
		for i := range s {
			s[i] = bits
		}
	case 4:
		s := unsafe.Slice((*uint32)(p), n)
		v := uint32(bits)
		for i := range s {
			s[i] = v
		}
	default:
		s := unsafe.Slice((*uint8)(p), n)
		v := uint8(bits)
		for i := range s {
			s[i] = v
		}
	}
}

// axpyDotK sets d = y + T(s*x) and returns the float64 sum of d*d added
// in the order of dotFK: axpyK followed by dotFK(d, d), the chunk's d
// staying in the L1 cache between the two.
func axpyDotK[T backend.Float](d []T, s T, x, y []T) float64 {
	axpyK(d, s, x, y)
	return dotFK(d, d)
}

// axpy2K sets d1 = y1 + T(s1*x1) and d2 = y2 + T(s2*x2) in one loop,
// reading all four operands of an element before writing either result,
// so that results may be operands.
func axpy2K[T backend.Element](d1 []T, s1 T, x1, y1, d2 []T, s2 T, x2, y2 []T) {
	x1, y1, d2, x2, y2 = x1[:len(d1)], y1[:len(d1)], d2[:len(d1)], x2[:len(d1)], y2[:len(d1)]
	i := 0
	for ; i+4 <= len(d1); i += 4 {
		e, a, b := d1[i:i+4:i+4], x1[i:i+4:i+4], y1[i:i+4:i+4]
		v, p, q := d2[i:i+4:i+4], x2[i:i+4:i+4], y2[i:i+4:i+4]
		for k := range 4 {
			ak, bk, pk, qk := a[k], b[k], p[k], q[k]
			e[k] = bk + T(s1*ak)
			v[k] = qk + T(s2*pk)
		}
	}
	for ; i < len(d1); i++ {
		a1, b1, a2, b2 := x1[i], y1[i], x2[i], y2[i]
		d1[i] = b1 + T(s1*a1)
		d2[i] = b2 + T(s2*a2)
	}
}

// axpy2DotK is axpy2K that also returns the sum of d2*d2 as axpyDotK
// adds it.
func axpy2DotK[T backend.Float](d1 []T, s1 T, x1, y1, d2 []T, s2 T, x2, y2 []T) float64 {
	axpy2K(d1, s1, x1, y1, d2, s2, x2, y2)
	return dotFK(d2[:len(d1)], d2[:len(d1)])
}

// chainK sets d = ((T(s*x) + T(g1*y1)) + T(g2*y2)) + ... for the operands
// ys[:k] and factors g (1 or -1): a + T(-1*y) is a - y exactly, so this is
// a chain of additions and subtractions one operator at a time (s = 1 for
// a chain without a scaled head: T(1*x) is x).
func chain2K[T backend.Element](d []T, s T, x []T, g1 T, y1 []T, g2 T, y2 []T) {
	x, y1, y2 = x[:len(d)], y1[:len(d)], y2[:len(d)]
	for i := range d {
		d[i] = (T(s*x[i]) + T(g1*y1[i])) + T(g2*y2[i])
	}
}

func chain3K[T backend.Element](d []T, s T, x []T, g1 T, y1 []T, g2 T, y2 []T, g3 T, y3 []T) {
	x, y1, y2, y3 = x[:len(d)], y1[:len(d)], y2[:len(d)], y3[:len(d)]
	for i := range d {
		d[i] = ((T(s*x[i]) + T(g1*y1[i])) + T(g2*y2[i])) + T(g3*y3[i])
	}
}

func chain4K[T backend.Element](d []T, s T, x []T, g1 T, y1 []T, g2 T, y2 []T, g3 T, y3 []T, g4 T, y4 []T) {
	x, y1, y2, y3, y4 = x[:len(d)], y1[:len(d)], y2[:len(d)], y3[:len(d)], y4[:len(d)]
	for i := range d {
		d[i] = (((T(s*x[i]) + T(g1*y1[i])) + T(g2*y2[i])) + T(g3*y3[i])) + T(g4*y4[i])
	}
}
