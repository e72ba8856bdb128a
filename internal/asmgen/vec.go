package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/reg"
)

// vecKernels emits package backend/cpu/internal/vec: the CPU backend's
// stencil rows and vector kernels, each the arithmetic of the Go loop of
// package cpu it stands in for.
func vecKernels() {
	jacobiRow(ymm)
	jacobiRow(zmm)
	laplaceRow(ymm)
	laplaceRow(zmm)
	laplaceDotRow(ymm)
	laplaceDotRow(zmm)
	axpyRow(ymm)
	axpyRow(zmm)
	axpbyRow(ymm)
	axpbyRow(zmm)
	dotRow(ymm)
	dotRow(zmm)
	radix4()
	radix4First()
	radix4S4()
	butterflies4(false)
	butterflies4(true)
	butterflies2(false)
	butterflies2(true)
}

// jacobiRow: out[j] = 0.25 * (up[j] + down[j] + left[j] + right[j]),
// the additions from the left, as jacobiRows computes it, two registers a
// step (8 points in YMM, 16 in ZMM: the AVX-512 form, the same operations
// on each point).
func jacobiRow(w width) {
	step := 2 * w.lanes
	TEXT("JacobiRow"+w.suffix, NOSPLIT, "func(out, up, down, left, right *float64, n int) int")
	Doc(fmt.Sprintf("JacobiRow%s does the arithmetic of package cpu's jacobiRows for the first n&^%d points of a row and returns how many it did.", w.suffix, step-1))
	out, up, down := param("out"), param("up"), param("down")
	left, right := param("left"), param("right")
	n := param("n")
	q := broadcastConst(w.constName("quarter"), math.Float64bits(0.25), w.reg())
	i := loop("", n, step, func(i GPVirtual) {
		for k := 0; k < step; k += w.lanes {
			v := w.reg()
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
// subtracted from the left, as laplaceRows computes it, two registers a
// step as jacobiRow.
func laplaceRow(w width) {
	step := 2 * w.lanes
	TEXT("LaplaceRow"+w.suffix, NOSPLIT, "func(out, mid, up, down, left, right *float64, n int) int")
	Doc(fmt.Sprintf("LaplaceRow%s does the arithmetic of package cpu's laplaceRows for the first n&^%d points of a row and returns how many it did.", w.suffix, step-1))
	out, mid := param("out"), param("mid")
	up, down := param("up"), param("down")
	left, right := param("left"), param("right")
	n := param("n")
	four := broadcastConst(w.constName("four"), math.Float64bits(4), w.reg())
	i := loop("", n, step, func(i GPVirtual) {
		for k := 0; k < step; k += w.lanes {
			v := w.reg()
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
// being lane i of the YMM accumulator k, each lane from +0, the product
// rounded before the sum. The lanes are combined as package cpu's
// lanes16 (lanes16 and returnSum). The AVX-512 form has the bits of the
// AVX2 one: ZMM accumulator m takes points 8m to 8m+7 of each step of 16,
// so its halves hold what YMM accumulators 2m and 2m+1 hold (halves).
func laplaceDotRow(w width) {
	TEXT("LaplaceDotRow"+w.suffix, NOSPLIT, "func(out, mid, up, down, left, right *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	if w == ymm {
		Doc("LaplaceDotRowAVX2 does the arithmetic of package cpu's laplaceRows for the first n&^15 points of a row, returns the sum of mid[j]*out[j] over them in 16 lanes, combined as package cpu's lanes16, and how many it did.")
	} else {
		Doc("LaplaceDotRowAVX512 is LaplaceDotRowAVX2 with AVX-512 registers: the same 16 lanes, combined as package cpu's lanes16, the same bits.")
	}
	out, mid := param("out"), param("mid")
	up, down := param("up"), param("down")
	left, right := param("left"), param("right")
	n := param("n")
	four := broadcastConst(w.constName("fourdot"), math.Float64bits(4), w.reg())
	acc := w.zero(16 / w.lanes)
	i := loop("dot", n, 16, func(i GPVirtual) {
		for k := range acc {
			m, v, t := w.reg(), w.reg(), w.reg()
			VMOVUPD(at(mid, i, w.lanes*k), m)
			VMULPD(m, four, v)
			VSUBPD(at(up, i, w.lanes*k), v, v)
			VSUBPD(at(down, i, w.lanes*k), v, v)
			VSUBPD(at(left, i, w.lanes*k), v, v)
			VSUBPD(at(right, i, w.lanes*k), v, v)
			VMOVUPD(v, at(out, i, w.lanes*k))
			VMULPD(v, m, t)
			VADDPD(t, acc[k], acc[k])
		}
	})
	returnSum(lanes16(w.halves(acc)), i)
}

// axpyRow: y[j] = a*x[j] + y[j], the product rounded before the sum, two
// registers a step (8 elements in YMM, 16 in ZMM: the AVX-512 form, the
// same operations on each element). On an Intel Xeon (family 6, model
// 207) a 2^24-element axpy took 7-10% less time in ZMM than in YMM, as
// long as GCC's one-FMA AVX-512 loop (docs/PERFORMANCE.md, W1).
func axpyRow(w width) {
	step := 2 * w.lanes
	TEXT("Axpy"+w.suffix, NOSPLIT, "func(a float64, x, y *float64, n int) int")
	Doc(fmt.Sprintf("Axpy%s sets y[j] = a*x[j] + y[j] for the first n&^%d elements and returns how many it did.", w.suffix, step-1))
	x, y := param("x"), param("y")
	n := param("n")
	av := broadcastParam("a", 0, w.reg())
	i := loop("", n, step, func(i GPVirtual) {
		for k := 0; k < step; k += w.lanes {
			v := w.reg()
			VMULPD(at(x, i, k), av, v)
			VADDPD(at(y, i, k), v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
	returnCount(i)
}

// axpbyRow: y[j] = a*x[j] + b*y[j], each product rounded, then the sum,
// two registers a step as axpyRow.
func axpbyRow(w width) {
	step := 2 * w.lanes
	TEXT("Axpby"+w.suffix, NOSPLIT, "func(a float64, x *float64, b float64, y *float64, n int) int")
	Doc(fmt.Sprintf("Axpby%s sets y[j] = a*x[j] + b*y[j] for the first n&^%d elements and returns how many it did.", w.suffix, step-1))
	x, y := param("x"), param("y")
	n := param("n")
	av := broadcastParam("a", 0, w.reg())
	bv := broadcastParam("b", 16, w.reg())
	i := loop("", n, step, func(i GPVirtual) {
		for k := 0; k < step; k += w.lanes {
			v, u := w.reg(), w.reg()
			VMULPD(at(x, i, k), av, v)
			VMULPD(at(y, i, k), bv, u)
			VADDPD(u, v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
	returnCount(i)
}

// dotRow: the sum of x[j]*y[j] over the first n&^31 elements in 32 lanes:
// element j goes to lane j%32, lane 4k+i being lane i of YMM accumulator
// k, each lane from +0, the product rounded before the sum (no fused
// multiply-add). The lanes are combined as package cpu's lanes32 (lanes32
// and returnSum). Eight YMM accumulators keep both of the processor's
// floating-point adders busy through the adds' latency, and each load is a
// full register.
//
// The AVX-512 form (DotAVX512) has the bits of the AVX2 one: ZMM
// accumulator m takes elements 8m to 8m+7 of each step of 32, so its low
// and high halves hold what YMM accumulators 2m and 2m+1 hold, the same
// products added in the same order, then combined as above (halves).
// Each load is 64 bytes, a whole cache line where the arrays are 64-byte
// aligned (as Go's large allocations are): on an Intel Xeon (family 6,
// model 207) a 2^24-element dot took 3-5% less time than in YMM
// (docs/PERFORMANCE.md, W2).
func dotRow(w width) {
	TEXT("Dot"+w.suffix, NOSPLIT, "func(x, y *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	if w == ymm {
		Doc("DotAVX2 returns the sum of x[j]*y[j] over the first n&^31 elements in 32 lanes, combined as package cpu's lanes32, and how many it did.")
	} else {
		Doc("DotAVX512 is DotAVX2 with AVX-512 registers: the same 32 lanes, combined as package cpu's lanes32, the same bits.")
	}
	x, y := param("x"), param("y")
	n := param("n")
	acc := w.zero(32 / w.lanes)
	i := loop("dot32", n, 32, func(i GPVirtual) {
		for k := range acc {
			v := w.reg()
			VMOVUPD(at(x, i, w.lanes*k), v)
			VMULPD(at(y, i, w.lanes*k), v, v)
			VADDPD(v, acc[k], acc[k])
		}
	})
	returnSum(lanes32(w.halves(acc)), i)
}
