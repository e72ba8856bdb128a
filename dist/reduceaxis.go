package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// axisLayout returns the layout of the result of reducing a along axis: the
// shape without that axis ([1] for a 1-D array), replicated if a is or if
// axis is the split axis, and otherwise split like a on the same blocks.
func axisLayout(l Layout, axis int) Layout {
	if axis < 0 || axis >= len(l.shape) {
		panic(fmt.Sprintf("dist: reduction along axis %d of shape %v", axis, l.shape))
	}
	shape := slices.Delete(slices.Clone(l.shape), axis, axis+1)
	if len(shape) == 0 {
		shape = []int{1}
	}
	if l.axis == Replicated || l.axis == axis {
		return NewLayout(shape, Replicated, l.ranks)
	}
	split := l.axis
	if axis < split {
		split--
	}
	return NewLayoutCounts(shape, split, l.counts)
}

// normAxis returns axis as an index of the dimensions of shape: a negative
// axis counts from the end, as in NumPy (-1 is the last). It panics,
// naming op, for an axis out of range.
func normAxis(op string, axis int, shape []int) int {
	d := len(shape)
	if axis < -d || axis >= d {
		panic(fmt.Sprintf("dist: %s along axis %d of a %d-dimensional array (shape %v): the axes are 0 to %d, or -%d to -1 from the end", op, axis, d, shape, d-1, d))
	}
	if axis < 0 {
		axis += d
	}
	return axis
}

// view3 returns the local block of a as [pre, n, post] around axis.
func view3(shape []int, axis int) (pre, n, post int) {
	return prod(shape[:axis]), shape[axis], prod(shape[axis+1:])
}

// combined reports whether reducing along axis combines the ranks' blocks.
func combined(l Layout, axis int) bool { return l.axis == axis }

// SumAxis returns the sums along axis: an array with that axis removed.
// Reducing along the split axis gives a replicated result. An array on a
// process grid is first redistributed (one all-to-all) to the layout
// split evenly on the axis other than axis with the most grid ranks (the
// first of equals; axis 0 for a 1-D array), and the result is laid out as
// for that layout. The other axis reductions (NormAxis, DotAxis, MinAxis,
// MaxAxis, ArgminAxis, ArgmaxAxis) do the same.
//
// Floating-point sums are taken in float64 in the order of the axis (and
// across ranks, when axis is the split axis, in rank order), then rounded
// to T; integer sums wrap in T. It takes complex arrays too: each part
// summed in float64 as a float's, rounded to T (NumPy sums complex64 in
// complex64, pairwise, so its results can differ in the last bits). A
// complex block on a backend that is not a backend.ComplexKernels (one a
// user registers; the CPU backend, the fake device and CUDA are) is
// reduced on a host copy and the result copied back (recorded). MinAxis,
// MaxAxis, ArgminAxis and ArgmaxAxis take the real (ordered) types only.
// It is collective.
func SumAxis[T backend.Numeric](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("SumAxis", x.comm)
	}
	return sumAxis(x, axis, false)
}

// NormAxis returns the 2-norms along axis: the squares summed in float64
// as SumAxis sums, the square root rounded to T. NormAxisComplex takes
// complex arrays. It is collective.
func NormAxis[T backend.Float](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("NormAxis", x.comm)
	}
	return sumAxis(x, axis, true)
}

// DotAxis returns the sums of x*y along axis, summed as SumAxis's. For
// complex arrays x is not conjugated (numpy.sum(x*y, axis)). It is
// collective.
func DotAxis[T backend.Numeric](x, y *Array[T], axis int) (*Array[T], error) {
	if x.freed || y.freed {
		return nil, freedCollective("DotAxis", x.comm)
	}
	sameLayout("DotAxis", x, y)
	xy, err := ZerosLike(x)
	if err != nil {
		return nil, err
	}
	defer xy.Free()
	Mul(xy, x, y)
	return sumAxis(xy, axis, false)
}

func sumAxis[T backend.Numeric](x *Array[T], axis int, norm bool) (_ *Array[T], err error) {
	return sumAxisMean(x, axis, norm, false)
}

// sumAxisMean is SumAxis (NormAxis if norm), or, if mean (complex x
// only), MeanAxisComplex.
func sumAxisMean[T backend.Numeric](x *Array[T], axis int, norm, mean bool) (_ *Array[T], err error) {
	axis = normAxis("SumAxis", axis, x.layout.shape)
	if err := check("SumAxis", x, mpi.Arg{Name: "axis", Value: int64(axis)}, mpi.Arg{Name: "norm", Value: b2i(norm)}, mpi.Arg{Name: "mean", Value: b2i(mean)}); err != nil {
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
	out, err := newOn[T](x.comm, ol, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	comb := combined(x.layout, axis)
	block, r, err := capableBlock[backend.AxisReducer](x.local)
	if err != nil {
		return nil, blockFailed(x.comm, comb, "SumAxis", err)
	}
	b := block.Backend()
	pre, n, post := view3(x.LocalShape(), axis)
	m := pre * post
	// The result on the reducing backend: out's block itself, unless the
	// block was copied to the host for the reduction.
	res := out.local
	if b != x.local.Backend() {
		if res, err = backend.NewOn[T](b, m); err != nil {
			return nil, err
		}
		defer res.Free()
	}
	if isComplex[T]() {
		acc, err := backend.NewOn[complex128](b, m)
		if err != nil {
			return nil, err
		}
		defer acc.Free()
		if err := combineStep(x.comm, comb, "SumAxis", func() { r.SumAxis(acc.Buffer(), block.Buffer(), pre, n, post, false) }, acc); err != nil {
			return nil, err
		}
		if comb {
			if err := staging.Allreduce(x.comm, acc, mpi.Sum); err != nil {
				return nil, err
			}
		}
		if m > 0 {
			if mean {
				// NumPy's division of a complex by a real: times 1/N.
				backend.Scale(complex(1/float64(x.layout.shape[axis]), 0), acc)
			}
			r.CastSums(res.Buffer(), acc.Buffer(), false)
		}
	} else if backend.DTypeOf[T]().IsFloat() {
		acc, err := backend.NewOn[float64](b, m)
		if err != nil {
			return nil, err
		}
		defer acc.Free()
		if err := combineStep(x.comm, comb, "SumAxis", func() { r.SumAxis(acc.Buffer(), block.Buffer(), pre, n, post, norm) }, acc); err != nil {
			return nil, err
		}
		if comb {
			if err := staging.Allreduce(x.comm, acc, mpi.Sum); err != nil {
				return nil, err
			}
		}
		if m > 0 {
			r.CastSums(res.Buffer(), acc.Buffer(), norm)
		}
	} else {
		if err := combineStep(x.comm, comb, "SumAxis", func() { r.SumAxis(res.Buffer(), block.Buffer(), pre, n, post, norm) }, res); err != nil {
			return nil, err
		}
		if comb {
			if err := staging.Allreduce(x.comm, res, mpi.Sum); err != nil {
				return nil, err
			}
		}
	}
	if res != out.local && m > 0 {
		if err := backend.CopyFromHostSlice(out.local, res.Data()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MeanAxisComplex returns the means along axis of a complex array, in its
// type (as NumPy's mean of complex64 and complex128 arrays): SumAxis's
// sums in float64 parts, multiplied by 1/N (N the length of the axis, as
// NumPy's division of a complex by a real computes it) and rounded to T,
// laid out as SumAxis's result. The mean along an empty axis is NaN+NaNi,
// as NumPy's. MeanAxis takes the real types and returns float64; it
// cannot take complex ones without changing its result type, hence this
// twin. It is collective.
func MeanAxisComplex[T backend.Complex](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("MeanAxisComplex", x.comm)
	}
	return sumAxisMean(x, axis, false, true)
}

// ProdAxis returns the products along axis: an array with that axis
// removed, laid out as SumAxis's result. The products are taken in x's
// type in the order of the axis (from 1: ((1*x0)*x1)...), and, when axis
// is the split axis, the ranks' partial products are multiplied in rank
// order, so that floating-point results can differ in the last bits from
// NumPy's single running product, and from the last slice of Cumprod's,
// from the second rank on. Integers wrap (NumPy's prod of int32 and uint32 gives int64 and uint64
// instead); the product along an empty axis is 1. It takes complex arrays
// too, with Cumprod's complex multiplication; a complex block on a backend
// that is not a backend.ComplexKernels is reduced on a host copy and the
// result copied back (recorded). An array on a process grid is first
// redistributed as for SumAxis. It is collective.
func ProdAxis[T backend.Numeric](x *Array[T], axis int) (_ *Array[T], err error) {
	if x.freed {
		return nil, freedCollective("ProdAxis", x.comm)
	}
	axis = normAxis("ProdAxis", axis, x.layout.shape)
	if err := check("ProdAxis", x, mpi.Arg{Name: "axis", Value: int64(axis)}); err != nil {
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
	out, err := newOn[T](x.comm, axisLayout(x.layout, axis), x.local.Backend())
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
		return nil, blockFailed(x.comm, comb, "ProdAxis", err)
	}
	b := block.Backend()
	pre, n, post := view3(x.LocalShape(), axis)
	m := pre * post
	res := out.local
	if b != x.local.Backend() {
		if res, err = backend.NewOn[T](b, m); err != nil {
			return nil, err
		}
		defer res.Free()
	}
	step := func() {
		if m > 0 {
			r.ScanAxis(nil, res.Buffer(), block.Buffer(), nil, pre, n, post, true)
		}
	}
	if err := combineStep(x.comm, comb, "ProdAxis", step, res); err != nil {
		return nil, err
	}
	if comb {
		// Every rank's products, gathered on the device and multiplied
		// there in rank order.
		p := x.comm.Size()
		all, err := backend.NewOn[T](b, p*m)
		if err != nil {
			return nil, err
		}
		defer all.Free()
		counts, displs := make([]int, p), make([]int, p)
		for q := range counts {
			counts[q], displs[q] = m, q*m
		}
		if err := staging.Allgatherv(x.comm, res, all, counts, displs); err != nil {
			return nil, err
		}
		if m > 0 {
			r.ScanAxis(nil, res.Buffer(), all.Buffer(), nil, 1, p, m, true)
		}
	}
	if res != out.local && m > 0 {
		if err := backend.CopyFromHostSlice(out.local, res.Data()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MinAxis returns the minima along axis (NaN where a NaN is among them).
// It panics if the axis is empty.
func MinAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("MinAxis", x.comm)
	}
	v, _, err := extremeAxis(x, axis, false)
	return v, err
}

// MaxAxis returns the maxima along axis (NaN where a NaN is among them).
// It panics if the axis is empty.
func MaxAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("MaxAxis", x.comm)
	}
	v, _, err := extremeAxis(x, axis, true)
	return v, err
}

// ArgminAxis returns, for each position of the other axes, the global index
// along axis of the first smallest element. It panics if the axis is empty.
func ArgminAxis[T backend.Element](x *Array[T], axis int) (*Array[int64], error) {
	if x.freed {
		return nil, freedCollective("ArgminAxis", x.comm)
	}
	_, i, err := extremeAxis(x, axis, false)
	return i, err
}

// ArgmaxAxis returns, for each position of the other axes, the global index
// along axis of the first largest element. It panics if the axis is empty.
func ArgmaxAxis[T backend.Element](x *Array[T], axis int) (*Array[int64], error) {
	if x.freed {
		return nil, freedCollective("ArgmaxAxis", x.comm)
	}
	_, i, err := extremeAxis(x, axis, true)
	return i, err
}

func extremeAxis[T backend.Element](x *Array[T], axis int, max bool) (_ *Array[T], _ *Array[int64], err error) {
	axis = normAxis("MinAxis/MaxAxis", axis, x.layout.shape)
	if err := check("ExtremeAxis", x, mpi.Arg{Name: "axis", Value: int64(axis)}, mpi.Arg{Name: "max", Value: b2i(max)}); err != nil {
		return nil, nil, err
	}
	if x.layout.axis == Grid {
		y, err := offGrid(x, axis)
		if err != nil {
			return nil, nil, err
		}
		defer y.Free()
		x = y
	}
	ol := axisLayout(x.layout, axis)
	if x.layout.shape[axis] == 0 {
		panic(fmt.Sprintf("dist: minimum or maximum along empty axis %d of shape %v", axis, x.layout.shape))
	}
	vout, err := newOn[T](x.comm, ol, x.local.Backend())
	if err != nil {
		return nil, nil, err
	}
	iout, err := newOn[int64](x.comm, ol, x.local.Backend())
	if err != nil {
		vout.Free()
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			vout.Free()
			iout.Free()
		}
	}()
	comb := combined(x.layout, axis)
	block, r, err := capableBlock[backend.AxisReducer](x.local)
	if err != nil {
		return nil, nil, blockFailed(x.comm, comb, "ExtremeAxis", err)
	}
	b := block.Backend()
	pre, n, post := view3(x.LocalShape(), axis)
	offset := 0
	if x.layout.axis == axis {
		offset, _ = x.Range()
	}
	m := pre * post
	vals, idxs := vout.local, iout.local
	if b != x.local.Backend() {
		if vals, err = backend.NewOn[T](b, m); err != nil {
			return nil, nil, err
		}
		defer vals.Free()
		if idxs, err = backend.NewOn[int64](b, m); err != nil {
			return nil, nil, err
		}
		defer idxs.Free()
	}
	step := func() { r.ExtremeAxis(vals.Buffer(), idxs.Buffer(), block.Buffer(), pre, n, post, int64(offset), max) }
	if err := combineStep(x.comm, comb, "ExtremeAxis", step, vals); err != nil {
		return nil, nil, err
	}
	if comb {
		// Every rank's partial results, gathered on the device and
		// combined there.
		p := x.comm.Size()
		allv, err := backend.NewOn[T](b, p*m)
		if err != nil {
			return nil, nil, err
		}
		defer allv.Free()
		alli, err := backend.NewOn[int64](b, p*m)
		if err != nil {
			return nil, nil, err
		}
		defer alli.Free()
		counts, displs := make([]int, p), make([]int, p)
		for q := range counts {
			counts[q], displs[q] = m, q*m
		}
		if err := staging.Allgatherv(x.comm, vals, allv, counts, displs); err != nil {
			return nil, nil, err
		}
		if err := staging.Allgatherv(x.comm, idxs, alli, counts, displs); err != nil {
			return nil, nil, err
		}
		if m > 0 {
			r.CombineExtremes(vals.Buffer(), idxs.Buffer(), allv.Buffer(), alli.Buffer(), p, max)
		}
	}
	if vals != vout.local && m > 0 {
		if err := backend.CopyFromHostSlice(vout.local, vals.Data()); err != nil {
			return nil, nil, err
		}
		if err := backend.CopyFromHostSlice(iout.local, idxs.Data()); err != nil {
			return nil, nil, err
		}
	}
	return vout, iout, nil
}
