package dist

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// QuantileMethod is how Quantile, Percentile and their axis forms pick or
// interpolate between the two elements of the sorted data around a
// quantile, named as NumPy's method argument. The empty method is
// QuantileLinear. NumPy's other methods ("hazen", "weibull",
// "median_unbiased", "inverted_cdf", ...) are refused with an error.
type QuantileMethod string

// The methods of QuantileMethod. For n elements sorted ascending, v[0] to
// v[n-1], and a quantile q, let i = (n-1)*q.
const (
	// QuantileLinear interpolates linearly between v[floor(i)] and
	// v[floor(i)+1] (NumPy's default).
	QuantileLinear QuantileMethod = "linear"
	// QuantileLower takes v[floor(i)].
	QuantileLower QuantileMethod = "lower"
	// QuantileHigher takes v[ceil(i)].
	QuantileHigher QuantileMethod = "higher"
	// QuantileNearest takes v[i rounded to the nearest integer, halves to
	// the even one].
	QuantileNearest QuantileMethod = "nearest"
	// QuantileMidpoint takes (v[floor(i)] + v[ceil(i)]) / 2.
	QuantileMidpoint QuantileMethod = "midpoint"
)

// checkMethod returns the method to use, or an error naming an unsupported
// one.
func checkMethod(op string, m QuantileMethod) (QuantileMethod, error) {
	switch m {
	case "":
		return QuantileLinear, nil
	case QuantileLinear, QuantileLower, QuantileHigher, QuantileNearest, QuantileMidpoint:
		return m, nil
	}
	return "", fmt.Errorf("dist: %s with method %q: not supported; use linear (NumPy's default), lower, higher, nearest or midpoint", op, string(m))
}

// checkQ returns an error unless every q lies in [0, top] (1 for a
// quantile, 100 for a percentile), as NumPy's ValueError.
func checkQ(op string, qs []float64, top float64) error {
	for _, q := range qs {
		if !(q >= 0 && q <= top) {
			what := "Quantiles"
			if top != 1 {
				what = "Percentiles"
			}
			return fmt.Errorf("dist: %s of %v: %s must be in the range [0, %v]", op, q, what, top)
		}
	}
	return nil
}

// plan is where a quantile of n sorted elements lies: the value is
// interpolated between v[lo] and v[hi] with weight t (lerp), or, for a
// median of an even count, the mean of the two.
type plan struct {
	lo, hi int
	t      float64
	mean   bool
}

// quantilePlan is NumPy's computation of the indices and the weight of
// quantile q of n > 0 elements by method m (numpy.lib.function_base's
// _quantile and _QuantileMethods, NumPy 1.24).
func quantilePlan(n int, q float64, m QuantileMethod) plan {
	last := float64(n - 1)
	switch m {
	case QuantileLower:
		i := int(math.Floor(last * q))
		return plan{lo: i, hi: i}
	case QuantileHigher:
		i := int(math.Ceil(last * q))
		return plan{lo: i, hi: i}
	case QuantileNearest:
		i := int(math.RoundToEven(last * q))
		return plan{lo: i, hi: i}
	}
	v := last * q
	if m == QuantileMidpoint {
		v = 0.5 * (math.Floor(last*q) + math.Ceil(last*q))
	}
	if v >= last {
		return plan{lo: n - 1, hi: n - 1}
	}
	lo := math.Floor(v)
	t := v - lo
	if m == QuantileMidpoint {
		t = 0.5
		if math.Mod(v, 1) == 0 {
			t = 0
		}
	}
	return plan{lo: int(lo), hi: int(lo) + 1, t: t}
}

// medianPlan is NumPy's median of n > 0 elements: the middle one, or the
// mean of the two middle ones.
func medianPlan(n int) plan {
	if n%2 == 1 {
		return plan{lo: n / 2, hi: n / 2}
	}
	return plan{lo: n/2 - 1, hi: n / 2, mean: true}
}

// value is the plan's result from the elements a = v[lo] and b = v[hi].
func (pl plan) value(a, b float64, a32, b32 float32, isF32 bool) float64 {
	if pl.mean {
		if isF32 {
			return float64((a32 + b32) / 2) // NumPy's mean of float32 is float32
		}
		return (a + b) / 2
	}
	if pl.lo == pl.hi {
		return a
	}
	// NumPy's _lerp: a + (b-a)*t, or b - (b-a)*(1-t) for t >= 0.5, with
	// b-a in the element type (float32 for float32).
	d := b - a
	if isF32 {
		d = float64(b32 - a32)
	}
	if pl.t >= 0.5 {
		return b - d*(1-pl.t)
	}
	return a + d*pl.t
}

// planValue evaluates pl from the elements a and b of type T.
func planValue[T backend.Element](pl plan, a, b T) float64 {
	if x, ok := any(a).(float32); ok {
		y := any(b).(float32)
		return pl.value(float64(x), float64(y), x, y, true)
	}
	return pl.value(float64(a), float64(b), 0, 0, false)
}

// Quantile returns quantile q (in [0, 1]) of all of x's elements, of any
// shape and layout, as NumPy's quantile(x, q, method=m) (m "" is linear,
// NumPy's default): a NaN if x has a NaN. The result is a float64, with
// NumPy's value: NumPy's linear, midpoint and median results of float32
// data (b-a in float32, the rest in float64; Median's mean in float32) are
// computed as NumPy computes them, and the methods that pick an element
// (lower, higher, nearest), which NumPy returns in x's type, give that
// element. On an empty x every rank returns an
// error wrapping ErrEmpty; a q outside [0, 1] or another method is an
// error (see QuantileMethod). It is collective.
//
// The elements are not gathered: Quantile finds the one or two elements
// it needs by distributed selection (see Quantiles for the cost).
func Quantile[T backend.Element](x *Array[T], q float64, m QuantileMethod) (float64, error) {
	if x.freed {
		return 0, freedCollective("Quantile", x.comm)
	}
	v, err := quantiles(x, "Quantile", []float64{q}, 1, m, false)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Percentile returns percentile q (in [0, 100]) of all of x's elements, as
// NumPy's percentile(x, q, method=m): Quantile of q/100.
func Percentile[T backend.Element](x *Array[T], q float64, m QuantileMethod) (float64, error) {
	if x.freed {
		return 0, freedCollective("Percentile", x.comm)
	}
	v, err := quantiles(x, "Percentile", []float64{q}, 100, m, false)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Median returns the median of all of x's elements, as NumPy's median: the
// middle element of the sorted data, or the mean of the two middle ones;
// a NaN if x has a NaN. On an empty x every rank returns an error wrapping
// ErrEmpty. It is collective, with the cost of Quantiles.
func Median[T backend.Element](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("Median", x.comm)
	}
	v, err := quantiles(x, "Median", []float64{0.5}, 1, QuantileLinear, true)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Quantiles returns the quantiles qs (each in [0, 1]) of all of x's
// elements, as Quantile does for each. It is collective.
//
// The elements are not gathered and do not move. Each rank reads its block
// in place (a host copy of a device block), and the one or two elements
// that each quantile needs (neighbours in the sorted order) are found by
// distributed selection. Where there are more than 65536 elements, a first
// round samples about 16384 of them across the ranks (one all-gather),
// takes from the sorted sample two values that the sought elements lie
// between unless the sample errs by more than two standard deviations, and
// in one pass copies the elements between them (about 3% of the block at
// 2^23 elements; one all-reduce of two counts checks that the sought
// positions are among them, and the selection starts from the whole block
// if not). Rounds of pivot counting follow on what is left: every rank
// offers the median of its remaining candidates (by quickselect) and their
// count, two all-gathers of these p pairs give every rank the same pivot,
// their weighted median, and one all-reduce of two counts (candidates
// below and equal to the pivot, after a three-way partition) tells every
// rank which side to keep. Each round discards at least a quarter of the
// candidates and costs O(candidates) local work, so a selection takes
// O(n/p) work, one pass over the block when the sample holds, and a few
// rounds of three collectives of O(p) values, ending with an all-gather of
// the last 65536 candidates at most. One all-reduce first counts the NaNs.
// A replicated x needs no communication.
func Quantiles[T backend.Element](x *Array[T], qs []float64, m QuantileMethod) ([]float64, error) {
	if x.freed {
		return nil, freedCollective("Quantiles", x.comm)
	}
	return quantiles(x, "Quantiles", qs, 1, m, false)
}

// quantiles is Quantiles (of percentiles qs/100 if top is 100; the median
// if median).
func quantiles[T backend.Element](x *Array[T], op string, qs []float64, top float64, m QuantileMethod, median bool) ([]float64, error) {
	m, err := checkMethod(op, m)
	if err != nil {
		return nil, err
	}
	if err := checkQ(op, qs, top); err != nil {
		return nil, err
	}
	if err := check(op, x); err != nil {
		return nil, err
	}
	n := x.Len()
	if n == 0 {
		return nil, emptyErr(op, x)
	}
	cc := x.comm
	if x.layout.axis == Replicated {
		cc = mpi.NewSerial()
	}
	// A failure of the copy goes in the allreduce of the NaN counts. A host
	// block is read in place: the selection copies what it reorders.
	var s []T
	if x.local.Device().IsHost() {
		s = x.local.Data()
	} else {
		s, err = hostCopy(x.local)
	}
	if x.layout.axis != Replicated {
		err = takeFault(err)
	}
	var myNaN int64
	for _, v := range s {
		if isNaN(v) {
			myNaN++
		}
	}
	nan, err := allreduceCount(cc, op, myNaN, err)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(qs))
	skip := strings.HasPrefix(op, "Nan") // the NaN-ignoring forms
	if skip && nan > 0 {
		s = slices.DeleteFunc(slices.Clone(s), isNaN[T])
		n -= int(nan)
	}
	if (nan > 0 && !skip) || n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out, nil
	}
	sel := selector[T]{c: cc, data: s}
	for i, q := range qs {
		pl := medianPlan(n)
		if !median {
			if top == 100 {
				q /= 100
			}
			pl = quantilePlan(n, q, m)
		}
		a, b, err := sel.pair(int64(n), int64(pl.lo), pl.hi != pl.lo)
		if err != nil {
			return nil, err
		}
		out[i] = planValue(pl, a, b)
	}
	return out, nil
}

// selector finds elements by their position in the sorted union of the
// ranks' blocks data (without NaN), without moving them (see Quantiles).
type selector[T backend.Element] struct {
	c    mpi.Comm
	data []T
}

// gatherLimit is the number of candidates left at which selection gathers
// them. A variable for the tests (SetSelectionLimits).
var gatherLimit int64 = 1 << 16

// sampleSize is about how many elements of the ranks' blocks together the
// first round of a selection samples (see bracket). A variable for the
// tests.
var sampleSize int64 = 1 << 14

// sampleShare is the largest share of the elements that the first round
// samples: 1/64 (16384 of 2^20 elements), so that below a million
// elements the sample's sort and all-gather stay small beside the pass.
// A variable for the tests.
var sampleShare int64 = 64

// sampleSlack is how many standard deviations of the sample's error the
// first round's bracket spans on either side. A variable for the tests.
var sampleSlack = 2.0

// bracketMisses counts the first rounds whose bracket missed (for the
// tests: SelectionMisses).
var bracketMisses int

// pair returns the elements at position k (from 0) of the sorted union of
// n elements and, if two, at k+1 (which must exist); b is a otherwise.
func (sel selector[T]) pair(n, k int64, two bool) (a, b T, err error) {
	c := sel.c
	p := c.Size()
	hi := k
	if two {
		hi = k + 1
	}
	var cand []T // my candidates, reordered in place
	found := false
	if n > gatherLimit {
		var off int64
		cand, off, found, err = sel.bracket(n, k, hi)
		if err != nil {
			return a, b, err
		}
		k, hi = k-off, hi-off
	}
	if !found {
		cand = slices.Clone(sel.data)
	}
	meds, cnts := make([]T, p), make([]int64, p)
	for {
		if err := mpi.Allgather(c, []int64{int64(len(cand))}, cnts); err != nil {
			return a, b, err
		}
		var m int64
		for _, v := range cnts {
			m += v
		}
		if m <= gatherLimit {
			all, err := allgatherCounted(c, cand, cnts)
			if err != nil {
				return a, b, err
			}
			nthElement(all, int(k))
			a = all[k]
			b = a
			if hi != k {
				b = slices.Min(all[k+1:])
			}
			return a, b, nil
		}
		var med T
		if len(cand) > 0 {
			nthElement(cand, len(cand)/2)
			med = cand[len(cand)/2]
		}
		if err := mpi.Allgather(c, []T{med}, meds); err != nil {
			return a, b, err
		}
		pivot := weightedMedian(meds, cnts, m)
		less, equal := partition3(cand, pivot)
		tot := make([]int64, 2)
		if err := mpi.Allreduce(c, []int64{int64(less), int64(equal)}, tot, mpi.Sum); err != nil {
			return a, b, err
		}
		L, E := tot[0], tot[1]
		switch {
		case hi < L:
			cand = cand[:less]
		case k >= L+E:
			cand = cand[less+equal:]
			k, hi = k-(L+E), hi-(L+E)
		case k >= L && hi < L+E:
			return pivot, pivot, nil
		case k >= L:
			// k is the last of the pivots, k+1 the smallest above them.
			b, err := extreme(c, cand[less+equal:], false)
			return pivot, b, err
		default:
			// k is the largest below the pivots, k+1 the first of them.
			a, err := extreme(c, cand[:less], true)
			return a, pivot, err
		}
	}
}

// bracket is the first round of a selection of the positions k to hi of
// the sorted union of the ranks' n elements (Floyd and Rivest's select,
// distributed). The ranks sample about sampleSize of their elements
// together, at most one in sampleShare (one from each run of
// max(n/sampleSize, sampleShare), at a position that varies from run to
// run, so that a period in the data does not bias it), gather
// and sort the sample, and take from it two values, lo and hi, that the
// elements at k and hi lie between unless the sample is off by more than
// twice its standard deviation. One pass over the block then counts the
// elements below lo and copies those from lo to hi, and one allreduce adds
// the counts. If positions k to hi are among the copies (found, the same
// on every rank), bracket returns them and the number of elements below
// them, off; otherwise the caller starts from the whole block, having
// spent one pass. At W11's sizes the copies are about 3% of the block, and
// the rounds that follow are on them, not on the block.
func (sel selector[T]) bracket(n, k, hi int64) (cand []T, off int64, found bool, err error) {
	c, data := sel.c, sel.data
	p, me := c.Size(), c.Rank()
	stride := max(n/sampleSize, sampleShare, 1)
	m := int64(len(data))
	mine := make([]T, 0, (m+stride-1)/stride)
	for w := int64(0); w*stride < m; w++ {
		width := min(stride, m-w*stride)
		h := splitmix(uint64(w)<<8 ^ uint64(me))
		mine = append(mine, data[w*stride+int64(h%uint64(width))])
	}
	cnts := make([]int64, p)
	if err := mpi.Allgather(c, []int64{int64(len(mine))}, cnts); err != nil {
		return nil, 0, false, err
	}
	sample, err := allgatherCounted(c, mine, cnts)
	if err != nil {
		return nil, 0, false, err
	}
	slices.Sort(sample)
	// Sample element j stands for the elements around position j*n/s.
	s := int64(len(sample))
	d := int64(sampleSlack*math.Sqrt(float64(s))) + 1
	jlo := k*s/n - d
	jhi := (hi+1)*s/n + d
	hasLo, hasHi := jlo > 0, jhi < s-1
	var lo, up T
	if hasLo {
		lo = sample[jlo]
	}
	if hasHi {
		up = sample[jhi]
	}
	var less int64
	if hasLo || hasHi {
		frac := float64(min(jhi, s-1)-max(jlo, 0)+1) / float64(s)
		cand = make([]T, 0, int(frac*float64(m)*1.25)+16)
	}
	for _, v := range data {
		switch {
		case hasLo && v < lo:
			less++
		case !hasHi || v <= up:
			cand = append(cand, v)
		}
	}
	tot := make([]int64, 2)
	if err := mpi.Allreduce(c, []int64{less, int64(len(cand))}, tot, mpi.Sum); err != nil {
		return nil, 0, false, err
	}
	if k < tot[0] || hi >= tot[0]+tot[1] {
		bracketMisses++
		return nil, 0, false, nil
	}
	return cand, tot[0], true, nil
}

// allgatherCounted returns the ranks' parts, rank by rank, where cnts
// holds every rank's count (mine is this rank's part).
func allgatherCounted[T backend.Element](c mpi.Comm, mine []T, cnts []int64) ([]T, error) {
	counts := make([]int, len(cnts))
	for r, v := range cnts {
		counts[r] = int(v)
	}
	all := make([]T, sum(counts))
	if err := mpi.Allgatherv(c, mine, all, counts, displs(counts)); err != nil {
		return nil, err
	}
	return all, nil
}

// splitmix is SplitMix64's output function: a well-mixed hash of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// extreme returns the largest (or smallest) element of the ranks' s, of
// which some rank has one: two all-gathers of p values.
func extreme[T backend.Element](c mpi.Comm, s []T, largest bool) (T, error) {
	p := c.Size()
	var v T
	if len(s) > 0 {
		v = slices.Min(s)
		if largest {
			v = slices.Max(s)
		}
	}
	vals, has := make([]T, p), make([]int64, p)
	if err := mpi.Allgather(c, []T{v}, vals); err != nil {
		return v, err
	}
	if err := mpi.Allgather(c, []int64{int64(len(s))}, has); err != nil {
		return v, err
	}
	found := false
	for r := range p {
		if has[r] > 0 && (!found || (largest && vals[r] > v) || (!largest && vals[r] < v)) {
			v, found = vals[r], true
		}
	}
	return v, nil
}

// partition3 reorders s into the elements below pivot, those equal to it
// and those above it, and returns the first two counts.
func partition3[T backend.Element](s []T, pivot T) (less, equal int) {
	lt, i, gt := 0, 0, len(s)
	for i < gt {
		switch v := s[i]; {
		case v < pivot:
			s[lt], s[i] = s[i], s[lt]
			lt++
			i++
		case v > pivot:
			gt--
			s[i], s[gt] = s[gt], s[i]
		default:
			i++
		}
	}
	return lt, gt - lt
}

// nthElement reorders s (without NaN) so that s[k] is the element the
// sorted s has there, those before it no larger and those after no
// smaller: quickselect with a median-of-three pivot, O(len(s)) expected.
func nthElement[T backend.Element](s []T, k int) {
	lo, hi := 0, len(s)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// weightedMedian returns the median of the values vals weighted by w (of
// total m): the smallest value whose weight with the smaller ones reaches
// half of m. Values of weight 0 do not count.
func weightedMedian[T backend.Element](vals []T, w []int64, m int64) T {
	order := make([]int, 0, len(vals))
	for r := range vals {
		if w[r] > 0 {
			order = append(order, r)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case vals[a] < vals[b]:
			return -1
		case vals[a] > vals[b]:
			return 1
		}
		return 0
	})
	var acc int64
	for _, r := range order {
		acc += w[r]
		if 2*acc >= m {
			return vals[r]
		}
	}
	return vals[order[len(order)-1]]
}

// QuantileAxis returns quantile q (in [0, 1]) of x along axis, as NumPy's
// quantile(x, q, axis, method=m): a float64 array with that axis removed
// ([1] for a 1-D x, replicated), each element NaN if its line has a NaN.
// Negative axes count from the end. If the axis has length 0 every rank
// returns an error wrapping ErrEmpty. It is collective.
//
// Each rank computes the quantiles of the whole lines along axis that it
// holds (a sort of each line's host copy), without communication where x
// is split along another axis or replicated; otherwise x is first
// redistributed, one all-to-all of its elements, to the even layout split
// along another axis (the longest, or for a process grid the one with the
// most grid ranks), whose layout less axis the result has. A 1-D x is
// Quantile's distributed selection. It panics for an axis out of range.
func QuantileAxis[T backend.Element](x *Array[T], q float64, axis int, m QuantileMethod) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("QuantileAxis", x.comm)
	}
	return quantileAxis(x, "QuantileAxis", q, 1, axis, m, false)
}

// PercentileAxis returns percentile q (in [0, 100]) of x along axis, as
// NumPy's percentile(x, q, axis, method=m): QuantileAxis of q/100.
func PercentileAxis[T backend.Element](x *Array[T], q float64, axis int, m QuantileMethod) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("PercentileAxis", x.comm)
	}
	return quantileAxis(x, "PercentileAxis", q, 100, axis, m, false)
}

// MedianAxis returns the medians of x along axis, as NumPy's median(x,
// axis), with the layout and cost of QuantileAxis.
func MedianAxis[T backend.Element](x *Array[T], axis int) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("MedianAxis", x.comm)
	}
	return quantileAxis(x, "MedianAxis", 0.5, 1, axis, QuantileLinear, true)
}

func quantileAxis[T backend.Element](x *Array[T], op string, q, top float64, axis int, m QuantileMethod, median bool) (_ *Array[float64], err error) {
	l := x.layout
	axis = normAxis(op, axis, l.shape)
	m, err = checkMethod(op, m)
	if err != nil {
		return nil, err
	}
	if err := checkQ(op, []float64{q}, top); err != nil {
		return nil, err
	}
	if err := check(op, x, mpi.Arg{Name: "axis", Value: int64(axis)}); err != nil {
		return nil, err
	}
	if l.shape[axis] == 0 {
		return nil, fmt.Errorf("dist: %s along axis %d of an array of shape %v: %w", op, axis, l.shape, ErrEmpty)
	}
	b := x.local.Backend()
	if len(l.shape) == 1 {
		v, err := quantiles(x, op, []float64{q}, top, m, median)
		if err != nil {
			return nil, err
		}
		return fromHost(x.comm, axisLayout(l, 0), b, v)
	}
	work := lineLayout(l, axis)
	xw := x
	if !work.Equal(l) {
		if xw, err = Redistribute(x, work); err != nil {
			return nil, err
		}
		defer xw.Free()
	}
	block, err := hostCopy(xw.local)
	if err := agreeStep(x.comm, op, err); err != nil {
		return nil, err
	}
	n := l.shape[axis]
	skip := strings.HasPrefix(op, "Nan") // the NaN-ignoring forms
	if top == 100 {
		q /= 100
	}
	out := make([]float64, len(block)/n)
	line := make([]T, 0, n)
	alongLines(work.LocalShape(x.comm.Rank()), axis, func(k, base, stride, _ int) {
		line = line[:0]
		nan := false
		for j := range n {
			v := block[base+j*stride]
			if isNaN(v) {
				nan = true
				if skip {
					continue
				}
			}
			line = append(line, v)
		}
		if (nan && !skip) || len(line) == 0 {
			out[k] = math.NaN()
			return
		}
		slices.Sort(line)
		pl := medianPlan(len(line))
		if !median {
			pl = quantilePlan(len(line), q, m)
		}
		out[k] = planValue(pl, line[pl.lo], line[pl.hi])
	})
	return fromHost(x.comm, axisLayout(work, axis), b, out)
}

// NanQuantile is Quantile ignoring NaNs, as NumPy's nanquantile: the
// quantile of the elements that are not NaN, or NaN if every element is
// (NumPy warns there). On an empty x every rank returns an error wrapping
// ErrEmpty. It is collective, with the cost of Quantiles.
func NanQuantile[T backend.Element](x *Array[T], q float64, m QuantileMethod) (float64, error) {
	if x.freed {
		return 0, freedCollective("NanQuantile", x.comm)
	}
	v, err := quantiles(x, "NanQuantile", []float64{q}, 1, m, false)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// NanPercentile is Percentile ignoring NaNs, as NumPy's nanpercentile (see
// NanQuantile).
func NanPercentile[T backend.Element](x *Array[T], q float64, m QuantileMethod) (float64, error) {
	if x.freed {
		return 0, freedCollective("NanPercentile", x.comm)
	}
	v, err := quantiles(x, "NanPercentile", []float64{q}, 100, m, false)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// NanMedian is Median ignoring NaNs, as NumPy's nanmedian (see
// NanQuantile).
func NanMedian[T backend.Element](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("NanMedian", x.comm)
	}
	v, err := quantiles(x, "NanMedian", []float64{0.5}, 1, QuantileLinear, true)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// NanQuantileAxis is QuantileAxis ignoring NaNs, as NumPy's
// nanquantile(x, q, axis): each line's quantile of its elements that are
// not NaN, NaN for a line of NaNs only. Layout and cost are QuantileAxis's.
func NanQuantileAxis[T backend.Element](x *Array[T], q float64, axis int, m QuantileMethod) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("NanQuantileAxis", x.comm)
	}
	return quantileAxis(x, "NanQuantileAxis", q, 1, axis, m, false)
}

// NanPercentileAxis is PercentileAxis ignoring NaNs, as NumPy's
// nanpercentile(x, q, axis) (see NanQuantileAxis).
func NanPercentileAxis[T backend.Element](x *Array[T], q float64, axis int, m QuantileMethod) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("NanPercentileAxis", x.comm)
	}
	return quantileAxis(x, "NanPercentileAxis", q, 100, axis, m, false)
}

// NanMedianAxis is MedianAxis ignoring NaNs, as NumPy's nanmedian(x, axis)
// (see NanQuantileAxis).
func NanMedianAxis[T backend.Element](x *Array[T], axis int) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("NanMedianAxis", x.comm)
	}
	return quantileAxis(x, "NanMedianAxis", 0.5, 1, axis, QuantileLinear, true)
}
