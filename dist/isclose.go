package dist

import (
	"math"

	"github.com/xpmpi/xpmpi/backend"
)

// The predicates of special values and of closeness: NumPy's isnan, isinf,
// isfinite, isclose and allclose. Each returns a mask (a uint8 array of
// 0s and 1s with x's layout, on x's device, as Less and the other
// comparisons: what Where and Compact take), or for Allclose a bool. They
// are collective (the new arrays are allocations, agreed on by every
// rank), but the masks need no communication: each rank computes its own
// block, on the block's device, from the elementwise functions and
// comparisons (nothing goes through the host). Integer arrays have no NaN
// or infinity: their Isnan and Isinf are all 0 and Isfinite all 1. A
// complex element is NaN where either part is NaN, infinite where either
// part is infinite (complex(Inf, NaN) is both, as in NumPy), finite where
// both parts are finite.

// Isnan returns the mask of the NaN elements of x.
func Isnan[T backend.Numeric](x *Array[T]) (*Array[uint8], error) {
	if x.freed {
		return nil, freedCollective("Isnan", x.comm)
	}
	return special(x, 0)
}

// Isinf returns the mask of the infinite elements of x (+Inf and -Inf).
func Isinf[T backend.Numeric](x *Array[T]) (*Array[uint8], error) {
	if x.freed {
		return nil, freedCollective("Isinf", x.comm)
	}
	return special(x, 1)
}

// Isfinite returns the mask of the finite elements of x (neither NaN nor
// infinite).
func Isfinite[T backend.Numeric](x *Array[T]) (*Array[uint8], error) {
	if x.freed {
		return nil, freedCollective("Isfinite", x.comm)
	}
	return special(x, 2)
}

// special returns the mask of kind 0 (NaN), 1 (infinite) or 2 (finite).
func special[T backend.Numeric](x *Array[T], kind int) (*Array[uint8], error) {
	switch a := any(x).(type) {
	case *Array[float32]:
		return specialFloat(a, kind)
	case *Array[float64]:
		return specialFloat(a, kind)
	case *Array[complex64]:
		return specialComplex[float32](a, kind)
	case *Array[complex128]:
		return specialComplex[float64](a, kind)
	}
	// Integers.
	m, err := newOn[uint8](x.comm, x.layout, x.local.Backend())
	if err != nil {
		return nil, err
	}
	Fill(m, uint8(b2i(kind == 2)))
	return m, nil
}

func specialFloat[F backend.Float](x *Array[F], kind int) (*Array[uint8], error) {
	if kind == 0 {
		return NotEqual(x, x)
	}
	a, err := ZerosLike(x)
	if err != nil {
		return nil, err
	}
	defer a.Free()
	if err := Abs(a, x); err != nil {
		return nil, err
	}
	if kind == 1 {
		return EqualScalar(a, F(math.Inf(1)))
	}
	return LessScalar(a, F(math.Inf(1)))
}

func specialComplex[F backend.Float, C backend.Complex](x *Array[C], kind int) (*Array[uint8], error) {
	re, err := Real[F](x)
	if err != nil {
		return nil, err
	}
	defer re.Free()
	im, err := Imag[F](x)
	if err != nil {
		return nil, err
	}
	defer im.Free()
	mr, err := specialFloat(re, kind)
	if err != nil {
		return nil, err
	}
	mi, err := specialFloat(im, kind)
	if err != nil {
		mr.Free()
		return nil, err
	}
	defer mi.Free()
	if kind == 2 { // both finite
		err = Minimum(mr, mr, mi)
	} else { // either NaN, either infinite
		err = Maximum(mr, mr, mi)
	}
	if err != nil {
		mr.Free()
		return nil, err
	}
	return mr, nil
}

// CloseOption is an option of Isclose and Allclose.
type CloseOption func(*closeOptions)

type closeOptions struct {
	rtol, atol float64
	equalNaN   bool
}

// Rtol sets the relative tolerance of Isclose and Allclose (NumPy's rtol,
// 1e-5 unless set).
func Rtol(v float64) CloseOption { return func(o *closeOptions) { o.rtol = v } }

// Atol sets the absolute tolerance of Isclose and Allclose (NumPy's atol,
// 1e-8 unless set).
func Atol(v float64) CloseOption { return func(o *closeOptions) { o.atol = v } }

// EqualNaN makes Isclose and Allclose take two NaNs as close (NumPy's
// equal_nan=True); without it a NaN is close to nothing.
func EqualNaN() CloseOption { return func(o *closeOptions) { o.equalNaN = true } }

// Isclose returns the mask of the elements where a and b are close, as
// np.isclose(a, b): |a - b| <= atol + rtol*|b| where both are finite (not
// symmetric in a and b, as NumPy's), a == b where either is infinite (so
// +Inf is close to +Inf only), and never where either is NaN unless
// EqualNaN is given and both are. rtol is 1e-5 and atol 1e-8 unless the
// options say otherwise. The arithmetic is in the element type (float32
// for float32 arrays, as NumPy's); integer arrays are compared as float64,
// as NumPy converts them; complex elements use the modulus |a - b| and |b|
// where both are finite, and a non-finite complex element (a part NaN or
// infinite) is close to none (not even to itself), or with EqualNaN to
// every non-finite one: NumPy 1.24 multiplies the arrays by ones before
// comparing them, and (Inf+1i)*1 is Inf+NaNi. a and b must have the same layout (a different one
// panics) and device. It is collective, as the masks' allocations are; the
// computation needs no communication and stays on the blocks' device
// (several temporary arrays of a's size).
func Isclose[T backend.Numeric](a, b *Array[T], opts ...CloseOption) (*Array[uint8], error) {
	if a.freed || b.freed {
		return nil, freedCollective("Isclose", a.comm)
	}
	sameLayout("Isclose", a, b)
	sameDevice("Isclose", a, b)
	o := closeOptions{rtol: 1e-5, atol: 1e-8}
	for _, f := range opts {
		f(&o)
	}
	switch x := any(a).(type) {
	case *Array[float32]:
		return iscloseFloat(x, any(b).(*Array[float32]), o)
	case *Array[float64]:
		return iscloseFloat(x, any(b).(*Array[float64]), o)
	case *Array[complex64]:
		return iscloseComplex[float32](x, any(b).(*Array[complex64]), o)
	case *Array[complex128]:
		return iscloseComplex[float64](x, any(b).(*Array[complex128]), o)
	}
	fa, err := Astype[float64](a)
	if err != nil {
		return nil, err
	}
	defer fa.Free()
	fb, err := Astype[float64](b)
	if err != nil {
		return nil, err
	}
	defer fb.Free()
	return iscloseFloat(fa, fb, o)
}

// Allclose reports whether every element of a is close to b's, as
// np.allclose: Isclose's mask, all ones (true for empty arrays). It is
// collective: one allreduce besides Isclose's work.
func Allclose[T backend.Numeric](a, b *Array[T], opts ...CloseOption) (bool, error) {
	if a.freed || b.freed {
		return false, freedCollective("Allclose", a.comm)
	}
	m, err := Isclose(a, b, opts...)
	if err != nil {
		return false, err
	}
	defer m.Free()
	return All(m)
}

// masks frees the masks it holds, whatever happened.
type masks []*Array[uint8]

func (m *masks) add(a *Array[uint8], err error) (*Array[uint8], error) {
	if err == nil {
		*m = append(*m, a)
	}
	return a, err
}

func (m masks) free() {
	for _, a := range m {
		a.Free()
	}
}

// within returns the mask of d <= atol + rtol*t, d and t |a-b| and |b| (t
// overwritten).
func within[F backend.Float](d, t *Array[F], o closeOptions) (*Array[uint8], error) {
	MulScalar(t, t, F(o.rtol))
	AddScalar(t, t, F(o.atol))
	return LessEqual(d, t)
}

// closeMask combines Isclose's masks into w: (w and finite a and finite b)
// or eq or (equal NaN and NaN a and NaN b); the masks given are freed.
func closeMask(w, fa, fb, eq, na, nb *Array[uint8], o closeOptions) error {
	for _, err := range []error{Minimum(w, w, fa), Minimum(w, w, fb), Maximum(w, w, eq)} {
		if err != nil {
			return err
		}
	}
	if o.equalNaN {
		if err := Minimum(na, na, nb); err != nil {
			return err
		}
		return Maximum(w, w, na)
	}
	return nil
}

func iscloseFloat[F backend.Float](a, b *Array[F], o closeOptions) (_ *Array[uint8], err error) {
	var ms masks
	defer ms.free()
	d, err := ZerosLike(a)
	if err != nil {
		return nil, err
	}
	defer d.Free()
	t, err := ZerosLike(a)
	if err != nil {
		return nil, err
	}
	defer t.Free()
	Sub(d, a, b)
	if err := Abs(d, d); err != nil {
		return nil, err
	}
	if err := Abs(t, b); err != nil {
		return nil, err
	}
	w, err := within(d, t, o)
	if err != nil {
		return nil, err
	}
	fa, err := ms.add(Isfinite(a))
	if err != nil {
		w.Free()
		return nil, err
	}
	fb, err := ms.add(Isfinite(b))
	if err != nil {
		w.Free()
		return nil, err
	}
	eq, err := ms.add(Equal(a, b))
	if err != nil {
		w.Free()
		return nil, err
	}
	var na, nb *Array[uint8]
	if o.equalNaN {
		if na, err = ms.add(Isnan(a)); err == nil {
			nb, err = ms.add(Isnan(b))
		}
		if err != nil {
			w.Free()
			return nil, err
		}
	}
	if err := closeMask(w, fa, fb, eq, na, nb, o); err != nil {
		w.Free()
		return nil, err
	}
	return w, nil
}

func iscloseComplex[F backend.Float, C backend.Complex](a, b *Array[C], o closeOptions) (_ *Array[uint8], err error) {
	var ms masks
	defer ms.free()
	var fl []*Array[F]
	defer func() {
		for _, x := range fl {
			x.Free()
		}
	}()
	keep := func(x *Array[F], err error) (*Array[F], error) {
		if err == nil {
			fl = append(fl, x)
		}
		return x, err
	}
	diff, err := ZerosLike(a)
	if err != nil {
		return nil, err
	}
	defer diff.Free()
	Sub(diff, a, b)
	d, err := keep(AbsComplex[F](diff))
	if err != nil {
		return nil, err
	}
	t, err := keep(AbsComplex[F](b))
	if err != nil {
		return nil, err
	}
	w, err := within(d, t, o)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Array[uint8], error) { w.Free(); return nil, err }
	fa, err := ms.add(Isfinite(a))
	if err != nil {
		return fail(err)
	}
	fb, err := ms.add(Isfinite(b))
	if err != nil {
		return fail(err)
	}
	// NumPy multiplies a and b by ones before it compares the non-finite
	// elements, which makes the other part of a complex infinity NaN: a
	// non-finite complex element is never equal to another, and with
	// EqualNaN close to every non-finite one.
	eq, err := ms.add(newOn[uint8](a.comm, a.layout, a.local.Backend()))
	if err != nil {
		return fail(err)
	}
	var na, nb *Array[uint8]
	if o.equalNaN {
		if na, err = ms.add(EqualScalar(fa, 0)); err == nil {
			nb, err = ms.add(EqualScalar(fb, 0))
		}
		if err != nil {
			return fail(err)
		}
	}
	if err := closeMask(w, fa, fb, eq, na, nb, o); err != nil {
		return fail(err)
	}
	return w, nil
}
