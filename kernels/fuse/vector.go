package fuse

import (
	"os"

	"github.com/xpmpi/xpmpi/internal/cpufeat"
	"github.com/xpmpi/xpmpi/kernels/fuse/internal/fvec"
)

// The vector kernels.
//
// The float64 chunk loops that dominate a fused CG iteration — the dot
// product, y + a*x, y + a*x with the dot of its result with itself, the
// pair of updates with that dot, and the chain of 4 additions (the 5-point
// Laplacian) — have AVX2 kernels, written in assembly generated with avo
// (internal/asmgen, a module of its own; package internal/fvec), used
// where the processor has AVX2 (checked once with CPUID at start-up)
// unless XPMPI_CPU_VECTOR=off, the switch of package backend/cpu. They
// compute, lane by lane, exactly what the Go loops compute, in the same
// order (the 16 lanes of sumFK) and without fused multiply-add, so both
// paths give the same bits (the tests compare them). A build with -tags
// purego, or off amd64, has the Go loops only. Where the processor has
// AVX-512F, their AVX-512 forms run instead (the same bits), unless
// XPMPI_CPU_AVX512=off, the switch of package backend/cpu.

// useVector says whether the AVX2 kernels run. Tests switch it with
// setVector.
var useVector = fvec.HasAVX2 && os.Getenv("XPMPI_CPU_VECTOR") != "off"

// use512 says whether the AVX-512 forms run in place of the AVX2 kernels
// (where those run). Tests switch it with setAVX512.
var use512 = fvec.HasAVX512 && cpufeat.KernelAVX512

// setVector turns the AVX2 kernels on or off (on only where the processor
// has AVX2) and returns the previous setting; not while kernels run.
func setVector(on bool) bool {
	prev := useVector
	useVector = on && fvec.HasAVX2
	return prev
}

// setAVX512 turns the AVX-512 forms on or off (on only where the
// processor has AVX-512F) and returns the previous setting; not while
// kernels run.
func setAVX512(on bool) bool {
	prev := use512
	use512 = on && fvec.HasAVX512
	return prev
}

// dotF64 returns the sum of a[i]*b[i] over one chunk in the order of
// dotFK.
func dotF64(a, b []float64) float64 {
	if !useVector || len(a) < 16 {
		return dotFK(a, b)
	}
	b = b[:len(a)]
	var s float64
	var done int
	if use512 {
		s, done = fvec.DotAVX512(&a[0], &b[0], len(a))
	} else {
		s, done = fvec.DotAVX2(&a[0], &b[0], len(a))
	}
	return dotTail(s, a[done:], b[done:])
}

// axpyF64 sets d = y + s*x (each product rounded, then the sum, as axpyK;
// every element's operands are read before it is written, so d may be x
// or y).
func axpyF64(d []float64, s float64, x, y []float64) {
	if !useVector || len(d) < 16 {
		axpyK(d, s, x, y)
		return
	}
	x, y = x[:len(d)], y[:len(d)]
	var done int
	if use512 {
		done = fvec.AxpyToAVX512(&d[0], s, &x[0], &y[0], len(d))
	} else {
		done = fvec.AxpyToAVX2(&d[0], s, &x[0], &y[0], len(d))
	}
	axpyK(d[done:], s, x[done:], y[done:])
}

// axpyDotF64 is axpyDotK for float64.
func axpyDotF64(d []float64, s float64, x, y []float64) float64 {
	if !useVector || len(d) < 16 {
		return axpyDotK(d, s, x, y)
	}
	x, y = x[:len(d)], y[:len(d)]
	var r float64
	var done int
	if use512 {
		r, done = fvec.AxpyDotAVX512(&d[0], s, &x[0], &y[0], len(d))
	} else {
		r, done = fvec.AxpyDotAVX2(&d[0], s, &x[0], &y[0], len(d))
	}
	for i := done; i < len(d); i++ {
		v := y[i] + float64(s*x[i])
		d[i] = v
		r += prod(v, v)
	}
	return r
}

// axpy2DotF64 is axpy2DotK for float64.
func axpy2DotF64(d1 []float64, s1 float64, x1, y1, d2 []float64, s2 float64, x2, y2 []float64) float64 {
	if !useVector || len(d1) < 16 {
		return axpy2DotK(d1, s1, x1, y1, d2, s2, x2, y2)
	}
	n := len(d1)
	x1, y1, d2, x2, y2 = x1[:n], y1[:n], d2[:n], x2[:n], y2[:n]
	var r float64
	var done int
	if use512 {
		r, done = fvec.Axpy2DotAVX512(&d1[0], s1, &x1[0], &y1[0], &d2[0], s2, &x2[0], &y2[0], n)
	} else {
		r, done = fvec.Axpy2DotAVX2(&d1[0], s1, &x1[0], &y1[0], &d2[0], s2, &x2[0], &y2[0], n)
	}
	for i := done; i < n; i++ {
		a1, b1, a2, b2 := x1[i], y1[i], x2[i], y2[i]
		d1[i] = b1 + float64(s1*a1)
		v := b2 + float64(s2*a2)
		d2[i] = v
		r += prod(v, v)
	}
	return r
}

// chain4F64 is chain4K for float64.
func chain4F64(d []float64, s float64, x []float64, g1 float64, y1 []float64, g2 float64, y2 []float64, g3 float64, y3 []float64, g4 float64, y4 []float64) {
	if !useVector || len(d) < 16 {
		chain4K(d, s, x, g1, y1, g2, y2, g3, y3, g4, y4)
		return
	}
	n := len(d)
	x, y1, y2, y3, y4 = x[:n], y1[:n], y2[:n], y3[:n], y4[:n]
	g := [4]float64{g1, g2, g3, g4}
	var done int
	if use512 {
		done = fvec.Chain4AVX512(&d[0], s, &x[0], &g, &y1[0], &y2[0], &y3[0], &y4[0], n)
	} else {
		done = fvec.Chain4AVX2(&d[0], s, &x[0], &g, &y1[0], &y2[0], &y3[0], &y4[0], n)
	}
	chain4K(d[done:], s, x[done:], g1, y1[done:], g2, y2[done:], g3, y3[done:], g4, y4[done:])
}
