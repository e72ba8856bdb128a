package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// NormAxisComplex returns the 2-norms along axis of a complex array, as
// numpy.linalg.norm(x, axis=axis): the square roots of the sums of the
// squared moduli, in R, which must be T's part type (float32 for
// complex64, float64 for complex128: dist.NormAxisComplex[float64](x, 0));
// another panics. The result is laid out as SumAxis's, an array on a
// process grid first redistributed as for SumAxis. NormAxis takes the real
// types, whose result type is theirs; this is its complex twin.
//
// The squares of the real parts and those of the imaginary parts are each
// summed in float64 in the order of the axis (and, along the split axis,
// in rank order), as NormAxis sums a real array's squares; the two sums
// are added and the square root taken in float64, then rounded to R.
// NumPy adds re²+im² per element, in the input's precision, pairwise, so
// results can differ from NumPy's in the last bits. The norm along an
// empty axis is 0; a NaN part gives NaN, and an infinite part +Inf where
// no NaN is summed with it, as NumPy's.
//
// The parts are taken on the device (backend.ComplexMath) and summed with
// the backend's real axis kernels (backend.AxisReducer), so a CUDA array
// stays on the device; on a backend without them the blocks are copied to
// the host, recorded. It is collective.
func NormAxisComplex[R backend.Float, T backend.Complex](x *Array[T], axis int) (_ *Array[R], err error) {
	if x.freed {
		return nil, freedCollective("NormAxisComplex", x.comm)
	}
	if want := backend.DTypeOf[T]().Real(); backend.DTypeOf[R]() != want {
		panic(fmt.Sprintf("dist: NormAxisComplex of %v gives %v, not %v", backend.DTypeOf[T](), want, backend.DTypeOf[R]()))
	}
	axis = normAxis("NormAxisComplex", axis, x.layout.shape)
	if err := check("NormAxisComplex", x, mpi.Arg{Name: "axis", Value: int64(axis)}); err != nil {
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
	re, err := Real[R](x)
	if err != nil {
		return nil, err
	}
	defer re.Free()
	im, err := Imag[R](x)
	if err != nil {
		return nil, err
	}
	defer im.Free()
	out, err := newOn[R](x.comm, ol, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	err = normAxisParts(x, re, im, out, axis)
	if err := mpi.Agree(x.comm, err); err != nil {
		return nil, err
	}
	return out, nil
}

// normAxisParts sets out's block to the norms along axis of the complex
// numbers whose parts are re and im (laid out as x).
func normAxisParts[R backend.Float, T backend.Complex](x *Array[T], re, im, out *Array[R], axis int) error {
	comb := combined(x.layout, axis)
	rb, r, err := capableBlock[backend.AxisReducer](re.local)
	if err != nil {
		return blockFailed(x.comm, comb, "NormAxisComplex", err)
	}
	ib, _, err := capableBlock[backend.AxisReducer](im.local)
	if err != nil {
		return blockFailed(x.comm, comb, "NormAxisComplex", err)
	}
	b := rb.Backend()
	pre, n, post := view3(x.LocalShape(), axis)
	m := pre * post
	res := out.local
	if b != out.local.Backend() {
		if res, err = backend.NewOn[R](b, m); err != nil {
			return err
		}
		defer res.Free()
	}
	acc, err := backend.NewOn[float64](b, m)
	if err != nil {
		return err
	}
	defer acc.Free()
	acc2, err := backend.NewOn[float64](b, m)
	if err != nil {
		return err
	}
	defer acc2.Free()
	step := func() {
		r.SumAxis(acc.Buffer(), rb.Buffer(), pre, n, post, true)
		r.SumAxis(acc2.Buffer(), ib.Buffer(), pre, n, post, true)
		if m > 0 {
			backend.Axpy(1, acc2, acc)
		}
	}
	if err := combineStep(x.comm, comb, "NormAxisComplex", step, acc); err != nil {
		return err
	}
	if comb {
		if err := staging.Allreduce(x.comm, acc, mpi.Sum); err != nil {
			return err
		}
	}
	if m == 0 {
		return nil
	}
	r.CastSums(res.Buffer(), acc.Buffer(), true)
	if res != out.local {
		return backend.CopyFromHostSlice(out.local, res.Data())
	}
	return nil
}
