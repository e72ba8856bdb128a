package fft

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
)

// BenchmarkLocal2D is the local work of W8 at one rank: a 2048 x 2048
// forward transform along both axes and the inverse, on one thread.
func BenchmarkLocal2D(b *testing.B) {
	const n = 2048
	x := make([]complex128, n*n)
	for i := range x {
		x[i] = complex(float64(i%29)/29-0.5, float64(i%31)/31-0.5)
	}
	shape := []int{n, n}
	prev := backend.SetThreads(1)
	defer backend.SetThreads(prev)
	for _, axis := range []int{1, 0} {
		b.Run([]string{"rows", "columns"}[1-axis], func(b *testing.B) {
			for b.Loop() {
				LocalFFT(x, shape, axis)
				LocalIFFT(x, shape, axis)
			}
		})
	}
}
