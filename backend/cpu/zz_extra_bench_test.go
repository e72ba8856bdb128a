package cpu

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"gonum.org/v1/gonum/floats"
)

func BenchmarkXSumPar(b *testing.B) {
	n := 1 << 24
	x := ramp[float64](n)
	y := ramp[float64](n)
	for _, t := range []int{1, 2} {
		backend.SetThreads(t)
		b.Run("chunks-floatsSum", func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			p := make([]float64, n/reduceChunk)
			for b.Loop() {
				backend.ParallelChunks(n/reduceChunk/8, func(g int) {
					for c := g * 8; c < g*8+8; c++ {
						p[c] = floats.Sum(x[c*reduceChunk : (c+1)*reduceChunk])
					}
				})
			}
		})
		b.Run("chunks-floatsDot", func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			p := make([]float64, n/reduceChunk)
			for b.Loop() {
				backend.ParallelChunks(n/reduceChunk/8, func(g int) {
					for c := g * 8; c < g*8+8; c++ {
						p[c] = floats.Dot(x[c*reduceChunk:(c+1)*reduceChunk], y[c*reduceChunk:(c+1)*reduceChunk])
					}
				})
			}
		})
		b.Run("chunks-goSum", func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			p := make([]float64, n/reduceChunk)
			for b.Loop() {
				backend.ParallelChunks(n/reduceChunk/8, func(g int) {
					for c := g * 8; c < g*8+8; c++ {
						p[c] = sumChunk(x[c*reduceChunk : (c+1)*reduceChunk])
					}
				})
			}
		})
	}
	backend.SetThreads(0)
}
