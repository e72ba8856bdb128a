package dist

import (
	"errors"
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// The reductions are collective. Floating-point sums and dots accumulate
// in float64 on each rank, with a summation whose result does not depend on
// the thread count, and the ranks' partial results are combined by an
// allreduce; integer sums wrap as Go's arithmetic does. Every rank gets the
// same result.

// allreduceAcc combines the per-rank Sum/Dot scalars s of the blocks of
// an array of layout l (Float64 for floats, Int64 or Uint64 for integers,
// Complex128 for complex types) and converts the total to T. derr is the
// failure of the rank's local step on its device (localValue), or nil: a
// rank that failed contributes a count of one in the same message as the
// values (one allreduce of two accumulators, however many ranks failed),
// so that every rank returns an error wrapping backend.ErrDevice, naming
// op, and none waits in a collective for a rank that left. A device fault
// recorded earlier (recordFault) counts as this rank's failure.
func allreduceAcc[T backend.Numeric](c mpi.Comm, l Layout, op string, s backend.Scalar, derr error) (T, error) {
	var zero T
	if l.axis == Replicated {
		if derr != nil {
			return zero, deviceFailure(op, derr, 1)
		}
		return backend.ValueOf[T](s), nil
	}
	derr = takeFault(derr)
	var failed int
	var err error
	switch accType[T]() {
	case backend.Float64:
		var v [2]float64
		v, failed, err = allreduceFlagged(c, s.Float64(), derr, 1.0)
		s = backend.ScalarOf(v[0])
	case backend.Int64:
		var v [2]int64
		v, failed, err = allreduceFlagged(c, s.Int64(), derr, int64(1))
		s = backend.ScalarOf(v[0])
	case backend.Complex128:
		var v [2]complex128
		v, failed, err = allreduceFlagged(c, s.Complex128(), derr, complex128(1))
		s = backend.ScalarOf(v[0])
	default:
		var v [2]uint64
		v, failed, err = allreduceFlagged(c, s.Uint64(), derr, uint64(1))
		s = backend.ScalarOf(v[0])
	}
	if err != nil {
		return zero, err
	}
	if failed > 0 {
		return zero, deviceFailure(op, derr, failed)
	}
	return backend.ValueOf[T](s), nil
}

// accType is the type of the accumulator of Sum and Dot of T (as
// Backend.Sum types it), known on every rank, also on one whose local step
// failed and returned no scalar.
func accType[T backend.Numeric]() backend.DType {
	switch dt := backend.DTypeOf[T](); {
	case dt.IsFloat():
		return backend.Float64
	case dt.IsComplex():
		return backend.Complex128
	case dt.IsSigned():
		return backend.Int64
	}
	return backend.Uint64
}

// allreduceFlagged sums (v, a failure flag: one where derr is not nil)
// over the ranks and returns the sums and the number of ranks that failed.
// A failed rank contributes 0 as its value.
func allreduceFlagged[A float64 | int64 | uint64 | complex128](c mpi.Comm, v A, derr error, one A) ([2]A, int, error) {
	in := [2]A{v, 0}
	if derr != nil {
		in = [2]A{0, one}
	}
	var out [2]A
	if err := mpi.Allreduce(c, in[:], out[:], mpi.Sum); err != nil {
		return out, 0, err
	}
	var failed int
	switch f := any(out[1]).(type) {
	case float64:
		failed = int(f)
	case int64:
		failed = int(f)
	case uint64:
		failed = int(f)
	case complex128:
		failed = int(real(f))
	}
	return out, failed, nil
}

// Sum returns the sum of all elements. Complex sums accumulate their real
// and imaginary parts as float sums do.
func Sum[T backend.Numeric](x *Array[T]) (T, error) {
	if x.freed {
		return 0, freedCollective("Sum", x.comm)
	}
	if err := check("Sum", x); err != nil {
		var zero T
		return zero, err
	}
	s, derr := localValue(func() backend.Scalar { return backend.SumScalar(x.local) })
	return allreduceAcc[T](x.comm, x.layout, "Sum", s, derr)
}

// Dot returns the sum of x[i]*y[i] over all elements. As numpy.dot, it
// does not conjugate complex x: Vdot does.
func Dot[T backend.Numeric](x, y *Array[T]) (T, error) {
	if x.freed || y.freed {
		return 0, freedCollective("Dot", x.comm)
	}
	sameLayout("Dot", x, y)
	if err := check("Dot", x); err != nil {
		var zero T
		return zero, err
	}
	s, derr := localValue(func() backend.Scalar { return backend.DotScalar(x.local, y.local) })
	return allreduceAcc[T](x.comm, x.layout, "Dot", s, derr)
}

// Norm returns the 2-norm of all elements, accumulated in float64; of a
// complex array, the square root of the sum of the squared moduli, as
// numpy.linalg.norm.
func Norm[T backend.Inexact](x *Array[T]) (float64, error) {
	if x.freed {
		return 0, freedCollective("Norm", x.comm)
	}
	if err := check("Norm", x); err != nil {
		return 0, err
	}
	if isComplex[T]() {
		return normComplex(x)
	}
	ls, derr := localValue(func() backend.Scalar { return x.local.Backend().Dot(x.local.Buffer(), x.local.Buffer()) })
	s, err := allreduceAcc[float64](x.comm, x.layout, "Norm", ls, derr)
	if err != nil {
		return 0, err
	}
	return math.Sqrt(s), nil
}

// failedIndex is the index a rank whose local step failed contributes
// to argExtreme's gather: no rank has it (an empty block gives -1).
const failedIndex = math.MinInt64

// argExtreme returns the global flat index and value of the first minimum
// (or maximum) of x. A rank whose local step fails on its device sends
// failedIndex in the gather of the indices, so that every rank returns an
// error wrapping backend.ErrDevice, with no message more.
func argExtreme[T backend.Element](x *Array[T], max bool) (int, T, error) {
	name := "Argmin"
	if max {
		name = "Argmax"
	}
	var zero T
	if err := check(name, x); err != nil {
		return -1, zero, err
	}
	b := x.local.Backend()
	var li int
	var lv backend.Scalar
	derr := localStep(func() {
		if max {
			li, lv = b.Argmax(x.local.Buffer())
		} else {
			li, lv = b.Argmin(x.local.Buffer())
		}
	})
	if x.layout.axis == Replicated {
		if derr != nil {
			return -1, zero, deviceFailure(name, derr, 1)
		}
		return li, backend.ValueOf[T](lv), nil
	}
	derr = takeFault(derr)
	gi := int64(-1)
	var v T
	switch {
	case derr != nil:
		gi = failedIndex
	case li >= 0:
		gi = int64(x.globalFlat(li))
		v = backend.ValueOf[T](lv)
	default:
		v = backend.ValueOf[T](lv)
	}
	p := x.comm.Size()
	vals, idxs := make([]T, p), make([]int64, p)
	if err := mpi.Allgather(x.comm, []T{v}, vals); err != nil {
		return -1, v, err
	}
	if err := mpi.Allgather(x.comm, []int64{gi}, idxs); err != nil {
		return -1, v, err
	}
	if failed := countFailed(idxs); failed > 0 {
		return -1, zero, deviceFailure(name, derr, failed)
	}
	bv, bi := vals[0], idxs[0]
	for r := 1; r < p; r++ {
		if algorithms.Better(vals[r], idxs[r], bv, bi, max) {
			bv, bi = vals[r], idxs[r]
		}
	}
	return int(bi), bv, nil
}

// countFailed returns the number of ranks whose index is failedIndex.
func countFailed(idxs []int64) int {
	n := 0
	for _, i := range idxs {
		if i == failedIndex {
			n++
		}
	}
	return n
}

// globalFlat returns the global row-major index of this rank's local
// element i.
func (a *Array[T]) globalFlat(i int) int {
	start, shape := a.layout.box(a.comm.Rank())
	idx := make([]int, len(shape))
	unravel(i, shape, idx)
	for d := range idx {
		idx[d] += start[d]
	}
	return ravel(idx, a.layout.shape)
}

// ErrEmpty is (wrapped in) the error of a reduction that has no answer on
// an empty array: Min, Max, Argmin, Argmax.
var ErrEmpty = errors.New("empty array")

// ErrFreed is (wrapped in) the error of an operation on an array after
// its Free: backend.ErrFreed, so errors.Is matches either name. Operations
// that return an error return it, at once and before any communication,
// on every rank that calls them with the freed array; those that return
// none panic with an error that wraps it. The message names the operation:
// "dist: Sum of a freed array: array used after Free". See the package
// documentation for arrays freed on some ranks only.
var ErrFreed = backend.ErrFreed

func emptyErr(op string, x interface{ Shape() []int }) error {
	return fmt.Errorf("dist: %s of an array of shape %v: %w", op, x.Shape(), ErrEmpty)
}

// Argmin returns the global row-major index of the first smallest element.
// A NaN counts as smaller than every number. Unravel turns the index into
// a multi-index. On an empty array every rank returns -1 and an error
// wrapping ErrEmpty, as Min does.
func Argmin[T backend.Element](x *Array[T]) (int, error) {
	if x.freed {
		return -1, freedCollective("Argmin", x.comm)
	}
	if x.Len() == 0 {
		return -1, emptyErr("Argmin", x)
	}
	i, _, err := argExtreme(x, false)
	return i, err
}

// Argmax returns the global row-major index of the first largest element.
// A NaN counts as larger than every number. On an empty array every rank
// returns -1 and an error wrapping ErrEmpty, as Max does.
func Argmax[T backend.Element](x *Array[T]) (int, error) {
	if x.freed {
		return -1, freedCollective("Argmax", x.comm)
	}
	if x.Len() == 0 {
		return -1, emptyErr("Argmax", x)
	}
	i, _, err := argExtreme(x, true)
	return i, err
}

// Min returns the smallest element (NaN if any element is NaN). On an
// empty array every rank returns an error wrapping ErrEmpty.
func Min[T backend.Element](x *Array[T]) (T, error) {
	if x.freed {
		return *new(T), freedCollective("Min", x.comm)
	}
	if x.Len() == 0 {
		var zero T
		return zero, emptyErr("Min", x)
	}
	_, v, err := argExtreme(x, false)
	return v, err
}

// Max returns the largest element (NaN if any element is NaN). On an empty
// array every rank returns an error wrapping ErrEmpty.
func Max[T backend.Element](x *Array[T]) (T, error) {
	if x.freed {
		return *new(T), freedCollective("Max", x.comm)
	}
	if x.Len() == 0 {
		var zero T
		return zero, emptyErr("Max", x)
	}
	_, v, err := argExtreme(x, true)
	return v, err
}

// Unravel returns the multi-index of the row-major flat index i in shape.
func Unravel(i int, shape []int) []int {
	if i < 0 || i >= prod(shape) {
		panic(fmt.Sprintf("dist: flat index %d out of range of shape %v", i, shape))
	}
	idx := make([]int, len(shape))
	unravel(i, shape, idx)
	return idx
}
