// Package exactsum sums float64 values exactly, in integer bins by binary
// exponent, so that the rounded result depends neither on the order of the
// additions nor on how the values are divided among ranks: the reductions
// that must give the same bits at every rank count (integrate's and
// optimize's distributed norms and dots) use it.
package exactsum

import (
	"math"
	"math/big"

	"github.com/xpmpi/xpmpi/mpi"
)

// Sum accumulates float64 values of either sign without rounding:
// each value is split into 32-bit pieces added, with its sign, into bins by
// binary exponent, so that the sum does not depend on the order of the
// additions nor on how the values are divided among ranks (the bins of all
// ranks are added by one integer allreduce). Bin i weighs 2^(32i-1074);
// the last three bins count NaNs, +Inf and -Inf. Each bin takes up to 2^32
// per addition, so up to 2^31 additions over all ranks are exact. The
// zero value is an empty sum.
type Sum struct {
	bins [exactBins + 3]int64
}

const exactBins = 68 // (2046 + 64) / 32 bits above 2^-1074, rounded up

// Add adds x.
func (a *Sum) Add(x float64) {
	if x == 0 {
		return
	}
	if math.IsNaN(x) {
		a.bins[exactBins]++
		return
	}
	if math.IsInf(x, 0) {
		if x > 0 {
			a.bins[exactBins+1]++
		} else {
			a.bins[exactBins+2]++
		}
		return
	}
	bits := math.Float64bits(x)
	neg := bits>>63 != 0
	e := int(bits >> 52 & 0x7ff)
	m := bits & (1<<52 - 1)
	p := 0 // |x| = m * 2^(p-1074)
	if e != 0 {
		m |= 1 << 52
		p = e - 1
	}
	b, r := p/32, uint(p%32)
	lo := (m & 0xffffffff) << r // up to 63 bits
	hi := (m >> 32) << r        // up to 52 bits
	d0 := int64(lo & 0xffffffff)
	d1 := int64(lo>>32) + int64(hi&0xffffffff)
	d2 := int64(hi >> 32)
	if neg {
		d0, d1, d2 = -d0, -d1, -d2
	}
	a.bins[b] += d0
	a.bins[b+1] += d1
	a.bins[b+2] += d2
}

// Merge adds o into a.
func (a *Sum) Merge(o *Sum) {
	for i := range a.bins {
		a.bins[i] += o.bins[i]
	}
}

// Value rounds the exact sum to the nearest float64 (NaN if a NaN was
// added or both infinities, an infinity if one was).
func (a *Sum) Value() float64 {
	nan, pinf, ninf := a.bins[exactBins], a.bins[exactBins+1], a.bins[exactBins+2]
	switch {
	case nan > 0 || pinf > 0 && ninf > 0:
		return math.NaN()
	case pinf > 0:
		return math.Inf(1)
	case ninf > 0:
		return math.Inf(-1)
	}
	var z, d big.Int
	for i := exactBins - 1; i >= 0; i-- {
		z.Lsh(&z, 32)
		d.SetInt64(a.bins[i])
		z.Add(&z, &d)
	}
	var f big.Float
	f.SetInt(&z)
	f.SetMantExp(&f, -1074)
	v, _ := f.Float64()
	return v
}

// Allreduce adds the sums of every rank of c into each (nothing to do for
// one rank). It is collective.
func (a *Sum) Allreduce(c mpi.Comm) error {
	if c.Size() == 1 {
		return nil
	}
	return mpi.AllreduceInPlace(c, a.bins[:], mpi.Sum)
}
