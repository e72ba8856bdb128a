package fuse

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// ReductionKind is how a reduction combines its elements' values, which
// says how the results of a kernel run on parts of an array (the blocks of
// a distributed array, say) combine into the result for the whole array.
type ReductionKind int

const (
	// KindSum is a Sum or a Dot: the parts' results add.
	KindSum ReductionKind = iota + 1
	// KindMax is a ReduceMax: the largest of the parts' results, NaN if
	// any is NaN.
	KindMax
	// KindMin is a ReduceMin: the smallest of the parts' results, NaN if
	// any is NaN.
	KindMin
)

// String returns "sum", "max" or "min".
func (k ReductionKind) String() string {
	switch k {
	case KindSum:
		return "sum"
	case KindMax:
		return "max"
	case KindMin:
		return "min"
	}
	return fmt.Sprintf("ReductionKind(%d)", int(k))
}

// ReductionKind returns the kind of the reduction called name and the
// type of its result, the DType of what Result.Scalar returns for it:
// Float64 for sums and dots of floats, Int64 or Uint64 for those of signed
// or unsigned integers, the operand's type for maxima and minima. A Sum
// that the compiler turned into a dot product is still of KindSum. It
// panics if the kernel has no such reduction.
func (k *Kernel) ReductionKind(name string) (kind ReductionKind, result backend.DType) {
	i, ok := k.redIdx[name]
	if !ok {
		panic(fmt.Sprintf("fuse: no reduction called %q", name))
	}
	r := &k.reds[i]
	switch r.op {
	case opRMax:
		kind = KindMax
	case opRMin:
		kind = KindMin
	default:
		kind = KindSum
	}
	return kind, r.res
}
