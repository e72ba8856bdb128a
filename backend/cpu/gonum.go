package cpu

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu/internal/vec"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/floats"
)

// axpy64 sets y = a*x + y with the AVX-512 or AVX2 kernel (vector.go)
// where it runs, else gonum's SSE2 assembly (f64.AxpyUnitaryTo through
// floats.AddScaled, which, unlike blas64.Axpy, does not skip a == 0: 0*Inf
// must still give NaN). All round a*x[i] before adding y[i].
func axpy64(a float64, x, y []float64) {
	if useVector && len(y) >= 8 {
		var i int
		if use512 && len(y) >= 16 {
			i = vec.AxpyAVX512(a, &x[0], &y[0], len(y))
		} else {
			i = vec.AxpyAVX2(a, &x[0], &y[0], len(y))
		}
		x, y = x[i:len(y)], y[i:]
		for j := range y {
			y[j] += a * x[j]
		}
		return
	}
	floats.AddScaled(y, a, x[:len(y)])
}

// axpy32 sets y = a*x + y with gonum's SSE2 assembly (f32.AxpyUnitary
// through blas32.Axpy). blas32 returns at once when a == 0, so a == 0 takes
// the Go loop, which turns 0*Inf and 0*NaN into NaN as IEEE arithmetic does.
func axpy32(a float32, x, y []float32) {
	if a == 0 {
		axpyGo(a, x, y)
		return
	}
	n := len(y)
	blas32.Axpy(a, blas32.Vector{N: n, Inc: 1, Data: x[:n]}, blas32.Vector{N: n, Inc: 1, Data: y})
}

// The per-chunk kernels of Sum for float64 and of Dot for float32 are
// gonum's SSE2 assembly: single-threaded, 2^24 elements in 4096-element
// chunks, they ran at 8.9-9.1 GB/s (Sum) against 5.9-6.4 GB/s for the Go
// loop with 8 accumulators, and 2.7-3.4 times as fast on a chunk in cache;
// float32 Dot (f32.DdotUnitary, which converts to float64 before
// multiplying) 10.4-11.7 against 6.5-7.1 GB/s. gonum has no
// float32-to-float64 Sum: that one is the Go loop. The assembly sums each
// chunk in a fixed order of 8 (Sum) lanes, but first adds single elements
// until the address is 16-byte aligned, so the last bits of a result can
// depend on the alignment of the data (never on the thread count).
//
// float64 Dot is dot64: 32 lanes (lanes32, the AVX2 kernel vec.DotAVX2
// where it runs), whose grouping depends on the element index alone, so
// its bits depend neither on the alignment nor on AVX2. On a 4096-element
// chunk in cache it ran at 2 times gonum's SSE2 DotUnitary (2026-12-06,
// AMD EPYC, BenchmarkDotChunk).

// sumChunkF returns the float64 sum of one chunk of floats.
func sumChunkF[T backend.Element](x []T) float64 {
	if x, ok := any(x).([]float64); ok {
		return floats.Sum(x)
	}
	return sumChunk(x)
}

// dotChunkF returns the float64 sum of x[i]*y[i] over one chunk of floats.
func dotChunkF[T backend.Element](x, y []T) float64 {
	switch x := any(x).(type) {
	case []float64:
		return dot64(x, any(y).([]float64)[:len(x)])
	case []float32:
		return gonum.Implementation{}.Dsdot(len(x), x, 1, any(y).([]float32)[:len(x)], 1)
	}
	return dotChunk(x, y)
}

// dot64 returns the sum of x[i]*y[i]: lanes32 over the first 32*(len(x)/32)
// elements, then the rest added one at a time in order. It is the same
// bits with and without AVX2.
func dot64(x, y []float64) float64 {
	s, i := lanes32(x, y)
	y = y[:len(x)]
	for ; i < len(x); i++ {
		s += float64(x[i] * y[i])
	}
	return s
}
