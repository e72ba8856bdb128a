package dist

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// The NaN-ignoring reductions, NumPy's nansum, nanprod, nanmax, nanmin,
// nanargmax, nanargmin, nanmean, nanvar and nanstd, for every real element
// type (those of complex arrays are NansumComplex, NanprodComplex,
// NanmeanComplex, NanvarComplex and NanstdComplex). Of an integer array
// (which has no NaN) each is the plain reduction (Sum, Prod, Max, ...).
// Of a float array each replaces the NaNs by the reduction's neutral value
// (0 for sums, 1 for products, -Inf for maxima, +Inf for minima, the mean
// of the others for variances) in a temporary copy made on the block's
// device, and runs the plain reduction on it; the number of NaNs is
// counted by an allreduce of one integer. So each costs the plain
// reduction's communication plus one small allreduce, and two temporary
// arrays of x's size; nothing goes through the host. They are collective.
//
// Special cases, as NumPy's (numpy 1.24):
//   - Nansum and Nanprod of an all-NaN or empty array are 0 and 1.
//   - Nanmax, Nanmin, Nanmean, Nanvar and Nanstd of an all-NaN array (or an
//     all-NaN line along the axis) are NaN, with no error (NumPy returns NaN
//     with a RuntimeWarning; there is no warning here: test with Isnan or
//     math.IsNaN). Nanvar and Nanstd are NaN too where the number of
//     non-NaN elements is at most ddof (NumPy's nanvar does the same, where
//     Var gives +Inf).
//   - Nanargmax and Nanargmin of an all-NaN array (or with an all-NaN
//     line) return an error wrapping ErrAllNaN, where NumPy raises
//     ValueError("All-NaN slice encountered").
//   - Of an empty array, the reductions that Min, Mean and Var refuse
//     (Nanmax, Nanmin, Nanargmax, Nanargmin, Nanmean, Nanvar, Nanstd)
//     return an error wrapping ErrEmpty, as those do.
//   - Nanargmax of [NaN, -Inf] is 1 and Nanmax is -Inf: a NaN counts as
//     -Inf, as NumPy's nanargmax (which replaces NaN by -Inf) gives; ties
//     go to the first index.

// ErrAllNaN is (wrapped in) the error of Nanargmax and Nanargmin (and
// their axis forms) where every element of the array (of a line along the
// axis) is NaN: NumPy raises ValueError("All-NaN slice encountered").
var ErrAllNaN = errors.New("all-NaN slice")

// nanFill returns a new array of x's layout on x's device, holding x with
// its NaNs replaced by v, and the mask of x's NaNs (Isnan's: for a complex
// x, the elements with a NaN part).
func nanFill[T backend.Numeric](x *Array[T], v T) (_ *Array[T], nans *Array[uint8], err error) {
	m, err := Isnan(x)
	if err != nil {
		return nil, nil, err
	}
	d, err := ZerosLike(x)
	if err != nil {
		m.Free()
		return nil, nil, err
	}
	Copy(d, x)
	// FillWhere can fail on one rank alone (a device fault in its host
	// fallback's copies): the ranks agree before the collective reductions
	// that follow, so that no rank waits in one for a rank that returned.
	if err := mpi.Agree(x.comm, FillWhere(d, m, v)); err != nil {
		m.Free()
		d.Free()
		return nil, nil, err
	}
	return d, m, nil
}

// nanFull is nanFill and the number of elements of x that are not NaN.
func nanFull[T backend.Numeric](op string, x *Array[T], v T) (_ *Array[T], count int, err error) {
	d, m, err := nanFill(x, v)
	if err != nil {
		return nil, 0, err
	}
	defer m.Free()
	n, err := countNonzero(op, m)
	if err != nil {
		d.Free()
		return nil, 0, err
	}
	return d, x.Len() - n, nil
}

// floatOr runs f32 or f64 on x as the float array it is, or other for an
// integer array.
func floatOr[T backend.Element, R any](x *Array[T], f32 func(*Array[float32]) (R, error), f64 func(*Array[float64]) (R, error), other func() (R, error)) (R, error) {
	switch a := any(x).(type) {
	case *Array[float32]:
		return f32(a)
	case *Array[float64]:
		return f64(a)
	}
	return other()
}

// nanScalar is a full NaN-ignoring reduction of a float array: red of x
// with its NaNs replaced by fill; where no element is left, empty (if set)
// gives the result.
func nanScalar[F backend.Float, R any](op string, x *Array[F], fill F, red func(*Array[F]) (R, error), allNaN func() (R, error)) (R, error) {
	var zero R
	d, count, err := nanFull(op, x, fill)
	if err != nil {
		return zero, err
	}
	defer d.Free()
	if count == 0 && x.Len() > 0 && allNaN != nil {
		return allNaN()
	}
	return red(d)
}

// Nansum returns the sum of the elements that are not NaN (0 if none is),
// as Sum sums them. It is collective.
func Nansum[T backend.Element](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("Nansum", x.comm)
	}
	return floatOr(x,
		func(a *Array[float32]) (T, error) { return asT[T](nanScalar("Nansum", a, 0, Sum[float32], nil)) },
		func(a *Array[float64]) (T, error) { return asT[T](nanScalar("Nansum", a, 0, Sum[float64], nil)) },
		func() (T, error) { return Sum(x) })
}

// Nanprod returns the product of the elements that are not NaN (1 if none
// is), as Prod multiplies them. It is collective.
func Nanprod[T backend.Element](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("Nanprod", x.comm)
	}
	return floatOr(x,
		func(a *Array[float32]) (T, error) { return asT[T](nanScalar("Nanprod", a, 1, Prod[float32], nil)) },
		func(a *Array[float64]) (T, error) { return asT[T](nanScalar("Nanprod", a, 1, Prod[float64], nil)) },
		func() (T, error) { return Prod(x) })
}

// Nanmax returns the largest element that is not NaN; NaN if every
// element is; an error wrapping ErrEmpty for an empty array, as Max. It is
// collective.
func Nanmax[T backend.Element](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("Nanmax", x.comm)
	}
	return nanExtreme(x, true)
}

// Nanmin returns the smallest element that is not NaN, with Nanmax's
// special cases. It is collective.
func Nanmin[T backend.Element](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("Nanmin", x.comm)
	}
	return nanExtreme(x, false)
}

func nanExtreme[T backend.Element](x *Array[T], max bool) (T, error) {
	op, red := "Nanmin", Min[T]
	if max {
		op, red = "Nanmax", Max[T]
	}
	fill := math.Inf(1)
	if max {
		fill = math.Inf(-1)
	}
	return floatOr(x,
		func(a *Array[float32]) (T, error) {
			return asT[T](nanScalar(op, a, float32(fill), any(red).(func(*Array[float32]) (float32, error)), func() (float32, error) { return float32(math.NaN()), nil }))
		},
		func(a *Array[float64]) (T, error) {
			return asT[T](nanScalar(op, a, fill, any(red).(func(*Array[float64]) (float64, error)), func() (float64, error) { return math.NaN(), nil }))
		},
		func() (T, error) { return red(x) })
}

// Nanargmax returns the global row-major index of the first largest
// element that is not NaN (a NaN counts as -Inf, as in NumPy); an error
// wrapping ErrAllNaN if every element is NaN, and one wrapping ErrEmpty for
// an empty array. It is collective.
func Nanargmax[T backend.Element](x *Array[T]) (int, error) {
	if x.freed {
		return 0, freedCollective("Nanargmax", x.comm)
	}
	return nanArg(x, true)
}

// Nanargmin returns the global row-major index of the first smallest
// element that is not NaN (a NaN counts as +Inf), with Nanargmax's errors.
// It is collective.
func Nanargmin[T backend.Element](x *Array[T]) (int, error) {
	if x.freed {
		return 0, freedCollective("Nanargmin", x.comm)
	}
	return nanArg(x, false)
}

func nanArg[T backend.Element](x *Array[T], max bool) (int, error) {
	op, red := "Nanargmin", Argmin[T]
	fill := math.Inf(1)
	if max {
		op, red, fill = "Nanargmax", Argmax[T], math.Inf(-1)
	}
	allNaN := func() (int, error) {
		return 0, fmt.Errorf("dist: %s of an array of shape %v whose every element is NaN: %w", op, x.Shape(), ErrAllNaN)
	}
	return floatOr(x,
		func(a *Array[float32]) (int, error) {
			f := Argmin[float32]
			if max {
				f = Argmax[float32]
			}
			return nanScalar(op, a, float32(fill), f, allNaN)
		},
		func(a *Array[float64]) (int, error) {
			f := Argmin[float64]
			if max {
				f = Argmax[float64]
			}
			return nanScalar(op, a, fill, f, allNaN)
		},
		func() (int, error) { return red(x) })
}

// Nanmean returns the mean of the elements that are not NaN, as a float64
// (summed as Mean sums); NaN if every element is NaN; NaN and an error
// wrapping ErrEmpty for an empty array, as Mean. It is collective.
func Nanmean[T backend.Element](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("Nanmean", x.comm)
	}
	return nanMoments(x, "Nanmean", 0, 0)
}

// Nanvar returns the variance of the elements that are not NaN with ddof,
// as a float64: their squared deviations from their mean, summed as Var
// sums them, divided by n - ddof for n elements that are not NaN; NaN if
// n <= ddof (all NaN included); NaN and an error wrapping ErrEmpty for an
// empty array. Of an integer array it is Var(x, ddof). It is collective:
// the plain reduction's communication twice (the mean, then the
// deviations), and one allreduce.
func Nanvar[T backend.Element](x *Array[T], ddof int) (float64, error) {
	if x.freed {
		return 0, freedCollective("Nanvar", x.comm)
	}
	return nanMoments(x, "Nanvar", ddof, 1)
}

// Nanstd returns the square root of Nanvar(x, ddof), with its special
// cases. It is collective.
func Nanstd[T backend.Element](x *Array[T], ddof int) (float64, error) {
	if x.freed {
		return 0, freedCollective("Nanstd", x.comm)
	}
	v, err := nanMoments(x, "Nanstd", ddof, 1)
	return math.Sqrt(v), err
}

// nanMoments returns the mean (kind 0) or variance (1) of x's non-NaN
// elements.
func nanMoments[T backend.Element](x *Array[T], op string, ddof, kind int) (float64, error) {
	if x.Len() == 0 {
		if err := check(op, x); err != nil {
			return math.NaN(), err
		}
		return math.NaN(), emptyErr(op, x)
	}
	if kind == 0 {
		return floatOr(x, func(a *Array[float32]) (float64, error) { return nanMomentsF(a, op, ddof, kind) },
			func(a *Array[float64]) (float64, error) { return nanMomentsF(a, op, ddof, kind) },
			func() (float64, error) { return Mean(x) })
	}
	return floatOr(x, func(a *Array[float32]) (float64, error) { return nanMomentsF(a, op, ddof, kind) },
		func(a *Array[float64]) (float64, error) { return nanMomentsF(a, op, ddof, kind) },
		func() (float64, error) { return Var(x, ddof) })
}

func nanMomentsF[F backend.Float](x *Array[F], op string, ddof, kind int) (float64, error) {
	count, sum, m2, err := nanSumsF(x, op, kind != 0)
	if err != nil {
		return math.NaN(), err
	}
	if count == 0 {
		return math.NaN(), nil
	}
	if kind == 0 {
		return sum / float64(count), nil
	}
	if count <= ddof {
		return math.NaN(), nil
	}
	return m2 / float64(count-ddof), nil
}

// nanSumsF returns the number of x's elements that are not NaN, their sum
// and, if dev, the sum of their squared deviations from their mean (0 if
// there is none): the NaNs are replaced by 0 for the sum, then by the mean
// for the deviations, where they add nothing (but for the rounding of the
// mean to F).
func nanSumsF[F backend.Float](x *Array[F], op string, dev bool) (count int, sum, m2 float64, err error) {
	d, count, err := nanFull(op, x, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	defer d.Free()
	sum, _, err = moments(d)
	if err != nil || count == 0 || !dev {
		return count, sum, 0, err
	}
	e, m, err := nanFill(x, F(sum/float64(count)))
	if err != nil {
		return 0, 0, 0, err
	}
	m.Free()
	defer e.Free()
	_, m2, err = moments(e)
	if err != nil {
		return 0, 0, 0, err
	}
	return count, sum, m2, nil
}

// asT converts a float result of a float array to T, which is its type.
func asT[T backend.Element, F backend.Float](v F, err error) (T, error) {
	return any(v).(T), err
}

// The axis forms: NaN-ignoring reductions along one axis, laid out as the
// plain axis reductions' results (SumAxis's: replicated when axis is the
// split axis; an array on a process grid is first redistributed), with
// their costs plus one more axis reduction of a uint8 mask (where all-NaN
// lines matter). Of an integer array each is the plain axis reduction.
// NanvarAxis and NanstdAxis cost more: see NanvarAxis.

// NansumAxis returns the sums along axis of the elements that are not NaN
// (0 for an all-NaN line). It is collective.
func NansumAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("NansumAxis", x.comm)
	}
	normAxis("NansumAxis", axis, x.layout.shape)
	return nanAxisPlain(x, 0, func(d *Array[T]) (*Array[T], error) { return SumAxis(d, axis) })
}

// NanprodAxis returns the products along axis of the elements that are
// not NaN (1 for an all-NaN line). It is collective.
func NanprodAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("NanprodAxis", x.comm)
	}
	normAxis("NanprodAxis", axis, x.layout.shape)
	return nanAxisPlain(x, 1, func(d *Array[T]) (*Array[T], error) { return ProdAxis(d, axis) })
}

// nanAxisPlain runs red on x with its NaNs replaced by fill.
func nanAxisPlain[T backend.Element, R backend.Numeric](x *Array[T], fill float64, red func(*Array[T]) (*Array[R], error)) (*Array[R], error) {
	if !backend.DTypeOf[T]().IsFloat() {
		return red(x)
	}
	d, m, err := nanFillT(x, fill)
	if err != nil {
		return nil, err
	}
	defer d.Free()
	m.Free()
	return red(d)
}

// nanFillT is nanFill of a float array of type T.
func nanFillT[T backend.Element](x *Array[T], fill float64) (*Array[T], *Array[uint8], error) {
	switch a := any(x).(type) {
	case *Array[float32]:
		d, m, err := nanFill(a, float32(fill))
		return any(d).(*Array[T]), m, err
	case *Array[float64]:
		d, m, err := nanFill(a, fill)
		return any(d).(*Array[T]), m, err
	}
	panic("dist: nanFillT of " + backend.DTypeOf[T]().String())
}

// NanmaxAxis returns the largest elements along axis that are not NaN
// (NaN for an all-NaN line); MaxAxis's refusals. It is collective.
func NanmaxAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("NanmaxAxis", x.comm)
	}
	return nanExtremeAxis(x, axis, true)
}

// NanminAxis returns the smallest elements along axis that are not NaN
// (NaN for an all-NaN line). It is collective.
func NanminAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("NanminAxis", x.comm)
	}
	return nanExtremeAxis(x, axis, false)
}

func nanExtremeAxis[T backend.Element](x *Array[T], axis int, max bool) (_ *Array[T], err error) {
	op, red, fill := "NanminAxis", MinAxis[T], math.Inf(1)
	if max {
		op, red, fill = "NanmaxAxis", MaxAxis[T], math.Inf(-1)
	}
	normAxis(op, axis, x.layout.shape)
	if !backend.DTypeOf[T]().IsFloat() {
		return red(x, axis)
	}
	d, m, err := nanFillT(x, fill)
	if err != nil {
		return nil, err
	}
	defer d.Free()
	defer m.Free()
	r, err := red(d, axis)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.Free()
		}
	}()
	all, err := MinAxis(m, axis) // 1 where every element of the line is NaN
	if err != nil {
		return nil, err
	}
	defer all.Free()
	nan, err := ZerosLike(r)
	if err != nil {
		return nil, err
	}
	defer nan.Free()
	Fill(nan, backend.ValueOf[T](backend.ScalarOf(math.NaN())))
	if err := Where(r, all, nan, r); err != nil {
		return nil, err
	}
	return r, nil
}

// NanargmaxAxis returns the indices along axis of the first largest
// elements that are not NaN; an error wrapping ErrAllNaN if a line is all
// NaN. It is collective.
func NanargmaxAxis[T backend.Element](x *Array[T], axis int) (*Array[int64], error) {
	if x.freed {
		return nil, freedCollective("NanargmaxAxis", x.comm)
	}
	return nanArgAxis(x, axis, true)
}

// NanargminAxis returns the indices along axis of the first smallest
// elements that are not NaN; an error wrapping ErrAllNaN if a line is all
// NaN. It is collective.
func NanargminAxis[T backend.Element](x *Array[T], axis int) (*Array[int64], error) {
	if x.freed {
		return nil, freedCollective("NanargminAxis", x.comm)
	}
	return nanArgAxis(x, axis, false)
}

func nanArgAxis[T backend.Element](x *Array[T], axis int, max bool) (*Array[int64], error) {
	op, red, fill := "NanargminAxis", ArgminAxis[T], math.Inf(1)
	if max {
		op, red, fill = "NanargmaxAxis", ArgmaxAxis[T], math.Inf(-1)
	}
	normAxis(op, axis, x.layout.shape)
	if !backend.DTypeOf[T]().IsFloat() {
		return red(x, axis)
	}
	d, m, err := nanFillT(x, fill)
	if err != nil {
		return nil, err
	}
	defer d.Free()
	defer m.Free()
	all, err := MinAxis(m, axis)
	if err != nil {
		return nil, err
	}
	defer all.Free()
	bad, err := Any(all)
	if err != nil {
		return nil, err
	}
	if bad {
		return nil, fmt.Errorf("dist: %s along axis %d of an array of shape %v with a line whose every element is NaN: %w", op, axis, x.Shape(), ErrAllNaN)
	}
	return red(d, axis)
}

// NanmeanAxis returns the means along axis of the elements that are not
// NaN, as float64 (NaN for an all-NaN line), laid out as MeanAxis's
// result: MeanAxis of x with its NaNs replaced by 0, times the length of
// the axis, divided by the number of elements that are not NaN (counted
// by a SumAxis of the NaN mask). It is collective.
func NanmeanAxis[T backend.Element](x *Array[T], axis int) (_ *Array[float64], err error) {
	if x.freed {
		return nil, freedCollective("NanmeanAxis", x.comm)
	}
	a := normAxis("NanmeanAxis", axis, x.layout.shape)
	if !backend.DTypeOf[T]().IsFloat() {
		return MeanAxis(x, axis)
	}
	r, c, m, err := nanMeanAxis(x, a)
	if err != nil {
		return nil, err
	}
	c.Free()
	m.Free()
	return r, nil
}

// nanMeanAxis returns, for a float array x and an axis of it (not
// negative), the means of the elements of each line along axis that are
// not NaN (NaN for an all-NaN line) and their numbers (as float64), both
// laid out as MeanAxis's result, and the mask of x's NaNs.
func nanMeanAxis[T backend.Element](x *Array[T], a int) (mean, count *Array[float64], nans *Array[uint8], err error) {
	d, m, err := nanFillT(x, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	defer d.Free()
	defer func() {
		if err != nil {
			m.Free()
		}
	}()
	r, err := MeanAxis(d, a)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			r.Free()
		}
	}()
	mf, err := Astype[float64](m)
	if err != nil {
		return nil, nil, nil, err
	}
	defer mf.Free()
	c, err := SumAxis(mf, a) // the NaNs of each line
	if err != nil {
		return nil, nil, nil, err
	}
	n := float64(x.layout.shape[a])
	MulScalar(c, c, -1)
	AddScalar(c, c, n) // the elements that are not NaN
	MulScalar(r, r, n)
	Div(r, r, c) // 0/0 = NaN for an all-NaN line
	return r, c, m, nil
}

// NanvarAxis returns the variances along axis, with ddof, of the elements
// that are not NaN, as float64, laid out as MeanAxis's result (NumPy's
// nanvar(x, axis, ddof=ddof)): for a line with n elements that are not
// NaN, the sum of their squared deviations from their mean divided by
// n - ddof. A line with n <= ddof (an all-NaN line, or one along an empty
// axis, included) gives NaN, with no error (NumPy returns NaN with a
// RuntimeWarning; test with Isnan). A line holding an infinity gives NaN,
// as in NumPy. axis may be negative, counting from the end. Of an integer
// array it is VarAxis(x, axis, ddof), whose divisor is max(N-ddof, 0).
//
// It is computed in float64 (NumPy computes float32 data in float32), in
// two passes as VarAxis computes: the means of the lines (NanmeanAxis's),
// then VarAxis's moments of a float64 copy of x whose NaNs are replaced by
// the mean of their line, where they add nothing to the squared
// deviations; the mean is expanded on each rank from the part of the
// result that its block meets, with no communication. An array on a
// process grid is first redistributed as for SumAxis. So it costs two
// float64 arrays of x's size (the copy, and NanmeanAxis's), a NaN mask,
// and the communication of NanmeanAxis and VarAxis. It is collective.
func NanvarAxis[T backend.Element](x *Array[T], axis, ddof int) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("NanvarAxis", x.comm)
	}
	return nanVarAxis(x, "NanvarAxis", axis, ddof, false)
}

// NanstdAxis returns the standard deviations along axis, with ddof, of
// the elements that are not NaN: the square roots of NanvarAxis's result,
// with its special cases (NumPy's nanstd(x, axis, ddof=ddof)). Of an
// integer array it is StdAxis(x, axis, ddof). It is collective.
func NanstdAxis[T backend.Element](x *Array[T], axis, ddof int) (*Array[float64], error) {
	if x.freed {
		return nil, freedCollective("NanstdAxis", x.comm)
	}
	return nanVarAxis(x, "NanstdAxis", axis, ddof, true)
}

func nanVarAxis[T backend.Element](x *Array[T], op string, axis, ddof int, sqrt bool) (_ *Array[float64], err error) {
	a := normAxis(op, axis, x.layout.shape)
	if !backend.DTypeOf[T]().IsFloat() {
		kind := 1
		if sqrt {
			kind = 2
		}
		return momentsAxis(x, op, a, ddof, kind)
	}
	if err := check(op, x, mpi.Arg{Name: "axis", Value: int64(a)}, mpi.Arg{Name: "ddof", Value: int64(ddof)}); err != nil {
		return nil, err
	}
	if x.layout.axis == Grid {
		y, err := offGrid(x, a)
		if err != nil {
			return nil, err
		}
		defer y.Free()
		x = y
	}
	xf, err := Astype[float64](x)
	if err != nil {
		return nil, err
	}
	defer xf.Free()
	mean, c, m, err := nanMeanAxis(xf, a)
	if err != nil {
		return nil, err
	}
	defer mean.Free()
	defer c.Free()
	defer m.Free()
	// The NaNs replaced by the mean of their line: the part of the means
	// that this rank's block meets is its block of mean (all of it where
	// mean is replicated), of shape [.., 1, ..] along axis.
	start, shape := xf.layout.box(xf.comm.Rank())
	keep := slices.Clone(xf.layout.shape)
	keep[a] = 1
	if mean.layout.axis == Replicated {
		start, shape = make([]int, len(keep)), keep
	} else {
		start[a], shape[a] = 0, 1
	}
	e, err := expand(mean.local, start, shape, keep, xf)
	if err := mpi.Agree(xf.comm, err); err != nil {
		if e != nil {
			e.Free()
		}
		return nil, err
	}
	err = Where(xf, m, &Array[float64]{comm: xf.comm, layout: xf.layout, local: e}, xf)
	e.Free()
	if err := mpi.Agree(xf.comm, err); err != nil {
		return nil, err
	}
	r, err := momentsAxis(xf, op, a, 0, 3)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.Free()
		}
	}()
	SubScalar(c, c, float64(ddof)) // the divisors
	bad, err := LessEqualScalar(c, 0)
	if err != nil {
		return nil, err
	}
	defer bad.Free()
	Div(r, r, c)
	err = FillWhere(r, bad, math.NaN())
	if err == nil && sqrt {
		err = Sqrt(r, r)
	}
	if err := mpi.Agree(r.comm, err); err != nil {
		return nil, err
	}
	return r, nil
}
