package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// fvecKernels emits package kernels/fuse/internal/fvec: the fused
// expressions' chunk kernels, each the arithmetic of package fuse's Go
// loop. The reductions keep 16 lanes in four YMM accumulators A0..A3
// (element j of the chunk goes to lane j%16, lane 4k+i being lane i of
// Ak) and combine them as fuse's lanes16 does (lanes16 and returnSum).
func fvecKernels() {
	dot()
	axpyTo()
	axpyDot()
	axpy2Dot()
	chain4()
}

func dot() {
	TEXT("DotAVX2", NOSPLIT, "func(a, b *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("DotAVX2 returns the sum of a[j]*b[j] over the first n&^15 elements in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	a, b := param("a"), param("b")
	n := param("n")
	acc := zeroPD(4)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VMOVUPD(at(a, i, 4*k), v)
			VMULPD(at(b, i, 4*k), v, v)
			VADDPD(v, acc[k], acc[k])
		}
	})
	returnSum(lanes16(acc), i)
}

func axpyTo() {
	TEXT("AxpyToAVX2", NOSPLIT, "func(d *float64, s float64, x, y *float64, n int) int")
	Pragma("noescape")
	Doc("AxpyToAVX2 sets d[j] = y[j] + s*x[j] (the product rounded, then the sum) for the first n&^15 elements and returns how many it did. Each group of 4 elements is read before it is written, so d may be x or y.")
	d, x, y := param("d"), param("x"), param("y")
	n := param("n")
	sv := broadcastParam("s", 8, YMM())
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VMULPD(at(x, i, 4*k), sv, v)
			VADDPD(at(y, i, 4*k), v, v)
			VMOVUPD(v, at(d, i, 4*k))
		}
	})
	returnCount(i)
}

func axpyDot() {
	TEXT("AxpyDotAVX2", NOSPLIT, "func(d *float64, s float64, x, y *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("AxpyDotAVX2 sets d[j] = y[j] + s*x[j] for the first n&^15 elements, returns the sum of d[j]*d[j] over them in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	d, x, y := param("d"), param("x"), param("y")
	n := param("n")
	sv := broadcastParam("s", 8, YMM())
	acc := zeroPD(4)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v, w := YMM(), YMM()
			VMULPD(at(x, i, 4*k), sv, v)
			VADDPD(at(y, i, 4*k), v, v)
			VMOVUPD(v, at(d, i, 4*k))
			VMULPD(v, v, w)
			VADDPD(w, acc[k], acc[k])
		}
	})
	returnSum(lanes16(acc), i)
}

func axpy2Dot() {
	TEXT("Axpy2DotAVX2", NOSPLIT, "func(d1 *float64, s1 float64, x1, y1, d2 *float64, s2 float64, x2, y2 *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("Axpy2DotAVX2 sets d1[j] = y1[j] + s1*x1[j] and d2[j] = y2[j] + s2*x2[j] for the first n&^15 elements, reading the four operands of a group of 4 elements before writing either result, returns the sum of d2[j]*d2[j] over them in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	d1, x1, y1 := param("d1"), param("x1"), param("y1")
	d2, x2, y2 := param("d2"), param("x2"), param("y2")
	n := param("n")
	s1 := broadcastParam("s1", 8, YMM())
	s2 := broadcastParam("s2", 40, YMM())
	acc := zeroPD(4)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			a, b, p, q := YMM(), YMM(), YMM(), YMM()
			VMOVUPD(at(x1, i, 4*k), a)
			VMOVUPD(at(y1, i, 4*k), b)
			VMOVUPD(at(x2, i, 4*k), p)
			VMOVUPD(at(y2, i, 4*k), q)
			VMULPD(a, s1, a)
			VADDPD(a, b, b)
			VMULPD(p, s2, p)
			VADDPD(p, q, q)
			VMOVUPD(b, at(d1, i, 4*k))
			VMOVUPD(q, at(d2, i, 4*k))
			VMULPD(q, q, q)
			VADDPD(q, acc[k], acc[k])
		}
	})
	returnSum(lanes16(acc), i)
}

func chain4() {
	TEXT("Chain4AVX2", NOSPLIT, "func(d *float64, s float64, x *float64, gs *[4]float64, y1, y2, y3, y4 *float64, n int) int")
	Pragma("noescape")
	Doc("Chain4AVX2 sets d[j] = (((s*x[j] + gs[0]*y1[j]) + gs[1]*y2[j]) + gs[2]*y3[j]) + gs[3]*y4[j], each product rounded, then the sums from the left, for the first n&^15 elements and returns how many it did. Each group of 4 elements is read before it is written.")
	d, x, gp := param("d"), param("x"), param("gs")
	ys := []Register{param("y1"), param("y2"), param("y3"), param("y4")}
	n := param("n")
	sv := broadcastParam("s", 8, YMM())
	var g [4]VecVirtual
	for k := range g {
		g[k] = YMM()
		VBROADCASTSD(Mem{Base: gp, Disp: 8 * k}, g[k])
	}
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VMULPD(at(x, i, 4*k), sv, v)
			for t := 0; t < 4; t++ {
				w := YMM()
				VMULPD(at(ys[t], i, 4*k), g[t], w)
				VADDPD(w, v, v)
			}
			VMOVUPD(v, at(d, i, 4*k))
		}
	})
	returnCount(i)
}
