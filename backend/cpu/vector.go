package cpu

import (
	"os"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu/internal/vec"
	"github.com/xpmpi/xpmpi/internal/cpufeat"
)

// The vector kernels.
//
// The float64 stencils (Jacobi5, Laplace5, Laplace5Dot), Axpy, Axpby and
// Dot have AVX2 kernels and AVX-512 forms of them with the same bits
// (stencil512 for the stencils, use512 for the others), written in
// assembly generated with avo (internal/asmgen, a module of its own;
// package internal/vec), used where the processor has AVX2 (checked once
// with CPUID at start-up) unless XPMPI_CPU_VECTOR=off. They
// compute, lane by lane, exactly what the Go loops compute, in the same
// order and without fused multiply-add, so both paths give the same bits
// (the tests compare them). A build with -tags purego, or off amd64, has
// the Go loops only.

// useVector says whether the AVX2 kernels run: vec.HasAVX2, unless the
// environment turns them off. Tests switch it with SetVector.
var useVector = vec.HasAVX2 && os.Getenv("XPMPI_CPU_VECTOR") != "off"

// Vector reports whether the CPU backend's AVX2 kernels are in use.
func Vector() bool { return useVector }

// SetVector turns the AVX2 kernels on or off (on only where the processor
// has AVX2) and returns the previous setting. It is for tests and
// benchmarks that compare the two paths; it must not be called while
// operations run.
func SetVector(on bool) bool {
	prev := useVector
	useVector = on && vec.HasAVX2
	return prev
}

// use512 says whether the float64 Dot, Axpy and Axpby run their AVX-512
// kernels (vec.DotAVX512, AxpyAVX512, AxpbyAVX512: the bits of the AVX2
// ones) where the AVX2 kernels run: where the processor has AVX-512F and
// is not an AMD one (on AMD's Zen 4 these streaming kernels are slower in
// ZMM registers than in YMM; see cpufeat.StreamAVX512), or where
// XPMPI_CPU_AVX512=on; never with XPMPI_CPU_AVX512=off. Tests switch it
// with SetAVX512.
var use512 = vec.HasAVX512 && cpufeat.StreamAVX512

// AVX512 reports whether the AVX-512 kernels of the float64 Dot, Axpy and
// Axpby are in use (where the AVX2 kernels are: Vector).
func AVX512() bool { return use512 }

// SetAVX512 turns the AVX-512 forms of the float64 Dot, Axpy and Axpby on
// (only where the processor has AVX-512F) or off, and returns the previous
// setting; they run only where the AVX2 kernels do (SetVector). The two
// forms give the same bits. For tests and benchmarks; not while
// operations run.
func SetAVX512(on bool) bool {
	prev := use512
	use512 = on && vec.HasAVX512
	return prev
}

// stencil512 says whether the float64 stencil rows (Jacobi5, Laplace5 and
// Laplace5Dot) run their AVX-512 kernels (vec.JacobiRowAVX512,
// LaplaceRowAVX512, LaplaceDotRowAVX512: the bits of the AVX2 ones) where
// the AVX2 kernels run: where the processor has AVX-512F, unless
// XPMPI_CPU_AVX512=off. Unlike the streaming kernels (use512), they keep
// their AVX-512 form on AMD processors: on AMD's Zen 4 (family 25, model
// 17), one thread, alternating widths, medians of 8
// (BenchmarkStencilWidth), Jacobi5 took 3-12% less time in ZMM than in YMM
// on W3's grids (2050 and 1026 rows of 2050) and 11-39% less on W4's (1026
// x 1026, which fits in the L3 cache), Laplace5Dot 12-33% less on the two
// smaller grids and from 4% more to 9% less on the largest
// (docs/PERFORMANCE.md, W3). Not measured on Intel processors, where the
// other AVX-512 kernels run and GCC's loops (the bench's C reference) are
// in ZMM too. Tests switch it with SetStencilAVX512.
var stencil512 = vec.HasAVX512 && cpufeat.KernelAVX512

// StencilAVX512 reports whether the AVX-512 kernels of the float64
// stencils are in use (where the AVX2 kernels are: Vector).
func StencilAVX512() bool { return stencil512 }

// SetStencilAVX512 turns the AVX-512 forms of the float64 stencil rows on
// (only where the processor has AVX-512F) or off, and returns the previous
// setting; they run only where the AVX2 kernels do (SetVector). The two
// forms give the same bits. For tests and benchmarks; not while
// operations run.
func SetStencilAVX512(on bool) bool {
	prev := stencil512
	stencil512 = on && vec.HasAVX512
	return prev
}

// f64 returns a pointer to the first element of s as a *float64 if T is
// float64 and s is not empty, or nil.
func f64[T backend.Element](s []T) *float64 {
	var zero T
	if _, ok := any(zero).(float64); !ok || len(s) == 0 {
		return nil
	}
	return (*float64)(unsafe.Pointer(&s[0]))
}

// vectorF64 reports whether the AVX2 kernels run for element type T.
func vectorF64[T backend.Element]() bool {
	var zero T
	_, ok := any(zero).(float64)
	return ok && useVector
}
