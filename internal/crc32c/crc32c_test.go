package crc32c

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRCCombine checks that folding runs gives the CRC-32C of the whole,
// however the bytes are cut and whichever "rank" holds each run.
func TestCRCCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := rng.IntN(3000)
		if trial%10 == 0 {
			n = rng.IntN(4)
		}
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		want := Checksum(data)
		const parts = 3
		var sums [parts]Sum
		for off := 0; off < n; {
			k := min(1+rng.IntN(100), n-off)
			if rng.IntN(5) == 0 {
				k = min(1+rng.IntN(1000), n-off)
			}
			sums[rng.IntN(parts)].Add(int64(off), data[off:off+k])
			off += k
		}
		raw := uint32(0)
		for i := range sums {
			raw ^= sums[i].Part(int64(n))
		}
		got := Finish(raw, int64(n))
		if got != want {
			t.Fatalf("trial %d, %d bytes: combined CRC %08x, want %08x", trial, n, got, want)
		}
	}
	// Long shifts agree with appending zeros.
	for _, n := range []int64{1, 7, 64, 1000, 1 << 20} {
		z := make([]byte, n)
		v := uint32(0x12345678)
		if got, want := multModP(x8n(n), v), ^crc32.Update(^v, Table, z); got != want {
			t.Fatalf("shift by %d: %08x, want %08x", n, got, want)
		}
	}
}

func TestAddOutOfOrderPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a run before the previous one did not panic")
		}
	}()
	var s Sum
	s.Add(10, []byte{1})
	s.Add(5, []byte{2})
}
