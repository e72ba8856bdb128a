package dist

import (
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/exactsum"
	"github.com/xpmpi/xpmpi/internal/repro"
)

// Reproducible reductions.
//
// SumRepro, DotRepro and NormRepro give the same bits at any rank count,
// block layout and thread count, in about the time of Sum, Dot and Norm:
// binned summation after Demmel and Nguyen (ReproBLAS), package
// internal/repro: each term is split at fixed bin boundaries, chosen by
// the largest magnitude of all the terms, into two pieces of 51 bits that
// are added exactly as integers (AVX2 where the processor has it, the same
// result in Go), the integer bins of all ranks are added by one integer
// allreduce, and the sum is rounded once. Its error is at most
// n * 2^-50 * max|term| plus half a unit in the last place of the result
// (n terms): a term, or the part of a term, below 2^-50 of the largest is
// lost; Sum's bound is (n-1) * 2^-53 times the sum of the magnitudes. A
// term is an element (SumRepro), a product x[i]*y[i] rounded to float64
// (DotRepro; exact for float32 elements) or a square (NormRepro, before
// the one square root). NaN and infinities come out as IEEE addition gives
// them; an exact zero is +0. A block on a device is copied to the host for
// them (recorded), until a device kernel exists.
//
// SumExact, DotExact and NormExact give the same bits at any rank count,
// block layout and thread count: every term is added, without rounding,
// into integer bins by binary exponent (package internal/exactsum), the
// bins of all ranks are added by one integer allreduce, and the exact sum
// is rounded once, to the nearest float64. The result is therefore the
// correctly rounded sum of the terms (error at most half a unit in the
// last place), where Sum, Dot and Norm add in chunks whose partials depend
// on the layout (an error bound of n times the unit roundoff, and bits
// that change with the rank count). A term is an element (SumExact), a
// product x[i]*y[i] rounded to float64 (DotExact; exact for float32
// elements) or a square (NormExact, before the one square root). NaN and
// infinities come out as IEEE addition gives them. Up to 2^31 terms in
// all are exact.
//
// They are the correctly rounded reference, and cost far more than Sum: a few integer operations per term, on one
// thread, instead of a vector add on the thread budget (about 34 times
// Sum's time for 2^20 float64 here; docs/PERFORMANCE-LOG.md). A block on a
// device is copied to the host for them (recorded), until a device kernel
// exists.

// SumExact returns the sum of x's elements, rounded once from the exact
// sum: the same bits at any rank count and layout. It is collective.
func SumExact[T backend.Float](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("SumExact", x.comm)
	}
	return exactReduce("SumExact", x, nil, func(a, _ T) float64 { return float64(a) })
}

// DotExact returns the sum of x[i]*y[i], each product rounded to float64
// (exact for float32) and their sum rounded once: the same bits at any
// rank count and layout. It is collective.
func DotExact[T backend.Float](x, y *Array[T]) (float64, error) {
	if x.freed || y.freed {
		return 0, freedCollective("DotExact", x.comm)
	}
	sameLayout("DotExact", x, y)
	return exactReduce("DotExact", x, y, func(a, b T) float64 { return float64(a) * float64(b) })
}

// NormExact returns the 2-norm of x, the square root of its sum of
// squares rounded once: the same bits at any rank count and layout. It is
// collective.
func NormExact[T backend.Float](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("NormExact", x.comm)
	}
	s, err := exactReduce("NormExact", x, x, func(a, b T) float64 { return float64(a) * float64(b) })
	return math.Sqrt(s), err
}

// exactReduce adds term(x[i], y[i]) (y nil: term(x[i], 0)) exactly over
// every element of every rank.
func exactReduce[T backend.Float](op string, x, y *Array[T], term func(a, b T) float64) (float64, error) {
	if err := check(op, x); err != nil {
		return 0, err
	}
	xs, err := hostBlock(x)
	var ys []T
	if err == nil && y != nil {
		if y == x {
			ys = xs
		} else {
			ys, err = hostBlock(y)
		}
	}
	// A copy that failed on one rank fails on all before the
	// accumulators' allreduce.
	if x.layout.axis != Replicated {
		err = agreeStep(x.comm, op, err)
	}
	if err != nil {
		return 0, err
	}
	var acc exactsum.Sum
	if ys == nil {
		var zero T
		for _, v := range xs {
			acc.Add(term(v, zero))
		}
	} else {
		for i, v := range xs {
			acc.Add(term(v, ys[i]))
		}
	}
	if x.layout.axis != Replicated {
		if err := acc.Allreduce(x.comm); err != nil {
			return 0, err
		}
	}
	return acc.Value(), nil
}

// SumRepro returns the sum of x's elements, by binned summation: the same
// bits at any rank count, layout and thread count, within n * 2^-50 *
// max|x| plus half a unit in the last place of the result. It is
// collective.
func SumRepro[T backend.Float](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("SumRepro", x.comm)
	}
	return reproReduce("SumRepro", x, nil)
}

// DotRepro returns the sum of x[i]*y[i], each product rounded to float64
// (exact for float32), by binned summation: the same bits at any rank
// count, layout and thread count. It is collective.
func DotRepro[T backend.Float](x, y *Array[T]) (float64, error) {
	if x.freed || y.freed {
		return 0, freedCollective("DotRepro", x.comm)
	}
	sameLayout("DotRepro", x, y)
	return reproReduce("DotRepro", x, y)
}

// NormRepro returns the 2-norm of x, the square root of its sum of
// squares by binned summation: the same bits at any rank count, layout
// and thread count. It is collective.
func NormRepro[T backend.Float](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("NormRepro", x.comm)
	}
	s, err := reproReduce("NormRepro", x, x)
	return math.Sqrt(s), err
}

// reproReduce adds x[i] (y nil) or x[i]*y[i] over every element of every
// rank with a repro.Sum.
func reproReduce[T backend.Float](op string, x, y *Array[T]) (float64, error) {
	if err := check(op, x); err != nil {
		return 0, err
	}
	xs, err := hostBlock(x)
	var ys []T
	if err == nil && y != nil {
		if y == x {
			ys = xs
		} else {
			ys, err = hostBlock(y)
		}
	}
	// A copy that failed on one rank fails on all before the
	// accumulators' allreduce.
	if x.layout.axis != Replicated {
		err = agreeStep(x.comm, op, err)
	}
	if err != nil {
		return 0, err
	}
	var acc repro.Sum
	switch xs := any(xs).(type) {
	case []float64:
		if ys == nil {
			acc.Add(xs)
		} else {
			acc.AddDot(xs, any(ys).([]float64))
		}
	case []float32:
		if ys == nil {
			acc.Add32(xs)
		} else {
			acc.AddDot32(xs, any(ys).([]float32))
		}
	}
	if x.layout.axis != Replicated {
		if err := acc.Allreduce(x.comm); err != nil {
			return 0, err
		}
	}
	return acc.Value(), nil
}

// hostBlock returns a's local block on the host: itself, or a copy of a
// block on a device (recorded; an empty block is not copied, but its
// device is waited for, so that the fault it kept is reported here).
func hostBlock[T backend.Element](a *Array[T]) ([]T, error) {
	if a.local.Len() == 0 {
		return nil, deviceSync(a.local)
	}
	return a.localHost()
}
