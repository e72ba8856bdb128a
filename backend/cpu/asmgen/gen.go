// Command asmgen writes the CPU backend's AVX2 kernels (package
// backend/cpu/internal/vec: vec_amd64.s) and their Go declarations
// (vec_stubs_amd64.go) with avo. It is a module of its own so that avo is
// not a dependency of xpmpi; run it from this directory:
//
//	go run . -out ../internal/vec/vec_amd64.s -stubs ../internal/vec/vec_stubs_amd64.go -pkg vec
//
// The kernels live in a package of their own because package cpu uses cgo
// (OpenBLAS), and a cgo package cannot hold Go assembly.
//
// The kernels do exactly the arithmetic of the Go loops they stand in for,
// lane by lane, in the same order and with no fused multiply-add, so the
// results are the same bits on both paths.
package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("!purego")
	jacobiRow()
	laplaceRow()
	laplaceDotRow()
	axpyRow()
	axpbyRow()
	dotRow()
	Generate()
}

// rowLoop emits a loop over the first n&^7 elements, 8 at a time (two
// YMM registers of 4), calling body for each half with the byte offset of
// the half, and returns with the count of elements it did in AX.
func rowLoop(n Register, body func(off Op, idx GPVirtual)) {
	i := GP64()
	XORQ(i, i)
	end := GP64()
	MOVQ(n, end)
	ANDQ(I32(^7), end)
	Label("loop")
	CMPQ(i, end)
	JGE(LabelRef("done"))
	body(nil, i)
	ADDQ(I8(8), i)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	Store(i, ReturnIndex(0))
	RET()
}

// at returns the operand of element idx+k of the float64 array at base.
func at(base Register, idx GPVirtual, k int) Mem {
	return Mem{Base: base, Index: idx, Scale: 8, Disp: 8 * k}
}

// jacobiRow: out[j] = 0.25 * (up[j] + down[j] + left[j] + right[j]),
// the additions from the left, as jacobiRows computes it.
func jacobiRow() {
	TEXT("JacobiRowAVX2", NOSPLIT, "func(out, up, down, left, right *float64, n int) int")
	Doc("JacobiRowAVX2 does the arithmetic of package cpu's jacobiRows for the first n&^7 points of a row and returns how many it did.")
	out, up, down := Load(Param("out"), GP64()), Load(Param("up"), GP64()), Load(Param("down"), GP64())
	left, right := Load(Param("left"), GP64()), Load(Param("right"), GP64())
	n := Load(Param("n"), GP64())
	q := YMM()
	quarter := GLOBL("quarter", RODATA|NOPTR)
	DATA(0, U64(math.Float64bits(0.25)))
	VBROADCASTSD(quarter, q)
	rowLoop(n, func(_ Op, i GPVirtual) {
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
}

// laplaceRow: out[j] = 4*mid[j] - up[j] - down[j] - left[j] - right[j],
// subtracted from the left, as laplaceRows computes it.
func laplaceRow() {
	TEXT("LaplaceRowAVX2", NOSPLIT, "func(out, mid, up, down, left, right *float64, n int) int")
	Doc("LaplaceRowAVX2 does the arithmetic of package cpu's laplaceRows for the first n&^7 points of a row and returns how many it did.")
	out, mid := Load(Param("out"), GP64()), Load(Param("mid"), GP64())
	up, down := Load(Param("up"), GP64()), Load(Param("down"), GP64())
	left, right := Load(Param("left"), GP64()), Load(Param("right"), GP64())
	n := Load(Param("n"), GP64())
	four := YMM()
	c4 := GLOBL("four", RODATA|NOPTR)
	DATA(0, U64(math.Float64bits(4))) // bits: avo writes F64(4) as the integer $(4)
	VBROADCASTSD(c4, four)
	rowLoop(n, func(_ Op, i GPVirtual) {
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
}

// laplaceDotRow: laplaceRow's out[j], and the sum of mid[j]*out[j] over
// the points it does in 16 lanes: point j goes to lane j%16, lane 4k+i
// being lane i of the accumulator k, each lane from +0, the product
// rounded before the sum. The lanes are combined as package cpu's
// lanes16: the vector (A0+A2)+(A1+A3), then its lanes c as
// (c0+c2)+(c1+c3).
func laplaceDotRow() {
	TEXT("LaplaceDotRowAVX2", NOSPLIT, "func(out, mid, up, down, left, right *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("LaplaceDotRowAVX2 does the arithmetic of package cpu's laplaceRows for the first n&^15 points of a row, returns the sum of mid[j]*out[j] over them in 16 lanes, combined as package cpu's lanes16, and how many it did.")
	out, mid := Load(Param("out"), GP64()), Load(Param("mid"), GP64())
	up, down := Load(Param("up"), GP64()), Load(Param("down"), GP64())
	left, right := Load(Param("left"), GP64()), Load(Param("right"), GP64())
	n := Load(Param("n"), GP64())
	four := YMM()
	c4 := GLOBL("fourdot", RODATA|NOPTR)
	DATA(0, U64(math.Float64bits(4)))
	VBROADCASTSD(c4, four)
	var acc [4]VecVirtual
	for k := range acc {
		acc[k] = YMM()
		VXORPD(acc[k], acc[k], acc[k])
	}
	i := GP64()
	XORQ(i, i)
	end := GP64()
	MOVQ(n, end)
	ANDQ(I32(^15), end)
	Label("dotloop")
	CMPQ(i, end)
	JGE(LabelRef("dotdone"))
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
	ADDQ(I8(16), i)
	JMP(LabelRef("dotloop"))
	Label("dotdone")
	VADDPD(acc[2], acc[0], acc[0])
	VADDPD(acc[3], acc[1], acc[1])
	VADDPD(acc[1], acc[0], acc[0])
	hi := XMM()
	VEXTRACTF128(U8(1), acc[0], hi)
	lo := acc[0].AsX()
	VADDPD(hi, lo, lo) // (c0+c2, c1+c3)
	h := XMM()
	VUNPCKHPD(lo, lo, h)
	VADDSD(h, lo, lo)
	VZEROUPPER()
	Store(lo, Return("sum"))
	Store(i, Return("done"))
	RET()
}

// axpyRow: y[j] = a*x[j] + y[j], the product rounded before the sum.
func axpyRow() {
	TEXT("AxpyAVX2", NOSPLIT, "func(a float64, x, y *float64, n int) int")
	Doc("AxpyAVX2 sets y[j] = a*x[j] + y[j] for the first n&^7 elements and returns how many it did.")
	x, y := Load(Param("x"), GP64()), Load(Param("y"), GP64())
	n := Load(Param("n"), GP64())
	av := YMM()
	VBROADCASTSD(NewParamAddr("a", 0), av)
	rowLoop(n, func(_ Op, i GPVirtual) {
		for k := 0; k < 8; k += 4 {
			v := YMM()
			VMULPD(at(x, i, k), av, v)
			VADDPD(at(y, i, k), v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
}

// axpbyRow: y[j] = a*x[j] + b*y[j], each product rounded, then the sum.
func axpbyRow() {
	TEXT("AxpbyAVX2", NOSPLIT, "func(a float64, x *float64, b float64, y *float64, n int) int")
	Doc("AxpbyAVX2 sets y[j] = a*x[j] + b*y[j] for the first n&^7 elements and returns how many it did.")
	x, y := Load(Param("x"), GP64()), Load(Param("y"), GP64())
	n := Load(Param("n"), GP64())
	av, bv := YMM(), YMM()
	VBROADCASTSD(NewParamAddr("a", 0), av)
	VBROADCASTSD(NewParamAddr("b", 16), bv)
	rowLoop(n, func(_ Op, i GPVirtual) {
		for k := 0; k < 8; k += 4 {
			v, w := YMM(), YMM()
			VMULPD(at(x, i, k), av, v)
			VMULPD(at(y, i, k), bv, w)
			VADDPD(w, v, v)
			VMOVUPD(v, at(y, i, k))
		}
	})
}

// dotRow: the sum of x[j]*y[j] over the first n&^31 elements in 32 lanes:
// element j goes to lane j%32, lane 4k+i being lane i of accumulator k,
// each lane from +0, the product rounded before the sum (no fused
// multiply-add). The lanes are combined as package cpu's lanes32: the
// vector ((A0+A1)+(A2+A3))+((A4+A5)+(A6+A7)), then its lanes c as
// (c0+c2)+(c1+c3). Eight accumulators keep both of the processor's
// floating-point adders busy through the adds' latency, and each load is a
// full YMM register.
func dotRow() {
	TEXT("DotAVX2", NOSPLIT, "func(x, y *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("DotAVX2 returns the sum of x[j]*y[j] over the first n&^31 elements in 32 lanes, combined as package cpu's lanes32, and how many it did.")
	x, y := Load(Param("x"), GP64()), Load(Param("y"), GP64())
	n := Load(Param("n"), GP64())
	var acc [8]VecVirtual
	for k := range acc {
		acc[k] = YMM()
		VXORPD(acc[k], acc[k], acc[k])
	}
	i := GP64()
	XORQ(i, i)
	end := GP64()
	MOVQ(n, end)
	ANDQ(I32(^31), end)
	Label("dot32loop")
	CMPQ(i, end)
	JGE(LabelRef("dot32done"))
	for k := 0; k < 8; k++ {
		v := YMM()
		VMOVUPD(at(x, i, 4*k), v)
		VMULPD(at(y, i, 4*k), v, v)
		VADDPD(v, acc[k], acc[k])
	}
	ADDQ(I8(32), i)
	JMP(LabelRef("dot32loop"))
	Label("dot32done")
	VADDPD(acc[1], acc[0], acc[0])
	VADDPD(acc[3], acc[2], acc[2])
	VADDPD(acc[5], acc[4], acc[4])
	VADDPD(acc[7], acc[6], acc[6])
	VADDPD(acc[2], acc[0], acc[0])
	VADDPD(acc[6], acc[4], acc[4])
	VADDPD(acc[4], acc[0], acc[0])
	hi := XMM()
	VEXTRACTF128(U8(1), acc[0], hi)
	lo := acc[0].AsX()
	VADDPD(hi, lo, lo) // (c0+c2, c1+c3)
	h := XMM()
	VUNPCKHPD(lo, lo, h)
	VADDSD(h, lo, lo)
	VZEROUPPER()
	Store(lo, Return("sum"))
	Store(i, Return("done"))
	RET()
}
