package driver

// AxisReducer is implemented by a backend that reduces a block along one
// axis on its own device, so that dist's axis reductions of a device array
// stay on the device. A block is viewed as pre x n x post elements in
// row-major order, reduced over the middle index k; results have pre*post
// elements, [i][j] at i*post+j.
//
// The CPU backend, the fake device and CUDA implement it (and
// ComplexKernels, so SumAxis and CastSums take complex buffers too); a
// backend that does not has the block copied to the host for the
// reduction, recorded as the copy it is, and so has a complex block on a
// backend that is not also a ComplexKernels. ExtremeAxis and
// CombineExtremes take the real (ordered) types only.
type AxisReducer interface {
	// SumAxis sets dst[i][j] to the sum over k of src[i][k][j], or of its
	// square if squares. For floating-point src, dst is a Float64 buffer
	// and the sum is taken in float64 in the order of k; for integers, dst
	// has src's type and the sum wraps. For complex src (on a backend that
	// is also a ComplexKernels; squares is then false), dst is a Complex128
	// buffer and each part is summed in float64 in the order of k.
	SumAxis(dst, src Buffer, pre, n, post int, squares bool)
	// CastSums sets dst (floating-point) to the float64 sums of acc, or to
	// their square roots if sqrt; a complex dst to the Complex128 sums of
	// acc rounded to its type (sqrt false).
	CastSums(dst, acc Buffer, sqrt bool)
	// ExtremeAxis sets vals[i][j] (src's type) and idx[i][j] (Int64) to
	// the first smallest (largest, if max) of src[i][k][j] over k and
	// offset+k, in the order of algorithms.Better; -1 and a zero where n
	// is 0.
	ExtremeAxis(vals, idx, src Buffer, pre, n, post int, offset int64, max bool)
	// CombineExtremes sets vals and idx (m elements each) to the best of p
	// partial results, allVals and allIdx (p x m, one row per part), in the
	// order of algorithms.Better.
	CombineExtremes(vals, idx, allVals, allIdx Buffer, p int, max bool)
}
