package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// radix4: the loop over q of package fftk's pass4 for one p, two complex128
// values per YMM register (real, imaginary, real, imaginary):
//
//	apc, amc := a[q]+c[q], a[q]-c[q]
//	bpd, jbmd := b[q]+d[q], mulNegI(b[q]-d[q])
//	y0[q] = apc + bpd
//	y1[q] = *w1 * (amc + jbmd)
//	y2[q] = *w2 * (apc - bpd)
//	y3[q] = *w3 * (amc - jbmd)
//
// mulNegI(z) = complex(imag(z), -real(z)) swaps the two parts and flips the
// sign of the new imaginary part. Go multiplies complex w*z as
// (wr*zr - wi*zi, wr*zi + wi*zr), each product rounded; here the products
// z*wr and swap(z)*wi are rounded the same, and VADDSUBPD subtracts in the
// real lanes and adds in the imaginary ones: the same bits.
func radix4() {
	TEXT("Radix4AVX2", NOSPLIT, "func(a, b, c, d, y0, y1, y2, y3, w1, w2, w3 *complex128, n int) int")
	Doc("Radix4AVX2 does the arithmetic of package fftk's pass4 loop over q, for twiddle factors *w1, *w2, *w3, on the first n&^1 values and returns how many it did.")
	Pragma("noescape")
	a, b, c, d := param("a"), param("b"), param("c"), param("d")
	y0, y1, y2, y3 := param("y0"), param("y1"), param("y2"), param("y3")
	var wr, wi [3]VecVirtual
	for k, name := range []string{"w1", "w2", "w3"} {
		w := param(name)
		wr[k], wi[k] = YMM(), YMM()
		VBROADCASTSD(Mem{Base: w}, wr[k])
		VBROADCASTSD(Mem{Base: w, Disp: 8}, wi[k])
	}
	neg := imagSign()
	n := param("n")
	// The loop counts float64s: 4 (two complex values) per step.
	nf := GP64()
	MOVQ(n, nf)
	SHLQ(I8(1), nf)
	i := loop("", nf, 4, func(i GPVirtual) {
		r := butterfly4(at(a, i, 0), at(b, i, 0), at(c, i, 0), at(d, i, 0), neg)
		for k := 1; k < 4; k++ {
			cmul(r[k], wr[k-1], wi[k-1])
		}
		for k, y := range []Register{y0, y1, y2, y3} {
			VMOVUPD(r[k], at(y, i, 0))
		}
	})
	SHRQ(I8(1), i)
	returnCount(i)
}

// imagSignMem is the constant imagsign, once emitted.
var imagSignMem *Mem

// imagSign returns a register holding the sign bits of the imaginary
// lanes (0, -0, 0, -0): XORed into a value, it negates the imaginary
// parts. The constant imagsign is emitted once per file.
func imagSign() VecVirtual {
	if imagSignMem == nil {
		sign := GLOBL("imagsign", RODATA|NOPTR)
		for k := 0; k < 4; k++ {
			v := uint64(0)
			if k%2 == 1 {
				v = 1 << 63
			}
			DATA(8*k, U64(v))
		}
		imagSignMem = &sign
	}
	neg := YMM()
	VMOVUPD(*imagSignMem, neg)
	return neg
}

// butterfly4 loads two complex128 values of each of a, b, c, d (already
// reversed for the inverse) and returns the radix-4 butterflies without
// twiddle factors, as fftk's butterflies4 computes them:
//
//	apc, amc := a+c, a-c
//	bpd, jbmd := b+d, mulNegI(b-d)
//	apc + bpd, amc + jbmd, apc - bpd, amc - jbmd
func butterfly4(a, b, c, d Mem, neg VecVirtual) [4]VecVirtual {
	apc, amc := sumDiff(a, c)
	bpd, jbmd := sumDiff(b, d)
	VPERMILPD(I8(5), jbmd, jbmd)
	VXORPD(neg, jbmd, jbmd)
	var r [4]VecVirtual
	for k := range r {
		r[k] = YMM()
	}
	VADDPD(bpd, apc, r[0])
	VADDPD(jbmd, amc, r[1])
	VSUBPD(bpd, apc, r[2])
	VSUBPD(jbmd, amc, r[3])
	return r
}

// butterflies4: fftk's butterflies4 (the radix-4 butterflies without
// twiddle factors: p = 0 of every pass, and the last pass of radix 4), and
// with a scale its last4 (each result times scale, as fftk's scaled: the
// real and imaginary parts each multiplied once).
func butterflies4(scaled bool) {
	name, sig := "Butterflies4AVX2", "func(a, b, c, d, y0, y1, y2, y3 *complex128, n int) int"
	doc := "Butterflies4AVX2 does the arithmetic of package fftk's butterflies4 on the first n&^1 values and returns how many it did."
	if scaled {
		name, sig = "Butterflies4ScaledAVX2", "func(a, b, c, d, y0, y1, y2, y3 *complex128, scale float64, n int) int"
		doc = "Butterflies4ScaledAVX2 does the arithmetic of package fftk's last4 with a scale on the first n&^1 values and returns how many it did."
	}
	TEXT(name, NOSPLIT, sig)
	Doc(doc)
	Pragma("noescape")
	a, b, c, d := param("a"), param("b"), param("c"), param("d")
	y0, y1, y2, y3 := param("y0"), param("y1"), param("y2"), param("y3")
	var f VecVirtual
	if scaled {
		f = YMM()
		VBROADCASTSD(NewParamAddr("scale", 64), f)
	}
	neg := imagSign()
	nf := GP64()
	MOVQ(param("n"), nf)
	SHLQ(I8(1), nf)
	i := loop("", nf, 4, func(i GPVirtual) {
		r := butterfly4(at(a, i, 0), at(b, i, 0), at(c, i, 0), at(d, i, 0), neg)
		for k, y := range []Register{y0, y1, y2, y3} {
			if scaled {
				VMULPD(f, r[k], r[k])
			}
			VMOVUPD(r[k], at(y, i, 0))
		}
	})
	SHRQ(I8(1), i)
	returnCount(i)
}

// butterflies2: fftk's last2, y0 = a+b and y1 = a-b, with a scale each
// times scale.
func butterflies2(scaled bool) {
	name, sig := "Butterflies2AVX2", "func(a, b, y0, y1 *complex128, n int) int"
	doc := "Butterflies2AVX2 does the arithmetic of package fftk's last2 without a scale on the first n&^1 values and returns how many it did."
	if scaled {
		name, sig = "Butterflies2ScaledAVX2", "func(a, b, y0, y1 *complex128, scale float64, n int) int"
		doc = "Butterflies2ScaledAVX2 does the arithmetic of package fftk's last2 with a scale on the first n&^1 values and returns how many it did."
	}
	TEXT(name, NOSPLIT, sig)
	Doc(doc)
	Pragma("noescape")
	a, b, y0, y1 := param("a"), param("b"), param("y0"), param("y1")
	var f VecVirtual
	if scaled {
		f = YMM()
		VBROADCASTSD(NewParamAddr("scale", 32), f)
	}
	nf := GP64()
	MOVQ(param("n"), nf)
	SHLQ(I8(1), nf)
	i := loop("", nf, 4, func(i GPVirtual) {
		sum, diff := sumDiff(at(a, i, 0), at(b, i, 0))
		if scaled {
			VMULPD(f, sum, sum)
			VMULPD(f, diff, diff)
		}
		VMOVUPD(sum, at(y0, i, 0))
		VMOVUPD(diff, at(y1, i, 0))
	})
	SHRQ(I8(1), i)
	returnCount(i)
}

// radix4First: fftk's pass4s1 (the first radix-4 pass, stride 1) for the
// values p it is given, two at a time: the inputs x0[p]..x3[p] and the
// twiddle factors w1[p]..w3[p] are runs, and the four results of each p
// go to y[4p], ..., y[4p+3]. The twiddle factors differ between the two
// lanes of a register: their real parts are duplicated with VMOVDDUP,
// their imaginary parts with VPERMILPD, and the product is cmul's. The
// results of p and p+1, one per half of four registers, are put in order
// with VPERM2F128.
func radix4First() {
	TEXT("Radix4FirstAVX2", NOSPLIT, "func(x0, x1, x2, x3, y, w1, w2, w3 *complex128, n int) int")
	Doc("Radix4FirstAVX2 does the arithmetic of package fftk's pass4s1 loop over p, with the runs x0..x3 and w1..w3 starting at the first p done and y at its first result, for the first n&^1 values of p, and returns how many it did.")
	Pragma("noescape")
	x0, x1, x2, x3 := param("x0"), param("x1"), param("x2"), param("x3")
	w1, w2, w3 := param("w1"), param("w2"), param("w3")
	y := param("y")
	neg := imagSign()
	nf := GP64()
	MOVQ(param("n"), nf)
	SHLQ(I8(1), nf)
	i := loop("", nf, 4, func(i GPVirtual) {
		r := butterfly4(at(x0, i, 0), at(x1, i, 0), at(x2, i, 0), at(x3, i, 0), neg)
		for k, w := range []Register{w1, w2, w3} {
			wr, wi := YMM(), YMM()
			VMOVDDUP(at(w, i, 0), wr)
			VPERMILPD(I8(15), at(w, i, 0), wi)
			cmul(r[k+1], wr, wi)
		}
		// y[4p .. 4p+7]: (r0, r1) and (r2, r3) of p, then of p+1.
		t := YMM()
		for k, sel := range []uint8{0x20, 0x20, 0x31, 0x31} {
			lo := r[2*(k%2)]
			VPERM2F128(U8(sel), r[2*(k%2)+1], lo, t)
			VMOVUPD(t, Mem{Base: y, Disp: 32 * k})
		}
		ADDQ(U32(128), y)
	})
	SHRQ(I8(1), i)
	returnCount(i)
}

// radix4S4: fftk's pass4s4 (a radix-4 pass of stride 4) for every p it
// is given: per p, four values of each of a, b, c, d (runs over p), the
// twiddle factors w1[p]..w3[p] broadcast, and the results at y[16p],
// y[16p+4], y[16p+8], y[16p+12], four each, as radix4 computes them.
func radix4S4() {
	TEXT("Radix4S4AVX2", NOSPLIT, "func(a, b, c, d, y, w1, w2, w3 *complex128, m int)")
	Doc("Radix4S4AVX2 does the arithmetic of package fftk's pass4s4 loop over p for m values of p, with a..d and w1..w3 starting at the first p done and y at its first result.")
	Pragma("noescape")
	a, b, c, d := param("a"), param("b"), param("c"), param("d")
	w1, w2, w3 := param("w1"), param("w2"), param("w3")
	y := param("y")
	neg := imagSign()
	// t counts bytes of twiddle factors (16 per p); the inputs advance
	// 64 bytes per p (t*4), the results 256 (y moves).
	end := GP64()
	MOVQ(param("m"), end)
	SHLQ(I8(4), end)
	t := GP64()
	XORQ(t, t)
	Label("loop")
	CMPQ(t, end)
	JGE(LabelRef("done"))
	var wr, wi [3]VecVirtual
	for k, w := range []Register{w1, w2, w3} {
		wr[k], wi[k] = YMM(), YMM()
		VBROADCASTSD(Mem{Base: w, Index: t, Scale: 1}, wr[k])
		VBROADCASTSD(Mem{Base: w, Index: t, Scale: 1, Disp: 8}, wi[k])
	}
	for h := 0; h < 2; h++ {
		in := func(x Register) Mem { return Mem{Base: x, Index: t, Scale: 4, Disp: 32 * h} }
		r := butterfly4(in(a), in(b), in(c), in(d), neg)
		for k := 1; k < 4; k++ {
			cmul(r[k], wr[k-1], wi[k-1])
		}
		for k := range r {
			VMOVUPD(r[k], Mem{Base: y, Disp: 64*k + 32*h})
		}
	}
	ADDQ(U32(256), y)
	ADDQ(I8(16), t)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// sumDiff loads x and y and returns x+y and x-y.
func sumDiff(x, y Mem) (sum, diff VecVirtual) {
	vx, vy := YMM(), YMM()
	VMOVUPD(x, vx)
	VMOVUPD(y, vy)
	sum, diff = YMM(), YMM()
	VADDPD(vy, vx, sum)
	VSUBPD(vy, vx, diff)
	return sum, diff
}

// cmul sets t to w*t for w = (wr, wi) broadcast, as Go computes it (see
// radix4).
func cmul(t, wr, wi VecVirtual) {
	s := YMM()
	VPERMILPD(I8(5), t, s)
	VMULPD(wi, s, s)
	VMULPD(wr, t, t)
	VADDSUBPD(s, t, t)
}
