package rng

import (
	"math"
	"math/bits"
)

// Uniform2 returns two uniform deviates in [0, 1) for (seed, stream,
// counter). Philox4x32-10 is applied to the counter block
// [counter_lo, counter_hi, stream_lo, stream_hi] under the key
// [seed_lo, seed_hi]; with the output words w0..w3,
//
//	u0 = ((w1<<32 | w0) >> 11) * 2^-53
//	u1 = ((w3<<32 | w2) >> 11) * 2^-53
//
// Both are multiples of 2^-53 and the result is bit-identical to
// xpmpi_uniform2 of CUDAHeader.
func Uniform2(seed, stream, counter uint64) (u0, u1 float64) {
	x0, x1 := block(seed, stream, counter)
	return toFloat64(x0), toFloat64(x1)
}

// Normal2 returns two standard normal deviates for (seed, stream, counter)
// by the Box-Muller transform of the pair (u0, u1) of Uniform2:
//
//	r = sqrt(-2 log(1 - u0)), theta = 2 pi u1
//	z0 = r cos(theta), z1 = r sin(theta)
//
// Since 1 - u0 is in (0, 1], both results are finite; |z| is at most about
// 8.57. The results agree with xpmpi_normal2 of CUDAHeader to within the
// accuracy of the math libraries (about 1e-14), not bit for bit.
func Normal2(seed, stream, counter uint64) (z0, z1 float64) {
	u0, u1 := Uniform2(seed, stream, counter)
	return boxMuller(u0, u1)
}

// IntN returns a uniform integer in [0, n) for (seed, stream, counter),
// without modulo bias. It panics if n is zero.
//
// IntN uses Lemire's multiply-and-reject method ("Fast random integer
// generation in an interval", ACM TOMACS 2019) on the candidates
// x0 = w1<<32 | w0 and then x1 = w3<<32 | w2 of the Philox block for
// (seed, stream, counter): a candidate x gives the high word of the 128-bit
// product x*n, and is rejected when the low word is below 2^64 mod n. If both
// candidates are rejected, the block (x0, x1) is encrypted again under the
// same key, as the counter block [x0_lo, x0_hi, x1_lo, x1_hi], and the new
// pair is tried, repeatedly. IntN is thus a pure function of its arguments,
// and it never consumes counter+1 or any other counter: the caller advances
// the counter by exactly one per draw. A rejection has probability
// (2^64 mod n)/2^64, below 2^-32 for any n < 2^32.
func IntN(seed, stream, counter, n uint64) uint64 {
	if n == 0 {
		panic("rng: IntN called with n == 0")
	}
	x0, x1 := block(seed, stream, counter)
	return lemire(seed, x0, x1, n)
}

// lemire maps the candidates of a block to [0, n), re-encrypting the block
// under seed while both candidates are rejected. See IntN.
func lemire(seed, x0, x1, n uint64) uint64 {
	for {
		hi, lo := bits.Mul64(x0, n)
		if lo >= n || lo >= -n%n {
			return hi
		}
		hi, lo = bits.Mul64(x1, n)
		if lo >= n || lo >= -n%n {
			return hi
		}
		x0, x1 = rekey(seed, x0, x1)
	}
}

// toFloat64 maps a 64-bit word to [0, 1) by its top 53 bits.
func toFloat64(x uint64) float64 {
	return float64(x>>11) * 0x1p-53
}

// toFloat32 maps a 64-bit word to [0, 1) by its top 24 bits. The result is
// the float64 value of toFloat64 rounded down to a multiple of 2^-24, so it
// is never rounded up to 1.
func toFloat32(x uint64) float32 {
	return float32(x>>40) * 0x1p-24
}

// boxMuller is the Box-Muller transform shared by Normal2, the Fill functions
// and Stream.
func boxMuller(u0, u1 float64) (z0, z1 float64) {
	r := math.Sqrt(-2 * math.Log(1-u0))
	theta := 2 * math.Pi * u1
	return r * math.Cos(theta), r * math.Sin(theta)
}
