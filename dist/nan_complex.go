package dist

import (
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// The NaN-ignoring reductions of complex arrays, NumPy's nansum, nanprod,
// nanmean, nanvar and nanstd of complex64 and complex128 arrays. As in
// NumPy (and Isnan), a complex element is NaN where its real or its
// imaginary part is NaN; such elements are left out. The real forms
// (Nansum, ...) take the real types only, as Prod and Mean do, hence these
// twins, named as ProdComplex and MeanComplex. NumPy's nanmax, nanmin,
// nanargmax and nanargmin of complex arrays (in its lexicographic order)
// have no twins here, as Max and Min have none. Each masks the NaNs with
// Isnan, counts them with an allreduce of one integer and runs the plain
// reduction on a copy of x whose NaNs are replaced by its neutral value,
// on the block's device (NanvarComplex and NanstdComplex: Nanvar's
// computation on the real and imaginary parts). They are collective.
//
// Special cases, as NumPy's: NansumComplex and NanprodComplex of an
// all-NaN or empty array are 0 and 1; NanmeanComplex of an all-NaN array
// is NaN+NaNi, NanvarComplex and NanstdComplex NaN (also where the number
// of non-NaN elements is at most ddof), with no error (NumPy warns); of an
// empty array NanmeanComplex, NanvarComplex and NanstdComplex return NaN
// (NaN+NaNi) and an error wrapping ErrEmpty, as MeanComplex and Var do.

// NansumComplex returns the sum of the elements of a complex array that
// are not NaN (0 if none is), as Sum sums a complex array: its real and
// imaginary parts accumulated as float sums, rounded to T. It is
// collective.
func NansumComplex[T backend.Complex](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("NansumComplex", x.comm)
	}
	d, _, err := nanFull("NansumComplex", x, 0)
	if err != nil {
		return 0, err
	}
	defer d.Free()
	return Sum(d)
}

// NanprodComplex returns the product of the elements of a complex array
// that are not NaN (1 if none is), as ProdComplex multiplies them. It is
// collective.
func NanprodComplex[T backend.Complex](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("NanprodComplex", x.comm)
	}
	d, _, err := nanFull("NanprodComplex", x, 1)
	if err != nil {
		return 0, err
	}
	defer d.Free()
	return ProdComplex(d)
}

// NanmeanComplex returns the mean of the elements of a complex array that
// are not NaN, in its type (NumPy's nanmean of a complex array): their
// sum, its parts accumulated in float64 as MeanComplex's, times 1/n for n
// such elements, rounded to T; NaN+NaNi if every element is NaN (with no
// error); NaN+NaNi and an error wrapping ErrEmpty for an empty array. It
// is collective.
func NanmeanComplex[T backend.Complex](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("NanmeanComplex", x.comm)
	}
	nan := T(complex(math.NaN(), math.NaN()))
	if err := check("NanmeanComplex", x); err != nil {
		return nan, err
	}
	if x.Len() == 0 {
		return nan, emptyErr("NanmeanComplex", x)
	}
	d, count, err := nanFull("NanmeanComplex", x, 0)
	if err != nil {
		return nan, err
	}
	defer d.Free()
	ls, derr := localValue(func() backend.Scalar { return backend.SumScalar(d.local) })
	s, err := allreduceAcc[complex128](d.comm, d.layout, "NanmeanComplex", ls, derr)
	if err != nil || count == 0 {
		return nan, err
	}
	// NumPy's division of a complex by a count: times 1/n.
	inv := 1 / float64(count)
	return T(complex(real(s)*inv, imag(s)*inv)), nil
}

// NanvarComplex returns the variance, with ddof, of the elements of a
// complex array that are not NaN, as a float64 (NumPy's nanvar of a
// complex array, which is real): the sum of their squared moduli |z-m|^2
// of their deviations from their mean m, divided by n - ddof for n such
// elements; NaN if n <= ddof (all NaN included), with no error; NaN and
// an error wrapping ErrEmpty for an empty array. It is computed as Nanvar
// computes, in float64, on the real and imaginary parts (the sum of
// their squared deviations is the sum of the squared moduli), with the
// NaN elements left out of both: so it costs two float64 arrays of x's
// size (and a complex128 copy of a complex64 x) besides Nanvar's
// temporaries, and Nanvar's communication twice. It is collective.
func NanvarComplex[T backend.Complex](x *Array[T], ddof int) (float64, error) {
	if x.freed {
		return 0, freedCollective("NanvarComplex", x.comm)
	}
	return nanVarComplex(x, "NanvarComplex", ddof)
}

// NanstdComplex returns the square root of NanvarComplex(x, ddof), with
// its special cases (NumPy's nanstd of a complex array). It is collective.
func NanstdComplex[T backend.Complex](x *Array[T], ddof int) (float64, error) {
	if x.freed {
		return 0, freedCollective("NanstdComplex", x.comm)
	}
	v, err := nanVarComplex(x, "NanstdComplex", ddof)
	return math.Sqrt(v), err
}

func nanVarComplex[T backend.Complex](x *Array[T], op string, ddof int) (float64, error) {
	if err := check(op, x); err != nil {
		return math.NaN(), err
	}
	if x.Len() == 0 {
		return math.NaN(), emptyErr(op, x)
	}
	var z *Array[complex128]
	switch a := any(x).(type) {
	case *Array[complex128]:
		z = a
	case *Array[complex64]:
		w, err := Astype[complex128](a)
		if err != nil {
			return math.NaN(), err
		}
		defer w.Free()
		z = w
	}
	m, err := Isnan(z)
	if err != nil {
		return math.NaN(), err
	}
	defer m.Free()
	var count int
	m2 := 0.0
	for _, part := range []func(*Array[complex128]) (*Array[float64], error){Real[float64, complex128], Imag[float64, complex128]} {
		p, err := part(z)
		if err != nil {
			return math.NaN(), err
		}
		// NaN in both parts where either is.
		if err := mpi.Agree(x.comm, FillWhere(p, m, math.NaN())); err != nil {
			p.Free()
			return math.NaN(), err
		}
		n, _, pm2, err := nanSumsF(p, op, true)
		p.Free()
		if err != nil {
			return math.NaN(), err
		}
		count, m2 = n, m2+pm2
	}
	if count == 0 || count <= ddof {
		return math.NaN(), nil
	}
	return m2 / float64(count-ddof), nil
}
