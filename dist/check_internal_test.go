package dist

import (
	"math"
	"testing"
)

// TestHashInts checks that the checking mode's hash of integer arguments
// takes any values (it made a layout of them once, which panicked where
// their product overflowed: Diff with arrays at both ends along an axis
// other than 0, Roll and Pad with large shifts or widths) and tells
// apart what the ranks must agree on.
func TestHashInts(t *testing.T) {
	seen := map[int64][]int{}
	for _, v := range [][]int{
		{}, {0}, {0, 0}, {1}, {-1}, {1, 2}, {2, 1}, {1, -2}, {-1, 2},
		{3, 1, 2, 0, math.MaxInt64 - 1, math.MinInt64 + 5},
		{3, 1, 2, 5, math.MaxInt64 - 1, math.MinInt64 + 5},
		{math.MaxInt, math.MaxInt, math.MaxInt}, {math.MinInt, math.MaxInt},
	} {
		h := hashInts(v...)
		if h != hashInts(v...) {
			t.Errorf("hashInts(%v) differs between two calls", v)
		}
		if w, ok := seen[h]; ok {
			t.Errorf("hashInts(%v) = hashInts(%v) = %d", v, w, h)
		}
		seen[h] = v
	}
}
