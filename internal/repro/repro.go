// Package repro sums float64 terms reproducibly and fast: the result has
// the same bits whatever the order of the terms, their division among
// ranks, goroutines and chunks, and whether the vector kernels run. The
// method is binned summation after Demmel and Nguyen (ReproBLAS's indexed
// sums), with 2 folds of 51-bit bins and integer accumulation.
//
// # Method
//
// Bins are fixed in advance: bin k has the unit u_k = 2^(B0 + 51k) (B0 =
// -1125; bins 0 to 42 cover every float64). A term x is split into two
// pieces: f_T(x), the multiple of u_T nearest to x (ties to an even
// multiple), and f_{T-1}(x - f_T(x)); what is left (at most u_{T-1}/2)
// is dropped. T, the top bin, is the smallest bin (at least 2) above a
// bound on the largest |x| of all the terms of the sum (from the high 32
// bits of that largest |x|), so the pieces are a function of the term and
// of the largest magnitude alone. A piece is computed exactly in
// floating point, with the bin's anchor c = 1.5 * 2^52 u_k (a float64
// whose unit in the last place is u_k): s = x + c rounds x to the bin's
// unit, the piece is s - c, and the bits of s, read as an integer, are the
// piece in units of u_k plus the bits of c. Those integers are added in
// int64.
//
// Work is done in chunks of 4096 terms: a vector pass over the chunk
// finds the largest high word of |x| (an integer maximum: a NaN or an
// infinity is never lost), which chooses the chunk's two bins, and a
// second pass over the chunk (now in the level-1 cache) adds its pieces.
// A chunk whose top bin is below the global T adds pieces to bins below
// T-1 that are dropped, and to bins T-1 and T exactly the pieces the global
// bins would have given it (its higher pieces are zero). The int64 bins of
// chunks, goroutines and ranks are added (one integer allreduce; every
// bin is kept until the end), and the highest top bin and the one below
// it are read and rounded once to the nearest float64.
//
// # Error
//
// With n terms and m the largest |x|, the sum before the last rounding
// differs from the exact sum by at most n * 2^-50 * m (each term loses at
// most u_{T-1}/2 <= 2^-50 m), and the result by that plus half a unit in
// its last place; a plain sum's bound is (n-1) * 2^-53 times the sum of
// the magnitudes, up to n^2 * 2^-53 * m. Exact (as said) for fewer than
// 2^41 terms in all.
//
// # Special values
//
// NaN if a term is NaN or the terms hold both infinities, +Inf or -Inf if
// they hold that infinity, as IEEE addition gives; a finite sum beyond the
// float64 range is an infinity; a sum that is exactly zero is +0 (even of
// terms that are all -0, whose IEEE sum is -0).
package repro

import (
	"math"
	"math/big"
	"os"
	"sync"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/cpufeat"
	"github.com/xpmpi/xpmpi/internal/repro/internal/rvec"
	"github.com/xpmpi/xpmpi/mpi"
)

const (
	// width is W, the bits between the units of two adjacent bins.
	width = 51
	// folds is K, the bins a term is split into (rvec's kernel has 2).
	folds = 2
	// b0 is the exponent of bin 0's unit.
	b0 = -1074 - width
	// nbins is the number of bins: bin 42 holds MaxFloat64.
	nbins = 43
	// minTop is the lowest top bin: bin 1's unit is 2^-1074, so bins 2 and
	// 1 hold every term below 2^-973 exactly.
	minTop = 2
	// fastHi is the highest top bin whose anchor is finite. Chunks with a
	// higher top bin (terms of 2^1016 and more) are added scaled by a power
	// of two (addSlow).
	fastHi = 41
	// chunk is the number of terms whose largest magnitude is found before
	// they are added: each piece is below 2^50 units, so a chunk's int64
	// sum cannot overflow.
	chunk = 4096
	// split is where a chunk's int64 is cut into the high and the low
	// int64 sums.
	split = 28
	// parMin is the least number of terms added on several goroutines.
	parMin = 1 << 16
	// nonFinite is the high word (sign cleared) of +Inf: a word at least
	// this large is an infinity or a NaN.
	nonFinite = 0x7ff00000
)

// Index of the parts of Sum.v.
const (
	hiAt   = 0
	loAt   = nbins
	topAt  = 2 * nbins
	nanAt  = 3 * nbins
	pinfAt = nanAt + 1
	ninfAt = nanAt + 2
)

// useVector says whether the AVX2 kernels run (where the processor has
// them, unless XPMPI_CPU_VECTOR=off, the switch of package backend/cpu).
// Tests switch it with SetVector.
var useVector = rvec.HasAVX2 && os.Getenv("XPMPI_CPU_VECTOR") != "off"

// use512 says whether the fused float64 kernel runs in AVX-512 registers
// (where the processor has AVX-512F, unless XPMPI_CPU_AVX512=off).
var use512 = rvec.HasAVX512 && cpufeat.KernelAVX512

// SetVector turns the AVX2 kernels on (only where the processor has AVX2)
// or off, and returns the previous setting; not while sums run. For
// tests.
func SetVector(on bool) bool {
	prev := useVector
	useVector = on && rvec.HasAVX2
	return prev
}

// setAVX512 turns the AVX-512 kernel on (only where the processor has
// it) or off and returns the previous setting. For tests.
func setAVX512(on bool) bool {
	prev := use512
	use512 = on && rvec.HasAVX512
	return prev
}

// Vector reports whether the AVX2 kernels run.
func Vector() bool { return useVector }

// Sum is a reproducible sum of float64 terms. The zero value is an empty
// sum.
type Sum struct {
	// v holds, per bin, the integer sums of the high parts (hiAt) and the
	// low parts (loAt) of the accumulators' contents in units of the
	// bin's unit, the number of accumulators whose top bin it was (topAt),
	// then the counts of NaN, +Inf and -Inf terms.
	v [3*nbins + 3]int64
}

// unitExp returns the exponent of bin k's unit.
func unitExp(k int) int { return b0 + width*k }

// anchor returns bin k's anchor, 1.5 * 2^52 times its unit, scaled by
// 2^shift.
func anchor(k, shift int) float64 { return math.Ldexp(1.5, unitExp(k)+52+shift) }

// topBin returns the chunk's top bin for hi, the largest high word of a
// finite |x| of the chunk: the smallest bin k (at least minTop) with
// |x| < 2^(unitExp(k)+W-1) for every x whose high word is at most hi.
func topBin(hi uint32) int {
	bound := uint64(hi+1) << 32 // the bits of a float64 above every such |x|
	e := 1024                   // |x| < 2^e
	if bound < 0x7ff0_0000_0000_0000 {
		f, fe := math.Frexp(math.Float64frombits(bound))
		e = fe
		if f == 0.5 {
			e--
		}
	}
	d := e - b0 - width + 1
	return max(minTop, (d+width-1)/width)
}

// hiWord returns the high 32-bit word of |x|.
func hiWord(x float64) uint32 { return uint32(math.Float64bits(x)>>32) & 0x7fffffff }

// depositGo returns the wrapping int64 sums of the bits of s1 = x + c1
// and of s2 = (x - (s1 - c1)) + c2 over xs: what the AVX2 kernel does.
func depositGo(xs []float64, c1, c2 float64) (a1, a2 int64) {
	for _, x := range xs {
		s1 := x + c1
		r := x - (s1 - c1)
		s2 := r + c2
		a1 += int64(math.Float64bits(s1))
		a2 += int64(math.Float64bits(s2))
	}
	return a1, a2
}

// deposit returns the sums of the pieces of xs in bins with anchors c1
// and c2, in units of each bin.
func deposit(xs []float64, c1, c2 float64) (v1, v2 int64) {
	var a1, a2 int64
	done := 0
	if useVector && len(xs) >= 16 {
		a1, a2, done = rvec.DepositAVX2(&xs[0], len(xs), c1, c2)
	}
	g1, g2 := depositGo(xs[done:], c1, c2)
	return units(a1+g1, a2+g2, len(xs), c1, c2)
}

// units turns the sums of the bits of n values s1 and s2 into the sums of
// the pieces in units of the bins of anchors c1 and c2 (wrapping: the
// result fits).
func units(a1, a2 int64, n int, c1, c2 float64) (v1, v2 int64) {
	return a1 - int64(n)*int64(math.Float64bits(c1)), a2 - int64(n)*int64(math.Float64bits(c2))
}

// addBins adds a chunk with top bin k whose pieces sum to v1 units of bin
// k and v2 units of bin k-1.
func (a *Sum) addBins(k int, v1, v2 int64) {
	a.v[hiAt+k] += v1 >> split
	a.v[loAt+k] += v1 & (1<<split - 1)
	a.v[hiAt+k-1] += v2 >> split
	a.v[loAt+k-1] += v2 & (1<<split - 1)
	a.v[topAt+k]++
}

// maxHi returns the largest high word of |x| over xs.
func maxHi(xs []float64) uint32 {
	var m uint32
	done := 0
	if useVector && len(xs) >= 16 {
		m, done = rvec.MaxHiAVX2(&xs[0], len(xs))
	}
	for _, x := range xs[done:] {
		m = max(m, hiWord(x))
	}
	return m
}

// mulMaxHi sets p[j] = x[j]*y[j] and returns the largest high word of
// |p[j]|.
func mulMaxHi(p, x, y []float64) uint32 {
	var m uint32
	done := 0
	n := len(p)
	x, y = x[:n], y[:n]
	if useVector && n >= 16 {
		m, done = rvec.MulMaxHiAVX2(&p[0], &x[0], &y[0], n)
	}
	for j := done; j < n; j++ {
		p[j] = float64(x[j] * y[j])
		m = max(m, hiWord(p[j]))
	}
	return m
}

// source gives the terms of a sum, chunk by chunk.
type source interface {
	// terms returns the terms [lo, hi) (hi-lo <= chunk), computed into buf
	// if they are not stored, and the largest high word of their
	// magnitudes.
	terms(lo, hi int, buf []float64) ([]float64, uint32)
}

type sumF64 []float64

func (s sumF64) terms(lo, hi int, _ []float64) ([]float64, uint32) {
	return s[lo:hi], maxHi(s[lo:hi])
}

type dotF64 struct{ x, y []float64 }

func (s dotF64) terms(lo, hi int, buf []float64) ([]float64, uint32) {
	p := buf[:hi-lo]
	return p, mulMaxHi(p, s.x[lo:hi], s.y[lo:hi])
}

type sumF32 []float32

func (s sumF32) terms(lo, hi int, buf []float64) ([]float64, uint32) {
	p := buf[:hi-lo]
	for j, v := range s[lo:hi] {
		p[j] = float64(v)
	}
	return p, maxHi(p)
}

type dotF32 struct{ x, y []float32 }

func (s dotF32) terms(lo, hi int, buf []float64) ([]float64, uint32) {
	p := buf[:hi-lo]
	x, y := s.x[lo:hi], s.y[lo:hi]
	for j := range p {
		p[j] = float64(x[j]) * float64(y[j]) // exact
	}
	return p, maxHi(p)
}

// Add adds the elements of xs. With more than 2^16 of them it runs on
// backend.Threads() goroutines; the result does not depend on how many.
func (a *Sum) Add(xs []float64) { a.addSource(sumF64(xs), len(xs)) }

// AddDot adds x[i]*y[i], each product rounded to float64, for every i
// of x; y must be at least as long.
func (a *Sum) AddDot(x, y []float64) { a.addSource(dotF64{x, y[:len(x)]}, len(x)) }

// Add32 adds the elements of xs, converted to float64.
func (a *Sum) Add32(xs []float32) { a.addSource(sumF32(xs), len(xs)) }

// AddDot32 adds float64(x[i])*float64(y[i]) (exact) for every i of x; y
// must be at least as long.
func (a *Sum) AddDot32(x, y []float32) { a.addSource(dotF32{x, y[:len(x)]}, len(x)) }

func (a *Sum) addSource(src source, n int) {
	if n < parMin || backend.Threads() == 1 {
		a.addRange(src, 0, n)
		return
	}
	var mu sync.Mutex
	nc := (n + chunk - 1) / chunk
	backend.ParallelFor(nc, 4, func(c0, c1 int) {
		var s Sum
		s.addRange(src, c0*chunk, min(c1*chunk, n))
		mu.Lock()
		a.Merge(&s)
		mu.Unlock()
	})
}

// addRange adds the terms [lo, hi) of src on this goroutine.
func (a *Sum) addRange(src source, lo, hi int) {
	if xs, ok := src.(sumF64); ok {
		a.addF64(xs[lo:hi])
		return
	}
	buf := make([]float64, chunk)
	for c := lo; c < hi; c += chunk {
		xs, h := src.terms(c, min(c+chunk, hi), buf)
		k := topBin(h)
		if h >= nonFinite || k > fastHi {
			a.addSlow(xs)
			continue
		}
		v1, v2 := deposit(xs, anchor(k, 0), anchor(k-1, 0))
		a.addBins(k, v1, v2)
	}
}

// addF64 adds xs chunk by chunk, as addRange, finding the largest high
// word of the next chunk while the current one is added (one pass over
// memory).
func (a *Sum) addF64(xs []float64) {
	n := len(xs)
	h := maxHi(xs[:min(chunk, n)])
	for c := 0; c < n; c += chunk {
		cur := xs[c:min(c+chunk, n)]
		next := xs[min(c+chunk, n):min(c+2*chunk, n)]
		k := topBin(h)
		if h >= nonFinite || k > fastHi {
			a.addSlow(cur)
			h = maxHi(next)
			continue
		}
		c1, c2 := anchor(k, 0), anchor(k-1, 0)
		var v1, v2 int64
		if useVector && len(cur) >= 16 && len(next) == len(cur) {
			depositMax := rvec.DepositMaxAVX2
			if use512 {
				depositMax = rvec.DepositMaxAVX512
			}
			a1, a2, hn, done := depositMax(&cur[0], &next[0], len(cur), c1, c2)
			g1, g2 := depositGo(cur[done:], c1, c2)
			for _, x := range next[done:] {
				hn = max(hn, hiWord(x))
			}
			v1, v2 = units(a1+g1, a2+g2, len(cur), c1, c2)
			h = hn
		} else {
			v1, v2 = deposit(cur, c1, c2)
			h = maxHi(next)
		}
		a.addBins(k, v1, v2)
	}
}

// addSlow adds a chunk that holds a NaN, an infinity or a term of 2^1016
// or more: it counts NaNs and infinities, and adds the finite terms scaled
// by a power of two that keeps the anchors finite (scaling is exact where
// it matters: a term that underflows is far below the lower bin's unit,
// 2^449).
func (a *Sum) addSlow(xs []float64) {
	var h uint32
	finite := make([]float64, 0, len(xs))
	for _, x := range xs {
		switch {
		case x != x:
			a.v[nanAt]++
		case x > math.MaxFloat64:
			a.v[pinfAt]++
		case x < -math.MaxFloat64:
			a.v[ninfAt]++
		default:
			h = max(h, hiWord(x))
			finite = append(finite, x)
		}
	}
	if len(finite) == 0 {
		return
	}
	k := topBin(h)
	shift := 0
	if k > fastHi {
		shift = 500 - unitExp(k)
		for i, x := range finite {
			finite[i] = math.Ldexp(x, shift)
		}
	}
	v1, v2 := deposit(finite, anchor(k, shift), anchor(k-1, shift))
	a.addBins(k, v1, v2)
}

// Merge adds o into a.
func (a *Sum) Merge(o *Sum) {
	for i := range a.v {
		a.v[i] += o.v[i]
	}
}

// Allreduce adds the sums of every rank of c into each (nothing to do for
// one rank): one integer allreduce of 132 int64. It is collective.
func (a *Sum) Allreduce(c mpi.Comm) error {
	if c.Size() == 1 {
		return nil
	}
	return mpi.AllreduceInPlace(c, a.v[:], mpi.Sum)
}

// Value returns the sum (see the package documentation for its error and
// special values).
func (a *Sum) Value() float64 {
	nan, pinf, ninf := a.v[nanAt], a.v[pinfAt], a.v[ninfAt]
	switch {
	case nan > 0 || pinf > 0 && ninf > 0:
		return math.NaN()
	case pinf > 0:
		return math.Inf(1)
	case ninf > 0:
		return math.Inf(-1)
	}
	top := -1 // the highest top bin
	for k := nbins - 1; k >= 0; k-- {
		if a.v[topAt+k] > 0 {
			top = k
			break
		}
	}
	if top < 0 {
		return 0
	}
	low := max(top-folds+1, 0)
	var z, d big.Int
	for k := top; k >= low; k-- {
		z.Lsh(&z, width)
		d.SetInt64(a.v[hiAt+k])
		d.Lsh(&d, split)
		z.Add(&z, &d)
		d.SetInt64(a.v[loAt+k])
		z.Add(&z, &d)
	}
	var f big.Float
	f.SetInt(&z)
	f.SetMantExp(&f, unitExp(low))
	v, _ := f.Float64()
	return v
}
