package rng

import (
	"strconv"
	"testing"
)

var benchSizes = []int{1 << 10, 1 << 16, 1 << 20}

func BenchmarkPhilox4x32_10(b *testing.B) {
	var ctr [4]uint32
	key := [2]uint32{1, 2}
	for i := 0; i < b.N; i++ {
		ctr[0] = uint32(i)
		ctr = Philox4x32_10(ctr, key)
	}
	_ = ctr
}

func benchFill[T any](b *testing.B, fill func(dst []T, draw uint64)) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dst := make([]T, n)
			b.SetBytes(int64(n) * 8)
			for i := 0; i < b.N; i++ {
				fill(dst, uint64(i))
			}
		})
	}
}

func BenchmarkFillUniform64(b *testing.B) {
	benchFill(b, func(dst []float64, draw uint64) { FillUniform(dst, 1, 0, draw) })
}

func BenchmarkFillUniform32(b *testing.B) {
	benchFill(b, func(dst []float32, draw uint64) { FillUniform(dst, 1, 0, draw) })
}

func BenchmarkFillNormal64(b *testing.B) {
	benchFill(b, func(dst []float64, draw uint64) { FillNormal(dst, 1, 0, draw) })
}

func BenchmarkFillUniformInts64(b *testing.B) {
	benchFill(b, func(dst []int64, draw uint64) { FillUniformInts(dst, 1, 0, draw, -1000, 1000) })
}
