package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// vecKernels emits package backend/cpu/internal/vec: the CPU backend's
// stencil rows and vector kernels, each the arithmetic of the Go loop of
// package cpu it stands in for.
func vecKernels() {
	jacobiRow()
	laplaceRow()
	laplaceDotRow()
	axpyRow()
	axpyRow512()
	axpbyRow()
	axpbyRow512()
	dotRow()
	dotRow512()
	radix4()
	radix4First()
	radix4S4()
	butterflies4(false)
	butterflies4(true)
	butterflies2(false)
	butterflies2(true)
}

// jacobiRow: out[j] = 0.25 * (up[j] + down[j] + left[j] + right[j]),
// the additions from the left, as jacobiRows computes it.
func jacobiRow() {
	TEXT("JacobiRowAVX2", NOSPLIT, "func(out, up, down, left, right *float64, n int) int")
	Doc("JacobiRowAVX2 does the arithmetic of package cpu's jacobiRows for the first n&^7 points of a row and returns how many it did.")
	out, up, down := param("out"), param("up"), param("down")
	left, right := param("left"), param("right")
	n := param("n")
	q := broadcastConst("quarter", math.Float64bits(0.25), YMM())
	i := loop("", n, 8, func(i GPVirtual) {
		for k := 0; k < 8; k += 4 {
			v := YMM()
			VMOVUPD(at(up, i, k), v)
			VADDPD(at(down, i, k), v, v)
			VADDPD(at(left, i, k), v, v)
			VADDPD(at(right, i, k), v, v)
			VMULPD(q, v, v)
			VMOVUPD(v, at(out, i, k))
		}
	})
	returnCount(i)
}

// laplaceRow: out[j] = 4*mid[j] - up[j] - down[j] - left[j] - right[j],
// subtracted from the left, as laplaceRows computes it.
func laplaceRow() {
	TEXT("LaplaceRowAVX2", NOSPLIT, "func(out, mid, up, down, left, right *float64, n int) int")
	Doc("LaplaceRowAVX2 does the arithmetic of package cpu's laplaceRows for the first n&^7 points of a row and returns how many it did.")
	out, mid := param("out"), param("mid")
	up, down := param("up"), param("down")
	left, right := param("left"), param("right")
	n := param("n")
	four := broadcastConst("four", math.Float64bits(4), YMM())
	i := loop("", n, 8, func(i GPVirtual) {
		for k := 0; k < 8; k += 4 {
			v := YMM()
			VMULPD(at(mid, i, k), four, v)
			VSUBPD(at(up, i, k), v, v)
			VSUBPD(at(down, i, k), v, v)
			VSUBPD(at(left, i, k), v, v)
			VSUBPD(at(right, i, k), v, v)
			VMOVUPD(v, at(out, i, k))
		}
	})
	returnCount(i)
}

// laplaceDotRow: laplaceRow's out[j], and the sum of mid[j]*out[j] over
// the points it does in 16 lanes: point j goes to lane j%16, lane 4k+i
// being lane i of the accumulator k, each lane from +0, the product
// rounded before the sum. The lanes are combined as package cpu's
// lanes16 (lanes16 and returnSum).
func laplaceDotRow() {
	TEXT("LaplaceDotRowAVX2", NOSPLIT, "func(out, mid, up, down, left, right *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("LaplaceDotRowAVX2 does the arithmetic of package cpu's laplaceRows for the first n&^15 points of a row, returns the sum of mid[j]*out[j] over them in 16 lanes, combined as package cpu's lanes16, and how many it did.")
	out, mid := param("out"), param("mid")
	up, down := param("up"), param("down")
	left, right := param("left"), param("right")
	n := param("n")
	four := broadcastConst("fourdot", math.Float64bits(4), YMM())
	acc := zeroPD(4)
	i := loop("dot", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			m, v, t := YMM(), YMM(), YMM()
			VMOVUPD(at(mid, i, 4*k), m)
			VMULPD(m, four, v)
			VSUBPD(at(up, i, 4*k), v, v)
			VSUBPD(at(down, i, 4*k), v, v)
			VSUBPD(at(left, i, 4*k), v, v)
			VSUBPD(at(right, i, 4*k), v, v)
			VMOVUPD(v, at(out, i, 4*k))
			VMULPD(v, m, t)
			VADDPD(t, acc[k], acc[k])
		}
	})
	returnSum(lanes16(acc), i)
}

// axpyRow: y[j] = a*x[j] + y[j], the product rounded before the sum.
func axpyRow() {
	TEXT("AxpyAVX2", NOSPLIT, "func(a float64, x, y *float64, n int) int")
	Doc("AxpyAVX2 sets y[j] = a*x[j] + y[j] for the first n&^7 elements and returns how many it did.")
	x, y := param("x"), param("y")
	n := param("n")
	av := broadcastParam("a", 0, YMM())
	i := loop("", n, 8, func(i GPVirtual) {
		for k := 0; k < 8; k += 4 {
			v := YMM()
			VMULPD(at(x, i, k), av, v)
			VADDPD(at(y, i, k), v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
	returnCount(i)
}

// axpyRow512 is axpyRow in AVX-512 registers: the same operations on
// each element, 16 elements a step. On an Intel Xeon (family 6, model
// 207) a 2^24-element axpy took 7-10% less time than axpyRow's, as long as
// GCC's one-FMA AVX-512 loop (docs/PERFORMANCE.md, W1).
func axpyRow512() {
	TEXT("AxpyAVX512", NOSPLIT, "func(a float64, x, y *float64, n int) int")
	Doc("AxpyAVX512 is AxpyAVX2 with AVX-512 registers: it sets y[j] = a*x[j] + y[j] for the first n&^15 elements and returns how many it did.")
	x, y := param("x"), param("y")
	n := param("n")
	av := broadcastParam("a", 0, ZMM())
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 16; k += 8 {
			v := ZMM()
			VMULPD(at(x, i, k), av, v)
			VADDPD(at(y, i, k), v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
	returnCount(i)
}

// axpbyRow: y[j] = a*x[j] + b*y[j], each product rounded, then the sum.
func axpbyRow() {
	TEXT("AxpbyAVX2", NOSPLIT, "func(a float64, x *float64, b float64, y *float64, n int) int")
	Doc("AxpbyAVX2 sets y[j] = a*x[j] + b*y[j] for the first n&^7 elements and returns how many it did.")
	x, y := param("x"), param("y")
	n := param("n")
	av := broadcastParam("a", 0, YMM())
	bv := broadcastParam("b", 16, YMM())
	i := loop("", n, 8, func(i GPVirtual) {
		for k := 0; k < 8; k += 4 {
			v, w := YMM(), YMM()
			VMULPD(at(x, i, k), av, v)
			VMULPD(at(y, i, k), bv, w)
			VADDPD(w, v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
	returnCount(i)
}

// axpbyRow512 is axpbyRow in AVX-512 registers: the same operations on
// each element, 16 elements a step.
func axpbyRow512() {
	TEXT("AxpbyAVX512", NOSPLIT, "func(a float64, x *float64, b float64, y *float64, n int) int")
	Doc("AxpbyAVX512 is AxpbyAVX2 with AVX-512 registers: it sets y[j] = a*x[j] + b*y[j] for the first n&^15 elements and returns how many it did.")
	x, y := param("x"), param("y")
	n := param("n")
	av := broadcastParam("a", 0, ZMM())
	bv := broadcastParam("b", 16, ZMM())
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 16; k += 8 {
			v, w := ZMM(), ZMM()
			VMULPD(at(x, i, k), av, v)
			VMULPD(at(y, i, k), bv, w)
			VADDPD(w, v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
	returnCount(i)
}

// dotRow: the sum of x[j]*y[j] over the first n&^31 elements in 32 lanes:
// element j goes to lane j%32, lane 4k+i being lane i of accumulator k,
// each lane from +0, the product rounded before the sum (no fused
// multiply-add). The lanes are combined as package cpu's lanes32 (lanes32
// and returnSum). Eight accumulators keep both of the processor's
// floating-point adders busy through the adds' latency, and each load is a
// full YMM register.
func dotRow() {
	TEXT("DotAVX2", NOSPLIT, "func(x, y *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("DotAVX2 returns the sum of x[j]*y[j] over the first n&^31 elements in 32 lanes, combined as package cpu's lanes32, and how many it did.")
	x, y := param("x"), param("y")
	n := param("n")
	acc := zeroPD(8)
	i := loop("dot32", n, 32, func(i GPVirtual) {
		for k := 0; k < 8; k++ {
			v := YMM()
			VMOVUPD(at(x, i, 4*k), v)
			VMULPD(at(y, i, 4*k), v, v)
			VADDPD(v, acc[k], acc[k])
		}
	})
	returnSum(lanes32(acc), i)
}

// dotRow512 is dotRow in AVX-512 registers, with its bits: accumulator m
// (8 lanes) takes elements 8m to 8m+7 of each step of 32, so its low and
// high halves hold what dotRow's accumulators 2m and 2m+1 hold, the same
// products added in the same order; the halves are then combined as
// dotRow combines its eight accumulators (lanes32). Each load is 64
// bytes, a whole cache line where the arrays are 64-byte aligned (as Go's
// large allocations are): on an Intel Xeon (family 6, model 207) a 2^24-
// element dot took 3-5% less time than dotRow's (docs/PERFORMANCE.md, W2).
// Zeroed with VPXORQ, which AVX-512F has (VXORPD on ZMM needs AVX-512DQ).
func dotRow512() {
	TEXT("DotAVX512", NOSPLIT, "func(x, y *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("DotAVX512 is DotAVX2 with AVX-512 registers: the same 32 lanes, combined as package cpu's lanes32, the same bits.")
	x, y := param("x"), param("y")
	n := param("n")
	acc := make([]VecVirtual, 4)
	for m := range acc {
		acc[m] = ZMM()
		VPXORQ(acc[m], acc[m], acc[m])
	}
	i := loop("dot32", n, 32, func(i GPVirtual) {
		for m := 0; m < 4; m++ {
			v := ZMM()
			VMOVUPD(at(x, i, 8*m), v)
			VMULPD(at(y, i, 8*m), v, v)
			VADDPD(v, acc[m], acc[m])
		}
	})
	halves := make([]VecVirtual, 8)
	for m, a := range acc {
		hi := YMM()
		VEXTRACTF64X4(U8(1), a, hi)
		halves[2*m], halves[2*m+1] = a.AsY().(VecVirtual), hi
	}
	returnSum(lanes32(halves), i)
}
