package driver

// StatsReducer is implemented by a backend that computes the statistics of
// dist (Mean, Var, Prod, Any, All, Histogram, Cumsum, Cumprod and their
// axis forms) on its own device, so that a device array's elements stay on
// the device. As for AxisReducer, a block is viewed as pre x n x post
// elements in row-major order, reduced or scanned over the middle index k;
// per-line results have pre*post elements, [i][j] at i*post+j.
//
// The CPU backend, the fake device and CUDA implement it (and
// ComplexKernels, so ScanAxis takes complex buffers too); a backend that
// does not has the block copied to the host for these operations and the
// results copied back, recorded as the copies they are, and so has a
// complex block for ScanAxis on a backend that is not also a
// ComplexKernels.
type StatsReducer interface {
	// Moments returns the moments of x's elements, each converted to
	// float64, computed in two passes in float64: sum, their sum; dev, the
	// sum of their deviations from mean = sum/len(x) (a correction: the
	// exact mean is nearer mean + dev/len(x)); and m2, the sum of their
	// squared deviations from the mean, corrected by dev (the corrected
	// two-pass algorithm of Chan, Golub and LeVeque): m2 = sum((x-mean)^2)
	// - dev^2/len(x). All are 0 for an empty x. The order of summation is
	// fixed: it does not depend on the thread count.
	Moments(x Buffer) (sum, dev, m2 float64)
	// MomentsAxis sets mom (Float64, 3*pre*post elements: the sums, then
	// the devs, then the m2s, each [i][j] at i*post+j) to the Moments of
	// each line src[i][.][j], summed in the order of k (0, 0 and 0 where
	// n is 0).
	MomentsAxis(mom, src Buffer, pre, n, post int)
	// CombineMoments sets mom (Float64, 3*m elements laid out as
	// MomentsAxis's) to the moments of the union of p parts whose moments
	// are the rows of all (p x 3*m, one row per part, laid out as mom),
	// part q holding counts[q] elements of every line: the sums added in
	// the order of q, the m2s combined part by part in the order of q with
	// Chan et al.'s pairwise formula, the difference of two parts' means
	// taken as the difference of their sum/count plus that of their
	// dev/count corrections (so that a large mean costs no precision);
	// empty parts are skipped. The combined devs are unspecified: sum
	// and m2 are the results.
	CombineMoments(mom, all Buffer, counts []int)
	// Prod returns the product of x's elements, taken in order: a Float64
	// scalar (accumulated in float64) for floating-point x, an Int64 or
	// Uint64 scalar that wraps for integers; 1 for an empty x.
	Prod(x Buffer) Scalar
	// CountNonzero returns the number of elements of x that are not zero;
	// a NaN is not zero.
	CountNonzero(x Buffer) int
	// Histogram adds to counts (len(counts) equal-width bins over
	// [lo, hi], lo < hi, both finite) the number of elements of x in each
	// bin, with NumPy's rule: bin i is [edge[i], edge[i+1]) with
	// edge[i] = lo + i*((hi-lo)/bins) and edge[bins] = hi, the last bin
	// also holds hi, and elements outside [lo, hi] or NaN are not counted.
	// Elements are converted to float64 first.
	Histogram(counts []int64, x Buffer, lo, hi float64)
	// ScanAxis sets dst[i][k][j] (src's type) to the running sum (product,
	// if prod) of src[i][0..k][j], accumulated in src's type in the order
	// of k and starting from carry[i][j] (a buffer of pre*post elements of
	// src's type; nil means 0, or 1 for products): dst[i][0][j] =
	// carry[i][j] + src[i][0][j]. Integers wrap. If last is not nil (pre*post
	// elements of src's type), last[i][j] is set to the running value at
	// the end of the line (carry[i][j], or 0 or 1, where n is 0). dst may
	// be nil when only last is wanted. On a backend that is also a
	// ComplexKernels it takes complex buffers too (sums and products in
	// src's type, Go's complex arithmetic).
	ScanAxis(dst, last, src, carry Buffer, pre, n, post int, prod bool)
	// Ratio sets dst[i] (Float64) to num[i]/den (Float64), or to the square
	// root of that if sqrt: the last step of Mean, Var and Std along an axis.
	Ratio(dst, num Buffer, den float64, sqrt bool)
}

// HistogramEdges returns the bins+1 edges of equal-width bins over
// [lo, hi] as numpy.linspace(lo, hi, bins+1) computes them: lo + i*step
// with step = (hi-lo)/bins, and hi itself last.
func HistogramEdges(bins int, lo, hi float64) []float64 {
	edges := make([]float64, bins+1)
	step := (hi - lo) / float64(bins)
	for i := range edges {
		if step == 0 {
			edges[i] = float64(i)/float64(bins)*(hi-lo) + lo
		} else {
			edges[i] = float64(i)*step + lo
		}
	}
	edges[bins] = hi
	return edges
}
