// Package repro sums float64 terms reproducibly and fast: the result has
// the same bits whatever the order of the terms, their division among
// ranks, goroutines and chunks, and whether the vector kernels run. The
// method is the binned ("K-fold indexed") summation of Demmel and Nguyen
// (ReproBLAS), with 3 folds of 40-bit bins.
//
// # Method
//
// Bins are fixed in advance: bin k has the unit u_k = 2^(B0 + 40k) (B0 =
// -1154, bins 0 to 54 cover every float64). A term x is split into three
// pieces: f_T(x), the multiple of u_T nearest to x (ties away from zero),
// then f_{T-1} of what is left, then f_{T-2}; what is left after that
// (at most u_{T-2}/2) is dropped. T, the top bin, is the smallest bin
// with max |x| < 2^(B0 + 40T + 39) over every term of the whole sum, so
// the pieces are a function of the term and of the largest magnitude
// alone. Each bin's pieces are added exactly: in a float64 accumulator
// that starts at 1.5 * 2^52 u_k (whose unit in the last place is u_k), by
// M' = M + (x|1), q = M' - M, x -= q, where x|1 is x with the lowest bit
// of its significand set, which turns round-to-nearest-even into
// round-half-away-from-zero so that the piece does not depend on M; then
// in integers. The result is the exact sum of the pieces of the top three
// bins, rounded once to the nearest float64.
//
// Work is done in chunks of 4096 terms: the largest magnitude of a chunk
// (one vector pass over data in the level-1 cache) chooses its bins; a
// chunk whose top bin is below the accumulator's adds into the
// accumulator's bins (where its higher pieces are zero), a larger one
// moves the accumulator up. Accumulators go into int64 bins at most
// every 63,488 terms per goroutine, and the int64 bins of goroutines and
// ranks are added (one integer allreduce), keeping every bin: the top
// three of the global top bin are read at the end, so the result does not
// depend on which chunk chose which bins.
//
// # Error
//
// With n terms and m the largest |x|, the sum before the last rounding
// differs from the exact sum by at most n * 2^-80 * m (each term loses at
// most u_{T-2}/2 <= 2^-80 m), and the result by that plus half a unit in
// its last place: for n < 2^27, within 2^-53 m of the exact sum before
// rounding, where a plain sum's bound is (n-1) 2^-53 times the sum of the
// magnitudes. Exact for fewer than 2^35 terms in all (int64 bins).
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
	"github.com/xpmpi/xpmpi/internal/repro/internal/rvec"
	"github.com/xpmpi/xpmpi/mpi"
)

const (
	// width is W, the bits between the units of two adjacent bins.
	width = 40
	// folds is K, the bins a term is split into (rvec's kernel has 3).
	folds = 3
	// lanes is the number of accumulators per fold (four YMM registers).
	lanes = 16
	// b0 is the exponent of bin 0's unit.
	b0 = -1074 - 2*width
	// nbins is the number of bins: bin 54 holds MaxFloat64.
	nbins = 55
	// fastLo and fastHi are the top bins whose three folds run unscaled:
	// below, a fold's accumulator would be subnormal or its unit smaller
	// than 4 * 2^-1074; above, the accumulator overflows. Chunks with other
	// top bins are added scaled by a power of two (addSlow).
	fastLo, fastHi = 5, 53
	// chunk is the number of terms whose largest magnitude is found before
	// they are added.
	chunk = 4096
	// budget is the most terms one lane takes between two conversions to
	// integers: each moves the accumulator by at most 2^(W-1) units, and it
	// must stay within 2^51 units of its start, 1.5 * 2^52 units.
	budget = 1<<(52-width) - 128
	// split is where a bin's int64 is cut into the high and the low int64
	// sums.
	split = 28
	// parMin is the least number of terms added on several goroutines.
	parMin = 1 << 16
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

// SetVector turns the AVX2 kernels on (only where the processor has AVX2)
// or off, and returns the previous setting; not while sums run. For
// tests.
func SetVector(on bool) bool {
	prev := useVector
	useVector = on && rvec.HasAVX2
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

// topBin returns the smallest bin k with m < 2^(unitExp(k)+W-1), for a
// finite m > 0.
func topBin(m float64) int {
	_, e := math.Frexp(m) // m < 2^e
	d := e - b0 - width + 1
	return (d + width - 1) / width
}

// state is one accumulator: 3 folds of 16 lanes, fold f of bin level-f,
// holding terms scaled by 2^shift.
type state struct {
	m     [folds * lanes]float64
	level int // -1: empty
	shift int
	used  int // the most terms one lane has taken
}

// anchor returns the start of fold bin k's accumulator, scaled by 2^shift.
func anchor(k, shift int) float64 { return math.Ldexp(1.5, unitExp(k)+52+shift) }

func (s *state) reset(level, shift int) {
	s.level, s.shift, s.used = level, shift, 0
	for f := range folds {
		a := anchor(level-f, shift)
		for l := range lanes {
			s.m[f*lanes+l] = a
		}
	}
}

// finite reports whether every accumulator is finite (a NaN or an infinity
// among the terms makes one NaN or infinite, and it stays so).
func (s *state) finite() bool {
	for _, v := range s.m {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// flush adds s's content into a's integer bins and empties s.
func (a *Sum) flush(s *state) {
	if s.level < 0 {
		return
	}
	for f := range folds {
		k := s.level - f
		if k < 0 {
			break
		}
		a0 := anchor(k, s.shift)
		e := unitExp(k) + s.shift
		var v int64
		for l := range lanes {
			v += int64(math.Ldexp(s.m[f*lanes+l]-a0, -e)) // exact: an integer below 2^51
		}
		a.v[hiAt+k] += v >> split
		a.v[loAt+k] += v & (1<<split - 1)
	}
	a.v[topAt+s.level]++
	s.level = -1
}

// depositGo adds xs to s's lanes, element j to lane j%16: what the AVX2
// kernel does.
func depositGo(m *[folds * lanes]float64, xs []float64) {
	for j, x := range xs {
		l := j & (lanes - 1)
		for f := 0; f < folds-1; f++ {
			q := math.Float64frombits(math.Float64bits(x) | 1)
			s := m[f*lanes+l] + q
			d := m[f*lanes+l] - s
			m[f*lanes+l] = s
			x += d
		}
		m[(folds-1)*lanes+l] += math.Float64frombits(math.Float64bits(x) | 1)
	}
}

// deposit adds the terms xs (each of magnitude below 2^(unitExp(level) +
// W - 1) times 2^shift) to s.
func (s *state) deposit(xs []float64) {
	s.used += (len(xs) + lanes - 1) / lanes
	done := 0
	if useVector && len(xs) >= lanes {
		done = rvec.DepositAVX2(&xs[0], len(xs), &s.m)
	}
	depositGo(&s.m, xs[done:])
}

// maxAbs returns the largest |x| of xs; a NaN may be lost.
func maxAbs(xs []float64) float64 {
	m, done := 0.0, 0
	if useVector && len(xs) >= lanes {
		m, done = rvec.MaxAbsAVX2(&xs[0], len(xs))
	}
	for _, x := range xs[done:] {
		if ax := math.Abs(x); !(ax <= m) {
			m = ax
		}
	}
	return m
}

// mulMax sets p[j] = x[j]*y[j] and returns the largest |p[j]|; a NaN may
// be lost.
func mulMax(p, x, y []float64) float64 {
	m, done := 0.0, 0
	n := len(p)
	x, y = x[:n], y[:n]
	if useVector && n >= lanes {
		m, done = rvec.MulMaxAVX2(&p[0], &x[0], &y[0], n)
	}
	for j := done; j < n; j++ {
		p[j] = float64(x[j] * y[j])
		if ax := math.Abs(p[j]); !(ax <= m) {
			m = ax
		}
	}
	return m
}

// source gives the terms of a sum, chunk by chunk.
type source interface {
	// terms returns the terms [lo, hi) (hi-lo <= chunk), computed into buf
	// if they are not stored, and their largest magnitude (a NaN may be
	// lost).
	terms(lo, hi int, buf []float64) ([]float64, float64)
}

type sumF64 []float64

func (s sumF64) terms(lo, hi int, _ []float64) ([]float64, float64) {
	return s[lo:hi], maxAbs(s[lo:hi])
}

type dotF64 struct{ x, y []float64 }

func (s dotF64) terms(lo, hi int, buf []float64) ([]float64, float64) {
	p := buf[:hi-lo]
	return p, mulMax(p, s.x[lo:hi], s.y[lo:hi])
}

type sumF32 []float32

func (s sumF32) terms(lo, hi int, buf []float64) ([]float64, float64) {
	p := buf[:hi-lo]
	for j, v := range s[lo:hi] {
		p[j] = float64(v)
	}
	return p, maxAbs(p)
}

type dotF32 struct{ x, y []float32 }

func (s dotF32) terms(lo, hi int, buf []float64) ([]float64, float64) {
	p := buf[:hi-lo]
	x, y := s.x[lo:hi], s.y[lo:hi]
	for j := range p {
		p[j] = float64(x[j]) * float64(y[j]) // exact
	}
	return p, maxAbs(p)
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
	var buf []float64
	if _, ok := src.(sumF64); !ok {
		buf = make([]float64, chunk)
	}
	var st state
	st.level = -1
	start := lo // the first term in st
	// end empties st, whose terms are [start, i): into the bins if they
	// were all finite, else again by addSlow.
	end := func(i int) {
		if st.level >= 0 {
			if st.finite() {
				a.flush(&st)
			} else {
				st.level = -1
				a.addSlow(src, start, i, buf)
			}
		}
		start = i
	}
	for c := lo; c < hi; c += chunk {
		ce := min(c+chunk, hi)
		xs, m := src.terms(c, ce, buf)
		if m == 0 {
			continue
		}
		if !(m <= math.MaxFloat64) {
			end(c)
			a.addSlow(src, c, ce, buf)
			start = ce
			continue
		}
		k := topBin(m)
		if k < fastLo || k > fastHi {
			end(c)
			a.addSlow(src, c, ce, buf)
			start = ce
			continue
		}
		if k > st.level || st.used+(len(xs)+lanes-1)/lanes > budget {
			level := max(k, st.level)
			end(c)
			st.reset(level, 0)
		}
		st.deposit(xs)
	}
	end(hi)
}

// addSlow adds the terms [lo, hi) of src one by one: it counts NaNs and
// infinities, and adds the finite terms scaled by a power of two that
// keeps every accumulator normal and finite.
func (a *Sum) addSlow(src source, lo, hi int, buf []float64) {
	m := 0.0
	for c := lo; c < hi; c += chunk {
		xs, _ := src.terms(c, min(c+chunk, hi), buf)
		for _, x := range xs {
			switch {
			case x != x:
				a.v[nanAt]++
			case x > math.MaxFloat64:
				a.v[pinfAt]++
			case x < -math.MaxFloat64:
				a.v[ninfAt]++
			default:
				m = max(m, math.Abs(x))
			}
		}
	}
	if m == 0 {
		return
	}
	k := topBin(m)
	shift := 0
	if k < fastLo || k > fastHi {
		shift = 500 - unitExp(k)
	}
	var st state
	st.reset(k, shift)
	var one [lanes]float64
	n := 0
	for c := lo; c < hi; c += chunk {
		xs, _ := src.terms(c, min(c+chunk, hi), buf)
		for _, x := range xs {
			if x-x != 0 {
				continue // NaN or infinite: counted
			}
			// Scaling is exact where it matters: a term that underflows
			// is far below the lowest fold's unit, 2^420.
			one[n] = math.Ldexp(x, shift)
			if n++; n == lanes {
				st.deposit(one[:])
				n = 0
				if st.used == budget {
					a.flush(&st)
					st.reset(k, shift)
				}
			}
		}
	}
	st.deposit(one[:n])
	a.flush(&st)
}

// Merge adds o into a.
func (a *Sum) Merge(o *Sum) {
	for i := range a.v {
		a.v[i] += o.v[i]
	}
}

// Allreduce adds the sums of every rank of c into each (nothing to do for
// one rank): one integer allreduce of 168 int64. It is collective.
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
	top := -1
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
