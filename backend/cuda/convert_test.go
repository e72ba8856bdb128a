package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestGPUConvert checks the CUDA backend's Converter (convert.cu) against
// the CPU backend's, which dist's tests check against NumPy, bit for bit:
// every comparison and element type with NaN, ±Inf and -0 among floats,
// Where in place, Compress across its tiles of 1024 elements with masks of
// any nonzero bytes, and Convert between every pair of the ten types on
// values that wrap, round, overflow and have no integer value.
func TestGPUConvert(t *testing.T) {
	b := gpu(t)
	t.Run("float32", func(t *testing.T) { gpuConvert[float32](t, b) })
	t.Run("float64", func(t *testing.T) { gpuConvert[float64](t, b) })
	t.Run("int8", func(t *testing.T) { gpuConvert[int8](t, b) })
	t.Run("int16", func(t *testing.T) { gpuConvert[int16](t, b) })
	t.Run("int32", func(t *testing.T) { gpuConvert[int32](t, b) })
	t.Run("int64", func(t *testing.T) { gpuConvert[int64](t, b) })
	t.Run("uint8", func(t *testing.T) { gpuConvert[uint8](t, b) })
	t.Run("uint16", func(t *testing.T) { gpuConvert[uint16](t, b) })
	t.Run("uint32", func(t *testing.T) { gpuConvert[uint32](t, b) })
	t.Run("uint64", func(t *testing.T) { gpuConvert[uint64](t, b) })
}

// convertInputs returns n values of T whose conversions cover the rules of
// driver.ConvertValue: for floats, fractions, values beyond every
// integer type's range, 2^63 and 2^64 and their neighbours, NaN, ±Inf,
// -0; for integers, random bits and the extremes. Every third value
// repeats an earlier one, so that Equal holds somewhere.
func convertInputs[T backend.Element](n int, seed uint64) []T {
	dt := backend.DTypeOf[T]()
	r := rand.New(rand.NewPCG(seed, uint64(dt)))
	x := statsInputs[T](n, true, seed)
	if dt.IsFloat() {
		sp := []float64{300.7, -1.5, -0.5, 0.99, 127.9, 128, -129, 255.5, 256, 65535.9, 65536, -32769,
			2147483647.5, 2147483648, -2147483648.7, -2147483649, 4294967295.5, 4294967296, 1e10, -1e10,
			0x1p63, math.Nextafter(0x1p63, 0), math.Nextafter(0x1p63, math.Inf(1)), 0x1p64, math.Nextafter(0x1p64, 0),
			-0x1p63, math.Nextafter(-0x1p63, math.Inf(-1)), 1e19, -1e19, 1e30, 3.4e38, 1e300, -1e300}
		for i, v := range sp {
			if i < n {
				x[(i*31+5)%n] = T(v)
			}
		}
	}
	for i := 2; i < n; i += 3 {
		x[i] = x[r.IntN(i)]
	}
	return x
}

func gpuConvert[T backend.Element](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	var c backend.Backend = cpu.Default
	hc, dc := c.(driver.Converter), backend.Backend(b).(driver.Converter)
	for _, n := range []int{0, 1, 7, 300, 1023, 1024, 1025, 5000} {
		x := newPair(t, b, convertInputs[T](n, uint64(n)))
		y := newPair(t, b, convertInputs[T](n, uint64(n)+1))
		name := fmt.Sprintf("%v n=%d", dt, n)
		for op := driver.Less; op <= driver.NotEqual; op++ {
			m := filled[uint8](t, b, n, 7)
			hc.Compare(op, m.h, x.h, y.h)
			dc.Compare(op, m.d, x.d, y.d)
			compareBuf[uint8](t, b, fmt.Sprintf("%s Compare %v", name, op), m.d, m.h)
			var scalars []T // an element of x, and 0
			if n > 0 {
				scalars = []T{driver.HostSlice[T](x.h)[min(3, n-1)], 0}
			}
			for _, s := range scalars {
				m := filled[uint8](t, b, n, 7)
				hc.CompareScalar(op, m.h, x.h, driver.ScalarOf(s))
				dc.CompareScalar(op, m.d, x.d, driver.ScalarOf(s))
				compareBuf[uint8](t, b, fmt.Sprintf("%s CompareScalar %v %v", name, op, s), m.d, m.h)
			}
		}

		// Masks: random bytes (any nonzero one selects), none, all.
		r := rand.New(rand.NewPCG(uint64(n), 3))
		masks := map[string][]uint8{"random": make([]uint8, n), "none": make([]uint8, n), "all": make([]uint8, n)}
		for i := range masks["random"] {
			if r.IntN(3) == 0 {
				masks["random"][i] = uint8(r.IntN(256))
			}
			masks["all"][i] = uint8(1 + r.IntN(255))
		}
		for mname, mv := range masks {
			m := newPair(t, b, mv)
			for _, inPlace := range []string{"", "a", "b"} {
				a, bb := newPair(t, b, driver.HostSlice[T](x.h)), newPair(t, b, driver.HostSlice[T](y.h))
				d := filled[T](t, b, n, 5)
				switch inPlace {
				case "a":
					d = a
				case "b":
					d = bb
				}
				hc.Where(d.h, m.h, a.h, bb.h)
				dc.Where(d.d, m.d, a.d, bb.d)
				compareBuf[T](t, b, fmt.Sprintf("%s Where mask %s in place %q", name, mname, inPlace), d.d, d.h)
			}
			d := filled[T](t, b, n+2, 9)
			k0 := hc.Compress(d.h, x.h, m.h)
			k1 := dc.Compress(d.d, x.d, m.d)
			if k0 != k1 {
				t.Errorf("%s Compress mask %s: %d elements on the GPU, %d on the CPU", name, mname, k1, k0)
			}
			compareBuf[T](t, b, fmt.Sprintf("%s Compress mask %s", name, mname), d.d, d.h)
		}

		// Convert to every type.
		convertTo[float32](t, b, x, name)
		convertTo[float64](t, b, x, name)
		convertTo[int8](t, b, x, name)
		convertTo[int16](t, b, x, name)
		convertTo[int32](t, b, x, name)
		convertTo[int64](t, b, x, name)
		convertTo[uint8](t, b, x, name)
		convertTo[uint16](t, b, x, name)
		convertTo[uint32](t, b, x, name)
		convertTo[uint64](t, b, x, name)
	}
}

// convertTo checks Convert of x into a buffer of D.
func convertTo[D backend.Element](t *testing.T, b *cuda.Backend, x pair, name string) {
	t.Helper()
	var c backend.Backend = cpu.Default
	d := filled[D](t, b, x.h.Len(), 3)
	c.(driver.Converter).Convert(d.h, x.h)
	backend.Backend(b).(driver.Converter).Convert(d.d, x.d)
	compareBuf[D](t, b, fmt.Sprintf("%s Convert to %v", name, backend.DTypeOf[D]()), d.d, d.h)
}
