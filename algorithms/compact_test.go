package algorithms

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, tc := range []struct {
		name string
		n    int
		p    float64 // probability of keeping
	}{{"empty", 0, 0.5}, {"one kept", 1, 1}, {"one dropped", 1, 0}, {"none", 100, 0}, {"all", 100, 1}, {"half", 1000, 0.5}, {"sparse", 1000, 0.05}} {
		mask := make([]bool, tc.n)
		xs := make([]int64, tc.n)
		ys := make([]float32, tc.n)
		var wantX []int64
		var wantY []float32
		for i := range mask {
			mask[i] = r.Float64() < tc.p
			xs[i], ys[i] = int64(i), float32(i)/2
			if mask[i] {
				wantX = append(wantX, xs[i])
				wantY = append(wantY, ys[i])
			}
		}
		// Several arrays by one mask.
		idx := MaskIndex(mask)
		if len(idx) != len(wantX) {
			t.Fatalf("%s: MaskIndex has %d entries, want %d", tc.name, len(idx), len(wantX))
		}
		x2, y2 := slices.Clone(xs), slices.Clone(ys)
		m := CompactByIndex(x2, idx)
		if my := CompactByIndex(y2, idx); m != len(wantX) || my != m {
			t.Fatalf("%s: CompactByIndex counts %d, %d, want %d", tc.name, m, my, len(wantX))
		}
		if !slices.Equal(x2[:m], wantX) || !slices.Equal(y2[:m], wantY) {
			t.Errorf("%s: CompactByIndex kept %v, %v", tc.name, x2[:m], y2[:m])
		}
		// One array directly.
		if m := Compact(mask, xs); m != len(wantX) || !slices.Equal(xs[:m], wantX) {
			t.Errorf("%s: Compact = %d, %v, want %v", tc.name, m, xs[:m], wantX)
		}
	}
	mustPanic(t, "algorithms: Compact mask length", func() { Compact([]bool{true}, []int{1, 2}) })
	a := []int{1, 2, 3}
	mustPanic(t, "algorithms: CompactByIndex", func() { CompactByIndex(a, []int{1, 1}) })
	mustPanic(t, "algorithms: CompactByIndex", func() { CompactByIndex(a, []int{2, 1}) })
	mustPanic(t, "algorithms: CompactByIndex", func() { CompactByIndex(a, []int{0, 3}) })
	mustPanic(t, "algorithms: CompactByIndex", func() { CompactByIndex(a, []int{-1}) })
	if !slices.Equal(a, []int{1, 2, 3}) {
		t.Errorf("CompactByIndex moved elements before panicking: %v", a)
	}
}
