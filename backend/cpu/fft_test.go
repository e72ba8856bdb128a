package cpu_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// fftFixture is one length of ../testdata/fft.bin (gen_fft.py): NumPy's
// forward and inverse transforms of fftInput(n).
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

// checkFFTer checks run, an FFTer's transform of a pre x n x post block of
// T, against NumPy's fixtures to tol relative (in the max norm over the
// block): a batch of lines, line (i, j) being the fixture's input times
// complex(1+i, j/2), along the last axis (post 1), the first (pre 1) and
// a middle one; the inverse; and the inverse after the forward transform.
// Lengths above maxN are left out.
func checkFFTer[T complex64 | complex128](t *testing.T, tol float64, maxN int, run func(x []T, pre, n, post int, inverse bool) []T) {
	for _, fx := range loadFFTFixtures(t) {
		n := fx.n
		if n > maxN {
			continue
		}
		in := fftInput(n)
		// post 70 and 37: lines along a middle axis in more than one
		// group (fftLines), the last group narrower, in rows wider than
		// a group: the strided transform's reads and writes in place.
		shapes := [][2]int{{1, 1}, {3, 1}, {1, 4}, {2, 3}, {0, 2}, {1, 70}, {2, 37}}
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
			what := fmt.Sprintf("%v n=%d pre=%d post=%d", backend.DTypeOf[T](), n, pre, post)
			y := run(append([]T(nil), x...), pre, n, post, false)
			if e := fftRelErr(y, fwd); e > tol {
				t.Errorf("%s: forward: relative error %.3g against NumPy", what, e)
			}
			if e := fftRelErr(run(append([]T(nil), x...), pre, n, post, true), back); e > tol {
				t.Errorf("%s: inverse: relative error %.3g against NumPy", what, e)
			}
			if e := fftRelErr(run(y, pre, n, post, true), orig); e > tol {
				t.Errorf("%s: inverse after forward: relative error %.3g", what, e)
			}
		}
	}
}

// naiveDFT returns the unnormalized DFT of x (exponent sign -1 forward,
// +1 inverse), the O(n^2) sum with twiddle factors of the reduced index.
func naiveDFT(x []complex128, sign float64) []complex128 {
	n := len(x)
	w := make([]complex128, n)
	for k := range w {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		w[k] = complex(c, sign*s)
	}
	out := make([]complex128, n)
	for k := range out {
		var sum complex128
		for j, v := range x {
			sum += v * w[j*k%n]
		}
		out[k] = sum
	}
	return out
}

// TestFFTLengths checks the CPU backend's FFT at lengths the NumPy
// fixtures lack (each radix of the Stockham kernel as its last pass, and
// gonum's lengths) against an O(n^2) DFT: forward and inverse, complex128
// and complex64, along the last axis and gathered along others (post 9
// and 33: a full group of lines and a group of one, with gonum's groups
// of 8 and fftk's of up to 32), at one and three threads.
func TestFFTLengths(t *testing.T) {
	ns := []int{4, 16, 64, 256, 6, 10, 20, 40, 45, 75, 11, 77}
	if !testing.Short() {
		ns = append(ns, 1024, 1000, 1001)
	}
	shapes := [][2]int{{3, 1}, {1, 5}, {2, 9}, {1, 33}}
	for _, threads := range []int{1, 3} {
		prev := backend.SetThreads(threads)
		for _, n := range ns {
			in := fftInput(n)
			for _, sh := range shapes {
				pre, post := sh[0], sh[1]
				if post > 9 && n > 256 {
					continue // the O(n^2) reference of 33 long lines is slow
				}
				x := make([]complex128, pre*n*post)
				fwd := make([]complex128, len(x))
				back := make([]complex128, len(x))
				for i := 0; i < pre; i++ {
					for j := 0; j < post; j++ {
						line := make([]complex128, n)
						for k := range line {
							line[k] = in[(k+3*i+j)%n] * complex(1, float64(j))
						}
						f, b := naiveDFT(line, -1), naiveDFT(line, 1)
						for k := range line {
							at := (i*n+k)*post + j
							x[at] = line[k]
							fwd[at] = f[k]
							back[at] = b[k] / complex(float64(n), 0)
						}
					}
				}
				x64 := make([]complex64, len(x))
				for i, v := range x {
					x64[i] = complex64(v)
				}
				for _, inverse := range []bool{false, true} {
					want := fwd
					if inverse {
						want = back
					}
					what := fmt.Sprintf("threads=%d n=%d pre=%d post=%d inverse=%v", threads, n, pre, post, inverse)
					y := append([]complex128(nil), x...)
					if err := cpu.Default.FFT(driver.HostBufferOf(y), pre, n, post, inverse); err != nil {
						t.Fatal(err)
					}
					if e := fftRelErr(y, want); e > 1e-12 {
						t.Errorf("%s: complex128: relative error %.3g", what, e)
					}
					y64 := append([]complex64(nil), x64...)
					if err := cpu.Default.FFT(driver.HostBufferOf(y64), pre, n, post, inverse); err != nil {
						t.Fatal(err)
					}
					if e := fftRelErr(y64, want); e > 1e-6 {
						t.Errorf("%s: complex64: relative error %.3g", what, e)
					}
				}
			}
		}
		backend.SetThreads(prev)
	}
}

// TestFFT checks the CPU backend's FFT against NumPy, at one and three
// threads, and its argument checks. FFTPACK takes O(n^2) for the prime
// 4099, so the lengths above 1000 run at one thread, and not with -short.
func TestFFT(t *testing.T) {
	for _, threads := range []int{1, 3} {
		maxN := 1 << 30
		if threads > 1 || testing.Short() {
			maxN = 1000
		}
		prev := backend.SetThreads(threads)
		checkFFTer(t, 1e-12, maxN, func(x []complex128, pre, n, post int, inverse bool) []complex128 {
			if err := cpu.Default.FFT(driver.HostBufferOf(x), pre, n, post, inverse); err != nil {
				t.Fatal(err)
			}
			return x
		})
		// complex64 goes through complex128 scratch: rounded once.
		checkFFTer(t, 1e-6, maxN, func(x []complex64, pre, n, post int, inverse bool) []complex64 {
			if err := cpu.Default.FFT(driver.HostBufferOf(x), pre, n, post, inverse); err != nil {
				t.Fatal(err)
			}
			return x
		})
		backend.SetThreads(prev)
	}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"real", func() { cpu.Default.FFT(driver.HostBufferOf(make([]float64, 4)), 1, 4, 1, false) }},
		{"short", func() { cpu.Default.FFT(driver.HostBufferOf(make([]complex128, 5)), 2, 3, 1, false) }},
		{"negative", func() { cpu.Default.FFT(driver.HostBufferOf(make([]complex128, 0)), -1, 0, 1, false) }},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); len(r) < 9 || r[:9] != "backend: " {
					t.Errorf("%s: panic %q, want one from driver.CheckFFT", c.name, r)
				}
			}()
			c.f()
		}()
	}
}

// BenchmarkFFT2D is W8's local work at one rank, one thread: the 2048
// rows of a 2048 x 2048 complex128 array (contiguous lines) and its 2048
// columns (strided, gathered in groups), forward and inverse.
func BenchmarkFFT2D(b *testing.B) {
	const n = 2048
	x := make([]complex128, n*n)
	for i := range x {
		x[i] = complex(math.Sin(float64(i)), math.Cos(float64(3*i)))
	}
	prev := backend.SetThreads(1)
	defer backend.SetThreads(prev)
	buf := driver.HostBufferOf(x)
	for _, c := range []struct {
		name      string
		pre, post int
	}{{"rows", n, 1}, {"columns", 1, n}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(2 * 16 * n * n))
			for b.Loop() {
				cpu.Default.FFT(buf, c.pre, n, c.post, false)
				cpu.Default.FFT(buf, c.pre, n, c.post, true)
			}
		})
	}
}
