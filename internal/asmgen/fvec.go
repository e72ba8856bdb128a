package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// fvecKernels emits package kernels/fuse/internal/fvec: the fused
// expressions' chunk kernels, each the arithmetic of package fuse's Go
// loop, in an AVX2 form and an AVX-512 form with the same bits (width).
// The reductions keep 16 lanes in four YMM accumulators A0..A3 (element
// j of the chunk goes to lane j%16, lane 4k+i being lane i of Ak), or in
// two ZMM accumulators whose halves are A0..A3, and combine them as
// fuse's lanes16 does (lanes16 and returnSum).
func fvecKernels() {
	for _, w := range []width{ymm, zmm} {
		dot(w)
		axpyTo(w)
		axpyDot(w)
		axpy2Dot(w)
		chain4(w)
	}
}

// text declares kernel name+w.suffix with its signature and its doc: doc
// for the AVX2 form; the AVX-512 form's says it is that with AVX-512
// registers.
func (w width) text(name, sig, doc string) {
	TEXT(name+w.suffix, NOSPLIT, sig)
	Pragma("noescape")
	if w.lanes == 4 {
		Doc(name + w.suffix + " " + doc)
		return
	}
	Doc(name + w.suffix + " is " + name + ymm.suffix + " with AVX-512 registers: the same operations on the same elements, the same lanes combined in the same order, the same bits.")
}

func dot(w width) {
	w.text("Dot", "func(a, b *float64, n int) (sum float64, done int)",
		"returns the sum of a[j]*b[j] over the first n&^15 elements in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	a, b := param("a"), param("b")
	n := param("n")
	acc := w.zero(16 / w.lanes)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := range acc {
			v := w.reg()
			VMOVUPD(at(a, i, w.lanes*k), v)
			VMULPD(at(b, i, w.lanes*k), v, v)
			VADDPD(v, acc[k], acc[k])
		}
	})
	returnSum(lanes16(w.halves(acc)), i)
}

func axpyTo(w width) {
	w.text("AxpyTo", "func(d *float64, s float64, x, y *float64, n int) int",
		"sets d[j] = y[j] + s*x[j] (the product rounded, then the sum) for the first n&^15 elements and returns how many it did. Each group of 4 elements is read before it is written, so d may be x or y.")
	d, x, y := param("d"), param("x"), param("y")
	n := param("n")
	sv := broadcastParam("s", 8, w.reg())
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 16/w.lanes; k++ {
			v := w.reg()
			VMULPD(at(x, i, w.lanes*k), sv, v)
			VADDPD(at(y, i, w.lanes*k), v, v)
			VMOVUPD(v, at(d, i, w.lanes*k))
		}
	})
	returnCount(i)
}

func axpyDot(w width) {
	w.text("AxpyDot", "func(d *float64, s float64, x, y *float64, n int) (sum float64, done int)",
		"sets d[j] = y[j] + s*x[j] for the first n&^15 elements, returns the sum of d[j]*d[j] over them in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	d, x, y := param("d"), param("x"), param("y")
	n := param("n")
	sv := broadcastParam("s", 8, w.reg())
	acc := w.zero(16 / w.lanes)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := range acc {
			v, u := w.reg(), w.reg()
			VMULPD(at(x, i, w.lanes*k), sv, v)
			VADDPD(at(y, i, w.lanes*k), v, v)
			VMOVUPD(v, at(d, i, w.lanes*k))
			VMULPD(v, v, u)
			VADDPD(u, acc[k], acc[k])
		}
	})
	returnSum(lanes16(w.halves(acc)), i)
}

func axpy2Dot(w width) {
	w.text("Axpy2Dot", "func(d1 *float64, s1 float64, x1, y1, d2 *float64, s2 float64, x2, y2 *float64, n int) (sum float64, done int)",
		"sets d1[j] = y1[j] + s1*x1[j] and d2[j] = y2[j] + s2*x2[j] for the first n&^15 elements, reading the four operands of a group of 4 elements before writing either result, returns the sum of d2[j]*d2[j] over them in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	d1, x1, y1 := param("d1"), param("x1"), param("y1")
	d2, x2, y2 := param("d2"), param("x2"), param("y2")
	n := param("n")
	s1 := broadcastParam("s1", 8, w.reg())
	s2 := broadcastParam("s2", 40, w.reg())
	acc := w.zero(16 / w.lanes)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := range acc {
			a, b, p, q := w.reg(), w.reg(), w.reg(), w.reg()
			VMOVUPD(at(x1, i, w.lanes*k), a)
			VMOVUPD(at(y1, i, w.lanes*k), b)
			VMOVUPD(at(x2, i, w.lanes*k), p)
			VMOVUPD(at(y2, i, w.lanes*k), q)
			VMULPD(a, s1, a)
			VADDPD(a, b, b)
			VMULPD(p, s2, p)
			VADDPD(p, q, q)
			VMOVUPD(b, at(d1, i, w.lanes*k))
			VMOVUPD(q, at(d2, i, w.lanes*k))
			VMULPD(q, q, q)
			VADDPD(q, acc[k], acc[k])
		}
	})
	returnSum(lanes16(w.halves(acc)), i)
}

func chain4(w width) {
	w.text("Chain4", "func(d *float64, s float64, x *float64, gs *[4]float64, y1, y2, y3, y4 *float64, n int) int",
		"sets d[j] = (((s*x[j] + gs[0]*y1[j]) + gs[1]*y2[j]) + gs[2]*y3[j]) + gs[3]*y4[j], each product rounded, then the sums from the left, for the first n&^15 elements and returns how many it did. Each group of 4 elements is read before it is written.")
	d, x, gp := param("d"), param("x"), param("gs")
	ys := []Register{param("y1"), param("y2"), param("y3"), param("y4")}
	n := param("n")
	sv := broadcastParam("s", 8, w.reg())
	var g [4]VecVirtual
	for k := range g {
		g[k] = w.reg()
		VBROADCASTSD(Mem{Base: gp, Disp: 8 * k}, g[k])
	}
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 16/w.lanes; k++ {
			v := w.reg()
			VMULPD(at(x, i, w.lanes*k), sv, v)
			for t := 0; t < 4; t++ {
				u := w.reg()
				VMULPD(at(ys[t], i, w.lanes*k), g[t], u)
				VADDPD(u, v, v)
			}
			VMOVUPD(v, at(d, i, w.lanes*k))
		}
	})
	returnCount(i)
}
