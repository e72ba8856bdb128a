package algorithms

import (
	"cmp"
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
