package integrate

import (
	"github.com/xpmpi/xpmpi/backend"
)

// ArrayBatchFunc is BatchFunc on a device: for every i, y[i] = f(p[i],
// x[i]), where p[i] is the index of the problem that node x[i] belongs to.
// p, x and y are arrays of one length on the device of QuadBatchArray's
// backend; the function computes there (a fused kernel of package
// kernels/fuse over x, a kernels.Kernel that also reads p to look up the
// problem's parameters, package backend's operations) and must not keep
// the arrays. An error (a device's) stops QuadBatchArray, which returns it.
type ArrayBatchFunc func(p *backend.Array[int64], x, y *backend.Array[float64]) error

// QuadBatchArray is QuadBatch with the integrands evaluated on a device:
// each round, the nodes of every unfinished problem (and their problem
// indices) are copied to be's device in one copy each, f evaluates all of
// them there in one call, and the values come back in one copy. The
// bookkeeping (errors, partitions, extrapolation) stays on the host, as in
// QuadBatch, and is the same code: where f gives the same bits as
// QuadBatch's BatchFunc, the results are QuadBatch's, bit for bit. The
// copies are three per round (x and p to the device, y back), recorded
// by package backend's conversions; the device arrays grow to the largest
// round and are reused.
//
// It does not communicate. The returned error joins the errors of the
// problems, as QuadBatch's (every result is returned); an error of f or
// the device is returned instead, with no results. a and b of different
// lengths, a NaN bound and a nil f or be panic.
func QuadBatchArray(f ArrayBatchFunc, a, b []float64, be backend.Backend, opts *QuadOptions) ([]QuadResult, error) {
	if f == nil || be == nil {
		panic("integrate: QuadBatchArray without a function or a backend")
	}
	var (
		pd   *backend.Array[int64]
		xd   *backend.Array[float64]
		yd   *backend.Array[float64]
		ph   []int64
		size int
	)
	defer func() {
		if size > 0 {
			pd.Free()
			xd.Free()
			yd.Free()
		}
	}()
	eval := func(p []int, x, y []float64) error {
		m := len(x)
		if m > size {
			if size > 0 {
				pd.Free()
				xd.Free()
				yd.Free()
				size = 0
			}
			c := max(m, 2*len(ph))
			var err error
			if pd, err = backend.NewOn[int64](be, c); err != nil {
				return err
			}
			if xd, err = backend.NewOn[float64](be, c); err != nil {
				pd.Free()
				return err
			}
			if yd, err = backend.NewOn[float64](be, c); err != nil {
				pd.Free()
				xd.Free()
				return err
			}
			size = c
		}
		ph = ph[:0]
		for _, i := range p {
			ph = append(ph, int64(i))
		}
		pv, xv, yv := pd.Slice(0, m), xd.Slice(0, m), yd.Slice(0, m)
		if err := backend.CopyFromHostSlice(pv, ph); err != nil {
			return err
		}
		if err := backend.CopyFromHostSlice(xv, x); err != nil {
			return err
		}
		if err := f(pv, xv, yv); err != nil {
			return err
		}
		return backend.CopyToHostSlice(y, yv)
	}
	out, err, envErr := quadBatch("QuadBatchArray", eval, a, b, opts)
	if envErr != nil {
		return nil, envErr
	}
	return out, err
}
