package rng

import "unsafe"

// Float is the set of floating-point element types the Fill functions
// write.
type Float interface {
	~float32 | ~float64
}

// Integer is the set of integer element types FillUniformInts writes.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// is32 reports whether the float type T is a 32-bit type.
func is32[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

// fill calls set(i, x0, x1) with the two words of the Philox block for
// (seed, stream = firstIndex+i, counter = draw), for i in [0, n), two
// elements at a time.
func fill(n int, seed, firstIndex, draw uint64, set func(i int, x0, x1 uint64)) {
	i := 0
	for ; i+1 < n; i += 2 {
		g := firstIndex + uint64(i)
		a0, a1, b0, b1 := block2(seed, g, g+1, draw)
		set(i, a0, a1)
		set(i+1, b0, b1)
	}
	if i < n {
		x0, x1 := block(seed, firstIndex+uint64(i), draw)
		set(i, x0, x1)
	}
}

// FillUniform fills dst with uniform deviates in [0, 1). Element i of dst is
// element firstIndex+i of a global array whose element g is
//
//	u0 of Uniform2(seed, stream = g, counter = draw)
//
// (one Philox block per element; u1 is not used). For float32, element g is
// instead the top 24 bits of the same word, ((w1<<32 | w0) >> 40) * 2^-24,
// which is u0 rounded down to a multiple of 2^-24 and so also in [0, 1).
//
// Because element g depends only on (seed, g, draw), a rank that fills its
// local block of a distributed array with firstIndex set to the block's
// global offset gets the same values whatever the number of ranks, and a
// slice may be filled in pieces, concurrently or not:
// FillUniform(dst[a:b], seed, firstIndex+uint64(a), draw) writes what
// FillUniform(dst, seed, firstIndex, draw) would write there.
// Global indices wrap modulo 2^64.
func FillUniform[T Float](dst []T, seed, firstIndex, draw uint64) {
	if is32[T]() {
		fill(len(dst), seed, firstIndex, draw, func(i int, x0, _ uint64) { dst[i] = T(toFloat32(x0)) })
		return
	}
	fill(len(dst), seed, firstIndex, draw, func(i int, x0, _ uint64) { dst[i] = T(toFloat64(x0)) })
}

// FillNormal fills dst with standard normal deviates. Element i of dst is
// element firstIndex+i of a global array whose element g is
//
//	z0 of Normal2(seed, stream = g, counter = draw)
//
// (one Philox block per element; z1 is not used). For float32 the float64
// value is rounded to float32. See FillUniform for how this makes
// distributed arrays independent of the number of ranks.
func FillNormal[T Float](dst []T, seed, firstIndex, draw uint64) {
	fill(len(dst), seed, firstIndex, draw, func(i int, x0, x1 uint64) {
		z0, _ := boxMuller(toFloat64(x0), toFloat64(x1))
		dst[i] = T(z0)
	})
}

// FillUniformInts fills dst with uniform integers in [lo, hi). Element i of
// dst is element firstIndex+i of a global array whose element g is
//
//	lo + IntN(seed, stream = g, counter = draw, n = hi - lo)
//
// with the difference and the sum taken in 64-bit two's-complement
// arithmetic, so signed ranges such as [-5, 5) work. It panics unless
// lo < hi. See FillUniform for how this makes distributed arrays
// independent of the number of ranks.
func FillUniformInts[T Integer](dst []T, seed, firstIndex, draw uint64, lo, hi T) {
	if !(lo < hi) {
		panic("rng: FillUniformInts needs lo < hi")
	}
	n := uint64(hi) - uint64(lo)
	fill(len(dst), seed, firstIndex, draw, func(i int, x0, x1 uint64) {
		dst[i] = T(uint64(lo) + lemire(seed, x0, x1, n))
	})
}
