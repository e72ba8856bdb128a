package fft

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// RFFT returns the half spectrum of the real array a along axis, as
// numpy.fft.rfft(a, axis=axis): complex128 with n/2+1 along axis (n =
// a's length there), unnormalized; a negative axis counts from the end.
// An even n takes one complex FFT of length n/2 per line (the even and
// odd samples packed as one complex line, see LocalRFFT): half the work
// and memory of FFT of a complex128 copy. As FFT, axis must be local to
// every rank's block (not split, or a replicated), else RFFT returns an
// error that says to use RFFTN; it does not communicate, but it is
// collective (the result's allocation). The result's layout is a's with
// the new length along axis (the same blocks along the other axes; no
// ghost layers), on a's backend; a block on a device backend is copied to
// the host and the result's block back for the real transform (recorded
// copies). n = 0 is an error, as in NumPy. It panics if axis is out of
// range.
func RFFT(a *dist.Array[float64], axis int) (*dist.Array[complex128], error) {
	if a.Freed() {
		return nil, backend.FreedError("fft", "RFFT")
	}
	l := a.Layout()
	axis = normAxis("RFFT", axis, l.Dims())
	if !isLocal(dimsOf(l), axis) {
		return nil, splitErr("RFFT", "RFFTN", axis, l)
	}
	if err := checkPoints("RFFT", l.Shape()[axis], axis); err != nil {
		return nil, err
	}
	return r2c(a, axis)
}

// IRFFT returns the real array of length n along axis whose half spectrum
// is a, as numpy.fft.irfft(a, n, axis=axis): scaled by 1/n; n = 0 means
// NumPy's default 2(m-1), m being a's length along axis. a is cropped or
// padded with zeros to n/2+1 terms along axis; the imaginary parts of the
// zero-frequency term and (n even) of the Nyquist term are ignored, as
// NumPy's are. An even n takes one inverse complex FFT of length n/2 per
// line. A length n under 1 (after the default: m = 1) is an error, as in
// NumPy. Otherwise as RFFT: axis must be local to every rank's block, the
// result has a's layout with n along axis, and it is collective.
func IRFFT(a *dist.Array[complex128], n, axis int) (*dist.Array[float64], error) {
	if a.Freed() {
		return nil, backend.FreedError("fft", "IRFFT")
	}
	l := a.Layout()
	axis = normAxis("IRFFT", axis, l.Dims())
	n, err := outLength("IRFFT", n, l.Shape()[axis], axis)
	if err != nil {
		return nil, err
	}
	if !isLocal(dimsOf(l), axis) {
		return nil, splitErr("IRFFT", "IRFFTN", axis, l)
	}
	return c2r(a, axis, n)
}

// RFFT2 returns the transform of the real array a over its last two axes,
// the last one halved, as numpy.fft.rfft2(a); a must have at least two
// axes. See RFFTN.
func RFFT2(a *dist.Array[float64], opts ...Option) (*dist.Array[complex128], error) {
	return rfftN(a, lastTwoOf("RFFT2", a.Layout().Dims()), "RFFT2", opts)
}

// IRFFT2 returns the inverse of RFFT2, as numpy.fft.irfft2(a, s=(a's
// length along axis -2, n)): n is the output's length along the last
// axis, 0 for NumPy's default 2(m-1). See IRFFTN.
func IRFFT2(a *dist.Array[complex128], n int, opts ...Option) (*dist.Array[float64], error) {
	return irfftN(a, n, lastTwoOf("IRFFT2", a.Layout().Dims()), "IRFFT2", opts)
}

// RFFTN returns the transform of the real array a over axes (every axis
// where axes is nil), as numpy.fft.rfftn(a, axes=axes): the real
// transform (RFFT, halving the length to n/2+1) along the last of axes,
// then complex transforms along the others, unnormalized.
//
// The distributed method is FFTN's (slabs, or pencils on a process grid),
// with the real transform first: where the last axis is split, the real
// array is redistributed so that it is local (its cut moved to a local
// axis, preferably one not transformed; slabs along another axis where
// every axis is cut; replicated for a 1-D array), one all-to-all of
// float64 (half the bytes of the complex array); then the complex stages
// of FFTN on the half spectrum, each an all-to-all of the complex array
// with n/2+1 along the halved axis (about half the bytes of FFTN's), and a
// last redistribution to the result's layout unless TransposedOut is
// given. The result's layout is a's with n/2+1 along the halved axis (the
// same blocks along the other axes, even blocks along the halved axis
// where it is split; no ghost layers). An array split along one axis
// other than the last takes no redistribution for the real transform and
// one each way for the complex ones. Overwrite has no effect (the input
// is real, the result complex). A block on a device stays there but for
// the real transform, for which it is copied to the host and its result
// back (recorded copies; the complex stages use the backend's FFT).
//
// It is collective: every rank calls it, in the same order, with the same
// axes and options. A length 0 along the halved axis is an error, as in
// NumPy. It panics if an axis is out of range or given twice, or axes is
// empty but not nil.
func RFFTN(a *dist.Array[float64], axes []int, opts ...Option) (*dist.Array[complex128], error) {
	return rfftN(a, axes, "RFFTN", opts)
}

// IRFFTN returns the inverse of RFFTN, as numpy.fft.irfftn(a, s, axes)
// with s = the input's lengths along axes but the last, and n along the
// last (0 for NumPy's default 2(m-1), m being a's length there): inverse
// complex transforms along every axis of axes but the last, then the
// inverse real transform (IRFFT) to length n along the last, scaled by 1
// / the product of the output's lengths along axes.
//
// The distributed method is RFFTN's reversed: the complex stages (FFTN's
// planning, each an all-to-all of the half spectrum), a redistribution of
// the half spectrum where the last axis is split after them, the real
// transform on each rank, and a last redistribution of the real result
// (float64) to the result's layout, a's with n along the last axis, unless
// TransposedOut is given. Overwrite lets the complex stages transform a's
// block in place (a's elements are then undefined) and redistribute it in
// place (a is then freed; see Overwrite). A block on a device
// stays there but for the real transform (copied to the host and back,
// recorded). It is collective; a length n under 1 is an error, as in
// NumPy; it panics as RFFTN.
func IRFFTN(a *dist.Array[complex128], n int, axes []int, opts ...Option) (*dist.Array[float64], error) {
	return irfftN(a, n, axes, "IRFFTN", opts)
}

func lastTwoOf(name string, nd int) []int {
	if nd < 2 {
		panic(fmt.Sprintf("fft: %s of a %d-D array: it needs two axes", name, nd))
	}
	return []int{nd - 2, nd - 1}
}

// realAxes checks axes as checkAxes does, and that there is one at least.
func realAxes(name string, nd int, axes []int) []int {
	if axes != nil && len(axes) == 0 {
		panic(fmt.Sprintf("fft: %s: no axes to transform (axes is empty): the last one is the halved one", name))
	}
	return checkAxes(name, nd, axes)
}

func rfftN(a *dist.Array[float64], axes []int, name string, opts []Option) (_ *dist.Array[complex128], err error) {
	if a.Freed() {
		return nil, backend.FreedError("fft", name)
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	l := a.Layout()
	axes = realAxes(name, l.Dims(), axes)
	r := axes[len(axes)-1]
	if err := checkPoints(name, l.Shape()[r], r); err != nil {
		return nil, err
	}
	x := a
	if lr := localFor(l, r, axes); !lr.Equal(l) {
		if x, err = dist.Redistribute(a, lr); err != nil {
			return nil, err
		}
	}
	y, err := r2c(x, r)
	if x != a {
		x.Free()
	}
	if err != nil {
		return nil, err
	}
	rest := axes[:len(axes)-1]
	return runStages(y, ownInput, planStages(y.Layout(), rest), false, resized(l, r, l.Shape()[r]/2+1), o.transposedOut)
}

func irfftN(a *dist.Array[complex128], n int, axes []int, name string, opts []Option) (_ *dist.Array[float64], err error) {
	if a.Freed() {
		return nil, backend.FreedError("fft", name)
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	l := a.Layout()
	axes = realAxes(name, l.Dims(), axes)
	r := axes[len(axes)-1]
	if n, err = outLength(name, n, l.Shape()[r], r); err != nil {
		return nil, err
	}
	rest := axes[:len(axes)-1]
	y := a // the half spectrum after the complex stages
	if len(rest) > 0 {
		mode := copyInput
		if o.overwrite {
			mode = overwriteInput
		}
		if y, err = runStages(a, mode, planStages(l, rest), true, l, true); err != nil {
			return nil, err
		}
	}
	free := func(z *dist.Array[complex128]) {
		if z != a {
			z.Free()
		}
	}
	if lr := localFor(y.Layout(), r, nil); !lr.Equal(y.Layout()) {
		z, err := dist.Redistribute(y, lr)
		free(y)
		if err != nil {
			return nil, err
		}
		y = z
	}
	x, err := c2r(y, r, n)
	free(y)
	if err != nil {
		return nil, err
	}
	if to := resized(l, r, n); !o.transposedOut && !x.Layout().Equal(to) {
		z, err := dist.Redistribute(x, to)
		x.Free()
		if err != nil {
			return nil, err
		}
		x = z
	}
	return x, nil
}

// splitErr is the refusal of RFFT and IRFFT along a split axis.
func splitErr(name, nd string, axis int, l dist.Layout) error {
	return fmt.Errorf("fft: %s along axis %d: the axis is split over the ranks (layout %v); use %s with axes [%d], or Redistribute the array so that axis %d is whole on every rank", name, axis, l, nd, axis, axis)
}

// checkPoints refuses a real transform of length n < 1, as NumPy does.
func checkPoints(name string, n, axis int) error {
	if n < 1 {
		return fmt.Errorf("fft: %s: invalid number of data points (%d) along axis %d: a real transform needs at least one", name, n, axis)
	}
	return nil
}

// outLength returns the output length of an inverse real transform: n,
// or NumPy's default 2(m-1) for n = 0; an error where it is under 1.
func outLength(name string, n, m, axis int) (int, error) {
	if n == 0 {
		n = 2 * (m - 1)
		if n < 1 {
			return 0, fmt.Errorf("fft: %s: invalid number of data points (%d) along axis %d: the default length 2(m-1) of %d terms; give the length n", name, n, axis, m)
		}
	}
	if n < 1 {
		return 0, fmt.Errorf("fft: %s: invalid number of data points (%d) along axis %d", name, n, axis)
	}
	return n, nil
}

// resized returns l with length m along axis: the same blocks along the
// other axes, even blocks along axis where it is split.
func resized(l dist.Layout, axis, m int) dist.Layout {
	shape := slices.Clone(l.Shape())
	shape[axis] = m
	p := l.Ranks()
	switch ax := l.Axis(); ax {
	case dist.Replicated:
		return dist.NewLayout(shape, dist.Replicated, p)
	case dist.Grid:
		dims := l.GridDims()
		counts := make([][]int, len(shape))
		for k := range shape {
			counts[k] = slices.Clone(l.GridCounts(k))
		}
		counts[axis] = dist.NewLayout([]int{m}, 0, dims[axis]).Counts()
		return dist.NewGridLayoutCounts(shape, counts)
	case axis:
		return dist.NewLayout(shape, axis, p)
	default:
		return dist.NewLayoutCounts(shape, ax, l.Counts())
	}
}

// localFor returns l where axis r is local to every block, and otherwise
// a layout with r's cut moved to a local axis (one not in axes first, then
// the longest); where no axis is local, slabs along an axis other than r
// (one not in axes first); a 1-D array replicated.
func localFor(l dist.Layout, r int, axes []int) dist.Layout {
	dims := dimsOf(l)
	if dims[r] == 1 {
		return l
	}
	shape, p := l.Shape(), l.Ranks()
	t := -1
	better := func(k int) bool {
		if t < 0 {
			return true
		}
		ik, it := slices.Contains(axes, k), slices.Contains(axes, t)
		if ik != it {
			return !ik
		}
		return shape[k] > shape[t]
	}
	for k := range shape {
		if k != r && dims[k] == 1 && better(k) {
			t = k
		}
	}
	switch {
	case t >= 0:
		dims[t], dims[r] = dims[r], 1
	case len(shape) == 1:
		return dist.NewLayout(shape, dist.Replicated, p)
	default:
		s := -1
		for k := range shape {
			if k != r && (s < 0 || (slices.Contains(axes, s) && !slices.Contains(axes, k))) {
				s = k
			}
		}
		for k := range dims {
			dims[k] = 1
		}
		dims[s] = p
	}
	return layoutOf(shape, dims, p)
}

// r2c is the real transform of x along axis, local to every block: a new
// complex array of x's layout with n/2+1 along axis, on x's backend.
func r2c(x *dist.Array[float64], axis int) (*dist.Array[complex128], error) {
	l := x.Layout()
	n := l.Shape()[axis]
	y, err := dist.New[complex128](x.Comm(), resized(l, axis, n/2+1), dist.OnBackend(x.Local().Backend()))
	if err != nil {
		return nil, err
	}
	pre, _, post := splitShape(x.LocalShape(), axis)
	err = onHost(x.Local(), y.Local(), func(in []float64, out []complex128) {
		rfftBlock(in, out, pre, n, post)
	})
	if err = mpi.Agree(x.Comm(), err); err != nil {
		y.Free()
		return nil, err
	}
	return y, nil
}

// c2r is the inverse real transform of y along axis, local to every
// block, to length n: a new real array of y's layout with n along axis,
// on y's backend.
func c2r(y *dist.Array[complex128], axis, n int) (*dist.Array[float64], error) {
	l := y.Layout()
	m := l.Shape()[axis]
	x, err := dist.New[float64](y.Comm(), resized(l, axis, n), dist.OnBackend(y.Local().Backend()))
	if err != nil {
		return nil, err
	}
	pre, _, post := splitShape(y.LocalShape(), axis)
	err = onHost(y.Local(), x.Local(), func(in []complex128, out []float64) {
		irfftBlock(in, m, out, pre, n, post)
	})
	if err = mpi.Agree(y.Comm(), err); err != nil {
		x.Free()
		return nil, err
	}
	return x, nil
}

// onHost runs f on the host memory of in and out: their own where they are
// host arrays, and otherwise copies (in's to the host before, out's back
// after), recorded as the transfers they are.
func onHost[S, D backend.Numeric](in *backend.Array[S], out *backend.Array[D], f func(in []S, out []D)) error {
	hin := in
	if !in.Device().IsHost() {
		h := make([]S, in.Len())
		if err := backend.CopyToHostSlice(h, in); err != nil {
			return err
		}
		hin = backend.Wrap(h)
	}
	if out.Device().IsHost() {
		f(hin.Data(), out.Data())
		return nil
	}
	h := make([]D, out.Len())
	f(hin.Data(), h)
	return backend.CopyFromHostSlice(out, h)
}
