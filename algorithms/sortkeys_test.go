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

// sameKeyBits reports whether a and b hold the same bits, element by element.
func sameKeyBits[K Key](a, b []K) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && (a[i] == a[i] || b[i] == b[i]) { // NaN == NaN here
			return false
		}
		switch x := any(a[i]).(type) {
		case float64:
			if math.Float64bits(x) != math.Float64bits(any(b[i]).(float64)) {
				return false
			}
		case float32:
			if math.Float32bits(x) != math.Float32bits(any(b[i]).(float32)) {
				return false
			}
		}
	}
	return true
}

// checkSortKeys sorts keys with SortKeys in place and with SortKeysTo
// into another slice (with and without work space), and wants the bits
// of slices.SortStableFunc with cmp.Compare, and of SortByKey, with the
// source of SortKeysTo unchanged.
func checkSortKeys[K Key](t *testing.T, name string, keys []K) {
	t.Helper()
	want := slices.Clone(keys)
	slices.SortStableFunc(want, cmp.Compare[K])
	byKey := slices.Clone(keys)
	SortByKey(byKey)
	if !sameKeyBits(byKey, want) {
		t.Errorf("%s (%d keys): SortByKey differs from a stable comparison sort", name, len(keys))
	}
	got := slices.Clone(keys)
	SortKeys(got)
	if !sameKeyBits(got, want) {
		t.Errorf("%s (%d keys): SortKeys differs from a stable comparison sort", name, len(keys))
	}
	for _, withWork := range []bool{false, true} {
		src := slices.Clone(keys)
		dst := make([]K, len(keys))
		var work []K
		if withWork {
			work = make([]K, len(keys)+3)
		}
		SortKeysTo(dst, src, work)
		if !sameKeyBits(dst, want) {
			t.Errorf("%s (%d keys, work %t): SortKeysTo differs from a stable comparison sort", name, len(keys), withWork)
		}
		if !sameKeyBits(src, keys) {
			t.Errorf("%s (%d keys, work %t): SortKeysTo changed its source", name, len(keys), withWork)
		}
		// In place with work space.
		copy(dst, keys)
		SortKeysTo(dst, dst, work)
		if !sameKeyBits(dst, want) {
			t.Errorf("%s (%d keys, work %t): SortKeysTo in place differs from a stable comparison sort", name, len(keys), withWork)
		}
	}
}

// randomKeys returns n keys of type K from random 64-bit words, with only
// the bits of mask set (before the conversion to K).
func randomKeys[K Key](rng *rand.Rand, n int, mask uint64) []K {
	k := make([]K, n)
	for i := range k {
		k[i] = K(rng.Uint64() & mask)
	}
	return k
}

func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 255, 256, 257, 1000, 5000} {
		i64 := make([]int64, n)
		narrow := make([]int64, n)
		u32 := make([]uint32, n)
		i32 := make([]int32, n)
		f64 := make([]float64, n)
		f32 := make([]float32, n)
		same := make([]float64, n)
		unif := make([]float64, n)
		for i := range n {
			i64[i] = int64(rng.Uint64())
			narrow[i] = -1000 + rng.Int64N(3000) // a span under 32 bits, negative too
			u32[i] = rng.Uint32()
			i32[i] = int32(rng.Uint32())
			f64[i] = rng.NormFloat64() * 1e3
			f32[i] = float32(rng.NormFloat64())
			same[i] = 2.5
			unif[i] = float64(rng.Uint64()>>11) * 0x1p-53 // W5's keys
		}
		checkSortKeys(t, "int64", i64)
		checkSortKeys(t, "narrow int64", narrow)
		checkSortKeys(t, "uint32", u32)
		checkSortKeys(t, "int32", i32)
		checkSortKeys(t, "float64", f64)
		checkSortKeys(t, "float32", f32)
		checkSortKeys(t, "all equal", same)
		checkSortKeys(t, "uniform float64", unif)
		// Every key type, and keys that differ in one to six 11-bit
		// digits: odd and even numbers of passes, in place and not.
		for _, mask := range []uint64{0x7ff, 0x3ff800, 0x3fffff, 0x1ffffffff, 0xfffffffffff, 0x7fffffffffffff, 1<<63 | 0xff, math.MaxUint64} {
			checkSortKeys(t, "int", randomKeys[int](rng, n, mask))
			checkSortKeys(t, "int64", randomKeys[int64](rng, n, mask))
			checkSortKeys(t, "uint64", randomKeys[uint64](rng, n, mask))
			checkSortKeys(t, "uint", randomKeys[uint](rng, n, mask))
			checkSortKeys(t, "int32", randomKeys[int32](rng, n, mask))
			checkSortKeys(t, "uint32", randomKeys[uint32](rng, n, mask))
			checkSortKeys(t, "int16", randomKeys[int16](rng, n, mask))
			checkSortKeys(t, "uint16", randomKeys[uint16](rng, n, mask))
			checkSortKeys(t, "int8", randomKeys[int8](rng, n, mask))
			checkSortKeys(t, "uint8", randomKeys[uint8](rng, n, mask))
			f := randomKeys[uint64](rng, n, mask)
			g := make([]float64, n)
			h := make([]float32, n)
			for i, b := range f {
				g[i] = math.Float64frombits(b&^(0x7ff<<52) | uint64(rng.IntN(2046)+1)<<52) // no NaN or -0
				h[i] = math.Float32frombits(uint32(b)&^(0xff<<23) | uint32(rng.IntN(254)+1)<<23)
			}
			checkSortKeys(t, "float64 bits", g)
			checkSortKeys(t, "float32 bits", h)
		}
		if n > 3 {
			// Zeros of both signs, NaNs with payloads, infinities: the
			// stable path, whose order of -0/+0 and NaNs is the input's.
			g := slices.Clone(f64)
			g[0], g[1], g[2], g[3] = math.Copysign(0, -1), 0, math.Inf(-1), math.Inf(1)
			checkSortKeys(t, "float64 with -0", g)
			g[n/2] = math.Float64frombits(0x7ff8000000000001)
			g[n-1] = math.NaN()
			checkSortKeys(t, "float64 with NaNs", g)
			g[0] = math.Float64frombits(0xfff0000000000001) // a negative NaN
			checkSortKeys(t, "float64 with a negative NaN", g)
			h := slices.Clone(f32)
			h[0], h[1] = float32(math.Copysign(0, -1)), float32(math.NaN())
			checkSortKeys(t, "float32 with -0 and NaN", h)
			h = slices.Clone(f32)
			h[n-1] = float32(math.Copysign(0, -1))
			checkSortKeys(t, "float32 with a last -0", h)
			// Infinities and extremes without -0 or NaN: the keys-only path.
			e := slices.Clone(f64)
			e[0], e[1], e[2], e[3] = math.Inf(-1), math.Inf(1), -math.MaxFloat64, math.SmallestNonzeroFloat64
			checkSortKeys(t, "float64 extremes", e)
			e32 := slices.Clone(f32)
			e32[0], e32[1], e32[2], e32[3] = float32(math.Inf(-1)), float32(math.Inf(1)), -math.MaxFloat32, -math.SmallestNonzeroFloat32
			checkSortKeys(t, "float32 extremes", e32)
			m := slices.Clone(i64)
			m[0], m[1] = math.MinInt64, math.MaxInt64
			checkSortKeys(t, "int64 extremes", m)
		}
	}
}

// TestSortKeysHybrid sorts inputs long enough for the MSD hybrid
// (msdMinKeys on), of every kind: keys it cuts into short buckets, keys
// that share their high bits (deep recursion, equal keys in buckets), keys
// that differ only in the window's bits (no recursion), and skewed keys
// that make it fall back to the LSD sort.
func TestSortKeysHybrid(t *testing.T) {
	if testing.Short() {
		t.Skip("sorts of up to 300,007 keys")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{msdMinKeys, 70001, 300007} {
		unif := make([]float64, n)
		norm := make([]float64, n)
		bitsF := make([]float64, n)
		narrow := make([]int64, n)
		small := make([]uint32, n)
		skew := make([]float64, n)
		low := make([]uint64, n)
		two := make([]int64, n)
		same := make([]float32, n)
		f32 := make([]float32, n)
		for i := range n {
			unif[i] = float64(rng.Uint64()>>11) * 0x1p-53 // W5's keys
			norm[i] = rng.NormFloat64() * 1e3
			bitsF[i] = math.Float64frombits(rng.Uint64()&^(0x7ff<<52) | uint64(rng.IntN(2046)+1)<<52)
			narrow[i] = -1000 + rng.Int64N(3000)
			small[i] = rng.Uint32N(1000)
			skew[i] = 7
			if rng.IntN(10) == 0 {
				skew[i] = rng.Float64()
			}
			low[i] = 1<<40 | rng.Uint64()&0xfffff
			two[i] = []int64{-5, 1 << 50}[rng.IntN(2)]
			same[i] = -1.5
			f32[i] = float32(rng.NormFloat64())
		}
		checkSortKeys(t, "uniform float64", unif)
		checkSortKeys(t, "normal float64", norm)
		checkSortKeys(t, "float64 bits", bitsF)
		checkSortKeys(t, "narrow int64", narrow)
		checkSortKeys(t, "uint32 below 1000", small)
		checkSortKeys(t, "skewed float64", skew)
		checkSortKeys(t, "uint64 low bits", low)
		checkSortKeys(t, "two int64 values", two)
		checkSortKeys(t, "all equal float32", same)
		checkSortKeys(t, "normal float32", f32)
		checkSortKeys(t, "int64", randomKeys[int64](rng, n, math.MaxUint64))
		checkSortKeys(t, "int32", randomKeys[int32](rng, n, math.MaxUint64))
		checkSortKeys(t, "uint64 of 44 bits", randomKeys[uint64](rng, n, 0xfffffffffff))
	}
}

// TestMSDSortFallback checks that the hybrid takes the keys it should and
// leaves alone, with nothing written, those it must: skewed keys and NaNs.
func TestMSDSortFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 3 * msdMaxBucket
	unif := make([]float64, n)
	for i := range unif {
		unif[i] = rng.Float64()
	}
	skew := slices.Clone(unif)
	for i := range n / 2 {
		skew[i] = 0.25
	}
	nan := slices.Clone(unif)
	nan[n/3] = math.NaN()
	const top, inf = 63, 0x7ff0000000000000
	for _, c := range []struct {
		name string
		keys []float64
		want bool
	}{{"uniform", unif, true}, {"half equal", skew, false}, {"a NaN", nan, false}} {
		dst := make([]float64, n)
		got := msdSort(bitsOf64(dst), bitsOf64(c.keys), bitsOf64(dst), nil, true, top, math.MaxUint64, 1<<63, inf)
		if got != c.want {
			t.Errorf("%s: msdSort reported %t, want %t", c.name, got, c.want)
		}
		if !got && slices.ContainsFunc(dst, func(v float64) bool { return v != 0 }) {
			t.Errorf("%s: msdSort wrote into dst and reported false", c.name)
		}
		if got && !slices.IsSorted(dst) {
			t.Errorf("%s: msdSort's result is not sorted", c.name)
		}
	}
}

// TestSortKeysToWork checks that SortKeysTo given work space allocates
// none of the input's size, in place and out of place, on keys that the
// MSD hybrid cuts into buckets of up to a quarter of them (0 among
// uniform keys: the window holds the exponent's bits).
func TestSortKeysToWork(t *testing.T) {
	const n = 1 << 18
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = float64((uint64(i)*0x9E3779B97F4A7C15)>>11) * 0x1p-53
	}
	want := slices.Clone(keys)
	slices.Sort(want)
	dst, work := make([]float64, n), make([]float64, n)
	for _, inPlace := range []bool{false, true} {
		src := keys
		if inPlace {
			copy(dst, keys)
			src = dst
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		SortKeysTo(dst, src, work)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > n {
			t.Errorf("in place %t: SortKeysTo with work allocated %d bytes for %d keys", inPlace, got, n)
		}
		if !slices.Equal(dst, want) {
			t.Errorf("in place %t: SortKeysTo with work did not sort", inPlace)
		}
	}
}

func TestSortKeysToPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("SortKeysTo into a shorter slice did not panic")
		}
	}()
	SortKeysTo(make([]float64, 2), make([]float64, 3), nil)
}

// BenchmarkSortKeys sorts 2^20 and 2^23 uniform float64 keys with 53
// random bits (W5's keys), into a second slice as dist.Sort does, and in
// place; SortByKey is the argsort path for comparison.
func BenchmarkSortKeys(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1 << 20, 1 << 23} {
		keys := make([]float64, n)
		for i := range keys {
			keys[i] = float64(rng.Uint64()>>11) * 0x1p-53
		}
		dst, work := make([]float64, n), make([]float64, n)
		b.Run(fmt.Sprintf("SortKeysTo/%d", n), func(b *testing.B) {
			for b.Loop() {
				SortKeysTo(dst, keys, work)
			}
		})
		b.Run(fmt.Sprintf("SortKeys/%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(dst, keys)
				SortKeys(dst)
			}
		})
		if n == 1<<20 {
			b.Run(fmt.Sprintf("SortByKey/%d", n), func(b *testing.B) {
				for b.Loop() {
					copy(dst, keys)
					SortByKey(dst)
				}
			})
		}
	}
}
