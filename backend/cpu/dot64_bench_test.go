package cpu

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/floats"
)

func BenchmarkDotChunk(b *testing.B) {
	for _, n := range []int{4096, 1 << 22} {
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
		b.Run(fmt.Sprintf("dot64/%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				for lo := 0; lo < n; lo += 4096 {
					dot64(x[lo:lo+4096], y[lo:lo+4096])
				}
			}
		})
	}
}
