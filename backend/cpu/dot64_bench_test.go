package cpu

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/backend/cpu/internal/vec"
	"gonum.org/v1/gonum/floats"
)

// BenchmarkDotChunk: gonum's DotUnitary and dot64 (the AVX2 kernel, and
// its AVX-512 form where the processor has AVX-512F) over chunks of 4096
// elements, as Dot runs them: in cache (4096), and streaming from memory
// (2^22, and W2's 2^24).
func BenchmarkDotChunk(b *testing.B) {
	for _, n := range []int{4096, 1 << 22, 1 << 24} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = float64(i%7)+0.5, float64(i%5)-1.25
		}
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				for lo := 0; lo < n; lo += 4096 {
					floats.Dot(x[lo:lo+4096], y[lo:lo+4096])
				}
			}
		})
		for _, k := range []struct {
			name string
			on   bool
		}{{"dot64", false}, {"dot64-avx512", true}} {
			if k.on && !vec.HasAVX512 {
				continue
			}
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				prev := use512
				use512 = k.on
				defer func() { use512 = prev }()
				b.SetBytes(int64(16 * n))
				for b.Loop() {
					for lo := 0; lo < n; lo += 4096 {
						dot64(x[lo:lo+4096], y[lo:lo+4096])
					}
				}
			})
		}
	}
}
