package rng

import "math/bits"

// Philox4x32-10 constants from Random123 (philox.h).
const (
	philoxM0 = 0xD2511F53 // PHILOX_M4x32_0, multiplier of counter word 0
	philoxM1 = 0xCD9E8D57 // PHILOX_M4x32_1, multiplier of counter word 2
	philoxW0 = 0x9E3779B9 // PHILOX_W32_0, bump of key word 0 (golden ratio)
	philoxW1 = 0xBB67AE85 // PHILOX_W32_1, bump of key word 1 (sqrt(3)-1)
)

// Philox4x32_10 returns the Philox4x32 block cipher with ten rounds applied
// to the counter ctr under the key key, exactly as philox4x32(ctr, key) of
// Random123: each round is
//
//	hi0:lo0 = 0xD2511F53 * ctr[0]   (64-bit product)
//	hi1:lo1 = 0xCD9E8D57 * ctr[2]
//	ctr = [hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0]
//
// and the key is bumped by [0x9E3779B9, 0xBB67AE85] between rounds.
func Philox4x32_10(ctr [4]uint32, key [2]uint32) [4]uint32 {
	c0, c1, c2, c3 := ctr[0], ctr[1], ctr[2], ctr[3]
	k0, k1 := key[0], key[1]
	for r := 0; r < 10; r++ {
		hi0, lo0 := bits.Mul32(philoxM0, c0)
		hi1, lo1 := bits.Mul32(philoxM1, c2)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
		k0 += philoxW0
		k1 += philoxW1
	}
	return [4]uint32{c0, c1, c2, c3}
}

// philox4x32R is Philox4x32 with the given number of rounds (Random123's
// philox4x32_R), written independently of the scalar loop of Philox4x32_10.
// The tests check both against Random123's vectors, and this one also
// against the 7-round vectors.
func philox4x32R(rounds int, ctr [4]uint32, key [2]uint32) [4]uint32 {
	for r := 0; r < rounds; r++ {
		if r > 0 {
			key[0] += philoxW0
			key[1] += philoxW1
		}
		hi0, lo0 := bits.Mul32(philoxM0, ctr[0])
		hi1, lo1 := bits.Mul32(philoxM1, ctr[2])
		ctr = [4]uint32{hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0}
	}
	return ctr
}

// block returns the two 64-bit output words x0 = w1<<32|w0 and
// x1 = w3<<32|w2 of Philox4x32-10 for (seed, stream, counter).
func block(seed, stream, counter uint64) (x0, x1 uint64) {
	w := Philox4x32_10(
		[4]uint32{uint32(counter), uint32(counter >> 32), uint32(stream), uint32(stream >> 32)},
		[2]uint32{uint32(seed), uint32(seed >> 32)},
	)
	return uint64(w[1])<<32 | uint64(w[0]), uint64(w[3])<<32 | uint64(w[2])
}

// rekey encrypts an output block again under the same key. IntN uses it to
// obtain further candidates after a rejection without touching any other
// counter.
func rekey(seed, x0, x1 uint64) (uint64, uint64) {
	w := Philox4x32_10(
		[4]uint32{uint32(x0), uint32(x0 >> 32), uint32(x1), uint32(x1 >> 32)},
		[2]uint32{uint32(seed), uint32(seed >> 32)},
	)
	return uint64(w[1])<<32 | uint64(w[0]), uint64(w[3])<<32 | uint64(w[2])
}

// block2 returns block(seed, s0, counter) and block(seed, s1, counter),
// computed together: the two independent round chains interleave, which
// roughly halves the time per block on an out-of-order CPU. The Fill
// functions use it for consecutive elements.
func block2(seed, s0, s1, counter uint64) (a0, a1, b0, b1 uint64) {
	k0, k1 := uint32(seed), uint32(seed>>32)
	c0, c1, c2, c3 := uint32(counter), uint32(counter>>32), uint32(s0), uint32(s0>>32)
	d0, d1, d2, d3 := c0, c1, uint32(s1), uint32(s1>>32)
	for r := 0; r < 10; r++ {
		chi0, clo0 := bits.Mul32(philoxM0, c0)
		chi1, clo1 := bits.Mul32(philoxM1, c2)
		dhi0, dlo0 := bits.Mul32(philoxM0, d0)
		dhi1, dlo1 := bits.Mul32(philoxM1, d2)
		c0, c1, c2, c3 = chi1^c1^k0, clo1, chi0^c3^k1, clo0
		d0, d1, d2, d3 = dhi1^d1^k0, dlo1, dhi0^d3^k1, dlo0
		k0 += philoxW0
		k1 += philoxW1
	}
	return uint64(c1)<<32 | uint64(c0), uint64(c3)<<32 | uint64(c2),
		uint64(d1)<<32 | uint64(d0), uint64(d3)<<32 | uint64(d2)
}
