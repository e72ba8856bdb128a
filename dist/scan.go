package dist

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// Cumsum returns the cumulative sums of x along axis, as numpy.cumsum(x,
// axis): a new array of x's layout, communicator and backend whose element
// [..., k, ...] is the sum of x's elements [..., 0..k, ...]. The sums are
// taken in x's type (integers wrap; NumPy's cumsum of int32 and uint32
// gives int64 and uint64 instead), in the order of the axis. Along the
// split axis each rank starts its running sums from a carry: the sums of
// the blocks of the ranks before it, each block's total taken in the order
// of the axis and the totals added in rank order (by mpi.Exscan for a host
// block); so floating-point results can differ in the last bits from
// NumPy's single running sum, from the third rank on, and depend on the
// layout. Along another axis no rank communicates. An array on a process
// grid is redistributed to the layout split evenly on the axis other than
// axis with the most grid ranks (as for SumAxis), scanned there, and the
// result redistributed back to x's layout (two all-to-alls).
//
// It takes every element type, complex included: complex sums are taken
// in x's type, part by part, as NumPy's are (the real and imaginary parts
// each a running float32 or float64 sum). A complex block on a backend
// that is not a backend.ComplexKernels (one a user registers; the CPU
// backend, the fake device and CUDA are) is scanned on a host copy and
// the result copied back (recorded). It is collective.
func Cumsum[T backend.Numeric](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("Cumsum", x.comm)
	}
	return scan(x, "Cumsum", axis, false)
}

// Cumprod returns the cumulative products of x along axis, as
// numpy.cumprod(x, axis), with Cumsum's layout, order of operations and
// rules: products in x's type, integers wrapping, the carry of a rank the
// product of the earlier ranks' block totals. Complex products are Go's
// complex multiplication in x's type, (a+bi)(c+di) = (ac-bd) + (ad+bc)i,
// the carries' too (they are gathered and multiplied in rank order, not
// taken from MPI's complex product), so host and device arrays agree bit
// for bit,
// without NumPy's handling of infinite parts; a complex block on a
// backend that is not a backend.ComplexKernels is scanned on a host copy,
// as Cumsum's. It is collective.
func Cumprod[T backend.Numeric](x *Array[T], axis int) (*Array[T], error) {
	if x.freed {
		return nil, freedCollective("Cumprod", x.comm)
	}
	return scan(x, "Cumprod", axis, true)
}

func scan[T backend.Numeric](x *Array[T], op string, axis int, prod bool) (_ *Array[T], err error) {
	axis = normAxis(op, axis, x.layout.shape)
	if err := check(op, x, mpi.Arg{Name: "axis", Value: int64(axis)}); err != nil {
		return nil, err
	}
	if x.layout.axis == Grid {
		// Scanned on the layout split on another axis (offGrid), where
		// every line along axis is on one rank or, for a 1-D array, the
		// blocks are in the order of the axis; then laid out as x.
		y, err := offGrid(x, axis)
		if err != nil {
			return nil, err
		}
		defer y.Free()
		s, err := scan(y, op, axis, prod)
		if err != nil {
			return nil, err
		}
		defer s.Free()
		return Redistribute(s, x.layout)
	}
	out, err := newOn[T](x.comm, x.layout, x.local.Backend())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	block, r, err := capableBlock[backend.StatsReducer](x.local)
	if err != nil {
		return nil, err
	}
	b := block.Backend()
	pre, n, post := view3(x.LocalShape(), axis)
	var carry *backend.Array[T]
	if x.layout.axis == axis && x.comm.Size() > 1 {
		if carry, err = scanCarry(x, block, r, pre, n, post, prod); err != nil {
			return nil, err
		}
		if carry != nil {
			defer carry.Free()
		}
	}
	res := out.local
	if b != x.local.Backend() {
		if res, err = backend.NewOn[T](b, block.Len()); err != nil {
			return nil, err
		}
		defer res.Free()
	}
	if block.Len() > 0 {
		var cb backend.Buffer
		if carry != nil {
			cb = carry.Buffer()
		}
		r.ScanAxis(res.Buffer(), nil, block.Buffer(), cb, pre, n, post, prod)
	}
	if res != out.local && res.Len() > 0 {
		if err := backend.CopyFromHostSlice(out.local, res.Data()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanCarry returns the carry of this rank's block along the split axis:
// the ranks' block totals (pre*post each, on block's backend) combined
// exclusively in rank order; nil on rank 0, which starts from 0 (1).
// A host block's totals go through one mpi.Exscan; a device block's are
// gathered on the device (staging.Allgatherv, which hands a CUDA-aware
// MPI the device memory) and scanned there, since staging has no Exscan;
// so are a host block's complex products, since MPI's complex product is
// the C library's (in float32 for complex64) and not Go's.
func scanCarry[T backend.Numeric](x *Array[T], block *backend.Array[T], r backend.StatsReducer, pre, n, post int, prod bool) (*backend.Array[T], error) {
	b := block.Backend()
	m := pre * post
	me, p := x.comm.Rank(), x.comm.Size()
	last, err := backend.NewOn[T](b, m)
	if err != nil {
		return nil, err
	}
	defer last.Free()
	step := func() {
		if me < p-1 && m > 0 { // the last rank's totals are no one's carry
			r.ScanAxis(nil, last.Buffer(), block.Buffer(), nil, pre, n, post, prod)
		}
	}
	carry, err := backend.NewOn[T](b, m)
	if err != nil {
		return nil, err
	}
	op := mpi.Sum
	if prod {
		op = mpi.Prod
	}
	if b.Device().IsHost() && !(prod && backend.DTypeOf[T]().IsComplex()) {
		step()
		err = mpi.Exscan(x.comm, last.Data(), carry.Data(), op)
	} else {
		var all *backend.Array[T]
		if all, err = backend.NewOn[T](b, p*m); err != nil {
			carry.Free()
			return nil, err
		}
		defer all.Free()
		counts, displs := make([]int, p), make([]int, p)
		for q := range counts {
			counts[q], displs[q] = m, q*m
		}
		// On a device, the ranks agree on the local step's outcome
		// before its totals go to MPI (combineStep).
		err = combineStep(x.comm, !b.Device().IsHost(), "Cumsum/Cumprod", step, last)
		if err == nil {
			err = staging.Allgatherv(x.comm, last, all, counts, displs)
		}
		if err == nil && me > 0 && m > 0 {
			// The totals of ranks 0 to me-1, scanned as a me x m block:
			// the last row is the carry.
			r.ScanAxis(nil, carry.Buffer(), all.Slice(0, me*m).Buffer(), nil, 1, me, m, prod)
		}
	}
	if err != nil || me == 0 {
		carry.Free()
		return nil, err
	}
	return carry, nil
}
