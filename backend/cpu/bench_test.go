package cpu

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"gonum.org/v1/gonum/floats"
)

// Benchmarks of the backend's operations, run single-threaded ("t=1") and
// at the default thread budget ("t=N"). Bytes are those the operation
// must move: 24 per element for Axpy (read x and y, write y), 16 for Dot, 8
// for Sum, 16 for Jacobi5 (read src once, write dst), for float64.
//
//	go test -run - -bench . ./backend/cpu

var benchSizes = []int{1 << 10, 1 << 16, 1 << 24}

// threadBudgets returns the thread budgets to benchmark: 1 and the default.
func threadBudgets() []int {
	if d := backend.DefaultThreads(); d > 1 {
		return []int{1, d}
	}
	return []int{1}
}

// withThreads runs the benchmark body under each thread budget.
func withThreads(b *testing.B, name string, body func(b *testing.B)) {
	for _, t := range threadBudgets() {
		b.Run(fmt.Sprintf("%s/t=%d", name, t), func(b *testing.B) {
			prev := backend.SetThreads(t)
			defer backend.SetThreads(prev)
			body(b)
		})
	}
}

func ramp[T backend.Element](n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(i%1000 + 1)
	}
	return x
}

func BenchmarkAxpy(b *testing.B) {
	for _, n := range benchSizes {
		x, y := driver.HostBufferOf(ramp[float64](n)), driver.HostBufferOf(ramp[float64](n))
		a := driver.ScalarOf(1e-9)
		withThreads(b, fmt.Sprintf("float64/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				Default.Axpy(a, x, y)
			}
		})
		x32, y32 := driver.HostBufferOf(ramp[float32](n)), driver.HostBufferOf(ramp[float32](n))
		a32 := driver.ScalarOf(float32(1e-9))
		withThreads(b, fmt.Sprintf("float32/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				Default.Axpy(a32, x32, y32)
			}
		})
	}
}

func BenchmarkDot(b *testing.B) {
	for _, n := range benchSizes {
		x, y := driver.HostBufferOf(ramp[float64](n)), driver.HostBufferOf(ramp[float64](n))
		withThreads(b, fmt.Sprintf("float64/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				Default.Dot(x, y)
			}
		})
	}
}

func BenchmarkSum(b *testing.B) {
	for _, n := range benchSizes {
		x := driver.HostBufferOf(ramp[float64](n))
		withThreads(b, fmt.Sprintf("float64/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				Default.Sum(x)
			}
		})
	}
}

func BenchmarkJacobi5(b *testing.B) {
	for _, sh := range [][2]int{{64, 64}, {2048, 2048}, {4096, 4096}} {
		rows, cols := sh[0], sh[1]
		n := rows * cols
		src, dst := driver.HostBufferOf(ramp[float64](n)), driver.HostBufferOf(make([]float64, n))
		withThreads(b, fmt.Sprintf("float64/%dx%d", rows, cols), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				Default.Jacobi5(dst, src, rows, cols)
			}
		})
		src32, dst32 := driver.HostBufferOf(ramp[float32](n)), driver.HostBufferOf(make([]float32, n))
		withThreads(b, fmt.Sprintf("float32/%dx%d", rows, cols), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				Default.Jacobi5(dst32, src32, rows, cols)
			}
		})
	}
}

// BenchmarkLaplace5 measures the 5-point Laplacian of conjugate gradients.
func BenchmarkLaplace5(b *testing.B) {
	for _, sh := range [][2]int{{64, 64}, {2048, 2048}} {
		rows, cols := sh[0], sh[1]
		n := rows * cols
		src, dst := driver.HostBufferOf(ramp[float64](n)), driver.HostBufferOf(make([]float64, n))
		withThreads(b, fmt.Sprintf("float64/%dx%d", rows, cols), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				Default.Laplace5(dst, src, rows, cols)
			}
		})
	}
}

// BenchmarkArgmin measures Argmin of float64 (8 bytes per element).
func BenchmarkArgmin(b *testing.B) {
	for _, n := range benchSizes {
		x := driver.HostBufferOf(ramp[float64](n))
		withThreads(b, fmt.Sprintf("float64/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				Default.Argmin(x)
			}
		})
	}
}

// BenchmarkAxpyKernel compares the single-threaded AXPY kernels: the Go
// loop (axpyGo) and gonum's assembly (axpy64, axpy32), in cache and in
// memory. It is the measurement behind axpyK's choice.
func BenchmarkAxpyKernel(b *testing.B) {
	for _, n := range []int{1000, 1 << 24} {
		x, y := ramp[float64](n), ramp[float64](n)
		b.Run(fmt.Sprintf("float64/go/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				axpyGo(1e-9, x, y)
			}
		})
		b.Run(fmt.Sprintf("float64/gonum/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				axpy64(1e-9, x, y)
			}
		})
		x32, y32 := ramp[float32](n), ramp[float32](n)
		b.Run(fmt.Sprintf("float32/go/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				axpyGo(1e-9, x32, y32)
			}
		})
		b.Run(fmt.Sprintf("float32/gonum/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				axpy32(1e-9, x32, y32)
			}
		})
	}
}

// BenchmarkDotKernel compares the single-threaded per-chunk dot kernels:
// the Go loop with 8 accumulators (dotChunk) and gonum's assembly
// (floats.Dot), on one chunk in cache and chunk by chunk over 2^24
// elements.
func BenchmarkDotKernel(b *testing.B) {
	for _, n := range []int{reduceChunk, 1 << 24} {
		x, y := ramp[float64](n), ramp[float64](n)
		b.Run(fmt.Sprintf("go/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				for lo := 0; lo < n; lo += reduceChunk {
					dotChunk(x[lo:lo+reduceChunk], y[lo:lo+reduceChunk])
				}
			}
		})
		b.Run(fmt.Sprintf("gonum/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				for lo := 0; lo < n; lo += reduceChunk {
					floats.Dot(x[lo:lo+reduceChunk], y[lo:lo+reduceChunk])
				}
			}
		})
	}
}

// BenchmarkGrain measures Axpy and Sum of float64 around the parallel
// thresholds, single-threaded and at the default budget, to place
// elemGrain and reduceParMin where two goroutines start to pay off.
func BenchmarkGrain(b *testing.B) {
	for _, n := range []int{1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18} {
		x, y := driver.HostBufferOf(ramp[float64](n)), driver.HostBufferOf(ramp[float64](n))
		a := driver.ScalarOf(1e-9)
		// Force the parallel path with a grain of a quarter of n.
		withThreads(b, fmt.Sprintf("axpy/n=%d", n), func(b *testing.B) {
			xs, ys := driver.HostSlice[float64](x), driver.HostSlice[float64](y)
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				backend.ParallelFor(n, n/4, func(lo, hi int) { axpyK(1e-9, xs[lo:hi], ys[lo:hi]) })
			}
		})
		withThreads(b, fmt.Sprintf("axpy-op/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				Default.Axpy(a, x, y)
			}
		})
		withThreads(b, fmt.Sprintf("sum-chunks/n=%d", n), func(b *testing.B) {
			xs := driver.HostSlice[float64](x)
			nc := n / reduceChunk
			p := make([]float64, nc)
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				backend.ParallelChunks(nc/reduceGroup, func(g int) {
					for c := g * reduceGroup; c < (g+1)*reduceGroup; c++ {
						p[c] = sumChunk(xs[c*reduceChunk : (c+1)*reduceChunk])
					}
				})
			}
		})
	}
}

// BenchmarkStencilWidth measures the float64 stencil rows in AVX2 and in
// AVX-512 registers (where the processor has AVX-512F) at one thread, on
// W3's grid at 1 and 2 ranks (2050 and 1026 rows of 2050, the ghost rows
// included) and W4's at 1 rank (1026 x 1026): Jacobi5 and Laplace5Dot. With -count N the two widths
// alternate.
//
//	go test -run - -bench StencilWidth -count 10 ./backend/cpu
func BenchmarkStencilWidth(b *testing.B) {
	prev := backend.SetThreads(1)
	defer backend.SetThreads(prev)
	prev512 := StencilAVX512()
	defer SetStencilAVX512(prev512)
	for _, sh := range [][2]int{{2050, 2050}, {1026, 2050}, {1026, 1026}} {
		rows, cols := sh[0], sh[1]
		n := rows * cols
		src, dst := driver.HostBufferOf(ramp[float64](n)), driver.HostBufferOf(make([]float64, n))
		for _, w := range []bool{false, true} {
			if SetStencilAVX512(w); StencilAVX512() != w {
				continue
			}
			name := map[bool]string{false: "avx2", true: "avx512"}[w]
			b.Run(fmt.Sprintf("Jacobi5/%dx%d/%s", rows, cols, name), func(b *testing.B) {
				b.SetBytes(int64(16 * n))
				for b.Loop() {
					Default.Jacobi5(dst, src, rows, cols)
				}
			})
			b.Run(fmt.Sprintf("Laplace5Dot/%dx%d/%s", rows, cols, name), func(b *testing.B) {
				b.SetBytes(int64(16 * n))
				for b.Loop() {
					Default.Laplace5Dot(dst, src, rows, cols)
				}
			})
		}
	}
}
