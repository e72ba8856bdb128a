package disttest

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
)

// The sets and order statistics of issue 32 (Unique, Argsort, Searchsorted, Median, Percentile, Quantile).
//
// Each function returns the operations of its set of element types; the
// suites in ops.go concatenate them with the others.

func orderNumericOps[T backend.Numeric]() []op[T] { return nil }

// orderElementOps: the operations take the real element types (as Sort
// does); every layout gives a value.
func orderElementOps[T backend.Element]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }

	add(op[T]{fn: "Unique", variant: "counts,inverse", family: "order", run: func(in *input[T]) error {
		vals, counts, inverse := refUnique(in.gx)
		r, err := dist.UniqueWithOptions(in.x, dist.UniqueOptions{Counts: true, Inverse: true})
		if err != nil {
			return opErr(err)
		}
		defer r.Counts.Free()
		defer r.Inverse.Free()
		if err := result(in, r.Values, nil, []int{len(vals)}, vals, 0); err != nil {
			return fmt.Errorf("values: %w", err)
		}
		if err := checkArr(in.rank, r.Counts, []int{len(vals)}, counts, 0); err != nil {
			return fmt.Errorf("counts: %w", err)
		}
		if err := checkArr(in.rank, r.Inverse, in.shape, inverse, 0); err != nil {
			return fmt.Errorf("inverse: %w", err)
		}
		return nil
	}})

	for _, ax := range axisVariants() {
		v := fmt.Sprintf("axis=%d", ax)
		add(op[T]{fn: "Argsort", variant: v, family: "order", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.Argsort(in.x, ax)
			return result(in, d, err, in.shape, refArgsort(in.gx, in.shape, normAxis(ax, len(in.shape))), 0)
		}})
	}

	for _, side := range []dist.Side{dist.SideLeft, dist.SideRight} {
		add(op[T]{fn: "Searchsorted", variant: "side=" + side.String(), family: "order", run: func(in *input[T]) error {
			// a: y's elements sorted, 1-D, in the layout kind where it
			// applies to a 1-D shape (split along axis 0 otherwise); v: x.
			sorted := slices.Clone(in.gy)
			slices.Sort(sorted)
			a, err := dist.FromFunc(in.c, []int{len(sorted)}, func(idx []int) T { return sorted[idx[0]] }, in.opts([]int{len(sorted)})...)
			if err != nil {
				return fmt.Errorf("making a: %v", err)
			}
			defer a.Free()
			want := refMap(in.gx, func(w T) int64 {
				if side == dist.SideLeft {
					return int64(sortSearch(sorted, func(e T) bool { return e >= w }))
				}
				return int64(sortSearch(sorted, func(e T) bool { return e > w }))
			})
			d, err := dist.Searchsorted(a, in.x, side)
			return result(in, d, err, in.shape, want, 0)
		}})
	}

	full := func(name string, f func(x *dist.Array[T]) (float64, error), r func([]T) float64) op[T] {
		return op[T]{fn: name, family: "order", run: func(in *input[T]) error {
			v, err := f(in.x)
			if len(in.gx) == 0 {
				return emptyErr(err)
			}
			return scalar(v, err, r(in.gx), 1e-12)
		}}
	}
	add(full("Median", dist.Median[T], refMedian[T]),
		full("Percentile", func(x *dist.Array[T]) (float64, error) { return dist.Percentile(x, 30, "") },
			func(v []T) float64 { return refQuantile(v, 30.0/100) }),
		full("Quantile", func(x *dist.Array[T]) (float64, error) { return dist.Quantile(x, 0.6, dist.QuantileLinear) },
			func(v []T) float64 { return refQuantile(v, 0.6) }))

	for _, ax := range axisVariants() {
		v := fmt.Sprintf("axis=%d", ax)
		axisOp := func(name string, f func(x *dist.Array[T], ax int) (*dist.Array[float64], error), r func([]T) float64) op[T] {
			return op[T]{fn: name, variant: v, family: "order", applies: hasAxis(ax), run: func(in *input[T]) error {
				d, err := f(in.x, ax)
				a := normAxis(ax, len(in.shape))
				if in.shape[a] == 0 {
					if err == nil {
						d.Free()
					}
					return emptyErr(err)
				}
				want, sh := refAxis(in.gx, in.shape, a, r)
				return result(in, d, err, sh, want, 1e-12)
			}}
		}
		add(axisOp("MedianAxis", dist.MedianAxis[T], refMedian[T]),
			axisOp("PercentileAxis", func(x *dist.Array[T], ax int) (*dist.Array[float64], error) {
				return dist.PercentileAxis(x, 30, ax, "")
			},
				func(v []T) float64 { return refQuantile(v, 30.0/100) }),
			axisOp("QuantileAxis", func(x *dist.Array[T], ax int) (*dist.Array[float64], error) {
				return dist.QuantileAxis(x, 0.6, ax, dist.QuantileLinear)
			}, func(v []T) float64 { return refQuantile(v, 0.6) }))
	}
	return ops
}

// orderFloatOps: the NaN-ignoring quantiles (the matrix's data have no
// NaN: they must agree with the plain ones on every layout).
func orderFloatOps[T backend.Float]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	full := func(name string, f func(x *dist.Array[T]) (float64, error), r func([]T) float64) op[T] {
		return op[T]{fn: name, family: "order", run: func(in *input[T]) error {
			v, err := f(in.x)
			if len(in.gx) == 0 {
				return emptyErr(err)
			}
			return scalar(v, err, r(in.gx), 1e-12)
		}}
	}
	add(full("NanMedian", dist.NanMedian[T], refMedian[T]),
		full("NanPercentile", func(x *dist.Array[T]) (float64, error) { return dist.NanPercentile(x, 30, "") },
			func(v []T) float64 { return refQuantile(v, 30.0/100) }),
		full("NanQuantile", func(x *dist.Array[T]) (float64, error) { return dist.NanQuantile(x, 0.6, "") },
			func(v []T) float64 { return refQuantile(v, 0.6) }))
	for _, ax := range axisVariants() {
		v := fmt.Sprintf("axis=%d", ax)
		axisOp := func(name string, f func(x *dist.Array[T], ax int) (*dist.Array[float64], error), r func([]T) float64) op[T] {
			return op[T]{fn: name, variant: v, family: "order", applies: hasAxis(ax), run: func(in *input[T]) error {
				d, err := f(in.x, ax)
				a := normAxis(ax, len(in.shape))
				if in.shape[a] == 0 {
					if err == nil {
						d.Free()
					}
					return emptyErr(err)
				}
				want, sh := refAxis(in.gx, in.shape, a, r)
				return result(in, d, err, sh, want, 1e-12)
			}}
		}
		add(axisOp("NanMedianAxis", dist.NanMedianAxis[T], refMedian[T]),
			axisOp("NanPercentileAxis", func(x *dist.Array[T], ax int) (*dist.Array[float64], error) {
				return dist.NanPercentileAxis(x, 30, ax, "")
			},
				func(v []T) float64 { return refQuantile(v, 30.0/100) }),
			axisOp("NanQuantileAxis", func(x *dist.Array[T], ax int) (*dist.Array[float64], error) {
				return dist.NanQuantileAxis(x, 0.6, ax, "")
			},
				func(v []T) float64 { return refQuantile(v, 0.6) }))
	}

	// Sort and SortWithIndex of x with NaN where x < 0: NumPy's order puts
	// the NaNs last, in the order of their indices (the sort is stable).
	nan := func(in *input[T]) (*dist.Array[T], []T, error) { return withSpecial(in, T(math.NaN())) }
	add(op[T]{fn: "Sort", variant: "with NaN", family: "sort", applies: dims(1), run: func(in *input[T]) error {
		return withSource(in, nan, func(x *dist.Array[T], g []T) error {
			want := slices.Clone(g)
			slices.SortStableFunc(want, npOrder[T])
			d, err := dist.Sort(x)
			return result(in, d, err, in.shape, want, 0)
		})
	}}, op[T]{fn: "SortWithIndex", variant: "with NaN", family: "sort", applies: dims(1), run: func(in *input[T]) error {
		return withSource(in, nan, func(x *dist.Array[T], g []T) error {
			perm := make([]int64, len(g))
			for i := range perm {
				perm[i] = int64(i)
			}
			slices.SortStableFunc(perm, func(a, b int64) int { return npOrder(g[a], g[b]) })
			want := make([]T, len(g))
			for i, j := range perm {
				want[i] = g[j]
			}
			s, p, err := dist.SortWithIndex(x)
			if err != nil {
				return opErr(err)
			}
			if err := result(in, s, nil, in.shape, want, 0); err != nil {
				p.Free()
				return err
			}
			return result(in, p, nil, in.shape, perm, 0)
		})
	}})
	return ops
}

// npOrder compares as numpy.sort orders: ascending, -0 equal to +0, the
// NaNs last and equal to each other.
func npOrder[T backend.Element](a, b T) int {
	switch an, bn := a != a, b != b; {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

func orderComplexOps[T backend.Complex]() []op[T] { return nil }

// The serial references of the order operations (the matrix's data have
// no NaN: NumPy's order is cmp.Compare's there).

// refUnique: the sorted distinct values, their counts, and each element's
// index among them.
func refUnique[T backend.Element](g []T) (vals []T, counts, inverse []int64) {
	vals = slices.Clone(g)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	counts = make([]int64, len(vals))
	inverse = make([]int64, len(g))
	for i, v := range g {
		k, _ := slices.BinarySearch(vals, v)
		inverse[i] = int64(k)
		counts[k]++
	}
	return vals, counts, inverse
}

// refArgsort: the stable argsort of every line along axis.
func refArgsort[T backend.Element](g []T, shape []int, axis int) []int64 {
	outer, n, inner := geom(shape, axis)
	out := make([]int64, len(g))
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			perm := make([]int, n)
			for k := range perm {
				perm[k] = k
			}
			slices.SortStableFunc(perm, func(a, b int) int {
				return cmp.Compare(g[(o*n+a)*inner+i], g[(o*n+b)*inner+i])
			})
			for k, p := range perm {
				out[(o*n+k)*inner+i] = int64(p)
			}
		}
	}
	return out
}

// sortSearch is the first index of s where f holds (f holds on a suffix).
func sortSearch[T any](s []T, f func(T) bool) int {
	for i, v := range s {
		if f(v) {
			return i
		}
	}
	return len(s)
}

func sortedFloats[T backend.Element](v []T) []float64 {
	s := make([]float64, len(v))
	for i, x := range v {
		s[i] = float64(x)
	}
	slices.Sort(s)
	return s
}

// refMedian: NumPy's median: the middle element, or the mean of the two.
func refMedian[T backend.Element](v []T) float64 {
	s := sortedFloats(v)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// refQuantile: NumPy's linear quantile: index (n-1)q, interpolated as
// NumPy's _lerp.
func refQuantile[T backend.Element](v []T, q float64) float64 {
	s := sortedFloats(v)
	n := len(s)
	x := float64(n-1) * q
	if x >= float64(n-1) {
		return s[n-1]
	}
	lo := math.Floor(x)
	t := x - lo
	a, b := s[int(lo)], s[int(lo)+1]
	if t >= 0.5 {
		return b - (b-a)*(1-t)
	}
	return a + (b-a)*t
}
