package algorithms

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeRuns merges 0 to 9 sorted runs (odd and even numbers of passes,
// empty runs among them) and compares with a stable sort by key.
func TestMergeRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for runs := 0; runs <= 9; runs++ {
		for _, withIdx := range []bool{false, true} {
			bounds := []int{0}
			var keys []int32
			for k := 0; k < runs; k++ {
				n := r.IntN(6) // empty runs too
				run := make([]int32, n)
				for i := range run {
					run[i] = int32(r.IntN(5))
				}
				slices.Sort(run)
				keys = append(keys, run...)
				bounds = append(bounds, len(keys))
			}
			if runs == 0 {
				bounds = []int{0}
			}
			var idx []int64
			if withIdx {
				idx = make([]int64, len(keys))
				for i := range idx {
					idx[i] = int64(i)
				}
			}
			// The reference: a stable sort of (key, position).
			ref := make([]int, len(keys))
			for i := range ref {
				ref[i] = i
			}
			orig := slices.Clone(keys)
			slices.SortStableFunc(ref, func(a, b int) int { return cmp.Compare(orig[a], orig[b]) })
			dst := make([]int32, len(keys))
			var dstIdx []int64
			if withIdx {
				dstIdx = make([]int64, len(keys))
			}
			MergeRuns(dst, dstIdx, keys, idx, bounds)
			for i, j := range ref {
				if dst[i] != orig[j] || (withIdx && dstIdx[i] != int64(j)) {
					t.Fatalf("runs %d bounds %v: merged %v (indices %v), want the order %v of %v", runs, bounds, dst, dstIdx, ref, orig)
				}
			}
		}
	}
}

func TestCut(t *testing.T) {
	keys := []float64{1, 2, 2, 2, 3}
	// Element i has index 10+i: the 2s have indices 11, 12, 13.
	got := Cut(keys, 10, []float64{2, 2, 2.5}, []int64{12, 14, 0})
	if want := []int{2, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("Cut = %v, want %v", got, want)
	}
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	mustPanic("MergeRuns with bad bounds", func() { MergeRuns(make([]int32, 2), nil, []int32{1, 2}, nil, []int{0, 1}) })
	mustPanic("MergeRuns into a short dst", func() { MergeRuns(make([]int32, 1), nil, []int32{1, 2}, nil, []int{0, 2}) })
	mustPanic("Cut with mismatched splitters", func() { Cut(keys, 0, []float64{1}, nil) })
}

// TestMergeRunsFloat merges runs of float64 keys with and without NaNs
// and zeros of both signs, short and long (the merge without NaNs), and
// wants the bits of a stable sort of the concatenation: -0 and +0, and
// NaNs with different payloads, keep their run order.
func TestMergeRunsFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	special := []float64{math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Copysign(0, -1), 0, -1, 1, 2.5, math.Inf(-1), math.Inf(1)}
	for runs := 1; runs <= 5; runs++ {
		for _, n := range []int{0, 1, 7, 300} {
			for _, nans := range []bool{false, true} {
				bounds := []int{0}
				var keys []float64
				for k := 0; k < runs; k++ {
					run := make([]float64, r.IntN(n+1))
					for i := range run {
						run[i] = special[2+r.IntN(len(special)-2)]
						if nans && r.IntN(4) == 0 {
							run[i] = special[r.IntN(2)]
						}
						if r.IntN(2) == 0 {
							run[i] = float64(r.IntN(7)) / 2
						}
					}
					slices.SortStableFunc(run, cmp.Compare[float64])
					keys = append(keys, run...)
					bounds = append(bounds, len(keys))
				}
				want := slices.Clone(keys)
				slices.SortStableFunc(want, cmp.Compare[float64])
				dst := make([]float64, len(keys))
				MergeRuns(dst, nil, keys, nil, bounds)
				if !sameKeyBits(dst, want) {
					t.Errorf("runs %d of up to %d keys, NaNs %t: merged %v, want %v", runs, n, nans, dst, want)
				}
			}
		}
	}
}
