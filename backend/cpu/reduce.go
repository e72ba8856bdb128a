package cpu

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// Reductions split their input into fixed chunks of reduceChunk elements,
// reduce each chunk on its own (in parallel above reduceParMin elements),
// and combine the per-chunk partial results in a fixed order. The chunks do
// not depend on the thread count, so neither does the result.
const (
	// reduceChunk is the number of elements of one chunk of Sum and Dot.
	// It fixes the order of floating-point additions: changing it changes
	// results in the last bits.
	reduceChunk = 4096
	// reduceGroup is the number of chunks one goroutine takes at a time.
	reduceGroup = 8
	// reduceParMin is the least number of elements reduced in parallel
	// (measured as elemGrain was: two halves of 2^17 elements about break
	// even).
	reduceParMin = 1 << 18
	// argChunk is the chunk of Argmin and Argmax (whose result is exact, so
	// the chunk affects only speed); one chunk runs on the calling
	// goroutine.
	argChunk = 1 << 16
)

// chunkPartials returns f(lo, hi) for every chunk [lo, hi) of [0, n).
func chunkPartials[A float64 | uint64 | complex128](n int, f func(lo, hi int) A) []A {
	nc := (n + reduceChunk - 1) / reduceChunk
	p := make([]A, nc)
	run := func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			lo := c * reduceChunk
			p[c] = f(lo, min(lo+reduceChunk, n))
		}
	}
	if n < reduceParMin || backend.Threads() == 1 {
		run(0, nc)
		return p
	}
	ng := (nc + reduceGroup - 1) / reduceGroup
	backend.ParallelChunks(ng, func(g int) { run(g*reduceGroup, min((g+1)*reduceGroup, nc)) })
	return p
}

// pairwise returns the sum of p, added pairwise in an order that depends
// only on len(p).
func pairwise(p []float64) float64 {
	if len(p) <= 4 {
		s := 0.0
		for _, v := range p {
			s += v
		}
		return s
	}
	m := len(p) / 2
	return pairwise(p[:m]) + pairwise(p[m:])
}

func sum[T backend.Element](x []T) driver.Scalar {
	n := len(x)
	if isFloat[T]() {
		if n <= reduceChunk {
			return driver.ScalarOf(sumChunkF(x))
		}
		return driver.ScalarOf(pairwise(chunkPartials(n, func(lo, hi int) float64 { return sumChunkF(x[lo:hi]) })))
	}
	var s uint64
	if n <= reduceChunk {
		s = sumInt(x)
	} else {
		for _, v := range chunkPartials(n, func(lo, hi int) uint64 { return sumInt(x[lo:hi]) }) {
			s += v
		}
	}
	if isSigned[T]() {
		return driver.ScalarOf(int64(s))
	}
	return driver.ScalarOf(s)
}

// sumChunk returns the sum of x in float64, with 8 accumulators.
func sumChunk[T backend.Element](x []T) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += float64(v[0])
		s1 += float64(v[1])
		s2 += float64(v[2])
		s3 += float64(v[3])
		s4 += float64(v[4])
		s5 += float64(v[5])
		s6 += float64(v[6])
		s7 += float64(v[7])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// sumInt returns the wrapping sum of x as a uint64: signed elements are
// sign-extended, so that int64(sumInt(x)) is the wrapping int64 sum.
func sumInt[T backend.Element](x []T) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		s0 += uint64(v[0])
		s1 += uint64(v[1])
		s2 += uint64(v[2])
		s3 += uint64(v[3])
	}
	for ; i < len(x); i++ {
		s0 += uint64(x[i])
	}
	return s0 + s1 + s2 + s3
}

func dot[T backend.Element](x, y []T) driver.Scalar {
	n := len(x)
	y = y[:n]
	if isFloat[T]() {
		if n <= reduceChunk {
			return driver.ScalarOf(dotChunkF(x, y))
		}
		return driver.ScalarOf(pairwise(chunkPartials(n, func(lo, hi int) float64 { return dotChunkF(x[lo:hi], y[lo:hi]) })))
	}
	var s uint64
	if n <= reduceChunk {
		s = dotInt(x, y)
	} else {
		for _, v := range chunkPartials(n, func(lo, hi int) uint64 { return dotInt(x[lo:hi], y[lo:hi]) }) {
			s += v
		}
	}
	if isSigned[T]() {
		return driver.ScalarOf(int64(s))
	}
	return driver.ScalarOf(s)
}

// dotChunk returns the sum of x[i]*y[i] in float64, with 8 accumulators.
// Products of float32 elements are exact in float64.
func dotChunk[T backend.Element](x, y []T) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		a, b := x[i:i+8:i+8], y[i:i+8:i+8]
		s0 += float64(a[0]) * float64(b[0])
		s1 += float64(a[1]) * float64(b[1])
		s2 += float64(a[2]) * float64(b[2])
		s3 += float64(a[3]) * float64(b[3])
		s4 += float64(a[4]) * float64(b[4])
		s5 += float64(a[5]) * float64(b[5])
		s6 += float64(a[6]) * float64(b[6])
		s7 += float64(a[7]) * float64(b[7])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(y[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// dotInt returns the wrapping sum of x[i]*y[i] as a uint64 (signed
// elements sign-extended: products and sums modulo 2^64 are those of
// int64).
func dotInt[T backend.Element](x, y []T) uint64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += uint64(a[0]) * uint64(b[0])
		s1 += uint64(a[1]) * uint64(b[1])
		s2 += uint64(a[2]) * uint64(b[2])
		s3 += uint64(a[3]) * uint64(b[3])
	}
	for ; i < len(x); i++ {
		s0 += uint64(x[i]) * uint64(y[i])
	}
	return s0 + s1 + s2 + s3
}

// argmin returns the index and value of the first smallest element of x,
// a NaN counting as smaller than every number; -1 and 0 for an empty x.
func argmin[T backend.Element](x []T) (int, T) {
	return argReduce(x, argminK[T], func(v, best T) bool { return v != v || v < best })
}

// argmax is argmin for the largest element, a NaN counting as larger than
// every number.
func argmax[T backend.Element](x []T) (int, T) {
	return argReduce(x, argmaxK[T], func(v, best T) bool { return v != v || v > best })
}

// argReduce runs k, which returns the first best element of a non-empty
// slice, on chunks of argChunk elements in parallel, and combines the
// chunks' results in chunk order: a later chunk wins only if its element is
// strictly better, and nothing beats a NaN, so the first occurrence wins.
func argReduce[T backend.Element](x []T, k func([]T) (int, T), better func(v, best T) bool) (int, T) {
	n := len(x)
	if n == 0 {
		var zero T
		return -1, zero
	}
	if n <= argChunk {
		return k(x)
	}
	nc := (n + argChunk - 1) / argChunk
	idx := make([]int, nc)
	val := make([]T, nc)
	backend.ParallelChunks(nc, func(c int) {
		lo := c * argChunk
		i, v := k(x[lo:min(lo+argChunk, n)])
		idx[c], val[c] = lo+i, v
	})
	best := 0
	for c := 1; c < nc; c++ {
		if val[best] != val[best] {
			break // a NaN: nothing later can win
		}
		if better(val[c], val[best]) {
			best = c
		}
	}
	return idx[best], val[best]
}

// argminK returns the index and value of the first smallest element of the
// non-empty x, or of its first NaN.
func argminK[T backend.Element](x []T) (int, T) {
	k, m := 0, x[0]
	if m != m {
		return 0, m
	}
	for i := 1; i < len(x); i++ {
		v := x[i]
		if v < m {
			k, m = i, v
		} else if v != v {
			return i, v
		}
	}
	return k, m
}

// argmaxK returns the index and value of the first largest element of the
// non-empty x, or of its first NaN.
func argmaxK[T backend.Element](x []T) (int, T) {
	k, m := 0, x[0]
	if m != m {
		return 0, m
	}
	for i := 1; i < len(x); i++ {
		v := x[i]
		if v > m {
			k, m = i, v
		} else if v != v {
			return i, v
		}
	}
	return k, m
}
