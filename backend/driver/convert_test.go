package driver_test

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestFloatToInt checks the float-to-integer rule of ConvertValue against
// NumPy 1.24 on x86-64 (astype of float64 arrays), and against the
// documented rule for uint32 and uint64 where NumPy's vectorized result
// depends on the CPU.
func TestFloatToInt(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		f            float64
		i8, i16, i32 int64
		i64          int64
		u8, u16, u32 uint64
		u64          uint64
	}{
		{nan, 0, 0, math.MinInt32, math.MinInt64, 0, 0, 0, 1 << 63},
		{inf, 0, 0, math.MinInt32, math.MinInt64, 0, 0, 0, 1 << 63},
		{-inf, 0, 0, math.MinInt32, math.MinInt64, 0, 0, 0, 1 << 63},
		{300.7, 44, 300, 300, 300, 44, 300, 300, 300},
		{-300.7, -44, -300, -300, -300, 212, 65236, 4294966996, 18446744073709551316},
		{-1.5, -1, -1, -1, -1, 255, 65535, 4294967295, math.MaxUint64},
		{-0.5, 0, 0, 0, 0, 0, 0, 0, 0},
		{3e9, 0, 0, math.MinInt32, 3000000000, 0, 0, 3000000000, 3000000000},
		{5e9, 0, 0, math.MinInt32, 5000000000, 0, 0, 705032704, 5000000000},
		{1e19, 0, 0, math.MinInt32, math.MinInt64, 0, 0, 0, 10000000000000000000},
		{0x1p64, 0, 0, math.MinInt32, math.MinInt64, 0, 0, 0, 1 << 63},
		{-0x1p63, 0, 0, math.MinInt32, math.MinInt64, 0, 0, 0, 1 << 63},
		{0x1p31, 0, 0, math.MinInt32, 1 << 31, 0, 0, 1 << 31, 1 << 31},
		{-0x1p31 - 0.5, 0, 0, math.MinInt32, -1 << 31, 0, 0, 1 << 31, 18446744071562067968},
	} {
		if got := driver.ConvertValue[int8](tc.f); int64(got) != tc.i8 {
			t.Errorf("%v to int8: %v, want %v", tc.f, got, tc.i8)
		}
		if got := driver.ConvertValue[int16](tc.f); int64(got) != tc.i16 {
			t.Errorf("%v to int16: %v, want %v", tc.f, got, tc.i16)
		}
		if got := driver.ConvertValue[int32](tc.f); int64(got) != tc.i32 {
			t.Errorf("%v to int32: %v, want %v", tc.f, got, tc.i32)
		}
		if got := driver.ConvertValue[int64](tc.f); got != tc.i64 {
			t.Errorf("%v to int64: %v, want %v", tc.f, got, tc.i64)
		}
		if got := driver.ConvertValue[uint8](tc.f); uint64(got) != tc.u8 {
			t.Errorf("%v to uint8: %v, want %v", tc.f, got, tc.u8)
		}
		if got := driver.ConvertValue[uint16](tc.f); uint64(got) != tc.u16 {
			t.Errorf("%v to uint16: %v, want %v", tc.f, got, tc.u16)
		}
		if got := driver.ConvertValue[uint32](tc.f); uint64(got) != tc.u32 {
			t.Errorf("%v to uint32: %v, want %v", tc.f, got, tc.u32)
		}
		if got := driver.ConvertValue[uint64](tc.f); got != tc.u64 {
			t.Errorf("%v to uint64: %v, want %v", tc.f, got, tc.u64)
		}
		// float32 sources take the same rule through float64.
		if f32 := float32(tc.f); float64(f32) == tc.f || tc.f != tc.f {
			if got, want := driver.ConvertValue[int32](f32), driver.ConvertValue[int32](tc.f); got != want {
				t.Errorf("float32 %v to int32: %v, want %v", f32, got, want)
			}
		}
	}
	// Integers wrap; integers round to nearest (ties to even) as floats.
	if got := driver.ConvertValue[int8](int64(300)); got != 44 {
		t.Errorf("int64 300 to int8: %v", got)
	}
	if got := driver.ConvertValue[float32](int64(16777219)); got != 16777220 {
		t.Errorf("16777219 to float32: %v, want 16777220", got)
	}
	if got := driver.ConvertValue[float64](uint64(1<<63 + 1<<11 + 1)); got != 0x1p63+0x1p11 { // NumPy: 2^63+2048
		t.Errorf("2^63+2^11+1 to float64: %v", got)
	}
}
