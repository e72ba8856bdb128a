package dist

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// The statistics (Mean, Var, Std, Prod, Any, All, Histogram, and the axis
// forms MeanAxis, VarAxis, StdAxis) are collective, and every rank gets the
// same result, to the bit: each rank reduces its block, the ranks' partial
// results are gathered on every rank and combined there in rank order.
// Floating-point results therefore depend on the layout (how the elements
// are divided among ranks) in the last bits, never on the thread count.
//
// The local work runs on the block's device when its backend implements
// backend.StatsReducer (the CPU backend, the fake device and CUDA do); on a
// backend that does not (one a user registers) the block is copied to the
// host for it, and an array result is copied back, recorded
// with package profiling as the copies they are.

// complexKernels reports whether backend b's optional kernels take T: any
// real T, and a complex T on a backend.ComplexKernels (the CPU backend,
// the fake device and CUDA).
func complexKernels[T backend.Numeric](b backend.Backend) bool {
	if !isComplex[T]() {
		return true
	}
	_, ok := b.(backend.ComplexKernels)
	return ok
}

// hostStats returns the CPU backend's statistics, for partial results
// that are on the host.
func hostStats() backend.StatsReducer {
	return backend.Wrap([]float64{}).Backend().(backend.StatsReducer)
}

// moments returns the float64 sum of x's elements and the sum of their
// squared deviations from the mean: each rank's (count, sum, dev, m2),
// gathered on every rank and combined in rank order (backend.StatsReducer's
// CombineMoments: sums added in rank order, m2s by Chan et al.'s formula).
func moments[T backend.Element](x *Array[T]) (sum, m2 float64, err error) {
	var dev float64
	block, r, derr := capableBlock[backend.StatsReducer](x.local)
	if derr == nil {
		derr = localStep(func() { sum, dev, m2 = r.Moments(block.Buffer()) })
	}
	if x.layout.axis == Replicated {
		if derr != nil {
			return 0, 0, deviceFailure("Mean/Var", derr, 1)
		}
		return sum, m2, nil
	}
	// The failure flag goes in the same gather: (sum, dev, m2, failed).
	derr = takeFault(derr)
	p := x.comm.Size()
	all := make([]float64, 4*p)
	if err := mpi.Allgather(x.comm, []float64{sum, dev, m2, float64(failCode(derr))}, all); err != nil {
		return 0, 0, err
	}
	var nd, no int64
	for q := range p {
		nd, no = addFailCode(nd, no, int64(all[4*q+3]))
	}
	if err := agreedFailure("Mean/Var", derr, nd, no); err != nil {
		return 0, 0, err
	}
	counts := make([]int, p)
	mine := make([]float64, 3*p)
	for q := range p {
		counts[q] = x.layout.LocalLen(q)
		copy(mine[3*q:3*q+3], all[4*q:4*q+3])
	}
	mom := make([]float64, 3)
	hostStats().CombineMoments(backend.HostBufferOf(mom), backend.HostBufferOf(mine), counts)
	return mom[0], mom[2], nil
}

// Mean returns the arithmetic mean of all elements as a float64, for every
// element type (as NumPy's mean of integers; NumPy's mean of float32 is a
// float32): the elements are converted to float64 and summed in float64,
// pairwise over fixed chunks on each rank and in rank order across ranks,
// then divided by the number of elements. On an empty array every rank
// returns NaN (NumPy's answer, which it gives with a warning) and an error
// wrapping ErrEmpty, as Min does. It is collective.
func Mean[T backend.Element](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("Mean", x.comm)
	}
	if err := check("Mean", x); err != nil {
		return math.NaN(), err
	}
	if x.Len() == 0 {
		return math.NaN(), emptyErr("Mean", x)
	}
	sum, _, err := moments(x)
	if err != nil {
		return math.NaN(), err
	}
	return sum / float64(x.Len()), nil
}

// Var returns the variance of all elements, as a float64: the sum of the
// squared deviations from the mean divided by N-ddof, N the number of
// elements (ddof 0 gives the population variance, 1 the sample variance),
// as NumPy's var. It is computed stably: each rank takes two passes over
// its block in float64 (its sum, then the deviations from its mean and
// their squares), and the ranks' (count, sum, sum of deviations, sum of
// squared deviations) are combined in rank order with Chan et al.'s
// pairwise formula, each rank's mean carried with its correction (the sum
// of the deviations from it), so that a large mean costs no precision:
// the result depends on the layout only in the last bits of the variance.
// If ddof >= N the divisor is 0, as in NumPy: the
// result is +Inf, or NaN if every deviation is 0 (NumPy returns the same
// with a warning). On an empty array every rank returns NaN and an error
// wrapping ErrEmpty. It is collective.
func Var[T backend.Element](x *Array[T], ddof int) (float64, error) {
	if x.freed {
		return 0, freedCollective("Var", x.comm)
	}
	if err := check("Var", x, mpi.Arg{Name: "ddof", Value: int64(ddof)}); err != nil {
		return math.NaN(), err
	}
	if x.Len() == 0 {
		return math.NaN(), emptyErr("Var", x)
	}
	_, m2, err := moments(x)
	if err != nil {
		return math.NaN(), err
	}
	return m2 / dof(x.Len(), ddof), nil
}

// Std returns the standard deviation of all elements, the square root of
// Var(x, ddof), with Var's rules for ddof >= N and empty arrays. It is
// collective.
func Std[T backend.Element](x *Array[T], ddof int) (float64, error) {
	if x.freed {
		return 0, freedCollective("Std", x.comm)
	}
	v, err := Var(x, ddof)
	return math.Sqrt(v), err
}

// dof returns NumPy's divisor of a variance, max(n-ddof, 0).
func dof(n, ddof int) float64 { return float64(max(n-ddof, 0)) }

// Prod returns the product of all elements, in x's type. Floating-point
// products are accumulated in float64, in the order of the elements on
// each rank, the ranks' products multiplied in rank order, and rounded to
// T at the end; integer products wrap as Go's arithmetic does, in T
// (NumPy's prod of int32 and uint32 gives int64 and uint64 instead). The
// product of an empty array is 1. It is collective.
func Prod[T backend.Element](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("Prod", x.comm)
	}
	if err := check("Prod", x); err != nil {
		var zero T
		return zero, err
	}
	var zero T
	var s backend.Scalar
	block, r, derr := capableBlock[backend.StatsReducer](x.local)
	if derr == nil {
		s, derr = localValue(func() backend.Scalar { return r.Prod(block.Buffer()) })
	}
	if x.layout.axis == Replicated {
		if derr != nil {
			return zero, deviceFailure("Prod", derr, 1)
		}
		return backend.ValueOf[T](s), nil
	}
	// The failure flag goes in the same gather: (bits, failed).
	derr = takeFault(derr)
	var bits uint64
	if derr == nil {
		bits = s.Bits()
	}
	all := make([]uint64, 2*x.comm.Size())
	if err := mpi.Allgather(x.comm, []uint64{bits, uint64(failCode(derr))}, all); err != nil {
		return zero, err
	}
	var nd, no int64
	for q := 1; q < len(all); q += 2 {
		nd, no = addFailCode(nd, no, int64(all[q]))
	}
	if err := agreedFailure("Prod", derr, nd, no); err != nil {
		return zero, err
	}
	switch accType[T]() {
	case backend.Float64:
		p := 1.0
		for q := 0; q < len(all); q += 2 {
			p *= math.Float64frombits(all[q])
		}
		s = backend.ScalarOf(p)
	case backend.Int64:
		p := int64(1)
		for q := 0; q < len(all); q += 2 {
			p *= int64(all[q])
		}
		s = backend.ScalarOf(p)
	default:
		p := uint64(1)
		for q := 0; q < len(all); q += 2 {
			p *= all[q]
		}
		s = backend.ScalarOf(p)
	}
	return backend.ValueOf[T](s), nil
}

// countNonzero returns the number of nonzero elements of x.
func countNonzero[T backend.Element](op string, x *Array[T]) (int, error) {
	if err := check(op, x); err != nil {
		return 0, err
	}
	var n int
	block, r, derr := capableBlock[backend.StatsReducer](x.local)
	if derr == nil {
		derr = localStep(func() { n = r.CountNonzero(block.Buffer()) })
	}
	if x.layout.axis == Replicated {
		if derr != nil {
			return 0, deviceFailure(op, derr, 1)
		}
		return n, nil
	}
	// The failure counts go in the same allreduce as the count.
	total, err := allreduceCount(x.comm, op, int64(n), takeFault(derr))
	return int(total), err
}

// Any reports whether some element is not zero (a NaN is not zero, as in
// NumPy); false for an empty array. It is collective.
func Any[T backend.Element](x *Array[T]) (bool, error) {
	if x.freed {
		return false, freedCollective("Any", x.comm)
	}
	n, err := countNonzero("Any", x)
	return n > 0, err
}

// All reports whether no element is zero (a NaN is not zero, as in
// NumPy); true for an empty array. It is collective.
func All[T backend.Element](x *Array[T]) (bool, error) {
	if x.freed {
		return false, freedCollective("All", x.comm)
	}
	n, err := countNonzero("All", x)
	return n == x.Len(), err
}

// Histogram returns the number of elements of x in each of bins
// equal-width bins over [lo, hi], and the bins+1 edges, on every rank,
// with numpy.histogram's semantics (range=(lo, hi)): the edges are
// numpy.linspace(lo, hi, bins+1); bin i holds the elements e with
// edges[i] <= e < edges[i+1], and the last bin also holds hi; elements
// outside [lo, hi], and NaNs, are not counted. If lo == hi the range is
// [lo-0.5, hi+0.5], as in NumPy. Elements are converted to float64 to find
// their bin (NumPy computes in float32 for float32 data, which can put an
// element within rounding of an edge in the other bin). It panics if bins
// < 1, lo > hi or either is not finite. It is collective.
func Histogram[T backend.Element](x *Array[T], bins int, lo, hi float64) (counts []int64, edges []float64, err error) {
	if x.freed {
		return nil, nil, freedCollective("Histogram", x.comm)
	}
	if bins < 1 {
		panic(fmt.Sprintf("dist: Histogram with %d bins", bins))
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > hi {
		panic(fmt.Sprintf("dist: Histogram over the range [%v, %v]: it must be finite, with lo <= hi", lo, hi))
	}
	if err := check("Histogram", x, mpi.Arg{Name: "bins", Value: int64(bins)},
		mpi.Arg{Name: "lo", Value: int64(math.Float64bits(lo))}, mpi.Arg{Name: "hi", Value: int64(math.Float64bits(hi))}); err != nil {
		return nil, nil, err
	}
	return histogram(x, bins, lo, hi)
}

func histogram[T backend.Element](x *Array[T], bins int, lo, hi float64) (counts []int64, edges []float64, err error) {
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	// The counts, then the failure counts, summed in one allreduce.
	all := make([]int64, bins+2)
	counts = all[:bins]
	block, r, derr := capableBlock[backend.StatsReducer](x.local)
	switch {
	case derr != nil:
	case block.Len() > 0:
		derr = localStep(func() { r.Histogram(counts, block.Buffer(), lo, hi) })
	default:
		derr = deviceSync(block) // the fault an idle device kept
	}
	if x.layout.axis == Replicated {
		if derr != nil {
			return nil, nil, deviceFailure("Histogram", derr, 1)
		}
		return counts, backend.HistogramEdges(bins, lo, hi), nil
	}
	derr = takeFault(derr)
	if derr != nil {
		clear(counts)
	}
	all[bins], all[bins+1] = failFlag(derr)
	if err := mpi.AllreduceInPlace(x.comm, all, mpi.Sum); err != nil {
		return nil, nil, err
	}
	if err := agreedFailure("Histogram", derr, all[bins], all[bins+1]); err != nil {
		return nil, nil, err
	}
	return counts[:bins:bins], backend.HistogramEdges(bins, lo, hi), nil
}

// HistogramAuto is Histogram over the range of the data, [Min(x), Max(x)],
// as numpy.histogram(x, bins) with range=None: [0, 1] for an empty array,
// [v-0.5, v+0.5] if every element is v. If the data hold a NaN or an
// infinity, every rank returns an error (NumPy raises ValueError). It
// panics if bins < 1. It is collective.
func HistogramAuto[T backend.Element](x *Array[T], bins int) (counts []int64, edges []float64, err error) {
	if x.freed {
		return nil, nil, freedCollective("HistogramAuto", x.comm)
	}
	if bins < 1 {
		panic(fmt.Sprintf("dist: HistogramAuto with %d bins", bins))
	}
	if err := check("HistogramAuto", x, mpi.Arg{Name: "bins", Value: int64(bins)}); err != nil {
		return nil, nil, err
	}
	lo, hi := 0.0, 1.0
	if x.Len() > 0 {
		mn, err := Min(x)
		if err != nil {
			return nil, nil, err
		}
		mx, err := Max(x)
		if err != nil {
			return nil, nil, err
		}
		lo, hi = float64(mn), float64(mx)
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return nil, nil, fmt.Errorf("dist: HistogramAuto: the range of the data [%v, %v] is not finite", lo, hi)
		}
	}
	return histogram(x, bins, lo, hi)
}

// MeanAxis returns the means along axis, as float64 for every element
// type: an array with that axis removed, laid out as SumAxis's result
// (replicated when axis is the split axis; an array on a process grid is
// first redistributed as for SumAxis). The sums are taken in float64
// in the order of the axis (and across ranks, when axis is the split axis,
// in rank order). The mean along an empty axis is NaN, as in NumPy. It is
// collective.
func MeanAxis[T backend.Element](x *Array[T], axis int) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("MeanAxis", x.comm)
	}
	return momentsAxis(x, "MeanAxis", axis, 0, 0)
}

// VarAxis returns the variances along axis with ddof, as float64, laid out
// as MeanAxis's result. Each line is computed as Var computes the whole
// array's: two passes in float64 over each rank's part of the line, the
// ranks' parts combined in rank order by Chan et al.'s formula when axis
// is the split axis; the divisor is max(N-ddof, 0), N the length of the
// axis, so that ddof >= N gives +Inf or NaN, as in NumPy. It is collective.
func VarAxis[T backend.Element](x *Array[T], axis, ddof int) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("VarAxis", x.comm)
	}
	return momentsAxis(x, "VarAxis", axis, ddof, 1)
}

// StdAxis returns the standard deviations along axis with ddof, the square
// roots of VarAxis's result. It is collective.
func StdAxis[T backend.Element](x *Array[T], axis, ddof int) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("StdAxis", x.comm)
	}
	return momentsAxis(x, "StdAxis", axis, ddof, 2)
}

// momentsAxis computes the means (kind 0), variances (1) or standard
// deviations (2) along axis, or the sums of the squared deviations from
// the means (3; ddof unused).
func momentsAxis[T backend.Element](x *Array[T], op string, axis, ddof, kind int) (_ *Array[float64], err error) {
	axis = normAxis(op, axis, x.layout.shape)
	if err := check(op, x, mpi.Arg{Name: "axis", Value: int64(axis)}, mpi.Arg{Name: "ddof", Value: int64(ddof)}); err != nil {
		return nil, err
	}
	if x.layout.axis == Grid {
		y, err := offGrid(x, axis)
		if err != nil {
			return nil, err
		}
		defer y.Free()
		x = y
	}
	ol := axisLayout(x.layout, axis)
	out, err := newOn[float64](x.comm, ol, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	comb := combined(x.layout, axis) && x.comm.Size() > 1
	block, r, err := capableBlock[backend.StatsReducer](x.local)
	if err != nil {
		return nil, blockFailed(x.comm, comb, op, err)
	}
	b := block.Backend()
	pre, n, post := view3(x.LocalShape(), axis)
	m := pre * post
	mom, err := backend.NewOn[float64](b, 3*m)
	if err != nil {
		return nil, err
	}
	defer mom.Free()
	if err := combineStep(x.comm, comb, op, func() { r.MomentsAxis(mom.Buffer(), block.Buffer(), pre, n, post) }, mom); err != nil {
		return nil, err
	}
	if comb {
		// Every rank's moments, gathered on the device and combined there.
		p := x.comm.Size()
		all, err := backend.NewOn[float64](b, 3*p*m)
		if err != nil {
			return nil, err
		}
		defer all.Free()
		counts, displs := make([]int, p), make([]int, p)
		for q := range counts {
			counts[q], displs[q] = 3*m, 3*q*m
		}
		if err := staging.Allgatherv(x.comm, mom, all, counts, displs); err != nil {
			return nil, err
		}
		if m > 0 {
			r.CombineMoments(mom.Buffer(), all.Buffer(), x.layout.Counts())
		}
	}
	// The result on the reducing backend: out's block itself, unless the
	// block was copied to the host.
	res := out.local
	if b != x.local.Backend() {
		if res, err = backend.NewOn[float64](b, m); err != nil {
			return nil, err
		}
		defer res.Free()
	}
	if m > 0 {
		N := x.layout.shape[axis]
		switch kind {
		case 0:
			r.Ratio(res.Buffer(), mom.Slice(0, m).Buffer(), float64(N), false)
		case 3:
			r.Ratio(res.Buffer(), mom.Slice(2*m, 3*m).Buffer(), 1, false)
		default:
			r.Ratio(res.Buffer(), mom.Slice(2*m, 3*m).Buffer(), dof(N, ddof), kind == 2)
		}
	}
	if res != out.local && m > 0 {
		if err := backend.CopyFromHostSlice(out.local, res.Data()); err != nil {
			return nil, err
		}
	}
	return out, nil
}
