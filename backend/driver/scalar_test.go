package driver_test

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend/driver"

	"github.com/xpmpi/xpmpi/dtype"
)

// TestComplexScalar checks that complex scalars keep their 8 or 16 bytes
// exactly, and convert to and from the real types by NumPy's rules (real
// to complex exact; complex to real, where a backend asks for it, the real
// part).
func TestComplexScalar(t *testing.T) {
	for _, v := range []complex128{0, 1 - 2i, complex(math.Inf(-1), math.NaN()), complex(-0.0, 1e-310), complex(math.MaxFloat64, -math.SmallestNonzeroFloat64)} {
		s := driver.ScalarOf(v)
		got := driver.ValueOf[complex128](s)
		if math.Float64bits(real(got)) != math.Float64bits(real(v)) || math.Float64bits(imag(got)) != math.Float64bits(imag(v)) {
			t.Errorf("complex128 %v round trip: %v", v, got)
		}
		if s.DType() != dtype.Complex128 || s.Bits() != math.Float64bits(real(v)) || s.HiBits() != math.Float64bits(imag(v)) {
			t.Errorf("ScalarOf(%v): %v %x %x", v, s.DType(), s.Bits(), s.HiBits())
		}
		c64 := complex64(v)
		s64 := driver.ScalarOf(c64)
		if g := driver.ValueOf[complex64](s64); math.Float32bits(real(g)) != math.Float32bits(real(c64)) || math.Float32bits(imag(g)) != math.Float32bits(imag(c64)) {
			t.Errorf("complex64 %v round trip: %v", c64, g)
		}
		if s64.Bits() != uint64(math.Float32bits(real(c64)))|uint64(math.Float32bits(imag(c64)))<<32 {
			t.Errorf("complex64 bits %x", s64.Bits())
		}
	}
	for _, tc := range []struct {
		s    driver.Scalar
		want complex128
	}{
		{driver.ScalarOf(int32(-7)), -7},
		{driver.ScalarOf(uint64(1 << 63)), 1 << 63},
		{driver.ScalarOf(2.5), 2.5},
		{driver.ScalarOf(complex64(1.5 - 3i)), 1.5 - 3i},
	} {
		if got := driver.ValueOf[complex128](tc.s); got != tc.want {
			t.Errorf("ValueOf[complex128](%v) = %v, want %v", tc.s, got, tc.want)
		}
	}
	if got := driver.ValueOf[float64](driver.ScalarOf(2.5 - 1i)); got != 2.5 {
		t.Errorf("ValueOf[float64](2.5-1i) = %v", got)
	}
	if got := driver.ValueOf[int16](driver.ScalarOf(-3.75 + 8i)); got != -3 {
		t.Errorf("ValueOf[int16](-3.75+8i) = %v", got)
	}
	if dtype.Complex64.Size() != 8 || dtype.Complex128.Size() != 16 || !dtype.Complex64.IsComplex() ||
		dtype.Complex64.Real() != dtype.Float32 || dtype.Complex128.Real() != dtype.Float64 || dtype.Complex128.IsFloat() {
		t.Error("DType of the complex types")
	}
	if dtype.Of[complex64]() != dtype.Complex64 || dtype.Complex128.String() != "complex128" {
		t.Error("dtype.Of")
	}
}
