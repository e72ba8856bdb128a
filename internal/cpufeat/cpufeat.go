// Package cpufeat reports the vector instructions that this processor and
// its operating system support, checked once at start-up: the one check
// that the AVX2 and AVX-512 kernels of backend/cpu, kernels/fuse and
// internal/repro choose their code by.
package cpufeat

import "os"

// StreamAVX512 reports whether the one-pass streaming kernels of
// backend/cpu (the float64 Dot, Axpy and Axpby) run in AVX-512 registers:
// where the processor has AVX-512F and XPMPI_CPU_AVX512 is "on", or unset
// on a processor that is not an AMD one. On AMD's Zen 4 (family 25, model
// 17), which executes a 512-bit operation as two 256-bit halves, their
// ZMM forms took 10-17% longer than their AVX2 ones over arrays of 2^24
// float64 (interleaved, medians of 55 calls), and W1's triad 1.21-1.28 of
// C's time against 0.93-1.05 (docs/PERFORMANCE.md, W1); on Intel's Xeon
// (family 6, model 207) they are at C's speed where the AVX2 ones are
// 8-15% slower.
var StreamAVX512 = AVX512 && Setting512(os.Getenv("XPMPI_CPU_AVX512"), !AMD)

// KernelAVX512 reports whether the AVX-512 kernels other than the
// streaming ones run (backend/cpu's stencil rows, kernels/fuse's fused
// kernels, internal/repro's fused sum): where the processor has AVX-512F,
// unless XPMPI_CPU_AVX512 is "off".
var KernelAVX512 = AVX512 && Setting512(os.Getenv("XPMPI_CPU_AVX512"), true)

// Setting512 returns whether an AVX-512 kernel runs by the value of
// XPMPI_CPU_AVX512: "off" turns it off, "on" on, anything else (unset)
// leaves def, the kernel's own default. Where the processor has no
// AVX-512F no setting turns it on: the callers AND it with AVX512.
func Setting512(env string, def bool) bool {
	switch env {
	case "off":
		return false
	case "on":
		return true
	}
	return def
}
