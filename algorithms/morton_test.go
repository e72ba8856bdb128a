package algorithms

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// morton2Ref and morton3Ref interleave bit by bit: bit ndim*b+a of the key
// is bit b of axis a.
func morton2Ref(x, y uint32) uint64 {
	var k uint64
	for b := 0; b < 32; b++ {
		k |= uint64(x>>b&1) << (2 * b)
		k |= uint64(y>>b&1) << (2*b + 1)
	}
	return k
}

func morton3Ref(x, y, z uint32) uint64 {
	var k uint64
	for b := 0; b < 21; b++ {
		k |= uint64(x>>b&1) << (3 * b)
		k |= uint64(y>>b&1) << (3*b + 1)
		k |= uint64(z>>b&1) << (3*b + 2)
	}
	return k
}

func TestMorton2(t *testing.T) {
	cases := []struct {
		x, y uint32
		want uint64
	}{
		{0, 0, 0},
		{1, 0, 1},
		{0, 1, 2},
		{1, 1, 3},
		{2, 0, 4},
		{3, 5, 0b100111},
		{math.MaxUint32, 0, 0x5555555555555555},
		{0, math.MaxUint32, 0xAAAAAAAAAAAAAAAA},
		{math.MaxUint32, math.MaxUint32, math.MaxUint64},
	}
	for _, tc := range cases {
		if got := Morton2(tc.x, tc.y); got != tc.want {
			t.Errorf("Morton2(%d, %d) = %#x, want %#x", tc.x, tc.y, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		x, y := r.Uint32(), r.Uint32()
		k := Morton2(x, y)
		if want := morton2Ref(x, y); k != want {
			t.Fatalf("Morton2(%#x, %#x) = %#x, want %#x", x, y, k, want)
		}
		if gx, gy := Morton2Decode(k); gx != x || gy != y {
			t.Fatalf("Morton2Decode(Morton2(%#x, %#x)) = %#x, %#x", x, y, gx, gy)
		}
		// Decode of an arbitrary key inverts encode too.
		k = r.Uint64()
		if gx, gy := Morton2Decode(k); Morton2(gx, gy) != k {
			t.Fatalf("Morton2(Morton2Decode(%#x)) != key", k)
		}
	}
}

func TestMorton3(t *testing.T) {
	const max21 = 1<<21 - 1
	cases := []struct {
		x, y, z uint32
		want    uint64
	}{
		{0, 0, 0, 0},
		{1, 0, 0, 1},
		{0, 1, 0, 2},
		{0, 0, 1, 4},
		{2, 0, 0, 8},
		{max21, 0, 0, 0x1249249249249249},
		{0, max21, 0, 0x2492492492492492},
		{0, 0, max21, 0x4924924924924924},
		{max21, max21, max21, 1<<63 - 1},
	}
	for _, tc := range cases {
		if got := Morton3(tc.x, tc.y, tc.z); got != tc.want {
			t.Errorf("Morton3(%d, %d, %d) = %#x, want %#x", tc.x, tc.y, tc.z, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(2, 2))
	for range 20000 {
		x, y, z := r.Uint32()&max21, r.Uint32()&max21, r.Uint32()&max21
		k := Morton3(x, y, z)
		if want := morton3Ref(x, y, z); k != want {
			t.Fatalf("Morton3(%#x, %#x, %#x) = %#x, want %#x", x, y, z, k, want)
		}
		if gx, gy, gz := Morton3Decode(k); gx != x || gy != y || gz != z {
			t.Fatalf("Morton3Decode(Morton3(%#x, %#x, %#x)) = %#x, %#x, %#x", x, y, z, gx, gy, gz)
		}
		k = r.Uint64() >> 1
		if gx, gy, gz := Morton3Decode(k); Morton3(gx, gy, gz) != k {
			t.Fatalf("Morton3(Morton3Decode(%#x)) != key", k)
		}
		// Bit 63 is ignored.
		if gx, gy, gz := Morton3Decode(k | 1<<63); Morton3(gx, gy, gz) != k {
			t.Fatalf("Morton3Decode does not ignore bit 63 of %#x", k|1<<63)
		}
	}
	for _, bad := range [][3]uint32{{1 << 21, 0, 0}, {0, 1 << 21, 0}, {0, 0, 1 << 21}, {0, 0, math.MaxUint32}} {
		mustPanic(t, "algorithms: Morton3", func() { Morton3(bad[0], bad[1], bad[2]) })
	}
}

func TestCellIndex(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name         string
		x            float64
		lower, upper float64
		levels       int
		want         uint32
	}{
		{"lower", 0, 0, 1, 3, 0},
		{"inside", 0.3, 0, 1, 3, 2},            // 2.4
		{"boundary goes up", 0.25, 0, 1, 3, 2}, // exactly 2
		{"half goes up", 0.5, 0, 1, 1, 1},
		{"just below boundary", math.Nextafter(0.25, 0), 0, 1, 3, 1},
		{"upper clips to last", 1, 0, 1, 3, 7},
		{"above clips", 5, 0, 1, 3, 7},
		{"below clips", -5, 0, 1, 3, 0},
		{"+Inf", math.Inf(1), 0, 1, 3, 7},
		{"-Inf", math.Inf(-1), 0, 1, 3, 0},
		{"NaN", nan, 0, 1, 3, 0},
		{"levels 0", 0.7, 0, 1, 0, 0},
		{"offset box", 2.5, 2, 4, 2, 1},
		{"reversed at lower", 1, 1, 0, 3, 0},
		{"reversed inside", 0.3, 1, 0, 3, 5},      // (0.3-1)*8/(0-1) = 5.6
		{"reversed boundary", 0.75, 1, 0, 3, 2},   // exactly 2: the cell on the side of smaller x
		{"reversed at upper", 0, 1, 0, 3, 7},      // clips to the last cell
		{"reversed beyond upper", -1, 1, 0, 3, 7}, //
		{"reversed beyond lower", 2, 1, 0, 3, 0},  //
		{"32 levels top", math.Nextafter(1, 0), 0, 1, 32, math.MaxUint32},
		{"32 levels boundary", 0.5, 0, 1, 32, 1 << 31},
		{"32 levels upper", 1, 0, 1, 32, math.MaxUint32},
	}
	for _, tc := range cases {
		if got := CellIndex(tc.x, tc.lower, tc.upper, tc.levels); got != tc.want {
			t.Errorf("%s: CellIndex(%v, %v, %v, %d) = %d, want %d", tc.name, tc.x, tc.lower, tc.upper, tc.levels, got, tc.want)
		}
	}
	// Every cell boundary of a power-of-two box goes to the upper cell.
	for c := uint32(0); c < 1<<10; c++ {
		x := -3 + 8*float64(c)/(1<<10)
		if got := CellIndex(x, -3, 5, 10); got != c {
			t.Fatalf("boundary %v: cell %d, want %d", x, got, c)
		}
	}
	for _, bad := range []struct {
		lower, upper float64
		levels       int
	}{{0, 1, -1}, {0, 1, 33}, {1, 1, 3}, {nan, 1, 3}, {0, math.Inf(1), 3}} {
		mustPanic(t, "algorithms: CellIndex", func() { CellIndex(0, bad.lower, bad.upper, bad.levels) })
	}
}

func TestMortonKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	n := 1000
	xs, ys, zs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		// Some points outside the box, some on its faces.
		xs[i], ys[i], zs[i] = r.Float64()*1.2-0.1, r.Float64()*12-1, r.Float64()*2-1
		if i%50 == 0 {
			xs[i], ys[i], zs[i] = 0, 10, 1
		}
	}
	lower2, upper2 := [2]float64{0, 10}, [2]float64{1, 0} // y reversed
	for _, levels := range []int{0, 1, 5, 16, MaxLevels2} {
		got := make([]uint64, n)
		MortonKeys2(got, xs, ys, lower2, upper2, levels)
		for i := range n {
			want := morton2Ref(CellIndex(xs[i], 0, 1, levels), CellIndex(ys[i], 10, 0, levels))
			if got[i] != want {
				t.Fatalf("levels %d: MortonKeys2 point %d = %#x, want %#x", levels, i, got[i], want)
			}
		}
	}
	lower3, upper3 := [3]float64{0, 0, -1}, [3]float64{1, 10, 1}
	for _, levels := range []int{0, 1, 7, MaxLevels3} {
		got := make([]uint64, n)
		MortonKeys3(got, xs, ys, zs, lower3, upper3, levels)
		for i := range n {
			want := morton3Ref(CellIndex(xs[i], 0, 1, levels), CellIndex(ys[i], 0, 10, levels), CellIndex(zs[i], -1, 1, levels))
			if got[i] != want {
				t.Fatalf("levels %d: MortonKeys3 point %d = %#x, want %#x", levels, i, got[i], want)
			}
		}
	}
	dst := make([]uint64, 2)
	two := []float64{0, 0}
	mustPanic(t, "algorithms: MortonKeys2", func() { MortonKeys2(dst, two[:1], two, lower2, upper2, 3) })
	mustPanic(t, "algorithms: MortonKeys2", func() { MortonKeys2(dst, two, two, lower2, upper2, 33) })
	mustPanic(t, "algorithms: MortonKeys2", func() { MortonKeys2(dst, two, two, [2]float64{0, 1}, [2]float64{0, 2}, 3) })
	mustPanic(t, "algorithms: MortonKeys3", func() { MortonKeys3(dst, two, two, two, lower3, upper3, 22) })
	mustPanic(t, "algorithms: MortonKeys3", func() { MortonKeys3(dst, two, two, two[:1], lower3, upper3, 3) })
}

func mustPanic(t *testing.T, prefix string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		s, _ := r.(string)
		if !strings.HasPrefix(s, prefix) {
			t.Errorf("panic %v, want a message starting with %q", r, prefix)
		}
	}()
	f()
}
