package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// Masks are uint8 arrays holding 0 and 1, NumPy's storage of bool arrays
// (a mask saved with Save loads in NumPy as uint8; view it with
// .astype(bool)). Where a mask is read, any nonzero element counts as
// true. The comparisons below make them; Where and Compact use them.
//
// A block on a device is compared, selected and compacted there when its
// backend is a backend.Converter (the CPU backend, the fake device and
// CUDA); on another (one a user registers) the blocks are copied to the
// host and the results back, recorded as the copies they are.

// Less returns the mask of x < y, elementwise. It is collective (the new
// array's allocation is agreed on by every rank).
func Less[T backend.Element](x, y *Array[T]) (*Array[uint8], error) {
	return compare(backend.Less, x, y)
}

// LessEqual returns the mask of x <= y, elementwise. It is collective.
func LessEqual[T backend.Element](x, y *Array[T]) (*Array[uint8], error) {
	return compare(backend.LessEqual, x, y)
}

// Greater returns the mask of x > y, elementwise. It is collective.
func Greater[T backend.Element](x, y *Array[T]) (*Array[uint8], error) {
	return compare(backend.Greater, x, y)
}

// GreaterEqual returns the mask of x >= y, elementwise. It is collective.
func GreaterEqual[T backend.Element](x, y *Array[T]) (*Array[uint8], error) {
	return compare(backend.GreaterEqual, x, y)
}

// Equal returns the mask of x == y, elementwise (0 where either is NaN).
// It is collective.
func Equal[T backend.Element](x, y *Array[T]) (*Array[uint8], error) {
	return compare(backend.Equal, x, y)
}

// NotEqual returns the mask of x != y, elementwise (1 where either is
// NaN, the one comparison with a NaN that holds). It is collective.
func NotEqual[T backend.Element](x, y *Array[T]) (*Array[uint8], error) {
	return compare(backend.NotEqual, x, y)
}

// LessScalar returns the mask of x < s, elementwise. It is collective.
func LessScalar[T backend.Element](x *Array[T], s T) (*Array[uint8], error) {
	return compareScalar(backend.Less, x, s)
}

// LessEqualScalar returns the mask of x <= s, elementwise. It is
// collective.
func LessEqualScalar[T backend.Element](x *Array[T], s T) (*Array[uint8], error) {
	return compareScalar(backend.LessEqual, x, s)
}

// GreaterScalar returns the mask of x > s, elementwise. It is collective.
func GreaterScalar[T backend.Element](x *Array[T], s T) (*Array[uint8], error) {
	return compareScalar(backend.Greater, x, s)
}

// GreaterEqualScalar returns the mask of x >= s, elementwise. It is
// collective.
func GreaterEqualScalar[T backend.Element](x *Array[T], s T) (*Array[uint8], error) {
	return compareScalar(backend.GreaterEqual, x, s)
}

// EqualScalar returns the mask of x == s, elementwise. It is collective.
func EqualScalar[T backend.Element](x *Array[T], s T) (*Array[uint8], error) {
	return compareScalar(backend.Equal, x, s)
}

// NotEqualScalar returns the mask of x != s, elementwise. It is
// collective.
func NotEqualScalar[T backend.Element](x *Array[T], s T) (*Array[uint8], error) {
	return compareScalar(backend.NotEqual, x, s)
}

// compare returns the mask of x op y in a new array.
func compare[T backend.Element](op backend.CompareOp, x, y *Array[T]) (_ *Array[uint8], err error) {
	if x.freed || y.freed {
		return nil, freedCollective("comparison", x.comm)
	}
	sameLayout(op.String(), x, y)
	sameBlockDevice(op.String(), x.local.Device(), y.local.Device())
	if err := check(op.String(), x); err != nil {
		return nil, err
	}
	return newMask(x, func(cc *convCall, m backend.Buffer) error {
		xb, err := input(cc, x.local)
		if err != nil {
			return err
		}
		yb, err := input(cc, y.local)
		if err != nil {
			return err
		}
		cc.conv.Compare(op, m, xb, yb)
		return nil
	})
}

// compareScalar returns the mask of x op s in a new array.
func compareScalar[T backend.Element](op backend.CompareOp, x *Array[T], s T) (*Array[uint8], error) {
	if x.freed {
		return nil, freedCollective("comparison", x.comm)
	}
	if err := check(op.String()+"_scalar", x); err != nil {
		return nil, err
	}
	return newMask(x, func(cc *convCall, m backend.Buffer) error {
		xb, err := input(cc, x.local)
		if err != nil {
			return err
		}
		cc.conv.CompareScalar(op, m, xb, backend.ScalarOf(s))
		return nil
	})
}

// newMask returns a new mask of x's layout on x's backend, set by f; a
// failure on any rank is returned on every rank.
func newMask[T backend.Element](x *Array[T], f func(cc *convCall, m backend.Buffer) error) (*Array[uint8], error) {
	b := x.local.Backend()
	m, err := newOn[uint8](x.comm, x.layout, b)
	if err != nil {
		return nil, err
	}
	cc := newConvCall(b, false)
	err = f(cc, output(cc, m.local))
	if err == nil {
		err = cc.done()
	}
	if err := mpi.Agree(x.comm, err); err != nil {
		m.Free()
		return nil, err
	}
	return m, nil
}

// Where sets dst[i] to a[i] where mask[i] is nonzero and to b[i] elsewhere
// (NumPy's where(mask, a, b)); dst may be a or b. It takes every element
// type, complex included. The arrays and the mask must have one layout and
// their blocks one device. It needs no communication and is not
// collective: an error (of a host copy, on a backend that cannot select on
// its device, or of complex arrays on a backend whose Converter kernels
// are real-only, one that is not a backend.ComplexKernels) is this rank's.
func Where[T backend.Numeric](dst *Array[T], mask *Array[uint8], a, b *Array[T]) error {
	if dst.freed || mask.freed || a.freed || b.freed {
		return freedError("Where")
	}
	sameLayout("Where", dst, a, b)
	sameMaskLayout("Where", dst, mask)
	for _, d := range []backend.Device{mask.local.Device(), a.local.Device(), b.local.Device()} {
		sameBlockDevice("Where", dst.local.Device(), d)
	}
	cc := newConvCall(dst.local.Backend(), isComplex[T]())
	mb, err := input(cc, mask.local)
	if err != nil {
		return err
	}
	ab, err := input(cc, a.local)
	if err != nil {
		return err
	}
	bb, err := input(cc, b.local)
	if err != nil {
		return err
	}
	cc.conv.Where(output(cc, dst.local), mb, ab, bb)
	return cc.done()
}

// Compact returns a new 1-D array, split evenly along its one axis, of the
// elements of x whose mask element is nonzero, in x's global row-major
// order (NumPy's x[mask]). It takes every element type, complex included.
// mask must have x's layout and device; the result is on x's device, empty
// where no mask element is set. It is collective.
//
// Each rank compacts its own block (on the device where the backend is a
// backend.Converter), the ranks' counts are gathered (one small
// all-gather, from which every rank knows its offset, the total, and what
// it sends to and receives from every other rank), and one all-to-all
// moves the elements to their owners, through package staging for device
// blocks (complex blocks on a backend that is not a
// backend.ComplexKernels are compacted on host copies, recorded).
// An array whose row-major order is not its blocks' order (split
// along another axis than 0, or replicated) is first redistributed to a
// split along axis 0.
func Compact[T backend.Numeric](x *Array[T], mask *Array[uint8]) (_ *Array[T], err error) {
	if x.freed || mask.freed {
		return nil, freedCollective("Compact", x.comm)
	}
	sameMaskLayout("Compact", x, mask)
	sameBlockDevice("Compact", x.local.Device(), mask.local.Device())
	if err := check("Compact", x); err != nil {
		return nil, err
	}
	c := x.comm
	me, p := c.Rank(), c.Size()
	if x.layout.axis != 0 && !(x.layout.axis == Replicated && p == 1) {
		rows := NewLayout(x.layout.shape, 0, p)
		xr, err := Redistribute(x, rows)
		if err != nil {
			return nil, err
		}
		defer xr.Free()
		mr, err := Redistribute(mask, rows)
		if err != nil {
			return nil, err
		}
		defer mr.Free()
		x, mask = xr, mr
	}
	b := x.local.Backend()

	// This rank's selected elements, in order, on the device.
	n := x.local.Len()
	sel, err := backend.NewOn[T](b, n)
	var k int
	if err == nil {
		if derr := localStep(func() { k, err = compress(sel, x.local, mask.local) }); derr != nil {
			err = derr
		}
	}
	// A device fault of the compression, or one recorded earlier, fails
	// the call on every rank (mpi.Agree keeps its kind) before the
	// selected elements go to MPI.
	if err == nil {
		err = deviceSync(sel)
	}
	if err := mpi.Agree(c, takeFault(err)); err != nil {
		if sel != nil {
			sel.Free()
		}
		return nil, err
	}
	defer sel.Free()

	counts := make([]int64, p)
	if err := mpi.Allgather(c, []int64{int64(k)}, counts); err != nil {
		return nil, err
	}
	offs := make([]int, p+1)
	for r, v := range counts {
		offs[r+1] = offs[r] + int(v)
	}
	out, err := newOn[T](c, NewLayout([]int{offs[p]}, 0, p), b)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Free()
		}
	}()
	scounts, sdispls := make([]int, p), make([]int, p)
	rcounts, rdispls := make([]int, p), make([]int, p)
	myLo, myHi := out.layout.Range(me)
	for r := 0; r < p; r++ {
		lo, hi := out.layout.Range(r)
		// What this rank's run [offs[me], offs[me+1]) gives rank r.
		if s, e := max(offs[me], lo), min(offs[me+1], hi); s < e {
			scounts[r], sdispls[r] = e-s, s-offs[me]
		}
		// What rank r's run gives this rank.
		if s, e := max(offs[r], myLo), min(offs[r+1], myHi); s < e {
			rcounts[r], rdispls[r] = e-s, s-myLo
		}
	}
	if err := exchanged(staging.Alltoallv(c, sel.Slice(0, k), scounts, sdispls, out.local, rcounts, rdispls)); err != nil {
		return nil, err
	}
	return out, nil
}

// compress sets the first elements of dst (x's length) to the elements of
// x whose mask is set, in order, and returns their count: on the device
// where the backend is a backend.Converter, else on host copies.
func compress[T backend.Numeric](dst, x *backend.Array[T], mask *backend.Array[uint8]) (int, error) {
	cc := newConvCall(x.Backend(), isComplex[T]())
	xb, err := input(cc, x)
	if err != nil {
		return 0, err
	}
	mb, err := input(cc, mask)
	if err != nil {
		return 0, err
	}
	k := cc.conv.Compress(output(cc, dst), xb, mb)
	return k, cc.done()
}

// sameMaskLayout panics unless mask has x's layout and communicator.
func sameMaskLayout[T backend.Numeric](op string, x *Array[T], mask *Array[uint8]) {
	if !x.layout.Equal(mask.layout) {
		panic(fmt.Sprintf("dist: %s: layouts differ: %v and the mask's %v", op, x.layout, mask.layout))
	}
	if x.comm != mask.comm {
		panic(fmt.Sprintf("dist: %s: the mask is on another communicator", op))
	}
}

// sameBlockDevice panics unless two blocks are on one device.
func sameBlockDevice(op string, a, b backend.Device) {
	if a != b {
		panic(fmt.Sprintf("dist: %s: blocks on %v and %v", op, a, b))
	}
}
