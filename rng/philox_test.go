package rng

import "testing"

// Known-answer vectors copied verbatim from Random123, tests/kat_vectors
// (https://github.com/DEShawResearch/random123), every "philox4x32 7" and
// "philox4x32 10" line:
//
//	philox4x32 7 00000000 00000000 00000000 00000000 00000000 00000000   5f6fb709 0d893f64 4f121f81 4f730a48
//	philox4x32 7 ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff   5207ddc2 45165e59 4d8ee751 8c52f662
//	philox4x32 7 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0   4dfccaba 190a87f0 c47362ba b6b5242a
//	philox4x32 10 00000000 00000000 00000000 00000000 00000000 00000000   6627e8d5 e169c58d bc57ac4c 9b00dbd8
//	philox4x32 10 ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff   408f276d 41c83b0e a20bc7c6 6d5451fd
//	philox4x32 10 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0   d16cfe09 94fdcceb 5001e420 24126ea1
//
// Columns: name, rounds, CTR (4 words), KEY (2 words), expected output
// (4 words). The 7-round lines check the round and key schedule of the
// shared implementation; Philox4x32_10 is checked on the 10-round lines.
var philoxKAT = []struct {
	rounds int
	ctr    [4]uint32
	key    [2]uint32
	want   [4]uint32
}{
	{7, [4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
	{7, [4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
	{7, [4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
	{10, [4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
	{10, [4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
	{10, [4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
}

func TestPhilox4x32KnownAnswers(t *testing.T) {
	for _, tc := range philoxKAT {
		if got := philox4x32R(tc.rounds, tc.ctr, tc.key); got != tc.want {
			t.Errorf("philox4x32_%d(%08x, %08x) = %08x, want %08x", tc.rounds, tc.ctr, tc.key, got, tc.want)
		}
		if tc.rounds != 10 {
			continue
		}
		if got := Philox4x32_10(tc.ctr, tc.key); got != tc.want {
			t.Errorf("Philox4x32_10(%08x, %08x) = %08x, want %08x", tc.ctr, tc.key, got, tc.want)
		}
	}
}

// TestUniform2Layout checks the word layout of the counter, key and output
// of Uniform2 against Philox4x32_10 called directly.
func TestUniform2Layout(t *testing.T) {
	cases := []struct{ seed, stream, counter uint64 }{
		{0, 0, 0},
		{1, 2, 3},
		{0x299f31d0a4093822, 0x0370734413198a2e, 0x85a308d3243f6a88},
		{^uint64(0), ^uint64(0), ^uint64(0)},
	}
	for _, tc := range cases {
		w := Philox4x32_10(
			[4]uint32{uint32(tc.counter), uint32(tc.counter >> 32), uint32(tc.stream), uint32(tc.stream >> 32)},
			[2]uint32{uint32(tc.seed), uint32(tc.seed >> 32)})
		want0 := float64((uint64(w[1])<<32|uint64(w[0]))>>11) / (1 << 53)
		want1 := float64((uint64(w[3])<<32|uint64(w[2]))>>11) / (1 << 53)
		u0, u1 := Uniform2(tc.seed, tc.stream, tc.counter)
		if u0 != want0 || u1 != want1 {
			t.Errorf("Uniform2(%#x, %#x, %#x) = %v, %v, want %v, %v", tc.seed, tc.stream, tc.counter, u0, u1, want0, want1)
		}
	}
	// The third Random123 vector, read as 64-bit (seed, stream, counter).
	u0, u1 := Uniform2(0x299f31d0a4093822, 0x0370734413198a2e, 0x85a308d3243f6a88)
	want0 := float64(uint64(0x94fdccebd16cfe09)>>11) * 0x1p-53
	want1 := float64(uint64(0x24126ea15001e420)>>11) * 0x1p-53
	if u0 != want0 || u1 != want1 {
		t.Errorf("Uniform2 of the Random123 pi vector = %v, %v, want %v, %v", u0, u1, want0, want1)
	}
}

func TestBlock2(t *testing.T) {
	cases := []struct{ seed, s0, s1, counter uint64 }{
		{0, 0, 1, 0},
		{^uint64(0), ^uint64(0), 0, ^uint64(0)},
		{0x299f31d0a4093822, 0x0370734413198a2e, 17, 0x85a308d3243f6a88},
	}
	for _, tc := range cases {
		a0, a1, b0, b1 := block2(tc.seed, tc.s0, tc.s1, tc.counter)
		w0, w1 := block(tc.seed, tc.s0, tc.counter)
		v0, v1 := block(tc.seed, tc.s1, tc.counter)
		if a0 != w0 || a1 != w1 || b0 != v0 || b1 != v1 {
			t.Errorf("block2%+v = %x %x %x %x, want %x %x %x %x", tc, a0, a1, b0, b1, w0, w1, v0, v1)
		}
	}
}
