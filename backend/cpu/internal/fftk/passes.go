package fftk

import (
	"math"

	"github.com/xpmpi/xpmpi/backend/cpu/internal/vec"
)

// useAVX2 is whether the passes run their loops in package vec's AVX2
// kernels (the same arithmetic, the same bits): the radix-4 passes'
// loops over q (Radix4AVX2) and over p (Radix4FirstAVX2 for stride 1,
// Radix4S4AVX2 for stride 4), the butterflies without twiddle factors
// (Butterflies4AVX2) and the last passes of radix 4 and 2 (their scaled
// forms too). A variable for the tests, which compare both paths.
var useAVX2 = vec.HasAVX2

// The passes of a Stockham autosort transform of length N = n*s. A pass of
// radix r takes sub-transforms of length n, stride s: for p < n/r, q < s
// and k < r,
//
//	y[q + s*(r*p + k)] = w^(p*k) * sum_j x[q + s*(p + j*n/r)] * W_r^(j*k)
//
// with w = exp(-2 pi i/n) and W_r = exp(-2 pi i/r); the next pass has
// length n/r and stride r*s. The twiddle factors w^(p*k), k = 1..r-1, are
// tw[(k-1)*n/r + p]: one run of n/r per k. At p = 0 they are 1, and the
// radix-4 passes do not multiply. The inverse transform conjugates both w
// and W_r: the passes take conjugated twiddle factors and, for W_r,
// reverse the inputs x_j -> x_(r-j) (a DFT of reversed input is the
// conjugate-exponent DFT).
// The last pass has n = r: no twiddle factors, and for each q it reads the
// r values it writes, so it may run in place.

// mulNegI returns -i*z: W_4 = exp(-2 pi i/4) times z.
func mulNegI(z complex128) complex128 { return complex(imag(z), -real(z)) }

// pass4s1 is the first radix-4 pass (s = 1).
func pass4s1(x, y, tw []complex128, inverse bool) {
	m := len(x) / 4
	x0, x1, x2, x3 := x[:m], x[m:2*m], x[2*m:3*m], x[3*m:4*m]
	if inverse {
		x1, x3 = x3, x1
	}
	x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
	w1, w2, w3 := tw[:m], tw[m:2*m], tw[2*m:3*m]
	w1, w2, w3 = w1[:len(x0)], w2[:len(x0)], w3[:len(x0)]
	y = y[:4*m]
	butterflies4(x0[:1], x1[:1], x2[:1], x3[:1], y[0:1], y[1:2], y[2:3], y[3:4])
	p0 := 1
	if useAVX2 && len(x0) >= 3 {
		p0 += vec.Radix4FirstAVX2(&x0[1], &x1[1], &x2[1], &x3[1], &y[4], &w1[1], &w2[1], &w3[1], len(x0)-1)
	}
	for p := p0; p < len(x0); p++ {
		a, b, c, d := x0[p], x1[p], x2[p], x3[p]
		o := (*[4]complex128)(y[4*p : 4*p+4])
		apc, amc := a+c, a-c
		bpd, jbmd := b+d, mulNegI(b-d)
		o[0] = apc + bpd
		o[1] = w1[p] * (amc + jbmd)
		o[2] = w2[p] * (apc - bpd)
		o[3] = w3[p] * (amc - jbmd)
	}
}

// pass4 is a radix-4 pass with stride s > 1.
func pass4(x, y, tw []complex128, s int, inverse bool) {
	pass4Rows(x, y, tw, s, s, inverse)
}

// pass4Rows is pass4 with its input runs ld >= s apart: run p of x (s
// values) at x[ld*p], the quarters ld*m apart for m = len(tw)/3 values of
// p (ld = s: pass4; the strided transform's first pass reads a block's
// rows so). The results are pass4's, runs of s in y.
func pass4Rows(x, y, tw []complex128, s, ld int, inverse bool) {
	m := len(tw) / 3
	lm := ld * m
	for p := 0; p < m; p++ {
		i := ld * p
		a := x[i : i+s]
		b := x[i+lm : i+lm+s]
		c := x[i+2*lm : i+2*lm+s]
		d := x[i+3*lm : i+3*lm+s]
		if inverse {
			b, d = d, b
		}
		o := y[4*s*p : 4*s*(p+1)]
		y0, y1, y2, y3 := o[:s], o[s:2*s], o[2*s:3*s], o[3*s:4*s]
		if p == 0 {
			butterflies4(a, b, c, d, y0, y1, y2, y3)
			continue
		}
		radix4(a, b, c, d, y0, y1, y2, y3, &tw[p], &tw[m+p], &tw[2*m+p])
	}
}

// radix4 does the radix-4 butterflies of runs a, b, c, d (already
// reversed for the inverse) into y0..y3 with twiddle factors *w1, *w2,
// *w3: pass4's loop over q for one p.
func radix4(a, b, c, d, y0, y1, y2, y3 []complex128, w1, w2, w3 *complex128) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	y0, y1, y2, y3 = y0[:len(a)], y1[:len(a)], y2[:len(a)], y3[:len(a)]
	// The twiddle factors are read in the loop, not kept in registers:
	// with 6 more live floats the loop spills.
	q0 := 0
	if useAVX2 && len(a) >= 2 {
		q0 = vec.Radix4AVX2(&a[0], &b[0], &c[0], &d[0], &y0[0], &y1[0], &y2[0], &y3[0], w1, w2, w3, len(a))
	}
	for q := q0; q < len(a); q++ {
		av, bv, cv, dv := a[q], b[q], c[q], d[q]
		apc, amc := av+cv, av-cv
		bpd, jbmd := bv+dv, mulNegI(bv-dv)
		y0[q] = apc + bpd
		y1[q] = *w1 * (amc + jbmd)
		y2[q] = *w2 * (apc - bpd)
		y3[q] = *w3 * (amc - jbmd)
	}
}

// butterflies4 does the radix-4 butterflies of inputs a, b, c, d (already
// reversed for the inverse) into y0..y3, without twiddle factors.
func butterflies4(a, b, c, d, y0, y1, y2, y3 []complex128) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	y0, y1, y2, y3 = y0[:len(a)], y1[:len(a)], y2[:len(a)], y3[:len(a)]
	q0 := 0
	if useAVX2 && len(a) >= 2 {
		q0 = vec.Butterflies4AVX2(&a[0], &b[0], &c[0], &d[0], &y0[0], &y1[0], &y2[0], &y3[0], len(a))
	}
	for q := q0; q < len(a); q++ {
		av, bv, cv, dv := a[q], b[q], c[q], d[q]
		apc, amc := av+cv, av-cv
		bpd, jbmd := bv+dv, mulNegI(bv-dv)
		y0[q] = apc + bpd
		y1[q] = amc + jbmd
		y2[q] = apc - bpd
		y3[q] = amc - jbmd
	}
}

// last4 is the last pass, radix 4 (n = 4), from x to y (which may be x),
// times scale.
func last4(x, y []complex128, s int, inverse bool, scale float64) {
	a, b, c, d := x[:s], x[s:2*s], x[2*s:3*s], x[3*s:4*s]
	if inverse {
		b, d = d, b
	}
	last4Rows(a, b, c, d, y[:s], y[s:2*s], y[2*s:3*s], y[3*s:4*s], scale)
}

// last4Rows is last4 on runs a, b, c, d (already reversed for the
// inverse) into y0..y3.
func last4Rows(a, b, c, d, y0, y1, y2, y3 []complex128, scale float64) {
	if scale == 1 {
		butterflies4(a, b, c, d, y0, y1, y2, y3)
		return
	}
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	y0, y1, y2, y3 = y0[:len(a)], y1[:len(a)], y2[:len(a)], y3[:len(a)]
	q0 := 0
	if useAVX2 && len(a) >= 2 {
		q0 = vec.Butterflies4ScaledAVX2(&a[0], &b[0], &c[0], &d[0], &y0[0], &y1[0], &y2[0], &y3[0], scale, len(a))
	}
	for q := q0; q < len(a); q++ {
		av, bv, cv, dv := a[q], b[q], c[q], d[q]
		apc, amc := av+cv, av-cv
		bpd, jbmd := bv+dv, mulNegI(bv-dv)
		y0[q] = scaled(apc+bpd, scale)
		y1[q] = scaled(amc+jbmd, scale)
		y2[q] = scaled(apc-bpd, scale)
		y3[q] = scaled(amc-jbmd, scale)
	}
}

// scaled returns z times the real f.
func scaled(z complex128, f float64) complex128 {
	return complex(real(z)*f, imag(z)*f)
}

// pass2 is a radix-2 pass that is not the last (n > 2). The inverse needs
// no reversal: x_1 is its own reverse.
func pass2(x, y, tw []complex128, s int) {
	m := len(x) / (2 * s)
	for p := 0; p < m; p++ {
		w := tw[p]
		i := s * p
		a := x[i : i+s]
		b := x[i+s*m : i+s*m+s]
		b = b[:len(a)]
		o := 2 * s * p
		y0 := y[o : o+s]
		y1 := y[o+s : o+2*s]
		y0, y1 = y0[:len(a)], y1[:len(a)]
		for q, av := range a {
			bv := b[q]
			y0[q] = av + bv
			y1[q] = w * (av - bv)
		}
	}
}

// last2 is the last pass, radix 2.
func last2(x, y []complex128, s int, scale float64) {
	last2Rows(x[:s], x[s:2*s], y[:s], y[s:2*s], scale)
}

// last2Rows is last2 on runs a, b into y0, y1.
func last2Rows(a, b, y0, y1 []complex128, scale float64) {
	b = b[:len(a)]
	y0, y1 = y0[:len(a)], y1[:len(a)]
	if scale == 1 {
		q0 := 0
		if useAVX2 && len(a) >= 2 {
			q0 = vec.Butterflies2AVX2(&a[0], &b[0], &y0[0], &y1[0], len(a))
		}
		for q := q0; q < len(a); q++ {
			av, bv := a[q], b[q]
			y0[q] = av + bv
			y1[q] = av - bv
		}
		return
	}
	q0 := 0
	if useAVX2 && len(a) >= 2 {
		q0 = vec.Butterflies2ScaledAVX2(&a[0], &b[0], &y0[0], &y1[0], scale, len(a))
	}
	for q := q0; q < len(a); q++ {
		av, bv := a[q], b[q]
		y0[q] = scaled(av+bv, scale)
		y1[q] = scaled(av-bv, scale)
	}
}

// Radix-3 constants: W_3 = c3 - i*s3.
const (
	c3 = -0.5
	s3 = 0.86602540378443864676372317075293618 // sqrt(3)/2
)

// butterfly3 is the forward DFT of (a, b, c).
func butterfly3(a, b, c complex128) (complex128, complex128, complex128) {
	t1 := b + c
	t2 := a + scaled(t1, c3)
	t3 := mulNegI(scaled(b-c, s3))
	return a + t1, t2 + t3, t2 - t3
}

// pass3 is a radix-3 pass that is not the last.
func pass3(x, y, tw []complex128, s int, inverse bool) {
	m := len(x) / (3 * s)
	for p := 0; p < m; p++ {
		w1, w2 := tw[p], tw[m+p]
		i := s * p
		a := x[i : i+s]
		b := x[i+s*m : i+s*m+s]
		c := x[i+2*s*m : i+2*s*m+s]
		if inverse {
			b, c = c, b
		}
		b, c = b[:len(a)], c[:len(a)]
		o := 3 * s * p
		y0 := y[o : o+s]
		y1 := y[o+s : o+2*s]
		y2 := y[o+2*s : o+3*s]
		y0, y1, y2 = y0[:len(a)], y1[:len(a)], y2[:len(a)]
		for q, av := range a {
			z0, z1, z2 := butterfly3(av, b[q], c[q])
			y0[q] = z0
			y1[q] = w1 * z1
			y2[q] = w2 * z2
		}
	}
}

// last3 is the last pass, radix 3.
func last3(x, y []complex128, s int, inverse bool, scale float64) {
	a, b, c := x[:s], x[s:2*s], x[2*s:3*s]
	if inverse {
		b, c = c, b
	}
	b, c = b[:len(a)], c[:len(a)]
	y0, y1, y2 := y[:s], y[s:2*s], y[2*s:3*s]
	y0, y1, y2 = y0[:len(a)], y1[:len(a)], y2[:len(a)]
	for q, av := range a {
		z0, z1, z2 := butterfly3(av, b[q], c[q])
		if scale != 1 {
			z0, z1, z2 = scaled(z0, scale), scaled(z1, scale), scaled(z2, scale)
		}
		y0[q], y1[q], y2[q] = z0, z1, z2
	}
}

// Radix-5 constants: W_5 = c51 - i*s51, W_5^2 = c52 - i*s52.
var (
	c51 = math.Cos(2 * math.Pi / 5)
	c52 = math.Cos(4 * math.Pi / 5)
	s51 = math.Sin(2 * math.Pi / 5)
	s52 = math.Sin(4 * math.Pi / 5)
)

// butterfly5 is the forward DFT of (a, b, c, d, e).
func butterfly5(a, b, c, d, e complex128) (z0, z1, z2, z3, z4 complex128) {
	t1, t2 := b+e, c+d
	t3, t4 := b-e, c-d
	u1 := a + scaled(t1, c51) + scaled(t2, c52)
	u2 := a + scaled(t1, c52) + scaled(t2, c51)
	v1 := mulNegI(scaled(t3, s51) + scaled(t4, s52))
	v2 := mulNegI(scaled(t3, s52) - scaled(t4, s51))
	return a + t1 + t2, u1 + v1, u2 + v2, u2 - v2, u1 - v1
}

// pass5 is a radix-5 pass that is not the last.
func pass5(x, y, tw []complex128, s int, inverse bool) {
	m := len(x) / (5 * s)
	for p := 0; p < m; p++ {
		t := [4]complex128{tw[p], tw[m+p], tw[2*m+p], tw[3*m+p]}
		i := s * p
		a := x[i : i+s]
		b := x[i+s*m : i+s*m+s]
		c := x[i+2*s*m : i+2*s*m+s]
		d := x[i+3*s*m : i+3*s*m+s]
		e := x[i+4*s*m : i+4*s*m+s]
		if inverse {
			b, c, d, e = e, d, c, b
		}
		b, c, d, e = b[:len(a)], c[:len(a)], d[:len(a)], e[:len(a)]
		o := 5 * s * p
		y0 := y[o : o+s]
		y1 := y[o+s : o+2*s]
		y2 := y[o+2*s : o+3*s]
		y3 := y[o+3*s : o+4*s]
		y4 := y[o+4*s : o+5*s]
		y0, y1, y2, y3, y4 = y0[:len(a)], y1[:len(a)], y2[:len(a)], y3[:len(a)], y4[:len(a)]
		for q, av := range a {
			z0, z1, z2, z3, z4 := butterfly5(av, b[q], c[q], d[q], e[q])
			y0[q] = z0
			y1[q] = t[0] * z1
			y2[q] = t[1] * z2
			y3[q] = t[2] * z3
			y4[q] = t[3] * z4
		}
	}
}

// last5 is the last pass, radix 5.
func last5(x, y []complex128, s int, inverse bool, scale float64) {
	a, b, c, d, e := x[:s], x[s:2*s], x[2*s:3*s], x[3*s:4*s], x[4*s:5*s]
	if inverse {
		b, c, d, e = e, d, c, b
	}
	b, c, d, e = b[:len(a)], c[:len(a)], d[:len(a)], e[:len(a)]
	y0, y1, y2, y3, y4 := y[:s], y[s:2*s], y[2*s:3*s], y[3*s:4*s], y[4*s:5*s]
	y0, y1, y2, y3, y4 = y0[:len(a)], y1[:len(a)], y2[:len(a)], y3[:len(a)], y4[:len(a)]
	for q, av := range a {
		z0, z1, z2, z3, z4 := butterfly5(av, b[q], c[q], d[q], e[q])
		if scale != 1 {
			z0, z1, z2 = scaled(z0, scale), scaled(z1, scale), scaled(z2, scale)
			z3, z4 = scaled(z3, scale), scaled(z4, scale)
		}
		y0[q], y1[q], y2[q], y3[q], y4[q] = z0, z1, z2, z3, z4
	}
}

// pass4s4 is pass4 with stride 4 (the second pass on one line), its runs
// arrays: with runs of 4 the general pass spends nearly as much on each
// p's slicing as on the butterflies (3.2 us against 2.2 at n = 2048).
func pass4s4(x, y, tw []complex128, inverse bool) {
	const s = 4
	m := len(x) / (4 * s)
	sm := s * m
	tw = tw[:3*m]
	b, d := x[sm:sm+s], x[3*sm:3*sm+s]
	if inverse {
		b, d = d, b
	}
	butterflies4(x[:s], b, x[2*sm:2*sm+s], d, y[:s], y[s:2*s], y[2*s:3*s], y[3*s:4*s])
	if useAVX2 && m > 1 {
		bp, dp := &x[sm+s], &x[3*sm+s]
		if inverse {
			bp, dp = dp, bp
		}
		vec.Radix4S4AVX2(&x[s], bp, &x[2*sm+s], dp, &y[4*s], &tw[1], &tw[m+1], &tw[2*m+1], m-1)
		return
	}
	for p := 1; p < m; p++ {
		i := s * p
		a := (*[s]complex128)(x[i : i+s])
		b := (*[s]complex128)(x[i+sm : i+sm+s])
		c := (*[s]complex128)(x[i+2*sm : i+2*sm+s])
		d := (*[s]complex128)(x[i+3*sm : i+3*sm+s])
		if inverse {
			b, d = d, b
		}
		o := (*[4 * s]complex128)(y[4*i : 4*i+4*s])
		w1, w2, w3 := &tw[p], &tw[m+p], &tw[2*m+p]
		for q := range s {
			av, bv, cv, dv := a[q], b[q], c[q], d[q]
			apc, amc := av+cv, av-cv
			bpd, jbmd := bv+dv, mulNegI(bv-dv)
			o[q] = apc + bpd
			o[s+q] = *w1 * (amc + jbmd)
			o[2*s+q] = *w2 * (apc - bpd)
			o[3*s+q] = *w3 * (amc - jbmd)
		}
	}
}
