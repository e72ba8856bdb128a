package integrate

import (
	"math"
	"math/big"
)

// exactSum accumulates non-negative float64 values (squares) without
// rounding: each value is split into 32-bit pieces added into bins by
// binary exponent, so that the sum does not depend on the order of the
// additions, nor on how the values are divided among ranks (the bins of
// all ranks are added by one integer allreduce). Bin i weighs
// 2^(32i-1074); the last two bins count NaNs and infinities.
type exactSum struct {
	bins [exactBins + 2]int64
}

const exactBins = 68 // (2046 + 64) / 32 bits above 2^-1074, rounded up

func (a *exactSum) add(x float64) {
	if x == 0 {
		return
	}
	if math.IsNaN(x) || x < 0 {
		a.bins[exactBins]++
		return
	}
	if math.IsInf(x, 1) {
		a.bins[exactBins+1]++
		return
	}
	bits := math.Float64bits(x)
	e := int(bits >> 52 & 0x7ff)
	m := bits & (1<<52 - 1)
	p := 0 // x = m * 2^(p-1074)
	if e != 0 {
		m |= 1 << 52
		p = e - 1
	}
	b, r := p/32, uint(p%32)
	lo := (m & 0xffffffff) << r // up to 63 bits
	hi := (m >> 32) << r        // up to 52 bits
	a.bins[b] += int64(lo & 0xffffffff)
	a.bins[b+1] += int64(lo>>32) + int64(hi&0xffffffff)
	a.bins[b+2] += int64(hi >> 32)
}

// value rounds the exact sum to the nearest float64.
func (a *exactSum) value() float64 {
	if a.bins[exactBins] > 0 {
		return math.NaN()
	}
	if a.bins[exactBins+1] > 0 {
		return math.Inf(1)
	}
	bins := a.bins
	for i := 0; i < exactBins-1; i++ {
		c := bins[i] >> 32
		bins[i] &= 0xffffffff
		bins[i+1] += c
	}
	var z, d big.Int
	for i := exactBins - 1; i >= 0; i-- {
		z.Lsh(&z, 32)
		d.SetInt64(bins[i])
		z.Add(&z, &d)
	}
	var f big.Float
	f.SetInt(&z)
	f.SetMantExp(&f, -1074)
	v, _ := f.Float64()
	return v
}
