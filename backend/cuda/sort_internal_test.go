package cuda

import (
	"cmp"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// sortParamSizes returns the sizes in bytes of the parameters of sort.cu's
// entries of operation op: what sort.go packs (for TestCompileKernels).
func sortParamSizes(op string) []int {
	switch op {
	case "sortbits", "sortiota":
		return []int{8, 8, 8}
	case "sortbits2":
		return []int{4, 8, 8}
	case "sortcount":
		return []int{8, 4, 8, 8, 8}
	case "sortscan":
		return []int{8, 8}
	case "sortscatter":
		return []int{8, 4, 8, 8, 8, 8, 8, 8}
	case "cut":
		return []int{8, 8, 8, 8, 8, 8, 8}
	case "take":
		return []int{8, 8, 8, 8}
	}
	return nil
}

// TestSortParamSizes checks sortParamSizes against the arguments sort.go
// packs: every entry of sortEntries has sizes.
func TestSortParamSizes(t *testing.T) {
	for _, name := range sortEntries() {
		op := strings.TrimPrefix(name[:strings.LastIndex(name, "_")], "xp_")
		if sortParamSizes(op) == nil {
			t.Errorf("%s: no parameter sizes for %q", name, op)
		}
	}
}

// orderKeys returns vals as scalars.
func orderKeys[T backend.Element](vals ...T) []backend.Scalar {
	out := make([]backend.Scalar, len(vals))
	for i, v := range vals {
		out[i] = driver.ScalarOf(v)
	}
	return out
}

// TestOrderBits checks that orderBits (the host side of sort.cu's
// xp_order, for Cut's splitters) orders every pair of keys as cmp.Compare
// does, for each key type, NaNs, ±0, ±Inf and the integer extremes
// included.
func TestOrderBits(t *testing.T) {
	nan32, nan64 := float32(math.NaN()), math.NaN()
	negNaN64 := math.Float64frombits(0xfff8000000000001)
	negNaN32 := math.Float32frombits(0xffc00001)
	cases := []struct {
		keys []backend.Scalar
		cmp  func(a, b backend.Scalar) int
	}{
		{orderKeys(nan64, negNaN64, math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)),
			func(a, b backend.Scalar) int { return cmp.Compare(a.Float64(), b.Float64()) }},
		{orderKeys(nan32, negNaN32, float32(math.Inf(-1)), -math.MaxFloat32, -1, -math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1)), 0, math.SmallestNonzeroFloat32, 1, math.MaxFloat32, float32(math.Inf(1))),
			func(a, b backend.Scalar) int {
				return cmp.Compare(driver.ValueOf[float32](a), driver.ValueOf[float32](b))
			}},
		{orderKeys[int64](math.MinInt64, -1, 0, 1, math.MaxInt64), func(a, b backend.Scalar) int { return cmp.Compare(a.Int64(), b.Int64()) }},
		{orderKeys[int32](math.MinInt32, -1, 0, 1, math.MaxInt32), func(a, b backend.Scalar) int { return cmp.Compare(a.Int64(), b.Int64()) }},
		{orderKeys[int16](math.MinInt16, -1, 0, 1, math.MaxInt16), func(a, b backend.Scalar) int { return cmp.Compare(a.Int64(), b.Int64()) }},
		{orderKeys[int8](math.MinInt8, -1, 0, 1, math.MaxInt8), func(a, b backend.Scalar) int { return cmp.Compare(a.Int64(), b.Int64()) }},
		{orderKeys[uint64](0, 1, math.MaxInt64, math.MaxUint64), func(a, b backend.Scalar) int { return cmp.Compare(a.Uint64(), b.Uint64()) }},
		{orderKeys[uint32](0, 1, math.MaxInt32, math.MaxUint32), func(a, b backend.Scalar) int { return cmp.Compare(a.Uint64(), b.Uint64()) }},
		{orderKeys[uint16](0, 1, math.MaxInt16, math.MaxUint16), func(a, b backend.Scalar) int { return cmp.Compare(a.Uint64(), b.Uint64()) }},
		{orderKeys[uint8](0, 1, math.MaxInt8, math.MaxUint8), func(a, b backend.Scalar) int { return cmp.Compare(a.Uint64(), b.Uint64()) }},
	}
	for _, c := range cases {
		for _, a := range c.keys {
			for _, b := range c.keys {
				dt := a.DType()
				got := cmp.Compare(orderBits(dt, a), orderBits(dt, b))
				if want := c.cmp(a, b); got != want {
					t.Errorf("%v: %v vs %v: orderBits compare %d, cmp.Compare %d", dt, a, b, got, want)
				}
			}
		}
	}
}
