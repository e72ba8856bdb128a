// Command asmgen writes package kernels/fuse's AVX2 chunk kernels
// (package kernels/fuse/internal/fvec: fvec_amd64.s) and their Go
// declarations (fvec_stubs_amd64.go) with avo. It is a module of its own
// so that avo is not a dependency of xpmpi; run it from this directory:
//
//	go run . -out ../internal/fvec/fvec_amd64.s -stubs ../internal/fvec/fvec_stubs_amd64.go -pkg fvec
//
// The kernels do exactly the arithmetic of package fuse's Go loops, lane
// by lane, in the same order and with no fused multiply-add, so both
// paths give the same bits. The reductions keep 16 lanes in four YMM
// accumulators A0..A3 (element j of the chunk goes to lane j%16, lane
// 4k+i being lane i of Ak) and combine them as fuse's lanes16 does: the
// vector (A0+A2)+(A1+A3), then its lanes c as (c0+c2)+(c1+c3).
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("!purego")
	dot()
	axpyTo()
	axpyDot()
	axpy2Dot()
	chain4()
	Generate()
}

// at returns the operand of element idx+k of the float64 array at base.
func at(base Register, idx GPVirtual, k int) Mem {
	return Mem{Base: base, Index: idx, Scale: 8, Disp: 8 * k}
}

// loop16 emits a loop over the first n&^15 elements, 16 at a time,
// calling body with the index of the first, and leaves the count done in
// the returned register.
func loop16(n Register, body func(i GPVirtual)) GPVirtual {
	i := GP64()
	XORQ(i, i)
	end := GP64()
	MOVQ(n, end)
	ANDQ(I32(^15), end)
	Label("loop")
	CMPQ(i, end)
	JGE(LabelRef("done"))
	body(i)
	ADDQ(I8(16), i)
	JMP(LabelRef("loop"))
	Label("done")
	return i
}

// zeroAcc returns four zeroed YMM accumulators.
func zeroAcc() [4]VecVirtual {
	var acc [4]VecVirtual
	for k := range acc {
		acc[k] = YMM()
		VXORPD(acc[k], acc[k], acc[k])
	}
	return acc
}

// combine stores (c0+c2)+(c1+c3) of c = (A0+A2)+(A1+A3) as the result
// "sum", the count i as "done", and returns.
func combine(acc [4]VecVirtual, i GPVirtual) {
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

func dot() {
	TEXT("DotAVX2", NOSPLIT, "func(a, b *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("DotAVX2 returns the sum of a[j]*b[j] over the first n&^15 elements in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	a, b := Load(Param("a"), GP64()), Load(Param("b"), GP64())
	n := Load(Param("n"), GP64())
	acc := zeroAcc()
	i := loop16(n, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VMOVUPD(at(a, i, 4*k), v)
			VMULPD(at(b, i, 4*k), v, v)
			VADDPD(v, acc[k], acc[k])
		}
	})
	combine(acc, i)
}

func axpyTo() {
	TEXT("AxpyToAVX2", NOSPLIT, "func(d *float64, s float64, x, y *float64, n int) int")
	Pragma("noescape")
	Doc("AxpyToAVX2 sets d[j] = y[j] + s*x[j] (the product rounded, then the sum) for the first n&^15 elements and returns how many it did. Each group of 4 elements is read before it is written, so d may be x or y.")
	d, x, y := Load(Param("d"), GP64()), Load(Param("x"), GP64()), Load(Param("y"), GP64())
	n := Load(Param("n"), GP64())
	sv := YMM()
	VBROADCASTSD(NewParamAddr("s", 8), sv)
	i := loop16(n, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VMULPD(at(x, i, 4*k), sv, v)
			VADDPD(at(y, i, 4*k), v, v)
			VMOVUPD(v, at(d, i, 4*k))
		}
	})
	VZEROUPPER()
	Store(i, ReturnIndex(0))
	RET()
}

func axpyDot() {
	TEXT("AxpyDotAVX2", NOSPLIT, "func(d *float64, s float64, x, y *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("AxpyDotAVX2 sets d[j] = y[j] + s*x[j] for the first n&^15 elements, returns the sum of d[j]*d[j] over them in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	d, x, y := Load(Param("d"), GP64()), Load(Param("x"), GP64()), Load(Param("y"), GP64())
	n := Load(Param("n"), GP64())
	sv := YMM()
	VBROADCASTSD(NewParamAddr("s", 8), sv)
	acc := zeroAcc()
	i := loop16(n, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v, w := YMM(), YMM()
			VMULPD(at(x, i, 4*k), sv, v)
			VADDPD(at(y, i, 4*k), v, v)
			VMOVUPD(v, at(d, i, 4*k))
			VMULPD(v, v, w)
			VADDPD(w, acc[k], acc[k])
		}
	})
	combine(acc, i)
}

func axpy2Dot() {
	TEXT("Axpy2DotAVX2", NOSPLIT, "func(d1 *float64, s1 float64, x1, y1, d2 *float64, s2 float64, x2, y2 *float64, n int) (sum float64, done int)")
	Pragma("noescape")
	Doc("Axpy2DotAVX2 sets d1[j] = y1[j] + s1*x1[j] and d2[j] = y2[j] + s2*x2[j] for the first n&^15 elements, reading the four operands of a group of 4 elements before writing either result, returns the sum of d2[j]*d2[j] over them in 16 lanes, combined as package fuse's lanes16, and how many it did.")
	d1, x1, y1 := Load(Param("d1"), GP64()), Load(Param("x1"), GP64()), Load(Param("y1"), GP64())
	d2, x2, y2 := Load(Param("d2"), GP64()), Load(Param("x2"), GP64()), Load(Param("y2"), GP64())
	n := Load(Param("n"), GP64())
	s1, s2 := YMM(), YMM()
	VBROADCASTSD(NewParamAddr("s1", 8), s1)
	VBROADCASTSD(NewParamAddr("s2", 40), s2)
	acc := zeroAcc()
	i := loop16(n, func(i GPVirtual) {
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
	combine(acc, i)
}

func chain4() {
	TEXT("Chain4AVX2", NOSPLIT, "func(d *float64, s float64, x *float64, gs *[4]float64, y1, y2, y3, y4 *float64, n int) int")
	Pragma("noescape")
	Doc("Chain4AVX2 sets d[j] = (((s*x[j] + gs[0]*y1[j]) + gs[1]*y2[j]) + gs[2]*y3[j]) + gs[3]*y4[j], each product rounded, then the sums from the left, for the first n&^15 elements and returns how many it did. Each group of 4 elements is read before it is written.")
	d, x, gp := Load(Param("d"), GP64()), Load(Param("x"), GP64()), Load(Param("gs"), GP64())
	ys := []Register{Load(Param("y1"), GP64()), Load(Param("y2"), GP64()), Load(Param("y3"), GP64()), Load(Param("y4"), GP64())}
	n := Load(Param("n"), GP64())
	sv := YMM()
	VBROADCASTSD(NewParamAddr("s", 8), sv)
	var g [4]VecVirtual
	for k := range g {
		g[k] = YMM()
		VBROADCASTSD(Mem{Base: gp, Disp: 8 * k}, g[k])
	}
	i := loop16(n, func(i GPVirtual) {
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
	VZEROUPPER()
	Store(i, ReturnIndex(0))
	RET()
}
