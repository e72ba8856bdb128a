package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// rvecKernels emits package internal/repro/internal/rvec. The deposit
// kernels do, element by element, the floating-point operations of
// package repro's Go deposit (depositGo), with no fused multiply-add, and
// add the bits of their results as int64 (wrapping), in lanes combined at
// the end; integer addition is associative, so the totals are
// depositGo's. The maximum kernels return the largest high 32-bit word of
// |x| over their elements, an integer maximum, so a NaN is never lost.
func rvecKernels() {
	maxHi()
	mulMaxHi()
	deposit()
	depositMax()
	depositMax512()
}

// hiMask keeps the high 32-bit word of each float64, without its sign.
const hiMask = 0x7fffffff_00000000

// maxOut combines four unsigned 32-bit maximum accumulators, stores the
// largest word as "hi" and the count i as "done", and returns.
func maxOut(acc []VecVirtual, i GPVirtual) {
	VPMAXUD(acc[2], acc[0], acc[0])
	VPMAXUD(acc[3], acc[1], acc[1])
	VPMAXUD(acc[1], acc[0], acc[0])
	foldMaxUD(acc[0])
	r := GP32()
	VMOVD(acc[0].AsX(), r)
	VZEROUPPER()
	Store(r, Return("hi"))
	Store(i, Return("done"))
	RET()
}

func maxHi() {
	TEXT("MaxHiAVX2", NOSPLIT, "func(x *float64, n int) (hi uint32, done int)")
	Pragma("noescape")
	Doc("MaxHiAVX2 returns the largest high 32-bit word of |x[j]| (sign bit cleared) over the first n&^15 elements and how many it did.")
	x := param("x")
	n := param("n")
	mask := broadcastConst("himask", hiMask, YMM())
	acc := zeroInt()
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VPAND(at(x, i, 4*k), mask, v)
			VPMAXUD(v, acc[k], acc[k])
		}
	})
	maxOut(acc, i)
}

func mulMaxHi() {
	TEXT("MulMaxHiAVX2", NOSPLIT, "func(p, x, y *float64, n int) (hi uint32, done int)")
	Pragma("noescape")
	Doc("MulMaxHiAVX2 sets p[j] = x[j]*y[j] (rounded) for the first n&^15 elements and returns the largest high 32-bit word of |p[j]| and how many it did.")
	p, x, y := param("p"), param("x"), param("y")
	n := param("n")
	mask := broadcastConst("himask2", hiMask, YMM())
	acc := zeroInt()
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VMOVUPD(at(x, i, 4*k), v)
			VMULPD(at(y, i, 4*k), v, v)
			VMOVUPD(v, at(p, i, 4*k))
			VPAND(v, mask, v)
			VPMAXUD(v, acc[k], acc[k])
		}
	})
	maxOut(acc, i)
}

// sumLanes adds the four int64 lanes of each of the four accumulators and
// returns a register holding the total.
func sumLanes(acc []VecVirtual) GPVirtual {
	VPADDQ(acc[2], acc[0], acc[0])
	VPADDQ(acc[3], acc[1], acc[1])
	VPADDQ(acc[1], acc[0], acc[0])
	foldQ(acc[0])
	r := GP64()
	VMOVQ(acc[0].AsX(), r)
	return r
}

// deposit: for every element x, with c1 and c2 the anchors of the two
// bins,
//
//	s1 := x + c1
//	r := x - (s1 - c1)
//	s2 := r + c2
//	a1 += int64(bits(s1)); a2 += int64(bits(s2))
func deposit() {
	TEXT("DepositAVX2", NOSPLIT, "func(x *float64, n int, c1, c2 float64) (a1, a2 int64, done int)")
	Pragma("noescape")
	Doc("DepositAVX2 returns the wrapping int64 sums of the bits of x[j]+c1 and of (x[j]-((x[j]+c1)-c1))+c2 over the first n&^15 elements, as package repro's depositGo, and how many it did.")
	x := param("x")
	n := param("n")
	c1 := broadcastParam("c1", 16, YMM())
	c2 := broadcastParam("c2", 24, YMM())
	a1, a2 := zeroInt(), zeroInt()
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v, s, q := YMM(), YMM(), YMM()
			VMOVUPD(at(x, i, 4*k), v)
			VADDPD(c1, v, s) // s1 = x + c1
			VSUBPD(c1, s, q) // q = s1 - c1
			VPADDQ(s, a1[k], a1[k])
			VSUBPD(q, v, v)  // r = x - q
			VADDPD(c2, v, v) // s2 = r + c2
			VPADDQ(v, a2[k], a2[k])
		}
	})
	r1 := sumLanes(a1)
	r2 := sumLanes(a2)
	VZEROUPPER()
	Store(r1, Return("a1"))
	Store(r2, Return("a2"))
	Store(i, Return("done"))
	RET()
}

// returnDepositMax folds the YMM int64 sums a1 and a2 and the YMM
// unsigned 32-bit maximum mx, stores them as "a1", "a2" and "hi" and the
// count i as "done", and returns.
func returnDepositMax(a1, a2, mx VecVirtual, i GPVirtual) {
	foldQ(a1)
	foldQ(a2)
	foldMaxUD(mx)
	r1, r2, rh := GP64(), GP64(), GP32()
	VMOVQ(a1.AsX(), r1)
	VMOVQ(a2.AsX(), r2)
	VMOVD(mx.AsX(), rh)
	VZEROUPPER()
	Store(r1, Return("a1"))
	Store(r2, Return("a2"))
	Store(rh, Return("hi"))
	Store(i, Return("done"))
	RET()
}

// depositMax: deposit's sums over x and, in the same loop, MaxHiAVX2's
// maximum over y (the next chunk, read from memory while the pieces of x,
// in cache, are computed). One accumulator per sum: integer addition has
// a latency of one cycle.
func depositMax() {
	TEXT("DepositMaxAVX2", NOSPLIT, "func(x, y *float64, n int, c1, c2 float64) (a1, a2 int64, hi uint32, done int)")
	Pragma("noescape")
	Doc("DepositMaxAVX2 returns DepositAVX2's sums over the first n&^15 elements of x, MaxHiAVX2's maximum over the first n&^15 elements of y, and how many it did of each.")
	x, y := param("x"), param("y")
	n := param("n")
	c1 := broadcastParam("c1", 24, YMM())
	c2 := broadcastParam("c2", 32, YMM())
	mask := broadcastConst("himask3", hiMask, YMM())
	a1, a2, mx := YMM(), YMM(), YMM()
	VPXOR(a1, a1, a1)
	VPXOR(a2, a2, a2)
	VPXOR(mx, mx, mx)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v, s, q, w := YMM(), YMM(), YMM(), YMM()
			VPAND(at(y, i, 4*k), mask, w)
			VMOVUPD(at(x, i, 4*k), v)
			VPMAXUD(w, mx, mx)
			VADDPD(c1, v, s)
			VSUBPD(c1, s, q)
			VPADDQ(s, a1, a1)
			VSUBPD(q, v, v)
			VADDPD(c2, v, v)
			VPADDQ(v, a2, a2)
		}
	})
	returnDepositMax(a1, a2, mx, i)
}

// depositMax512 is depositMax in AVX-512 registers (8 lanes).
func depositMax512() {
	TEXT("DepositMaxAVX512", NOSPLIT, "func(x, y *float64, n int, c1, c2 float64) (a1, a2 int64, hi uint32, done int)")
	Pragma("noescape")
	Doc("DepositMaxAVX512 is DepositMaxAVX2 with AVX-512 registers.")
	x, y := param("x"), param("y")
	n := param("n")
	c1 := broadcastParam("c1", 24, ZMM())
	c2 := broadcastParam("c2", 32, ZMM())
	mask := broadcastConst("himask4", hiMask, ZMM())
	a1, a2, mx := ZMM(), ZMM(), ZMM()
	VPXORQ(a1, a1, a1)
	VPXORQ(a2, a2, a2)
	VPXORQ(mx, mx, mx)
	i := loop("", n, 16, func(i GPVirtual) {
		for k := 0; k < 2; k++ {
			v, s, q, w := ZMM(), ZMM(), ZMM(), ZMM()
			VPANDQ(at(y, i, 8*k), mask, w)
			VMOVUPD(at(x, i, 8*k), v)
			VPMAXUD(w, mx, mx)
			VADDPD(c1, v, s)
			VSUBPD(c1, s, q)
			VPADDQ(s, a1, a1)
			VSUBPD(q, v, v)
			VADDPD(c2, v, v)
			VPADDQ(v, a2, a2)
		}
	})
	// Fold the 512-bit accumulators to 256 bits, then as depositMax.
	var ys [3]VecVirtual
	for j, a := range []VecVirtual{a1, a2, mx} {
		h := YMM()
		VEXTRACTI64X4(U8(1), a, h)
		ys[j] = a.AsY().(VecVirtual)
		if j < 2 {
			VPADDQ(h, ys[j], ys[j])
		} else {
			VPMAXUD(h, ys[j], ys[j])
		}
	}
	returnDepositMax(ys[0], ys[1], ys[2], i)
}
