// Package fftk holds the CPU backend's 1-D complex FFT kernel for lengths
// 2^a * 3^b * 5^c: a Stockham autosort transform (no bit reversal) with
// radix-4 passes, one radix-2 pass when a is odd, and radix-3 and radix-5
// passes, with twiddle factors computed once per plan.
//
// A Plan transforms one contiguous line of complex128 at a time, or a
// batch of lines stored interleaved (ForwardBatch), in place, with scratch
// it owns: a Plan is not safe for concurrent use, so each goroutine uses
// its own. The forward transform is unnormalized,
//
//	X[k] = sum_j x[j] exp(-2 pi i j k / n),
//
// and the inverse uses exp(+2 pi i j k / n), multiplied by a scale the
// caller gives (1/n for NumPy's convention).
//
// Each pass but the last reads one of the line and the scratch and writes
// the other; the last pass, of length r (its radix) and without twiddle
// factors, writes the line, in place where the pass before left the data
// there. The arithmetic is one rounding per operation (no fused
// multiply-add): the error is about 1e-16 times log2(n) relative to the
// norm of the result. Where the processor has AVX2, the radix-4 passes
// (their loops over runs of adjacent values, and for strides 1 and 4
// over the twiddle factors), the butterflies without twiddle factors and
// the last passes of radix 4 and 2 run in package vec's kernels, two
// values per register, with the same arithmetic in the same order: the
// same bits as the Go loops. One line of 2048 took 10-12 us with the
// radix-4 loops over runs alone in AVX2, 7-8 us so (BenchmarkFFT2D's
// rows in package cpu; FFTW's 5.2-5.5 us on the same machine).
//
// ForwardStrided and InverseStrided transform lines interleaved in rows
// with a stride, as the columns of a row-major block are, reading the
// rows in the first pass and writing them in the last.
package fftk

import (
	"fmt"
	"math"
)

// stage is a pass that is not the last: radix r on sub-transforms of
// length n with stride s (n*s is the plan's length), twiddle factors from
// offset tw in the plan's tables: (r-1)*n/r of them, w^(p*k) at
// (k-1)*n/r + p.
type stage struct {
	r, n, s, tw int
}

// twiddles returns the stage's twiddle factors in tw (the plan's forward
// or inverse ones): r-1 runs of n/r.
func (st stage) twiddles(tw []complex128) []complex128 {
	return tw[st.tw : st.tw+(st.r-1)*(st.n/st.r)]
}

// Plan is a transform of one length. Make one with NewPlan.
type Plan struct {
	n       int
	stages  []stage
	last    int          // radix of the last pass, 0 if n == 1
	fw, bw  []complex128 // twiddle factors, forward and inverse (conjugate)
	scratch []complex128
	// scratch2 is the strided transforms' second buffer: their passes
	// go between scratch and scratch2, not through the strided lines.
	scratch2 []complex128
}

// Supported reports whether n is a length Plan handles: n >= 1 with no
// prime factor other than 2, 3 and 5.
func Supported(n int) bool {
	if n < 1 {
		return false
	}
	for _, f := range []int{2, 3, 5} {
		for n%f == 0 {
			n /= f
		}
	}
	return n == 1
}

// radices returns the radices of n's passes, first pass first: 4s, a 2 if
// the power of two is odd, 3s, 5s.
func radices(n int) []int {
	var rs []int
	for n%4 == 0 {
		rs = append(rs, 4)
		n /= 4
	}
	if n%2 == 0 {
		rs = append(rs, 2)
		n /= 2
	}
	for n%3 == 0 {
		rs = append(rs, 3)
		n /= 3
	}
	for n%5 == 0 {
		rs = append(rs, 5)
		n /= 5
	}
	return rs
}

// NewPlan returns a plan for transforms of length n. It panics if n is not
// Supported.
func NewPlan(n int) *Plan {
	if !Supported(n) {
		panic(fmt.Sprintf("fftk: length %d is not 2^a * 3^b * 5^c", n))
	}
	p := &Plan{n: n, scratch: make([]complex128, n)}
	rs := radices(n)
	if len(rs) == 0 {
		return p
	}
	m, s := n, 1
	for _, r := range rs[:len(rs)-1] {
		p.stages = append(p.stages, stage{r: r, n: m, s: s, tw: len(p.fw)})
		for k := 1; k < r; k++ {
			for q := 0; q < m/r; q++ {
				p.fw = append(p.fw, twiddle(q*k, m))
			}
		}
		m /= r
		s *= r
	}
	p.last = rs[len(rs)-1]
	p.bw = make([]complex128, len(p.fw))
	for i, w := range p.fw {
		p.bw[i] = complex(real(w), -imag(w))
	}
	return p
}

// twiddle returns exp(-2 pi i k / n) for 0 <= k < n, accurate to about an
// ulp: the angle is reduced to the first octant, where it is smallest, and
// the rest follows by symmetry.
func twiddle(k, n int) complex128 {
	// exp(-2 pi i k/n) = conj(exp(2 pi i k/n)); work with 8k in [0, 8n).
	k8 := 8 * k
	oct := k8 / n // 0..7
	rem := k8 - oct*n
	// the angle is (oct*n + rem)/(8n) of a turn; within the octant, use the
	// nearer end.
	var c, s float64
	if 2*rem <= n {
		s, c = math.Sincos(2 * math.Pi * float64(rem) / float64(8*n))
	} else {
		s, c = math.Sincos(2 * math.Pi * float64(n-rem) / float64(8*n))
		oct++ // measured back from the next octant's start
		s = -s
	}
	// (c, s) is cos and sin of the angle measured from octant oct's start
	// (oct may be 8 now, which is 0).
	var re, im float64
	switch oct & 7 {
	case 0:
		re, im = c, s
	case 1: // 45 degrees + t
		re, im = math.Sqrt2/2*(c-s), math.Sqrt2/2*(c+s)
	case 2:
		re, im = -s, c
	case 3:
		re, im = -math.Sqrt2/2*(c+s), math.Sqrt2/2*(c-s)
	case 4:
		re, im = -c, -s
	case 5:
		re, im = -math.Sqrt2/2*(c-s), -math.Sqrt2/2*(c+s)
	case 6:
		re, im = s, -c
	case 7:
		re, im = math.Sqrt2/2*(c+s), -math.Sqrt2/2*(c-s)
	}
	return complex(re, -im)
}

// Len returns the plan's length.
func (p *Plan) Len() int { return p.n }

// Forward replaces x, of the plan's length, by its unnormalized forward
// transform.
func (p *Plan) Forward(x []complex128) { p.transform(x, 1, false, 1) }

// Inverse replaces x, of the plan's length, by its inverse transform times
// scale (1/n for the exact inverse of Forward).
func (p *Plan) Inverse(x []complex128, scale float64) { p.transform(x, 1, true, scale) }

// ForwardBatch transforms b lines held interleaved in x: element j of
// line l is x[j*b+l], and len(x) is b times the plan's length. It is
// Forward on each line, with the same result bits, without gathering
// them: each pass works on runs of b adjacent values.
func (p *Plan) ForwardBatch(x []complex128, b int) { p.transform(x, b, false, 1) }

// InverseBatch is Inverse on b lines held interleaved in x, as for
// ForwardBatch.
func (p *Plan) InverseBatch(x []complex128, b int, scale float64) { p.transform(x, b, true, scale) }

// ForwardStrided transforms b lines held interleaved in rows of stride
// ld >= b: element j of line l is x[j*ld+l], and len(x) is at least
// (n-1)*ld+b for the plan's length n; the other elements of x are not
// touched. It gives the bits ForwardBatch gives on the lines gathered
// into n rows of b, without the gathering where the first pass is of
// radix 4 and the last of radix 4 or 2 (the powers of two from 8 up):
// the first pass reads the rows where they are, the last writes them,
// and the passes between stay in the plan's scratch. Other lengths are
// gathered into scratch, transformed and written back.
func (p *Plan) ForwardStrided(x []complex128, b, ld int) { p.strided(x, b, ld, false, 1) }

// InverseStrided is InverseBatch on b lines held as ForwardStrided has
// them.
func (p *Plan) InverseStrided(x []complex128, b, ld int, scale float64) {
	p.strided(x, b, ld, true, scale)
}

// strided is ForwardStrided and InverseStrided.
func (p *Plan) strided(x []complex128, b, ld int, inverse bool, scale float64) {
	if b < 1 || ld < b || len(x) < (p.n-1)*ld+b {
		panic(fmt.Sprintf("fftk: %d values for %d lines of length %d in rows of %d", len(x), b, p.n, ld))
	}
	nb := p.n * b
	if ld == b {
		p.transform(x[:nb], b, inverse, scale)
		return
	}
	if len(p.scratch2) < nb {
		p.scratch2 = make([]complex128, nb)
	}
	if len(p.stages) == 0 || p.stages[0].r != 4 || (p.last != 4 && p.last != 2) {
		// Gathered: one row of b at a time into a buffer of its own
		// (transform uses scratch), transformed, written back.
		g := p.scratch2[:nb]
		for j := range p.n {
			copy(g[j*b:(j+1)*b], x[j*ld:j*ld+b])
		}
		p.transform(g, b, inverse, scale)
		for j := range p.n {
			copy(x[j*ld:j*ld+b], g[j*b:(j+1)*b])
		}
		return
	}
	if len(p.scratch) < nb {
		p.scratch = make([]complex128, nb)
	}
	tw := p.fw
	if inverse {
		tw = p.bw
	}
	// The first pass, radix 4 and stride 1 on each line, is pass4 with
	// stride b on the gathered rows: its runs are rows q, q+m, q+2m and
	// q+3m of b values, which here it reads where they are.
	st := p.stages[0]
	first := p.scratch[:nb]
	pass4Rows(x, first, st.twiddles(tw), b, ld, inverse)
	src, dst := first, p.scratch2[:nb]
	for _, st := range p.stages[1:] {
		p.pass(st, tw, src, dst, b, inverse)
		src, dst = dst, src
	}
	// The last pass, radix r without twiddle factors, on n/r rows of b
	// at a time: row j of each of its r inputs (src, one after another)
	// gives rows j, j+n/r, ... of the result, here written in x.
	r := p.last
	rows := p.n / r
	out := func(k, j int) []complex128 { return x[(j+k*rows)*ld : (j+k*rows)*ld+b] }
	for j := range rows {
		in := func(k int) []complex128 { return src[(j+k*rows)*b : (j+k*rows+1)*b] }
		if r == 2 {
			last2Rows(in(0), in(1), out(0, j), out(1, j), scale)
			continue
		}
		a, bb, c, d := in(0), in(1), in(2), in(3)
		if inverse {
			bb, d = d, bb
		}
		last4Rows(a, bb, c, d, out(0, j), out(1, j), out(2, j), out(3, j), scale)
	}
}

// pass runs the stage st (not the last) from src to dst on b interleaved
// lines.
func (p *Plan) pass(st stage, tw, src, dst []complex128, b int, inverse bool) {
	t := st.twiddles(tw)
	s := st.s * b
	switch st.r {
	case 4:
		switch s {
		case 1:
			pass4s1(src, dst, t, inverse)
		case 4:
			pass4s4(src, dst, t, inverse)
		default:
			pass4(src, dst, t, s, inverse)
		}
	case 2:
		pass2(src, dst, t, s)
	case 3:
		pass3(src, dst, t, s, inverse)
	case 5:
		pass5(src, dst, t, s, inverse)
	}
}

// transform runs the passes on b interleaved lines: a pass of stride s on
// one line is a pass of stride s*b on the b lines.
func (p *Plan) transform(x []complex128, b int, inverse bool, scale float64) {
	if b < 1 || len(x) != p.n*b {
		panic(fmt.Sprintf("fftk: %d values for %d lines of length %d", len(x), b, p.n))
	}
	if p.n == 1 {
		if scale != 1 {
			for i, v := range x {
				x[i] = scaled(v, scale)
			}
		}
		return
	}
	if len(p.scratch) < len(x) {
		p.scratch = make([]complex128, len(x))
	}
	tw := p.fw
	if inverse {
		tw = p.bw
	}
	src, dst := x, p.scratch[:len(x)]
	for _, st := range p.stages {
		p.pass(st, tw, src, dst, b, inverse)
		src, dst = dst, src
	}
	s := len(x) / p.last
	switch p.last {
	case 4:
		last4(src, x, s, inverse, scale)
	case 2:
		last2(src, x, s, scale)
	case 3:
		last3(src, x, s, inverse, scale)
	case 5:
		last5(src, x, s, inverse, scale)
	}
}
