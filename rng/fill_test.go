package rng

import (
	"math"
	"math/rand/v2"
	"testing"
)

var _ rand.Source = (*Stream)(nil)

// blocks splits [0, n) into ranks contiguous, uneven blocks as a
// distributed array would: the first n%ranks blocks get one extra element.
func blocks(n, ranks int) [][2]int {
	var out [][2]int
	lo := 0
	for r := 0; r < ranks; r++ {
		size := n / ranks
		if r < n%ranks {
			size++
		}
		out = append(out, [2]int{lo, lo + size})
		lo += size
	}
	return out
}

func TestFillMapping(t *testing.T) {
	const seed, first, draw = 42, 1000, 3
	n := 37
	f64 := make([]float64, n)
	f32 := make([]float32, n)
	g64 := make([]float64, n)
	g32 := make([]float32, n)
	FillUniform(f64, seed, first, draw)
	FillUniform(f32, seed, first, draw)
	FillNormal(g64, seed, first, draw)
	FillNormal(g32, seed, first, draw)
	for i := 0; i < n; i++ {
		u0, _ := Uniform2(seed, first+uint64(i), draw)
		z0, _ := Normal2(seed, first+uint64(i), draw)
		if f64[i] != u0 {
			t.Errorf("FillUniform[float64][%d] = %v, want u0 = %v", i, f64[i], u0)
		}
		if d := u0 - float64(f32[i]); d < 0 || d >= 0x1p-24 || f32[i] >= 1 {
			t.Errorf("FillUniform[float32][%d] = %v, not u0 = %v rounded down to 24 bits", i, f32[i], u0)
		}
		if g64[i] != z0 {
			t.Errorf("FillNormal[float64][%d] = %v, want z0 = %v", i, g64[i], z0)
		}
		if g32[i] != float32(z0) {
			t.Errorf("FillNormal[float32][%d] = %v, want float32(z0) = %v", i, g32[i], float32(z0))
		}
	}
}

// TestFillRankIndependent fills a global array in blocks, as 1 to 4 ranks
// would, and checks that the result does not depend on the split.
func TestFillRankIndependent(t *testing.T) {
	fills := []struct {
		name string
		fill func(dst []float64, first uint64)
	}{
		{"FillUniform", func(dst []float64, first uint64) { FillUniform(dst, 7, first, 2) }},
		{"FillNormal", func(dst []float64, first uint64) { FillNormal(dst, 7, first, 2) }},
		{"FillUniformInts", func(dst []float64, first uint64) {
			ints := make([]int64, len(dst))
			FillUniformInts(ints, 7, first, 2, -1000, 1000)
			for i, v := range ints {
				dst[i] = float64(v)
			}
		}},
	}
	for _, f := range fills {
		for _, n := range []int{0, 1, 3, 10, 101} {
			whole := make([]float64, n)
			f.fill(whole, 0)
			for ranks := 1; ranks <= 4; ranks++ {
				got := make([]float64, n)
				for _, b := range blocks(n, ranks) {
					local := make([]float64, b[1]-b[0])
					f.fill(local, uint64(b[0]))
					copy(got[b[0]:b[1]], local)
				}
				for i := range whole {
					if math.Float64bits(got[i]) != math.Float64bits(whole[i]) {
						t.Errorf("%s n=%d ranks=%d: element %d = %v, want %v", f.name, n, ranks, i, got[i], whole[i])
						break
					}
				}
			}
		}
	}
}

func TestFillUniformInts(t *testing.T) {
	const n = 5000
	t.Run("int32", func(t *testing.T) {
		dst := make([]int32, n)
		FillUniformInts(dst, 1, 0, 0, -5, 5)
		seen := map[int32]int{}
		for i, v := range dst {
			if v < -5 || v >= 5 {
				t.Fatalf("element %d = %d outside [-5, 5)", i, v)
			}
			if want := int32(-5 + int64(IntN(1, uint64(i), 0, 10))); v != want {
				t.Fatalf("element %d = %d, want %d", i, v, want)
			}
			seen[v]++
		}
		if len(seen) != 10 {
			t.Errorf("saw %d distinct values, want 10", len(seen))
		}
	})
	t.Run("int8 full", func(t *testing.T) {
		dst := make([]int8, n)
		FillUniformInts(dst, 1, 0, 0, math.MinInt8, math.MaxInt8)
		for i, v := range dst {
			if want := int8(-128 + int64(IntN(1, uint64(i), 0, 255))); v != want {
				t.Fatalf("element %d = %d, want %d", i, v, want)
			}
		}
	})
	t.Run("uint16", func(t *testing.T) {
		dst := make([]uint16, n)
		FillUniformInts(dst, 1, 0, 0, 1000, 60000)
		for i, v := range dst {
			if want := uint16(1000 + IntN(1, uint64(i), 0, 59000)); v != want {
				t.Fatalf("element %d = %d, want %d", i, v, want)
			}
		}
	})
	t.Run("int64 full", func(t *testing.T) {
		dst := make([]int64, n)
		FillUniformInts(dst, 1, 0, 0, math.MinInt64, math.MaxInt64)
		neg := 0
		for _, v := range dst {
			if v == math.MaxInt64 {
				t.Fatalf("value %d not below hi", v)
			}
			if v < 0 {
				neg++
			}
		}
		if neg < n/2-200 || neg > n/2+200 {
			t.Errorf("%d of %d values negative, want about half", neg, n)
		}
	})
	t.Run("uint32", func(t *testing.T) {
		dst := make([]uint32, n)
		FillUniformInts(dst, 1, 0, 0, 10, 13)
		for i, v := range dst {
			if v < 10 || v >= 13 {
				t.Fatalf("element %d = %d outside [10, 13)", i, v)
			}
		}
	})
	t.Run("uint64", func(t *testing.T) {
		dst := make([]uint64, n)
		FillUniformInts(dst, 1, 0, 0, 1<<63, ^uint64(0))
		for i, v := range dst {
			if v < 1<<63 || v == ^uint64(0) {
				t.Fatalf("element %d = %d outside [2^63, 2^64-1)", i, v)
			}
		}
	})
	mustPanic(t, "rng: FillUniformInts", func() { FillUniformInts(make([]int32, 1), 0, 0, 0, 3, 3) })
	mustPanic(t, "rng: FillUniformInts", func() { FillUniformInts(make([]int32, 1), 0, 0, 0, 3, -3) })
}

func TestStream(t *testing.T) {
	s := &Stream{Seed: 9, ID: 4, Counter: 100}
	for c := uint64(100); c < 110; c++ {
		u0, u1 := Uniform2(9, 4, c)
		z0, z1 := Normal2(9, 4, c)
		x0, _ := block(9, 4, c)
		// Each method uses the block at Counter and advances by one.
		calls := []struct {
			name string
			got  func() (float64, float64)
			want [2]float64
		}{
			{"Uniform", func() (float64, float64) { return s.Uniform(), 0 }, [2]float64{u0, 0}},
			{"Uniform2", s.Uniform2, [2]float64{u0, u1}},
			{"Normal", func() (float64, float64) { return s.Normal(), 0 }, [2]float64{z0, 0}},
			{"Normal2", s.Normal2, [2]float64{z0, z1}},
			{"IntN", func() (float64, float64) { return float64(s.IntN(1000)), 0 }, [2]float64{float64(IntN(9, 4, c, 1000)), 0}},
			{"Uint64", func() (float64, float64) { return float64(s.Uint64()), 0 }, [2]float64{float64(x0), 0}},
		}
		for _, call := range calls {
			s.Counter = c
			a, b := call.got()
			if a != call.want[0] || b != call.want[1] {
				t.Errorf("counter %d: %s = %v, %v, want %v", c, call.name, a, b, call.want)
			}
			if s.Counter != c+1 {
				t.Errorf("counter %d: %s left Counter at %d, want %d", c, call.name, s.Counter, c+1)
			}
		}
	}
	// A Stream reproduces element ID of a Fill at draw Counter.
	dst := make([]float64, 8)
	FillUniform(dst, 9, 0, 3)
	if got := (&Stream{Seed: 9, ID: 5, Counter: 3}).Uniform(); got != dst[5] {
		t.Errorf("Stream.Uniform = %v, want FillUniform element %v", got, dst[5])
	}
	// The zero value works and math/rand/v2 accepts it as a Source.
	r := rand.New(new(Stream))
	if v := r.IntN(10); v < 0 || v >= 10 {
		t.Errorf("rand.New(Stream).IntN(10) = %d", v)
	}
}
