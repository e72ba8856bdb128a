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
	// The sign bits of the imaginary lanes.
	sign := GLOBL("imagsign", RODATA|NOPTR)
	for k := 0; k < 4; k++ {
		v := uint64(0)
		if k%2 == 1 {
			v = 1 << 63
		}
		DATA(8*k, U64(v))
	}
	neg := YMM()
	VMOVUPD(sign, neg)
	n := param("n")
	// The loop counts float64s: 4 (two complex values) per step.
	nf := GP64()
	MOVQ(n, nf)
	SHLQ(I8(1), nf)
	i := loop("", nf, 4, func(i GPVirtual) {
		apc, amc := sumDiff(at(a, i, 0), at(c, i, 0))
		bpd, jbmd := sumDiff(at(b, i, 0), at(d, i, 0))
		VPERMILPD(I8(5), jbmd, jbmd)
		VXORPD(neg, jbmd, jbmd)
		t := YMM()
		VADDPD(bpd, apc, t)
		VMOVUPD(t, at(y0, i, 0))
		VSUBPD(bpd, apc, t)
		cmul(t, wr[1], wi[1])
		VMOVUPD(t, at(y2, i, 0))
		VADDPD(jbmd, amc, t)
		cmul(t, wr[0], wi[0])
		VMOVUPD(t, at(y1, i, 0))
		VSUBPD(jbmd, amc, t)
		cmul(t, wr[2], wi[2])
		VMOVUPD(t, at(y3, i, 0))
	})
	SHRQ(I8(1), i)
	returnCount(i)
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
