package cpu_test

import (
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestStatsReducer checks the CPU backend's StatsReducer against values
// worked out by hand (and NumPy's for the histogram).
func TestStatsReducer(t *testing.T) {
	b := cpu.Default
	buf := driver.HostBufferOf[float64]

	// Moments of 1, 2, 3, 4: sum 10, mean 2.5, deviations summing to 0,
	// squared deviations 5.
	if s, d, m2 := b.Moments(buf([]float64{1, 2, 3, 4})); s != 10 || d != 0 || m2 != 5 {
		t.Errorf("Moments: %v %v %v, want 10 0 5", s, d, m2)
	}
	if s, d, m2 := b.Moments(buf(nil)); s != 0 || d != 0 || m2 != 0 {
		t.Errorf("Moments of nothing: %v %v %v", s, d, m2)
	}
	// Two parts, [1 2] and [3 4], and an empty one between them: the
	// moments of the whole.
	all := []float64{3, 0, 0.5, 0, 0, 0, 7, 0, 0.5}
	mom := make([]float64, 3)
	b.CombineMoments(buf(mom), buf(all), []int{2, 0, 2})
	if mom[0] != 10 || mom[2] != 5 {
		t.Errorf("CombineMoments: %v, want sum 10 and m2 5", mom)
	}
	// Along the middle of 2 x 3 x 2.
	x := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	mom = make([]float64, 12)
	b.MomentsAxis(buf(mom), driver.HostBufferOf(x), 2, 3, 2)
	if want := []float64{9, 12, 27, 30, 0, 0, 0, 0, 8, 8, 8, 8}; !slices.Equal(mom, want) {
		t.Errorf("MomentsAxis: %v, want %v", mom, want)
	}

	// Running sums with a carry, and the totals alone.
	dst, last := make([]int32, 12), make([]int32, 4)
	b.ScanAxis(driver.HostBufferOf(dst), driver.HostBufferOf(last), driver.HostBufferOf(x),
		driver.HostBufferOf([]int32{100, 200, 300, 400}), 2, 3, 2, false)
	if want := []int32{101, 202, 104, 206, 109, 212, 307, 408, 316, 418, 327, 430}; !slices.Equal(dst, want) {
		t.Errorf("ScanAxis: %v, want %v", dst, want)
	}
	if want := []int32{109, 212, 327, 430}; !slices.Equal(last, want) {
		t.Errorf("ScanAxis totals: %v, want %v", last, want)
	}
	b.ScanAxis(nil, driver.HostBufferOf(last), driver.HostBufferOf(x), nil, 2, 3, 2, true)
	if want := []int32{1 * 3 * 5, 2 * 4 * 6, 7 * 9 * 11, 8 * 10 * 12}; !slices.Equal(last, want) {
		t.Errorf("ScanAxis products: %v, want %v", last, want)
	}
	b.ScanAxis(nil, driver.HostBufferOf(last), driver.HostBufferOf([]int32{}), nil, 2, 0, 2, true)
	if want := []int32{1, 1, 1, 1}; !slices.Equal(last, want) {
		t.Errorf("ScanAxis products of nothing: %v, want %v", last, want)
	}

	// Products: float64 accumulation, integers wrapping.
	if p := b.Prod(driver.HostBufferOf([]float32{1e30, 1e30, 1e-30})); math.Abs(p.Float64()-1e30) > 1e24 {
		t.Errorf("Prod of float32: %v, want 1e30 (no overflow in float64)", p)
	}
	if p := driver.ValueOf[int32](b.Prod(driver.HostBufferOf([]int32{65536, 65536, 3}))); p != 0 {
		t.Errorf("Prod of int32: %v, want 0 (wrapped)", p)
	}
	if p := driver.ValueOf[uint32](b.Prod(driver.HostBufferOf([]uint32{1 << 31, 3}))); p != 1<<31 {
		t.Errorf("Prod of uint32: %v, want %d", p, 1<<31)
	}

	// Nonzero elements: NaN counts, -0 does not.
	if n := b.CountNonzero(buf([]float64{0, math.NaN(), math.Copysign(0, -1), 2})); n != 2 {
		t.Errorf("CountNonzero: %d, want 2", n)
	}

	// numpy.histogram([-1, 0, 0.1, 0.2, 0.30000000000000004, 0.7, 1, NaN, 2], 3, (0, 1)):
	// [4 0 2], edges [0, 0.333..., 0.666..., 1].
	counts := make([]int64, 3)
	b.Histogram(counts, buf([]float64{-1, 0, 0.1, 0.2, 0.30000000000000004, 0.7, 1, math.NaN(), 2}), 0, 1)
	if !slices.Equal(counts, []int64{4, 0, 2}) {
		t.Errorf("Histogram: %v, want [4 0 2]", counts)
	}

	ratio := make([]float64, 3)
	b.Ratio(buf(ratio), buf([]float64{8, 0, 2}), 2, true)
	if ratio[0] != 2 || ratio[1] != 0 || ratio[2] != 1 {
		t.Errorf("Ratio: %v, want [2 0 1]", ratio)
	}
	b.Ratio(buf(ratio), buf([]float64{8, 0, 2}), 0, false)
	if !math.IsInf(ratio[0], 1) || !math.IsNaN(ratio[1]) {
		t.Errorf("Ratio by 0: %v, want [+Inf NaN +Inf]", ratio)
	}
}
