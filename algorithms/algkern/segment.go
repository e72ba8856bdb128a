package algkern

import (
	"fmt"
	"math"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// Number is the set of element types of SegmentSum and Compact.
type Number interface {
	float32 | float64 | int32 | int64 | uint32 | uint64
}

// Key is the set of key types of SegmentSum.
type Key interface {
	int32 | int64
}

// numberTypes are the variants of the kernels over Number.
var numberTypes = []backend.DType{backend.Float32, backend.Float64, backend.Int32, backend.Int64, backend.Uint32, backend.Uint64}

// segmentSource is the CUDA source of segment_sum_i32 and
// segment_sum_i64. Thread t (a grid-stride loop over nseg*width)
// computes output element t = k*width + j: the rows of segment k are
// [lo(k), lo(k+1)), lo(k) the first row whose key is >= k by a binary
// search of the sorted keys, and it adds their column j in increasing row
// order, from zero, serially: algorithms.SegmentSum's order, so that
// float sums have its bits. Signed integers add in their unsigned type
// (wrapping as Go's do, where C's signed overflow is undefined).
const segmentSource = `
template <typename X> struct alg_acc { typedef X type; };
template <> struct alg_acc<int> { typedef unsigned int type; };
template <> struct alg_acc<long long> { typedef unsigned long long type; };

// alg_lower_bound is the first i in [0, n) with keys[i] >= k, or n.
template <typename K> __device__ long long alg_lower_bound(const K *keys, long long n, long long k)
{
	long long lo = 0, hi = n;
	while (lo < hi) {
		long long mid = lo + (hi - lo) / 2;
		if ((long long)keys[mid] < k) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

template <typename K>
__device__ void alg_segment_sum(long long nrows, long long nseg, long long width, const K *keys, const T *values, T *out)
{
	typedef typename alg_acc<T>::type A;
	long long total = nseg * width;
	for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
		long long k = t / width, j = t - k * width;
		long long lo = alg_lower_bound(keys, nrows, k), hi = alg_lower_bound(keys, nrows, k + 1);
		A s = 0;
		for (long long i = lo; i < hi; i++) {
			s += (A)values[i * width + j];
		}
		out[t] = (T)s;
	}
}

extern "C" __global__ void segment_sum_i32(long long nrows, long long nseg, long long width,
	const int *keys, const T *values, T *__restrict__ out)
{
	alg_segment_sum<int>(nrows, nseg, width, keys, values, out);
}

extern "C" __global__ void segment_sum_i64(long long nrows, long long nseg, long long width,
	const long long *keys, const T *values, T *__restrict__ out)
{
	alg_segment_sum<long long>(nrows, nseg, width, keys, values, out);
}
`

// The segment sum kernels, registered in kernels.Default.
var (
	segmentSum32Kernel = kernels.MustNew(kernels.Spec{
		Name:   "segment_sum_i32",
		Doc:    "sums of rows by sorted int32 key, in row order (algkern.SegmentSum, algorithms.SegmentSum)",
		CUDA:   segmentSource,
		Host:   segmentSumHost,
		Types:  numberTypes,
		Parity: segmentCases(backend.Int32),
	})
	segmentSum64Kernel = kernels.MustNew(kernels.Spec{
		Name:   "segment_sum_i64",
		Doc:    "sums of rows by sorted int64 key, in row order (algkern.SegmentSum, algorithms.SegmentSum)",
		CUDA:   segmentSource,
		Host:   segmentSumHost,
		Types:  numberTypes,
		Parity: segmentCases(backend.Int64),
	})
)

// lowerBound is alg_lower_bound: the first i with keys[i] >= k by the
// same binary search (so that host and device agree on any keys).
func lowerBound[K Key](keys []K, k int64) int {
	lo, hi := 0, len(keys)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if int64(keys[mid]) < k {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// segmentSumRows is the host implementation's arithmetic: for each
// segment k the rows [lowerBound(k), lowerBound(k+1)), added into out
// from zero in increasing row order (each output element's additions are
// those of the CUDA kernel, in its order).
func segmentSumRows[T Number, K Key](out []T, keys []K, values []T, nseg, width int) {
	clear(out[:nseg*width])
	lo := lowerBound(keys, 0)
	for k := range nseg {
		hi := lowerBound(keys, int64(k)+1)
		dst := out[k*width : (k+1)*width]
		for i := lo; i < hi; i++ {
			for j, v := range values[i*width : (i+1)*width] {
				dst[j] += v
			}
		}
		lo = hi
	}
}

// segmentSumKeys dispatches on the key type.
func segmentSumKeys[T Number](c *kernels.HostCall) {
	nrows, nseg, width := kernels.IntAt(c, 0), kernels.IntAt(c, 1), kernels.IntAt(c, 2)
	values, out := kernels.In[T](c, 4)[:nrows*width], kernels.Out[T](c, 5)
	if strings.HasPrefix(c.Kernel(), "segment_sum_i32") { // or a test's renamed copy
		segmentSumRows(out, kernels.In[int32](c, 3)[:nrows], values, nseg, width)
	} else {
		segmentSumRows(out, kernels.In[int64](c, 3)[:nrows], values, nseg, width)
	}
}

func segmentSumHost(c *kernels.HostCall) error {
	switch c.DType() {
	case backend.Float32:
		segmentSumKeys[float32](c)
	case backend.Float64:
		segmentSumKeys[float64](c)
	case backend.Int32:
		segmentSumKeys[int32](c)
	case backend.Int64:
		segmentSumKeys[int64](c)
	case backend.Uint32:
		segmentSumKeys[uint32](c)
	case backend.Uint64:
		segmentSumKeys[uint64](c)
	default:
		return fmt.Errorf("no host implementation for %v", c.DType())
	}
	return nil
}

// SegmentSum sums rows of values by sorted key. values holds len(keys)
// rows of width elements and out holds n = out.Len()/width rows; it sets
//
//	out[k*width+j] = sum of values[i*width+j] over the rows i with keys[i] == k
//
// for every k in [0, n) and j in [0, width): out is overwritten, and a
// segment with no rows is zero. Rows whose key is negative or n or more
// are dropped (algorithms.SegmentSum panics for the latter).
//
// The keys must be in ascending order. On host arrays unsorted keys
// panic; on a device they are not checked (that would be a pass and a
// copy to the host) and give sums that are unspecified, though the same
// on the host and every device (each segment is the run of rows that a
// binary search for its key finds).
//
// Each output element adds its rows in increasing row order, from zero,
// serially: algorithms.SegmentSum's order, so that the result has its bits
// for every element type, on the host and on every device, and no atomics
// make it depend on timing. On a CUDA device that is one thread per
// output element (kernels segment_sum_i32 and segment_sum_i64,
// after two binary searches for its segment's rows): a segment of many
// rows is added by one thread, the price of the serial order.
//
// It runs where its arrays are (see MortonKeys2) and is not collective. It
// panics if width < 1, if out.Len() is not a multiple of width, if
// values.Len() != keys.Len()*width, if out and values share memory, or
// (on the host) if the keys are not sorted; arrays on different devices,
// or a failed launch, are an error.
func SegmentSum[T Number, K Key](out *backend.Array[T], keys *backend.Array[K], values *backend.Array[T], width int) error {
	if width < 1 {
		panic(fmt.Sprintf("algkern: SegmentSum width %d < 1", width))
	}
	if out.Len()%width != 0 {
		panic(fmt.Sprintf("algkern: SegmentSum out length %d is not a multiple of width %d", out.Len(), width))
	}
	if values.Len() != keys.Len()*width {
		panic(fmt.Sprintf("algkern: SegmentSum values length %d != %d keys * width %d", values.Len(), keys.Len(), width))
	}
	if overlaps(out.Buffer(), values.Buffer()) {
		panic("algkern: SegmentSum out and values share memory")
	}
	if keys.Device().IsHost() {
		ks := keys.Data()
		for i := 1; i < len(ks); i++ {
			if ks[i] < ks[i-1] {
				panic(fmt.Sprintf("algkern: SegmentSum keys not sorted at %d: %d > %d", i, ks[i-1], ks[i]))
			}
		}
	}
	nseg := out.Len() / width
	if nseg == 0 {
		return nil
	}
	k := segmentSum64Kernel
	if backend.DTypeOf[K]() == backend.Int32 {
		k = segmentSum32Kernel
	}
	return k.Launch(kernels.Config{N: nseg * width}, kernels.Int(keys.Len()), kernels.Int(nseg), kernels.Int(width),
		kernels.Array(keys), kernels.Array(values), kernels.Array(out))
}

// overlaps reports whether two non-empty buffers share memory.
func overlaps(a, b backend.Buffer) bool {
	if a.Len() == 0 || b.Len() == 0 {
		return false
	}
	pa, pb := uintptr(a.Ptr()), uintptr(b.Ptr())
	na, nb := uintptr(a.Len()*a.DType().Size()), uintptr(b.Len()*b.DType().Size())
	return pa < pb+nb && pb < pa+na
}

// segmentCases are the parity cases of a segment sum kernel with keys of
// type kt.
func segmentCases(kt backend.DType) []kernels.ParityCase {
	mk := func(name string, keys []float64, nseg, width int) kernels.ParityCase {
		return kernels.ParityCase{Name: name, Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
			nrows := len(keys)
			vals := make([]float64, nrows*width)
			for i := range vals {
				// Values whose float sums depend on the order, NaN and
				// infinities, and integers that wrap.
				switch i % 41 {
				case 7:
					vals[i] = math.NaN()
				case 19:
					vals[i] = math.Inf(1 - 2*(i%2))
				case 23:
					vals[i] = math.MaxInt32
				default:
					vals[i] = math.Pow(-1.7, float64(i%29)) * (1 + float64(i)*1e-7)
				}
				if dt != backend.Float32 && dt != backend.Float64 {
					if math.IsNaN(vals[i]) || math.IsInf(vals[i], 0) {
						vals[i] = float64(i)
					}
					if dt == backend.Uint32 || dt == backend.Uint64 {
						vals[i] = math.Abs(vals[i])
					}
				}
			}
			a := &args{b: b}
			a.add(kernels.Int(nrows))
			a.add(kernels.Int(nseg))
			a.add(kernels.Int(width))
			a.array(kt, keys)
			a.array(dt, vals)
			out := make([]float64, nseg*width)
			for i := range out {
				out[i] = 99 // overwritten, also where a segment is empty
			}
			a.array(dt, out)
			return a.out, kernels.Config{N: nseg * width}, a.err
		}}
	}
	// Sorted keys with negative ones (dropped), empty segments, runs of
	// many rows, and keys past the last segment (dropped).
	sorted := func(n, nseg int) []float64 {
		ks := make([]float64, n)
		for i := range ks {
			ks[i] = math.Floor(float64(i)*float64(nseg+3)/float64(n)) - 2
			if k := int(ks[i]); k >= 0 && k%5 == 3 {
				ks[i]-- // segment 3, 8, ... empty
			}
		}
		return ks
	}
	unsorted := make([]float64, 60)
	for i := range unsorted {
		unsorted[i] = float64((i*37)%11 - 2)
	}
	return []kernels.ParityCase{
		mk("1001 rows, 77 segments", sorted(1001, 77), 77, 1),
		mk("333 rows of 3, 40 segments", sorted(333, 40), 40, 3),
		mk("one row", []float64{0}, 2, 2),
		mk("no rows", nil, 5, 1),
		mk("all rows dropped", []float64{-3, -1, 9, 9}, 4, 1),
		mk("one segment of 5000 rows", make([]float64, 5000), 1, 1),
		mk("unsorted keys: unspecified but equal", unsorted, 8, 2),
	}
}
