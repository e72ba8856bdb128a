package algorithms

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// stableRef is the reference: the stable sorting permutation by
// slices.SortStableFunc with cmp.Compare.
func stableRef[K Key](keys []K) []int {
	perm := make([]int, len(keys))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	return perm
}

// sizes cover both sides of radixThreshold.
var sizes = []int{0, 1, 2, 3, 17, radixThreshold - 1, radixThreshold, radixThreshold + 1, 1000, 5000}

// patterns returns named inputs of length n built from draw, which returns
// a random key.
func patterns[K Key](n int, r *rand.Rand, draw func(r *rand.Rand) K) map[string][]K {
	random := make([]K, n)
	for i := range random {
		random[i] = draw(r)
	}
	// Many duplicates: a handful of distinct values.
	dups := make([]K, n)
	pool := []K{draw(r), draw(r), draw(r), draw(r)}
	for i := range dups {
		dups[i] = pool[r.IntN(len(pool))]
	}
	sorted := slices.Clone(random)
	slices.SortStableFunc(sorted, cmp.Compare)
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	equal := make([]K, n)
	if n > 0 {
		v := draw(r)
		for i := range equal {
			equal[i] = v
		}
	}
	return map[string][]K{"random": random, "duplicates": dups, "sorted": sorted, "reversed": reversed, "equal": equal}
}

// checkArgsort compares Argsort, both internal paths and SortByKey with the
// reference on every pattern and size.
func checkArgsort[K Key](t *testing.T, name string, draw func(r *rand.Rand) K) {
	t.Run(name, func(t *testing.T) {
		r := rand.New(rand.NewPCG(uint64(len(name)), 7))
		for _, n := range sizes {
			for pname, keys := range inKeyOrder(patterns(n, r, draw)) {
				orig := slices.Clone(keys)
				want := stableRef(keys)
				if got := Argsort(keys); !slices.Equal(got, want) {
					t.Errorf("n=%d %s: Argsort differs from the stable reference\ngot  %v\nwant %v", n, pname, head(got), head(want))
				}
				if !slices.EqualFunc(keys, orig, sameBits) {
					t.Errorf("n=%d %s: Argsort modified its keys", n, pname)
				}
				if n > 0 {
					for _, path := range []struct {
						name string
						f    func([]int, []K)
					}{{"radix", argsortRadix[K]}, {"compare", argsortCompare[K]}} {
						got := make([]int, n)
						path.f(got, keys)
						if !slices.Equal(got, want) {
							t.Errorf("n=%d %s: %s path differs from the stable reference", n, pname, path.name)
						}
					}
				}
				sorted := slices.Clone(keys)
				perm := SortByKey(sorted)
				if !slices.Equal(perm, want) {
					t.Errorf("n=%d %s: SortByKey permutation differs", n, pname)
				}
				for i, j := range perm {
					if !sameBits(sorted[i], orig[j]) {
						t.Fatalf("n=%d %s: sorted[%d] = %v, want keys[perm[%d]] = %v", n, pname, i, sorted[i], i, orig[j])
					}
				}
			}
		}
	})
}

func head(p []int) []int { return p[:min(len(p), 20)] }

// sameBits compares keys by their bits, so that -0 differs from +0 and
// NaN equals NaN.
func sameBits[K Key](a, b K) bool {
	return fmt.Sprintf("%b", a) == fmt.Sprintf("%b", b) && cmp.Compare(a, b) == 0
}

type cellID int64

func TestArgsort(t *testing.T) {
	specials64 := []float64{math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1, -1}
	checkArgsort(t, "int32", func(r *rand.Rand) int32 { return int32(r.Uint32()) })
	checkArgsort(t, "int32 small", func(r *rand.Rand) int32 { return int32(r.IntN(21)) - 10 })
	checkArgsort(t, "int64", func(r *rand.Rand) int64 { return int64(r.Uint64()) })
	checkArgsort(t, "int64 near min", func(r *rand.Rand) int64 { return math.MinInt64 + int64(r.IntN(1000)) })
	checkArgsort(t, "int64 extremes", func(r *rand.Rand) int64 {
		return []int64{math.MinInt64, math.MaxInt64, -1, 0, 1}[r.IntN(5)]
	})
	checkArgsort(t, "int64 high bits", func(r *rand.Rand) int64 { return int64(r.IntN(4)) << 60 })
	checkArgsort(t, "uint32", func(r *rand.Rand) uint32 { return r.Uint32() })
	checkArgsort(t, "uint64", func(r *rand.Rand) uint64 { return r.Uint64() })
	checkArgsort(t, "uint64 extremes", func(r *rand.Rand) uint64 { return []uint64{0, math.MaxUint64, 1 << 63}[r.IntN(3)] })
	checkArgsort(t, "int", func(r *rand.Rand) int { return r.IntN(1<<20) - 1<<19 })
	checkArgsort(t, "uint", func(r *rand.Rand) uint { return uint(r.Uint64()) })
	checkArgsort(t, "named int64", func(r *rand.Rand) cellID { return cellID(r.IntN(100)) })
	checkArgsort(t, "float64", func(r *rand.Rand) float64 { return r.NormFloat64() * 1e3 })
	checkArgsort(t, "float64 specials", func(r *rand.Rand) float64 {
		if r.IntN(2) == 0 {
			return specials64[r.IntN(len(specials64))]
		}
		return r.NormFloat64()
	})
	checkArgsort(t, "float32", func(r *rand.Rand) float32 { return float32(r.NormFloat64()) })
	checkArgsort(t, "float32 specials", func(r *rand.Rand) float32 {
		if r.IntN(2) == 0 {
			return float32(specials64[r.IntN(len(specials64))])
		}
		return float32(r.NormFloat64())
	})
}

func TestArgsortFloatOrder(t *testing.T) {
	negZero := math.Copysign(0, -1)
	nan := math.NaN()
	keys := []float64{1, 0, nan, math.Inf(-1), negZero, math.Inf(1), -nan, -1}
	// cmp.Compare order: NaNs first in input order, then -Inf, -1, the two
	// zeros in input order, 1, +Inf.
	want := []int{2, 6, 3, 7, 1, 4, 0, 5}
	for _, n := range []int{0, radixThreshold} {
		// Pad with +Inf after the keys to reach the radix path.
		k := slices.Clone(keys)
		for len(k) < n {
			k = append(k, math.Inf(1))
		}
		got := Argsort(k)[:len(keys)]
		if !slices.Equal(got, want) {
			t.Errorf("len %d: Argsort = %v, want %v", len(k), got, want)
		}
	}
}

func TestArgsortDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	keys := make([]float64, 50000)
	for i := range keys {
		keys[i] = float64(r.IntN(1000)) - 500.5
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	one := Argsort(keys)
	runtime.GOMAXPROCS(max(2, prev))
	if two := Argsort(keys); !slices.Equal(one, two) {
		t.Error("Argsort depends on GOMAXPROCS")
	}
}

func TestGatherAndApplyPermutation(t *testing.T) {
	keys := []int32{3, 1, 2, 1}
	xs := []string{"a", "b", "c", "d"}
	ys := []float64{10, 11, 12, 13}
	perm := SortByKey(keys)
	if want := []int{1, 3, 2, 0}; !slices.Equal(perm, want) {
		t.Fatalf("SortByKey perm = %v, want %v", perm, want)
	}
	dst := make([]string, 4)
	Gather(dst, xs, perm)
	ApplyPermutation(ys, perm)
	if want := []string{"b", "d", "c", "a"}; !slices.Equal(dst, want) {
		t.Errorf("Gather = %v, want %v", dst, want)
	}
	if want := []float64{11, 13, 12, 10}; !slices.Equal(ys, want) {
		t.Errorf("ApplyPermutation = %v, want %v", ys, want)
	}
	// Gather with fewer indices than src, as with MaskIndex.
	sel := make([]string, 2)
	Gather(sel, xs, []int{0, 2})
	if want := []string{"a", "c"}; !slices.Equal(sel, want) {
		t.Errorf("Gather subset = %v, want %v", sel, want)
	}
	mustPanic(t, "algorithms: Gather", func() { Gather(dst[:3], xs, perm) })
	mustPanic(t, "algorithms: Gather", func() { Gather(xs[1:], xs, perm[:3]) })
	mustPanic(t, "algorithms: ApplyPermutation", func() { ApplyPermutation(ys[:3], perm) })
}
