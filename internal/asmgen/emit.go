package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// This file holds what the three packages' kernels share: loading the
// parameters, the element loop, constants, and the fixed orders in which
// lane accumulators are combined.

// param loads the pointer or integer parameter name into a register.
func param(name string) Register {
	return Load(Param(name), GP64())
}

// broadcastParam broadcasts the float64 parameter name, at byte offset
// off of the arguments, to every lane of r, and returns r.
func broadcastParam(name string, off int, r VecVirtual) VecVirtual {
	VBROADCASTSD(NewParamAddr(name, off), r)
	return r
}

// broadcastConst broadcasts the 64-bit pattern v, a read-only constant
// named name, to every lane of r, and returns r. A float64 is given by
// its bits (math.Float64bits): avo writes F64(4) as the integer $(4).
func broadcastConst(name string, v uint64, r VecVirtual) VecVirtual {
	c := GLOBL(name, RODATA|NOPTR)
	DATA(0, U64(v))
	VBROADCASTSD(c, r)
	return r
}

// at returns the operand of element idx+k of the float64 array at base.
func at(base Register, idx GPVirtual, k int) Mem {
	return Mem{Base: base, Index: idx, Scale: 8, Disp: 8 * k}
}

// loop emits a loop over the first n&^(step-1) elements, step at a time
// (step a power of two), calling body with the index of the first element
// of each step, and returns the register that holds the count done after
// the loop. Its labels are prefix+"loop" and prefix+"done"; a kernel
// with one loop passes "".
func loop(prefix string, n Register, step int, body func(i GPVirtual)) GPVirtual {
	i := GP64()
	XORQ(i, i)
	end := GP64()
	MOVQ(n, end)
	ANDQ(I32(^(step - 1)), end)
	Label(prefix + "loop")
	CMPQ(i, end)
	JGE(LabelRef(prefix + "done"))
	body(i)
	ADDQ(I8(step), i)
	JMP(LabelRef(prefix + "loop"))
	Label(prefix + "done")
	return i
}

// returnCount returns the count i as the kernel's only result.
func returnCount(i GPVirtual) {
	VZEROUPPER()
	Store(i, ReturnIndex(0))
	RET()
}

// zeroPD returns k YMM accumulators zeroed with VXORPD.
func zeroPD(k int) []VecVirtual {
	acc := make([]VecVirtual, k)
	for j := range acc {
		acc[j] = YMM()
		VXORPD(acc[j], acc[j], acc[j])
	}
	return acc
}

// zeroInt returns four YMM accumulators zeroed with VPXOR.
func zeroInt() []VecVirtual {
	acc := make([]VecVirtual, 4)
	for j := range acc {
		acc[j] = YMM()
		VPXOR(acc[j], acc[j], acc[j])
	}
	return acc
}

// lanes16 adds four float64 accumulators A0..A3 (16 lanes) into A0 as
// (A0+A2)+(A1+A3), the order of the Go code's lanes16, and returns A0.
func lanes16(acc []VecVirtual) VecVirtual {
	VADDPD(acc[2], acc[0], acc[0])
	VADDPD(acc[3], acc[1], acc[1])
	VADDPD(acc[1], acc[0], acc[0])
	return acc[0]
}

// lanes32 adds eight float64 accumulators A0..A7 (32 lanes) into A0 as
// ((A0+A1)+(A2+A3))+((A4+A5)+(A6+A7)), the order of the Go code's
// lanes32, and returns A0.
func lanes32(acc []VecVirtual) VecVirtual {
	VADDPD(acc[1], acc[0], acc[0])
	VADDPD(acc[3], acc[2], acc[2])
	VADDPD(acc[5], acc[4], acc[4])
	VADDPD(acc[7], acc[6], acc[6])
	VADDPD(acc[2], acc[0], acc[0])
	VADDPD(acc[6], acc[4], acc[4])
	VADDPD(acc[4], acc[0], acc[0])
	return acc[0]
}

// returnSum adds the lanes c of the float64 vector v as (c0+c2)+(c1+c3),
// returns that as the result "sum" and the count i as "done".
func returnSum(v VecVirtual, i GPVirtual) {
	hi := XMM()
	VEXTRACTF128(U8(1), v, hi)
	lo := v.AsX()
	VADDPD(hi, lo, lo) // (c0+c2, c1+c3)
	h := XMM()
	VUNPCKHPD(lo, lo, h)
	VADDSD(h, lo, lo)
	VZEROUPPER()
	Store(lo, Return("sum"))
	Store(i, Return("done"))
	RET()
}

// foldQ adds the four int64 lanes of the YMM register v into its lowest
// lane (wrapping).
func foldQ(v VecVirtual) {
	hi := XMM()
	VEXTRACTI128(U8(1), v, hi)
	lo := v.AsX()
	VPADDQ(hi, lo, lo)
	t := XMM()
	VPSHUFD(U8(0x4e), lo, t) // swap the 64-bit halves
	VPADDQ(t, lo, lo)
}

// foldMaxUD leaves the largest of the eight unsigned 32-bit lanes of the
// YMM register v in its lowest lane.
func foldMaxUD(v VecVirtual) {
	hi := XMM()
	VEXTRACTI128(U8(1), v, hi)
	lo := v.AsX()
	VPMAXUD(hi, lo, lo)
	t := XMM()
	VPSHUFD(U8(0x4e), lo, t) // swap the 64-bit halves
	VPMAXUD(t, lo, lo)
	VPSHUFD(U8(0xb1), lo, t) // swap the 32-bit words of each half
	VPMAXUD(t, lo, lo)
}

// width is the vector registers of a kernel: YMM (4 float64 lanes, the
// AVX2 kernels) or ZMM (8 lanes, their AVX-512 forms). The forms compute
// the same operations on the same elements: a ZMM step covers two YMM
// steps, and the reductions' ZMM accumulator m holds in its low and high
// halves what the YMM form's accumulators 2m and 2m+1 hold, the same
// products added in the same order, split and combined as the YMM form
// combines its accumulators (halves): the same bits.
type width struct {
	lanes  int    // float64 lanes of a register
	suffix string // of the kernel's name
}

var (
	ymm = width{4, "AVX2"}
	zmm = width{8, "AVX512"}
)

// constName returns the name of a kernel's read-only constant: name for
// YMM, name+"512" for ZMM (each form broadcasts its own).
func (w width) constName(name string) string {
	if w.lanes == 8 {
		return name + "512"
	}
	return name
}

// reg returns a new register of the width.
func (w width) reg() VecVirtual {
	if w.lanes == 8 {
		return ZMM()
	}
	return YMM()
}

// zero returns k accumulators of the width, zeroed (VPXORQ for ZMM, which
// AVX-512F has: VXORPD on ZMM needs AVX-512DQ).
func (w width) zero(k int) []VecVirtual {
	if w.lanes == 4 {
		return zeroPD(k)
	}
	acc := make([]VecVirtual, k)
	for j := range acc {
		acc[j] = ZMM()
		VPXORQ(acc[j], acc[j], acc[j])
	}
	return acc
}

// halves returns the YMM accumulators that the width's accumulators acc
// hold: acc itself for YMM, the low and high half of each for ZMM.
func (w width) halves(acc []VecVirtual) []VecVirtual {
	if w.lanes == 4 {
		return acc
	}
	h := make([]VecVirtual, 2*len(acc))
	for m, a := range acc {
		hi := YMM()
		VEXTRACTF64X4(U8(1), a, hi)
		h[2*m], h[2*m+1] = a.AsY().(VecVirtual), hi
	}
	return h
}
