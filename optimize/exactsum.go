package optimize

import (
	"math"
	"math/big"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// exactSum accumulates float64 values of either sign without rounding:
// each value is split into 32-bit pieces added, with its sign, into bins by
// binary exponent, so that the sum does not depend on the order of the
// additions nor on how the values are divided among ranks (the bins of all
// ranks are added by one integer allreduce). Bin i weighs 2^(32i-1074);
// the last three bins count NaNs, +Inf and -Inf. Each bin takes up to 2^32
// per addition, so up to 2^31 additions over all ranks are exact.
// (integrate's exactsum.go is the non-negative form of the same idea.)
type exactSum struct {
	bins [exactBins + 3]int64
}

const exactBins = 68 // (2046 + 64) / 32 bits above 2^-1074, rounded up

func (a *exactSum) add(x float64) {
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

// merge adds the bins of o into a.
func (a *exactSum) merge(o *exactSum) {
	for i := range a.bins {
		a.bins[i] += o.bins[i]
	}
}

// value rounds the exact sum to the nearest float64 (NaN if a NaN was
// added or both infinities, an infinity if one was).
func (a *exactSum) value() float64 {
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

// reduce adds the bins over the ranks of c (nothing to do for one rank).
func (a *exactSum) reduce(c mpi.Comm) error {
	if c.Size() == 1 {
		return nil
	}
	return mpi.AllreduceInPlace(c, a.bins[:], mpi.Sum)
}

// ExactSum returns the sum over all ranks of c of the values in local,
// rounded once to the nearest float64: the result depends neither on the
// order of the values nor on how they are divided among the ranks, so a
// distributed objective that sums its terms with it (see MinimizeDist)
// gives the same bits at every rank count. It is collective: every rank of
// c calls it, each with its own values (up to 2^31 of them in all).
func ExactSum(c mpi.Comm, local []float64) (float64, error) {
	var a exactSum
	for _, v := range local {
		a.add(v)
	}
	if err := a.reduce(c); err != nil {
		return 0, err
	}
	return a.value(), nil
}

// distributed reports whether x is split among the ranks (so that a
// reduction over its local block needs an allreduce).
func distributed(x *dist.Array[float64]) bool {
	return x.Layout().Axis() != dist.Replicated && x.Comm().Size() > 1
}

// dotExact is the dot product of two arrays with the same layout: each
// product rounded as usual, their sum exact (exactSum), reduced over the
// ranks: the same bits at every rank count. Collective.
func dotExact(x, y *dist.Array[float64]) (float64, error) {
	return dotLocal(x.Comm(), distributed(x), x.LocalData(), y.LocalData())
}

func dotLocal(c mpi.Comm, reduce bool, x, y []float64) (float64, error) {
	var a exactSum
	for i, v := range x {
		a.add(v * y[i])
	}
	if reduce {
		if err := a.reduce(c); err != nil {
			return 0, err
		}
	}
	return a.value(), nil
}

// normExact is the Euclidean norm of x, its sum of squares exact.
func normExact(x *dist.Array[float64]) (float64, error) {
	s, err := dotExact(x, x)
	return math.Sqrt(s), err
}

// maxAbs is the largest |x_i| over all ranks (0 for an empty array; NaN
// if any element is NaN). Collective.
func maxAbs(x *dist.Array[float64]) (float64, error) {
	m, nan := 0.0, 0.0
	for _, v := range x.LocalData() {
		if math.IsNaN(v) {
			nan = 1
			continue
		}
		m = math.Max(m, math.Abs(v))
	}
	if distributed(x) {
		buf := []float64{m, nan}
		if err := mpi.AllreduceInPlace(x.Comm(), buf, mpi.Max); err != nil {
			return 0, err
		}
		m, nan = buf[0], buf[1]
	}
	if nan > 0 {
		return math.NaN(), nil
	}
	return m, nil
}
