package fft

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// BenchmarkReal compares the real transforms with the complex transform
// of the complex-converted input, on one thread: a 1024 x 1024 real block
// transformed along its rows (LocalRFFT against the conversion and
// LocalFFT), and the distributed 2-D transforms at the job's rank count
// (RFFT2 against Astype to complex128 and FFT2), forward and inverse each.
// The ratio of each pair is the saving of the real algorithm.
func BenchmarkReal(b *testing.B) {
	const n = 1024
	x := make([]float64, n*n)
	for i := range x {
		x[i] = float64(i%29)/29 - 0.5
	}
	shape := []int{n, n}
	prev := backend.SetThreads(1)
	defer backend.SetThreads(prev)
	b.Run("local/rfft", func(b *testing.B) {
		for b.Loop() {
			X := LocalRFFT(x, shape, 1)
			LocalIRFFT(X, []int{n, n/2 + 1}, 1, n)
		}
	})
	b.Run("local/complex", func(b *testing.B) {
		for b.Loop() {
			c := make([]complex128, len(x))
			for i, v := range x {
				c[i] = complex(v, 0)
			}
			LocalFFT(c, shape, 1)
			LocalIFFT(c, shape, 1)
			r := make([]float64, len(c))
			for i, v := range c {
				r[i] = real(v)
			}
		}
	})
	c := mpitest.World(b)
	a, err := dist.FromFunc(c, shape, func(idx []int) float64 { return x[idx[0]*n+idx[1]] })
	if err != nil {
		b.Fatal(err)
	}
	defer a.Free()
	b.Run("dist/rfft2", func(b *testing.B) {
		for b.Loop() {
			X, err := RFFT2(a)
			if err != nil {
				b.Fatal(err)
			}
			y, err := IRFFT2(X, n)
			if err != nil {
				b.Fatal(err)
			}
			X.Free()
			y.Free()
		}
	})
	b.Run("dist/complex", func(b *testing.B) {
		for b.Loop() {
			ac, err := dist.Astype[complex128](a)
			if err != nil {
				b.Fatal(err)
			}
			X, err := FFT2(ac, Overwrite())
			if err != nil {
				b.Fatal(err)
			}
			y, err := IFFT2(X, Overwrite())
			if err != nil {
				b.Fatal(err)
			}
			r, err := dist.Real[float64](y)
			if err != nil {
				b.Fatal(err)
			}
			for _, z := range []*dist.Array[complex128]{ac, X, y} {
				if !z.Freed() {
					z.Free()
				}
			}
			r.Free()
		}
	})
}
