package algorithms

import (
	"math"
	"math/rand/v2"
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

// checkSortKeys sorts a copy of keys with SortKeys and one with SortByKey
// and wants the same bits.
func checkSortKeys[K Key](t *testing.T, name string, keys []K) {
	t.Helper()
	got, want := slices.Clone(keys), slices.Clone(keys)
	SortKeys(got)
	SortByKey(want)
	if !sameKeyBits(got, want) {
		t.Errorf("%s (%d keys): SortKeys differs from SortByKey", name, len(keys))
	}
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
		for i := range n {
			i64[i] = int64(rng.Uint64())
			narrow[i] = -1000 + rng.Int64N(3000) // a span under 32 bits, negative too
			u32[i] = rng.Uint32()
			i32[i] = int32(rng.Uint32())
			f64[i] = rng.NormFloat64() * 1e3
			f32[i] = float32(rng.NormFloat64())
			same[i] = 2.5
		}
		checkSortKeys(t, "int64", i64)
		checkSortKeys(t, "narrow int64", narrow)
		checkSortKeys(t, "uint32", u32)
		checkSortKeys(t, "int32", i32)
		checkSortKeys(t, "float64", f64)
		checkSortKeys(t, "float32", f32)
		checkSortKeys(t, "all equal", same)
		if n > 3 {
			// Zeros of both signs, NaNs with payloads, infinities: the
			// stable path, whose order of -0/+0 and NaNs is the input's.
			g := slices.Clone(f64)
			g[0], g[1], g[2], g[3] = math.Copysign(0, -1), 0, math.Inf(-1), math.Inf(1)
			checkSortKeys(t, "float64 with -0", g)
			g[n/2] = math.Float64frombits(0x7ff8000000000001)
			g[n-1] = math.NaN()
			checkSortKeys(t, "float64 with NaNs", g)
			h := slices.Clone(f32)
			h[0], h[1] = float32(math.Copysign(0, -1)), float32(math.NaN())
			checkSortKeys(t, "float32 with -0 and NaN", h)
			// Infinities and extremes without -0 or NaN: the keys-only path.
			e := slices.Clone(f64)
			e[0], e[1], e[2], e[3] = math.Inf(-1), math.Inf(1), -math.MaxFloat64, math.SmallestNonzeroFloat64
			checkSortKeys(t, "float64 extremes", e)
			m := slices.Clone(i64)
			m[0], m[1] = math.MinInt64, math.MaxInt64
			checkSortKeys(t, "int64 extremes", m)
		}
	}
}

func BenchmarkSortKeys(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([]float64, 1<<20)
	for i := range keys {
		keys[i] = rng.Float64()
	}
	work := make([]float64, len(keys))
	b.Run("SortKeys", func(b *testing.B) {
		for b.Loop() {
			copy(work, keys)
			SortKeys(work)
		}
	})
	b.Run("SortByKey", func(b *testing.B) {
		for b.Loop() {
			copy(work, keys)
			SortByKey(work)
		}
	})
}
