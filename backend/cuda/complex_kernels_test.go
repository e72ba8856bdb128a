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
	"github.com/xpmpi/xpmpi/profiling"
)

// TestGPUComplexKernels checks the CUDA backend's optional kernels of
// complex buffers (driver.ComplexKernels, complex.cu): SumAxis, CastSums,
// ScanAxis (sums and products, with and without a carry, dst nil or not),
// Where, Compress and Convert between each complex type and every type,
// against the CPU backend's, which dist's tests check against NumPy:
// complex64 and complex128, the axis views of TestGPUStats (empty lines
// and buffers among them), lengths around Compress's tile, and NaN, ±Inf,
// ±0, huge and tiny parts among the inputs. They take the CPU's order of
// operations, so the results must be its bits (two NaNs match whatever
// their payloads). None records a copy to or from the host. (Gemm of
// complex matrices is TestGPUGemm's.)
func TestGPUComplexKernels(t *testing.T) {
	b := gpu(t)
	if _, ok := backend.Backend(b).(driver.ComplexKernels); !ok {
		t.Fatal("the CUDA backend is not a driver.ComplexKernels")
	}
	t.Run("complex64", func(t *testing.T) { gpuComplexKernels[complex64](t, b) })
	t.Run("complex128", func(t *testing.T) { gpuComplexKernels[complex128](t, b) })
	t.Run("convert", func(t *testing.T) { gpuComplexConvert(t, b) })
	t.Run("panics", func(t *testing.T) { gpuComplexKernelPanics(t, b) })
}

// compareC checks that the device buffer d holds the host buffer h's
// complex elements, bit for bit (two NaN parts match).
func compareC[T backend.Complex](t *testing.T, b *cuda.Backend, what string, d, h driver.Buffer) {
	t.Helper()
	checkC(t, what, download[T](t, b, d), driver.HostSlice[T](h), 0)
}

// noCopies runs f and fails t if it recorded a copy between host and
// device.
func noCopies(t *testing.T, what string, f func()) {
	t.Helper()
	cnt := profiling.Counting(f)
	if h, d := cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice); h != 0 || d != 0 {
		t.Errorf("%s: recorded %d copies to the host and %d to the device, want none", what, h, d)
	}
}

// complexScanInputs returns n values of T for the scans: complexInputs'
// with NaN and infinite parts if special, else values near modulus 1, so
// that long products neither overflow nor vanish and their rounding shows.
func complexScanInputs[T backend.Complex](n int, special bool, seed uint64) []T {
	if special {
		return complexInputs[T](n, true, true, seed)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]T, n)
	for i := range x {
		a := 2 * math.Pi * r.Float64()
		m := 0.75 + 0.5*r.Float64()
		x[i] = T(complex(m*math.Cos(a), m*math.Sin(a)))
	}
	return x
}

func gpuComplexKernels[T backend.Complex](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	var c backend.Backend = cpu.Default
	hostAR, devAR := c.(driver.AxisReducer), backend.Backend(b).(driver.AxisReducer)
	hostSR, devSR := c.(driver.StatsReducer), backend.Backend(b).(driver.StatsReducer)
	shapes := append(append([][3]int(nil), statsShapes...), [3]int{2, 5000, 1}, [3]int{1, 3, 4100})
	for si, sh := range shapes {
		pre, n, post := sh[0], sh[1], sh[2]
		m := pre * post
		for _, special := range []bool{false, true} {
			name := fmt.Sprintf("%v %dx%dx%d special %v", dt, pre, n, post, special)
			src := newPair(t, b, complexInputs[T](pre*n*post, special, false, uint64(si)))

			// SumAxis into Complex128 sums, then CastSums to T.
			acc := filled(t, b, m, complex128(complex(42, -42)))
			noCopies(t, name+" SumAxis", func() { devAR.SumAxis(acc.d, src.d, pre, n, post, false) })
			hostAR.SumAxis(acc.h, src.h, pre, n, post, false)
			compareC[complex128](t, b, name+" SumAxis", acc.d, acc.h)
			res := filled(t, b, m, T(complex(7, 7)))
			noCopies(t, name+" CastSums", func() { devAR.CastSums(res.d, acc.d, false) })
			hostAR.CastSums(res.h, acc.h, false)
			compareC[T](t, b, name+" CastSums", res.d, res.h)

			// ScanAxis: sums and products, from 0 (1) or from a carry,
			// with dst and last, and with last alone.
			xs := newPair(t, b, complexScanInputs[T](pre*n*post, special, uint64(si)+500))
			carry := newPair(t, b, complexScanInputs[T](m, special, uint64(si)+900))
			for _, prod := range []bool{false, true} {
				for _, withCarry := range []bool{false, true} {
					what := fmt.Sprintf("%s ScanAxis prod %v carry %v", name, prod, withCarry)
					var hc, dc driver.Buffer
					if withCarry {
						hc, dc = carry.h, carry.d
					}
					dst := filled(t, b, pre*n*post, T(complex(3, 3)))
					last := filled(t, b, m, T(complex(5, 5)))
					noCopies(t, what, func() { devSR.ScanAxis(dst.d, last.d, xs.d, dc, pre, n, post, prod) })
					hostSR.ScanAxis(dst.h, last.h, xs.h, hc, pre, n, post, prod)
					compareC[T](t, b, what+" dst", dst.d, dst.h)
					compareC[T](t, b, what+" last", last.d, last.h)
					only := filled(t, b, m, T(complex(5, 5)))
					devSR.ScanAxis(nil, only.d, xs.d, dc, pre, n, post, prod)
					compareC[T](t, b, what+" last alone", only.d, last.h)
					for _, p := range []pair{dst, last, only} {
						b.Free(p.d)
					}
				}
			}
			for _, p := range []pair{src, acc, res, xs, carry} {
				b.Free(p.d)
			}
		}
	}

	// Where and Compress, around Compress's tile (1024 elements).
	hostCv, devCv := c.(driver.Converter), backend.Backend(b).(driver.Converter)
	for _, n := range []int{0, 1, 7, 1023, 1024, 1025, 3*1024 + 5} {
		for _, density := range []float64{0, 0.3, 1} {
			name := fmt.Sprintf("%v n=%d density %v", dt, n, density)
			r := rand.New(rand.NewPCG(uint64(n), uint64(100*density)))
			mk := make([]uint8, n)
			for i := range mk {
				if r.Float64() < density {
					mk[i] = uint8(1 + r.IntN(255)) // any nonzero byte is true
				}
			}
			mask := newPair(t, b, mk)
			x := newPair(t, b, complexInputs[T](n, true, false, uint64(n)+1))
			y := newPair(t, b, complexInputs[T](n, true, false, uint64(n)+2))
			dst := filled(t, b, n, T(complex(9, 9)))
			noCopies(t, name+" Where", func() { devCv.Where(dst.d, mask.d, x.d, y.d) })
			hostCv.Where(dst.h, mask.h, x.h, y.h)
			compareC[T](t, b, name+" Where", dst.d, dst.h)
			// In place: dst is b.
			yy := newPair(t, b, driver.HostSlice[T](y.h))
			devCv.Where(yy.d, mask.d, x.d, yy.d)
			hostCv.Where(yy.h, mask.h, x.h, yy.h)
			compareC[T](t, b, name+" Where in place", yy.d, yy.h)

			out := filled(t, b, n+3, T(complex(9, 9)))
			var dk int
			noCopies(t, name+" Compress", func() { dk = devCv.Compress(out.d, x.d, mask.d) })
			hk := hostCv.Compress(out.h, x.h, mask.h)
			if dk != hk {
				t.Errorf("%s Compress: %d elements on the GPU, %d on the CPU", name, dk, hk)
			}
			compareC[T](t, b, name+" Compress", out.d, out.h)
			for _, p := range []pair{mask, x, y, dst, yy, out} {
				b.Free(p.d)
			}
		}
	}
}

// convertSpecials are values whose conversions to integers take each of
// driver.ConvertValue's rules: truncation, wrapping through int32 or
// int64, out of range, NaN and ±Inf, and [2^63, 2^64) for uint64.
var convertSpecials = []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 127.9, -128.9, 255.5, 300.7, -300.7,
	32767.5, 65535.9, 65536.5, -32769.5, 2147483647.5, -2147483648.9, 4294967295.5, 4294967296.5, 1e10, -1e10,
	0x1p62, 0x1p63, -0x1p63, 0x1p63 + 4096, 1.8e19, 0x1p64, -0x1p64, 1e30, 3.5e38, -3.5e38, 1e300, 5e-324,
	math.Inf(1), math.Inf(-1), math.NaN()}

// convertComplexInputs returns n complex values of T whose real parts run
// through convertSpecials, then random ones of mixed magnitudes; the
// imaginary parts are random with NaN and ±Inf among them.
func convertComplexInputs[T backend.Complex](n int, seed uint64) []T {
	x := complexInputs[T](n, true, false, seed)
	for i := range x {
		if i < len(convertSpecials) {
			x[i] = T(complex(convertSpecials[i], imag(complex128(x[i]))))
		}
	}
	return x
}

// convertRealInputs returns n values of the real type R: convertInputs'
// (TestGPUConvert's), with convertSpecials first for floats.
func convertRealInputs[R backend.Element](n int, seed uint64) []R {
	x := convertInputs[R](n, seed)
	if backend.DTypeOf[R]().IsFloat() {
		for i := 0; i < n && i < len(convertSpecials); i++ {
			x[i] = R(convertSpecials[i])
		}
	}
	return x
}

// gpuComplexConvert checks Convert from each complex type to every type
// and from every type to each complex type, against the CPU backend's
// bits.
func gpuComplexConvert(t *testing.T, b *cuda.Backend) {
	for _, n := range []int{0, 1, 100, 1000} {
		convertFromComplex[complex64](t, b, n)
		convertFromComplex[complex128](t, b, n)
		convertToComplex[complex64](t, b, n)
		convertToComplex[complex128](t, b, n)
	}
}

// convertFromComplex converts n values of S to every type.
func convertFromComplex[S backend.Complex](t *testing.T, b *cuda.Backend, n int) {
	x := newPair(t, b, convertComplexInputs[S](n, uint64(n)+11))
	defer b.Free(x.d)
	name := fmt.Sprintf("%v n=%d", backend.DTypeOf[S](), n)
	fromComplexTo[float32](t, b, x, name)
	fromComplexTo[float64](t, b, x, name)
	fromComplexTo[int32](t, b, x, name)
	fromComplexTo[int64](t, b, x, name)
	fromComplexTo[uint32](t, b, x, name)
	fromComplexTo[uint64](t, b, x, name)
	fromComplexTo[int8](t, b, x, name)
	fromComplexTo[int16](t, b, x, name)
	fromComplexTo[uint8](t, b, x, name)
	fromComplexTo[uint16](t, b, x, name)
	complexTo[complex64](t, b, x, name)
	complexTo[complex128](t, b, x, name)
}

// fromComplexTo converts x (complex) to the real type D on both backends.
func fromComplexTo[D backend.Element](t *testing.T, b *cuda.Backend, x pair, name string) {
	t.Helper()
	n := x.h.Len()
	d := filled(t, b, n, D(7))
	defer b.Free(d.d)
	what := fmt.Sprintf("%s to %v", name, backend.DTypeOf[D]())
	noCopies(t, what, func() { b.Convert(d.d, x.d) })
	cpu.Default.Convert(d.h, x.h)
	compareBuf[D](t, b, "Convert "+what, d.d, d.h)
}

// complexTo converts x (any type) to the complex type D on both backends.
func complexTo[D backend.Complex](t *testing.T, b *cuda.Backend, x pair, name string) {
	t.Helper()
	n := x.h.Len()
	d := filled(t, b, n, D(complex(7, 7)))
	defer b.Free(d.d)
	what := fmt.Sprintf("%s to %v", name, backend.DTypeOf[D]())
	noCopies(t, what, func() { b.Convert(d.d, x.d) })
	cpu.Default.Convert(d.h, x.h)
	compareC[D](t, b, "Convert "+what, d.d, d.h)
}

// convertToComplex converts n values of every real type to D.
func convertToComplex[D backend.Complex](t *testing.T, b *cuda.Backend, n int) {
	realToComplexCase[float32, D](t, b, n)
	realToComplexCase[float64, D](t, b, n)
	realToComplexCase[int32, D](t, b, n)
	realToComplexCase[int64, D](t, b, n)
	realToComplexCase[uint32, D](t, b, n)
	realToComplexCase[uint64, D](t, b, n)
	realToComplexCase[int8, D](t, b, n)
	realToComplexCase[int16, D](t, b, n)
	realToComplexCase[uint8, D](t, b, n)
	realToComplexCase[uint16, D](t, b, n)
}

func realToComplexCase[S backend.Element, D backend.Complex](t *testing.T, b *cuda.Backend, n int) {
	x := newPair(t, b, convertRealInputs[S](n, uint64(n)+23))
	defer b.Free(x.d)
	complexTo[D](t, b, x, fmt.Sprintf("%v n=%d", backend.DTypeOf[S](), n))
}

// gpuComplexKernelPanics checks the argument checks of the complex forms
// of the optional kernels.
func gpuComplexKernelPanics(t *testing.T, b *cuda.Backend) {
	x := upload(t, b, []complex64{1, 2, 3, 4})
	z := upload(t, b, []complex128{1, 2, 3, 4})
	f := upload(t, b, []float64{1, 2, 3, 4})
	defer func() {
		for _, d := range []driver.Buffer{x, z, f} {
			b.Free(d)
		}
	}()
	mustPanic(t, "cuda: ", func() { b.SumAxis(z, x, 2, 2, 1, true) })           // squares of complex
	mustPanic(t, "cuda: ", func() { b.SumAxis(f, x, 2, 2, 1, false) })          // a Float64 acc for complex
	mustPanic(t, "cuda: ", func() { b.CastSums(x, z, true) })                   // sqrt into complex
	mustPanic(t, "cuda: ", func() { b.CastSums(x, f, false) })                  // Float64 sums into complex
	mustPanic(t, "cuda: ", func() { b.CastSums(f, z, false) })                  // complex sums into a float
	mustPanic(t, "cuda: ", func() { b.ScanAxis(x, nil, x, z, 1, 2, 2, false) }) // a carry of another type
}
