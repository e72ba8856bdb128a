package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/profiling"
)

// fftFixture is one length of ../testdata/fft.bin (gen_fft.py there):
// NumPy's forward and inverse transforms of fftInput(n). The lengths are
// 1, 2, 3, 5, 8, 12, 60, 128 and 2048 (Stockham passes of radix 2, 3, 4
// and 5) and 7, 97 and the prime 4099 (Bluestein).
type fftFixture struct {
	n         int
	fwd, back []complex128
}

// loadFFTFixtures reads ../testdata/fft.bin.
func loadFFTFixtures(t *testing.T) []fftFixture {
	t.Helper()
	data, err := os.ReadFile("../testdata/fft.bin")
	if err != nil {
		t.Fatal(err)
	}
	f64 := func() float64 {
		v := math.Float64frombits(binary.LittleEndian.Uint64(data))
		data = data[8:]
		return v
	}
	var out []fftFixture
	for len(data) > 0 {
		n := int(binary.LittleEndian.Uint64(data))
		data = data[8:]
		fx := fftFixture{n: n, fwd: make([]complex128, n), back: make([]complex128, n)}
		for _, s := range [][]complex128{fx.fwd, fx.back} {
			for i := range s {
				re := f64()
				s[i] = complex(re, f64())
			}
		}
		out = append(out, fx)
	}
	return out
}

// fftInput is the input of the fixtures of length n, as gen_fft.py makes it.
func fftInput(n int) []complex128 {
	x := make([]complex128, n)
	for j := range x {
		x[j] = complex(float64(j*37%101)/101-0.5, float64(j*53%97)/97-0.5)
	}
	return x
}

// fftRelErr is max|got-want| / max|want|.
func fftRelErr[T complex64 | complex128](got []T, want []complex128) float64 {
	var d, m float64
	for i := range want {
		d = math.Max(d, cmplx.Abs(complex128(got[i])-want[i]))
		m = math.Max(m, cmplx.Abs(want[i]))
	}
	if m == 0 {
		return d
	}
	return d / m
}

// TestGPUFFT checks the CUDA backend's FFT (fft.cu: Stockham passes of
// radix 2, 3, 4 and 5, Bluestein's algorithm for other lengths) against
// NumPy's fixtures: complex128 to 1e-12 relative in the max norm over the
// block, complex64 to 2e-6 (float32 arithmetic), forward, inverse and the
// inverse after the forward transform, for batches of lines along the
// last axis, the first and a middle one; that a transform records no copy
// between host and device once its plan is made; and its argument checks.
func TestGPUFFT(t *testing.T) {
	b := gpu(t)
	t.Run("complex128", func(t *testing.T) { gpuFFT[complex128](t, b, 1e-12) })
	t.Run("complex64", func(t *testing.T) { gpuFFT[complex64](t, b, 2e-6) })
	t.Run("panics", func(t *testing.T) {
		x, err := b.Alloc(backend.Complex128, 6)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free(x)
		r, err := b.Alloc(backend.Float64, 4)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free(r)
		mustPanic(t, "backend: FFT of a float64 buffer", func() { b.FFT(r, 1, 4, 1, false) })
		mustPanic(t, "backend: FFT of 2 x 2 x 2 elements on a buffer of 6", func() { b.FFT(x, 2, 2, 2, false) })
		mustPanic(t, "backend: FFT of sizes", func() { b.FFT(x, -1, 6, -1, false) })
		mustPanic(t, "cuda: FFT of a buffer on cpu", func() { b.FFT(driver.HostBufferOf(make([]complex128, 6)), 1, 6, 1, false) })
	})
}

func gpuFFT[T complex64 | complex128](t *testing.T, b *cuda.Backend, tol float64) {
	dt := backend.DTypeOf[T]()
	run := func(x []T, pre, n, post int, inverse bool) []T {
		d, err := b.Alloc(dt, len(x))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free(d)
		if len(x) == 0 {
			if err := b.FFT(d, pre, n, post, inverse); err != nil {
				t.Fatal(err)
			}
			return x
		}
		if err := b.CopyFromHost(d, unsafe.Pointer(&x[0])); err != nil {
			t.Fatal(err)
		}
		if err := b.FFT(d, pre, n, post, inverse); err != nil { // makes the plan
			t.Fatal(err)
		}
		if err := b.CopyFromHost(d, unsafe.Pointer(&x[0])); err != nil {
			t.Fatal(err)
		}
		cnt := profiling.Counting(func() { err = b.FFT(d, pre, n, post, inverse) })
		if err != nil {
			t.Fatal(err)
		}
		if cnt.Count(profiling.ToHost) != 0 || cnt.Count(profiling.ToDevice) != 0 {
			t.Errorf("%v FFT of %d x %d x %d: %d copies to the host and %d to the device recorded, want none",
				dt, pre, n, post, cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice))
		}
		y := make([]T, len(x))
		if err := b.CopyToHost(unsafe.Pointer(&y[0]), d); err != nil {
			t.Fatal(err)
		}
		return y
	}
	for _, fx := range loadFFTFixtures(t) {
		n := fx.n
		in := fftInput(n)
		shapes := [][2]int{{1, 1}, {3, 1}, {1, 4}, {2, 3}, {0, 2}}
		if n >= 1000 {
			shapes = [][2]int{{2, 1}, {1, 2}}
		}
		for _, sh := range shapes {
			pre, post := sh[0], sh[1]
			x := make([]T, pre*n*post)
			fwd := make([]complex128, len(x))
			back := make([]complex128, len(x))
			orig := make([]complex128, len(x))
			for i := 0; i < pre; i++ {
				for j := 0; j < post; j++ {
					a := complex(1+float64(i), float64(j)/2)
					for k := 0; k < n; k++ {
						at := (i*n+k)*post + j
						x[at] = T(a * in[k])
						orig[at] = complex128(x[at])
						fwd[at] = a * fx.fwd[k]
						back[at] = a * fx.back[k]
					}
				}
			}
			what := fmt.Sprintf("%v n=%d pre=%d post=%d", dt, n, pre, post)
			y := run(x, pre, n, post, false)
			if e := fftRelErr(y, fwd); e > tol {
				t.Errorf("%s: forward: relative error %.3g against NumPy", what, e)
			}
			if e := fftRelErr(run(x, pre, n, post, true), back); e > tol {
				t.Errorf("%s: inverse: relative error %.3g against NumPy", what, e)
			}
			if e := fftRelErr(run(y, pre, n, post, true), orig); e > tol {
				t.Errorf("%s: inverse after forward: relative error %.3g", what, e)
			}
		}
	}
}
