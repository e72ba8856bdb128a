package algorithms

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchKeys returns n keys of each benchmarked kind: int64 spanning 32
// bits, int64 spanning the full 64 bits, and float64 normals.
func benchKeys(n int) (i32span, i64span []int64, f64 []float64) {
	r := rand.New(rand.NewPCG(1, 2))
	i32span, i64span, f64 = make([]int64, n), make([]int64, n), make([]float64, n)
	for i := range n {
		i32span[i] = int64(r.Uint32()) - 1<<31
		i64span[i] = int64(r.Uint64())
		f64[i] = r.NormFloat64()
	}
	return i32span, i64span, f64
}

// BenchmarkArgsort compares the radix sort with the stable comparison sort
// (slices.SortStableFunc on (key, index) pairs) across sizes; it is the
// measurement behind radixThreshold. Run with
//
//	go test -run XXX -bench Argsort -benchtime 200ms ./algorithms/
func BenchmarkArgsort(b *testing.B) {
	for n := 64; n <= 1<<20; n *= 4 {
		i32span, i64span, f64 := benchKeys(n)
		perm := make([]int, n)
		b.Run(fmt.Sprintf("int64span32/n=%d/radix", n), func(b *testing.B) {
			for range b.N {
				argsortRadix(perm, i32span)
			}
		})
		b.Run(fmt.Sprintf("int64span32/n=%d/compare", n), func(b *testing.B) {
			for range b.N {
				argsortCompare(perm, i32span)
			}
		})
		b.Run(fmt.Sprintf("int64span64/n=%d/radix", n), func(b *testing.B) {
			for range b.N {
				argsortRadix(perm, i64span)
			}
		})
		b.Run(fmt.Sprintf("int64span64/n=%d/compare", n), func(b *testing.B) {
			for range b.N {
				argsortCompare(perm, i64span)
			}
		})
		b.Run(fmt.Sprintf("float64/n=%d/radix", n), func(b *testing.B) {
			for range b.N {
				argsortRadix(perm, f64)
			}
		})
		b.Run(fmt.Sprintf("float64/n=%d/compare", n), func(b *testing.B) {
			for range b.N {
				argsortCompare(perm, f64)
			}
		})
	}
}

// BenchmarkSortByKey measures the exported entry point, radix or
// comparison as chosen by radixThreshold, including the in-place gather of
// the keys.
func BenchmarkSortByKey(b *testing.B) {
	for _, n := range []int{1 << 8, 1 << 12, 1 << 16, 1 << 20} {
		keys, _, f64 := benchKeys(n)
		b.Run(fmt.Sprintf("int64/n=%d", n), func(b *testing.B) {
			k := make([]int64, n)
			b.SetBytes(int64(n) * 8)
			for range b.N {
				copy(k, keys)
				SortByKey(k)
			}
		})
		b.Run(fmt.Sprintf("float64/n=%d", n), func(b *testing.B) {
			k := make([]float64, n)
			b.SetBytes(int64(n) * 8)
			for range b.N {
				copy(k, f64)
				SortByKey(k)
			}
		})
	}
}

func BenchmarkSegmentSum(b *testing.B) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(3, 4))
	keys := make([]int64, n)
	values := make([]float64, n*3)
	for i := range keys {
		keys[i] = int64(r.IntN(1000))
	}
	out := make([]float64, 1000*3)
	b.SetBytes(int64(len(values)) * 8)
	for range b.N {
		SegmentSum(out, keys, values, 3)
	}
}

func BenchmarkMortonKeys3(b *testing.B) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(5, 6))
	xs, ys, zs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i], zs[i] = r.Float64(), r.Float64(), r.Float64()
	}
	dst := make([]uint64, n)
	for range b.N {
		MortonKeys3(dst, xs, ys, zs, [3]float64{0, 0, 0}, [3]float64{1, 1, 1}, MaxLevels3)
	}
}
