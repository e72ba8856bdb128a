package cpu

import (
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CPU backend computes dist's statistics as a driver.StatsReducer.
var _ driver.StatsReducer = (*Backend)(nil)

// statsOps is the type-erased form of the statistics for one element type.
type statsOps interface {
	moments(x driver.Buffer) (sum, dev, m2 float64)
	momentsAxis(mom, src driver.Buffer, pre, n, post int)
	prod(x driver.Buffer) driver.Scalar
	countNonzero(x driver.Buffer) int
	histogram(counts []int64, x driver.Buffer, lo, hi float64)
	scanAxis(dst, last, src, carry driver.Buffer, pre, n, post int, prod bool)
}

func statsOpsFor(dt backend.DType) statsOps {
	switch dt {
	case backend.Float32:
		return statsImpl[float32]{}
	case backend.Float64:
		return statsImpl[float64]{}
	case backend.Int32:
		return statsImpl[int32]{}
	case backend.Int64:
		return statsImpl[int64]{}
	case backend.Uint32:
		return statsImpl[uint32]{}
	case backend.Int8:
		return statsImpl[int8]{}
	case backend.Int16:
		return statsImpl[int16]{}
	case backend.Uint8:
		return statsImpl[uint8]{}
	case backend.Uint16:
		return statsImpl[uint16]{}
	}
	return statsImpl[uint64]{}
}

type statsImpl[T backend.Element] struct{}

// moments sums in float64 by the fixed chunks of Sum, pairwise across
// chunks, so that the result does not depend on the thread count.
func (statsImpl[T]) moments(xb driver.Buffer) (sum, dev, m2 float64) {
	x := hs[T](xb)
	if len(x) == 0 {
		return 0, 0, 0
	}
	sum = pairwise(chunkPartials(len(x), func(lo, hi int) float64 {
		s := 0.0
		for _, v := range x[lo:hi] {
			s += float64(v)
		}
		return s
	}))
	mean := sum / float64(len(x))
	dev = pairwise(chunkPartials(len(x), func(lo, hi int) float64 {
		s := 0.0
		for _, v := range x[lo:hi] {
			s += float64(v) - mean
		}
		return s
	}))
	m2 = pairwise(chunkPartials(len(x), func(lo, hi int) float64 {
		s := 0.0
		for _, v := range x[lo:hi] {
			d := float64(v) - mean
			s += d * d
		}
		return s
	}))
	return sum, dev, m2 - dev*dev/float64(len(x))
}

func (statsImpl[T]) momentsAxis(momb, src driver.Buffer, pre, n, post int) {
	x, mom := hs[T](src), hs[float64](momb)
	clear(mom)
	if n == 0 {
		return
	}
	m := pre * post
	for i := 0; i < pre; i++ {
		s := mom[i*post : (i+1)*post]
		d := mom[m+i*post : m+(i+1)*post]
		q := mom[2*m+i*post : 2*m+(i+1)*post]
		for k := 0; k < n; k++ {
			for j, v := range x[(i*n+k)*post : (i*n+k+1)*post] {
				s[j] += float64(v)
			}
		}
		for k := 0; k < n; k++ {
			for j, v := range x[(i*n+k)*post : (i*n+k+1)*post] {
				e := float64(v) - s[j]/float64(n)
				d[j] += e
				q[j] += e * e
			}
		}
		for j := range q {
			q[j] -= d[j] * d[j] / float64(n)
		}
	}
}

// combineMoments merges the moments of parts in the order of q with Chan,
// Golub and LeVeque's formula, each part's mean held as sum/n plus the
// correction dev/n.
func combineMoments(momb, allb driver.Buffer, counts []int) {
	mom, all := hs[float64](momb), hs[float64](allb)
	m := len(mom) / 3
	for j := 0; j < m; j++ {
		na := 0
		var sa, ha, la, qa float64 // sum, mean (high and low parts), m2
		for q, nb := range counts {
			if nb == 0 {
				continue
			}
			row := all[q*3*m:]
			sb, qb := row[j], row[2*m+j]
			hb, lb := sb/float64(nb), row[m+j]/float64(nb)
			if na == 0 {
				na, sa, ha, la, qa = nb, sb, hb, lb, qb
				continue
			}
			n := na + nb
			d := (hb - ha) + (lb - la)
			qa += qb + d*d*(float64(na)*float64(nb)/float64(n))
			la += d * (float64(nb) / float64(n))
			sa += sb
			na = n
		}
		mom[j], mom[m+j], mom[2*m+j] = sa, 0, qa
	}
}

func (statsImpl[T]) prod(xb driver.Buffer) driver.Scalar {
	x := hs[T](xb)
	dt := xb.DType()
	switch {
	case dt.IsFloat():
		p := 1.0
		for _, v := range x {
			p *= float64(v)
		}
		return driver.ScalarOf(p)
	case dt.IsSigned():
		p := int64(1)
		for _, v := range x {
			p *= int64(v)
		}
		return driver.ScalarOf(p)
	}
	p := uint64(1)
	for _, v := range x {
		p *= uint64(v)
	}
	return driver.ScalarOf(p)
}

func (statsImpl[T]) countNonzero(xb driver.Buffer) int {
	c := 0
	for _, v := range hs[T](xb) {
		if v != 0 { // true for NaN
			c++
		}
	}
	return c
}

// histogram follows numpy.histogram (NumPy 1.24) for equal-width bins: the
// bin from (v-lo)*norm, then corrected against the edges.
func (statsImpl[T]) histogram(counts []int64, xb driver.Buffer, lo, hi float64) {
	bins := len(counts)
	if bins == 0 {
		return
	}
	edges := driver.HistogramEdges(bins, lo, hi)
	norm := float64(bins) / (hi - lo)
	for _, e := range hs[T](xb) {
		v := float64(e)
		if !(v >= lo && v <= hi) { // outside, or NaN
			continue
		}
		i := int((v - lo) * norm)
		if i >= bins {
			i = bins - 1
		}
		if v < edges[i] {
			i--
		}
		if v >= edges[i+1] && i != bins-1 {
			i++
		}
		counts[i]++
	}
}

func (statsImpl[T]) scanAxis(dstb, lastb, src, carryb driver.Buffer, pre, n, post int, prod bool) {
	scanSlice[T](dstb, lastb, src, carryb, pre, n, post, prod)
}

// scanSlice is ScanAxis for any element type, complex included (complex
// sums and products in src's type, as Go's complex arithmetic computes
// them).
func scanSlice[T backend.Numeric](dstb, lastb, src, carryb driver.Buffer, pre, n, post int, prod bool) {
	x := hs[T](src)
	var dst, last, carry []T
	if dstb != nil {
		dst = hs[T](dstb)
	}
	if lastb != nil {
		last = hs[T](lastb)
	}
	if carryb != nil {
		carry = hs[T](carryb)
	}
	run := make([]T, post)
	for i := 0; i < pre; i++ {
		if carry != nil {
			copy(run, carry[i*post:(i+1)*post])
		} else {
			var id T
			if prod {
				id = 1
			}
			for j := range run {
				run[j] = id
			}
		}
		for k := 0; k < n; k++ {
			row := x[(i*n+k)*post : (i*n+k+1)*post]
			if prod {
				for j, v := range row {
					run[j] *= v
				}
			} else {
				for j, v := range row {
					run[j] += v
				}
			}
			if dst != nil {
				copy(dst[(i*n+k)*post:(i*n+k+1)*post], run)
			}
		}
		if last != nil {
			copy(last[i*post:(i+1)*post], run)
		}
	}
}

// Moments returns the float64 sum of x, the sum of deviations from its
// mean and the corrected sum of squared deviations.
func (*Backend) Moments(x driver.Buffer) (sum, dev, m2 float64) {
	return statsOpsFor(x.DType()).moments(x)
}

// MomentsAxis computes the moments of each line along the middle axis of
// pre x n x post.
func (*Backend) MomentsAxis(mom, src driver.Buffer, pre, n, post int) {
	statsOpsFor(src.DType()).momentsAxis(mom, src, pre, n, post)
}

// CombineMoments merges the moments of p parts in the order of the parts.
func (*Backend) CombineMoments(mom, all driver.Buffer, counts []int) {
	combineMoments(mom, all, counts)
}

// Prod returns the product of x's elements.
func (*Backend) Prod(x driver.Buffer) driver.Scalar { return statsOpsFor(x.DType()).prod(x) }

// CountNonzero returns the number of nonzero elements (NaN included).
func (*Backend) CountNonzero(x driver.Buffer) int { return statsOpsFor(x.DType()).countNonzero(x) }

// Histogram adds the counts of x's elements in equal-width bins over
// [lo, hi] to counts.
func (*Backend) Histogram(counts []int64, x driver.Buffer, lo, hi float64) {
	statsOpsFor(x.DType()).histogram(counts, x, lo, hi)
}

// ScanAxis sets dst to the running sums (products) along the middle axis
// of pre x n x post, starting from carry; it takes every element type,
// complex included.
func (*Backend) ScanAxis(dst, last, src, carry driver.Buffer, pre, n, post int, prod bool) {
	switch src.DType() {
	case backend.Complex64:
		scanSlice[complex64](dst, last, src, carry, pre, n, post, prod)
		return
	case backend.Complex128:
		scanSlice[complex128](dst, last, src, carry, pre, n, post, prod)
		return
	}
	statsOpsFor(src.DType()).scanAxis(dst, last, src, carry, pre, n, post, prod)
}

// Ratio sets dst to num/den, or its square root.
func (*Backend) Ratio(dst, num driver.Buffer, den float64, sqrt bool) {
	d, x := hs[float64](dst), hs[float64](num)
	for i, v := range x {
		r := v / den
		if sqrt {
			r = math.Sqrt(r)
		}
		d[i] = r
	}
}
