// Command asmgen writes package internal/repro's AVX2 kernels (package
// internal/repro/internal/rvec: rvec_amd64.s) and their Go declarations
// (rvec_stubs_amd64.go) with avo. It is a module of its own so that avo is
// not a dependency of xpmpi; run it from this directory:
//
//	go run . -out ../internal/rvec/rvec_amd64.s -stubs ../internal/rvec/rvec_stubs_amd64.go -pkg rvec
//
// The deposit kernel does, lane by lane, the floating-point operations of
// package repro's Go deposit (depositGo), with no fused multiply-add: 16
// lanes in four YMM registers per fold (element j of a call goes to lane
// j%16). The maximum kernels return max |x| over their elements; which
// lane held it does not matter.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// folds is package repro's K: the number of bins a term is split into.
const folds = 3

func main() {
	ConstraintExpr("!purego")
	cpuid()
	xgetbv()
	maxAbs()
	mulMax()
	deposit()
	Generate()
}

func cpuid() {
	TEXT("cpuid", NOSPLIT, "func(leaf, sub uint32) (eax, ebx, ecx, edx uint32)")
	Doc("cpuid executes CPUID for leaf and sub-leaf.")
	Load(Param("leaf"), EAX)
	Load(Param("sub"), ECX)
	CPUID()
	Store(EAX, Return("eax"))
	Store(EBX, Return("ebx"))
	Store(ECX, Return("ecx"))
	Store(EDX, Return("edx"))
	RET()
}

func xgetbv() {
	TEXT("xgetbv", NOSPLIT, "func() (eax, edx uint32)")
	Doc("xgetbv reads XCR0, which says which register states the OS saves.")
	XORL(ECX, ECX)
	XGETBV()
	Store(EAX, Return("eax"))
	Store(EDX, Return("edx"))
	RET()
}

// at returns the operand of element idx+k of the float64 array at base.
func at(base Register, idx GPVirtual, k int) Mem {
	return Mem{Base: base, Index: idx, Scale: 8, Disp: 8 * k}
}

// loop16 emits a loop over the first n&^15 elements, 16 at a time,
// calling body with the index of the first, and returns the register
// that holds the count done after the loop.
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

// broadcast64 returns a YMM register holding the 64-bit pattern v in
// every lane, from a read-only constant named name.
func broadcast64(name string, v uint64) VecVirtual {
	c := GLOBL(name, RODATA|NOPTR)
	DATA(0, U64(v))
	r := YMM()
	VBROADCASTSD(c, r)
	return r
}

// maxOut combines four maximum accumulators, stores the maximum as "m"
// and the count i as "done", and returns.
func maxOut(acc [4]VecVirtual, i GPVirtual) {
	VMAXPD(acc[2], acc[0], acc[0])
	VMAXPD(acc[3], acc[1], acc[1])
	VMAXPD(acc[1], acc[0], acc[0])
	hi := XMM()
	VEXTRACTF128(U8(1), acc[0], hi)
	lo := acc[0].AsX()
	VMAXPD(hi, lo, lo)
	h := XMM()
	VUNPCKHPD(lo, lo, h)
	VMAXSD(h, lo, lo)
	VZEROUPPER()
	Store(lo, Return("m"))
	Store(i, Return("done"))
	RET()
}

func zeroAcc() [4]VecVirtual {
	var acc [4]VecVirtual
	for k := range acc {
		acc[k] = YMM()
		VXORPD(acc[k], acc[k], acc[k])
	}
	return acc
}

func maxAbs() {
	TEXT("MaxAbsAVX2", NOSPLIT, "func(x *float64, n int) (m float64, done int)")
	Pragma("noescape")
	Doc("MaxAbsAVX2 returns the largest |x[j]| over the first n&^15 elements (a NaN may be lost: the caller finds NaNs otherwise) and how many it did.")
	x := Load(Param("x"), GP64())
	n := Load(Param("n"), GP64())
	abs := broadcast64("absmask", 1<<63-1)
	acc := zeroAcc()
	i := loop16(n, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VANDPD(at(x, i, 4*k), abs, v)
			VMAXPD(v, acc[k], acc[k])
		}
	})
	maxOut(acc, i)
}

func mulMax() {
	TEXT("MulMaxAVX2", NOSPLIT, "func(p, x, y *float64, n int) (m float64, done int)")
	Pragma("noescape")
	Doc("MulMaxAVX2 sets p[j] = x[j]*y[j] (rounded) for the first n&^15 elements and returns the largest |p[j]| (a NaN may be lost) and how many it did.")
	p, x, y := Load(Param("p"), GP64()), Load(Param("x"), GP64()), Load(Param("y"), GP64())
	n := Load(Param("n"), GP64())
	abs := broadcast64("absmask2", 1<<63-1)
	acc := zeroAcc()
	i := loop16(n, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v := YMM()
			VMOVUPD(at(x, i, 4*k), v)
			VMULPD(at(y, i, 4*k), v, v)
			VMOVUPD(v, at(p, i, 4*k))
			VANDPD(v, abs, v)
			VMAXPD(v, acc[k], acc[k])
		}
	})
	maxOut(acc, i)
}

// deposit: for every element x, lane l = j%16, folds f = 0..folds-2:
//
//	q := x | 1 (the lowest bit of the significand set)
//	s := M[f][l] + q
//	d := M[f][l] - s
//	M[f][l] = s
//	x += d
//
// and for the last fold M[folds-1][l] += x | 1.
func deposit() {
	TEXT("DepositAVX2", NOSPLIT, "func(x *float64, n int, st *[48]float64) int")
	Pragma("noescape")
	Doc("DepositAVX2 deposits the first n&^15 elements of x into the binned state st (3 folds of 16 lanes), as package repro's depositGo, and returns how many it did.")
	x := Load(Param("x"), GP64())
	n := Load(Param("n"), GP64())
	st := Load(Param("st"), GP64())
	one := broadcast64("one", 1)
	var m [folds][4]VecVirtual
	for f := range m {
		for k := range m[f] {
			m[f][k] = YMM()
			VMOVUPD(Mem{Base: st, Disp: 8 * (16*f + 4*k)}, m[f][k])
		}
	}
	i := loop16(n, func(i GPVirtual) {
		for k := 0; k < 4; k++ {
			v, q := YMM(), YMM()
			VMOVUPD(at(x, i, 4*k), v)
			for f := 0; f < folds-1; f++ {
				VORPD(one, v, q)
				VADDPD(q, m[f][k], q)       // s = M + (x|1)
				VSUBPD(q, m[f][k], m[f][k]) // d = M - s, in M's register
				VADDPD(m[f][k], v, v)       // x += d
				VMOVAPD(q, m[f][k])         // M = s
			}
			VORPD(one, v, q)
			VADDPD(q, m[folds-1][k], m[folds-1][k])
		}
	})
	for f := range m {
		for k := range m[f] {
			VMOVUPD(m[f][k], Mem{Base: st, Disp: 8 * (16*f + 4*k)})
		}
	}
	VZEROUPPER()
	Store(i, ReturnIndex(0))
	RET()
}
