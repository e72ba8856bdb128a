package cuda_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The vendor libraries in the tests: XPMPI_CUBLAS and XPMPI_CUFFT name
// Debian's CUDA 11.8 cuBLAS and cuFFT where scripts/fetch-cudalibs.sh
// fetched them (scripts/test.sh sets them); without them the tests that
// load them skip, and the fallback is tested with missing files.

func TestLibModeFromEnv(t *testing.T) {
	for _, c := range []struct {
		val  string
		want cuda.LibMode
		err  string
	}{
		{"", cuda.VendorMode, ""},
		{"vendor", cuda.VendorMode, ""},
		{" Parity ", cuda.ParityMode, ""},
		{"fast", cuda.VendorMode, `XPMPI_CUDA_LIBS="fast": want vendor`},
	} {
		t.Setenv(cuda.LibModeEnv, c.val)
		m, err := cuda.LibModeFromEnv()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want an error saying %q", c.val, err, c.err)
			}
			continue
		}
		if err != nil || m != c.want {
			t.Errorf("%q: %v, %v; want %v", c.val, m, err, c.want)
		}
	}
	if cuda.VendorMode.String() != "vendor" || cuda.ParityMode.String() != "parity" {
		t.Errorf("mode names %s, %s", cuda.VendorMode, cuda.ParityMode)
	}
}

// TestVendorLoad loads the vendor libraries and resolves their entry
// points (in a child process: a library is loaded once per process), with
// the files XPMPI_CUBLAS and XPMPI_CUFFT name, and with missing files.
func TestVendorLoad(t *testing.T) {
	if os.Getenv("XPMPI_VENDOR_CHILD") == "1" {
		libs := cuda.VendorLibraries()
		for _, l := range libs {
			t.Logf("%s", l)
		}
		want := os.Getenv("XPMPI_VENDOR_EXPECT")
		got := libs[0].String() + "\n" + libs[1].String()
		for _, w := range strings.Split(want, "|") {
			if !strings.Contains(got, w) {
				t.Errorf("VendorLibraries:\n%s\nlacks %q", got, w)
			}
		}
		return
	}
	cases := []struct {
		name          string
		cublas, cufft string
		expect        string
	}{
		{"missing", "/nonexistent/libcublas.so.11", "/nonexistent/libcufft.so.10",
			"cuBLAS: none (cuBLAS not found (tried /nonexistent/libcublas.so.11: no such file or directory; set XPMPI_CUBLAS to its path))|cuFFT: none (cuFFT not found (tried /nonexistent/libcufft.so.10"},
	}
	if libc, _ := filepath.Glob("/lib/x86_64-linux-gnu/libc.so.6"); len(libc) == 1 {
		cases = append(cases, struct {
			name          string
			cublas, cufft string
			expect        string
		}{"not the library", libc[0], libc[0], "missing symbol cublasGetProperty|missing symbol cufftGetVersion"})
	}
	cb, cf := os.Getenv("XPMPI_CUBLAS"), os.Getenv("XPMPI_CUFFT")
	if cb != "" && cf != "" {
		cases = append(cases, struct {
			name          string
			cublas, cufft string
			expect        string
		}{"present", cb, cf, "cuBLAS 1|(" + cb + ")|cuFFT 1|(" + cf + ")"})
	} else {
		t.Log("XPMPI_CUBLAS and XPMPI_CUFFT unset: the loading of the real libraries is not tested (scripts/fetch-cudalibs.sh fetches them)")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, ok := runChild(t, "^TestVendorLoad$", "XPMPI_VENDOR_CHILD=1", "XPMPI_CUBLAS="+c.cublas, "XPMPI_CUFFT="+c.cufft, "XPMPI_VENDOR_EXPECT="+c.expect)
			if !ok || !strings.Contains(out, "--- PASS: TestVendorLoad") {
				t.Errorf("child:\n%s", out)
			}
		})
	}
}

// TestGPUVendor compares the vendor mode (cuBLAS, cuFFT) with the parity
// mode (xpmpi's kernels) and the CPU, within the stated bounds; where the
// vendor libraries do not start (missing, or on the fake driver, where
// their runtime finds no driver) it checks the fallback: Vendor says why,
// and the results are the parity mode's bits.
func TestGPUVendor(t *testing.T) {
	b, err := cuda.Default()
	if err != nil {
		t.Skipf("no CUDA backend here: %v", err)
	}
	old := b.SetLibMode(cuda.VendorMode)
	defer b.SetLibMode(old)
	st := b.Vendor()
	t.Logf("vendor mode: GEMM %s; FFT %s", st.GEMM, st.FFT)
	if st.Mode != "vendor" {
		t.Errorf("mode %q", st.Mode)
	}
	blas, fft := strings.HasPrefix(st.GEMM, "cuBLAS "), strings.HasPrefix(st.FFT, "cuFFT ")
	if emulated(b) {
		// The fake driver: the libraries' runtime finds no libcuda.so.1.
		if blas || fft {
			t.Errorf("the vendor libraries start on the fake driver: %+v", st)
		}
		if os.Getenv("XPMPI_CUBLAS") != "" && !strings.Contains(st.GEMM, "loads but does not start") {
			t.Errorf("GEMM status %q, want cuBLAS loaded but not started", st.GEMM)
		}
	}
	if !blas && !strings.HasPrefix(st.GEMM, "xpmpi's kernel (gemm.cu): ") || !fft && !strings.HasPrefix(st.FFT, "xpmpi's kernels (fft.cu): ") {
		t.Errorf("status %+v", st)
	}
	const m, n, k = 67, 45, 130
	a, bm := statsInputs[float64](m*k, false, 7), statsInputs[float64](k*n, false, 8)
	gemm := func(mode cuda.LibMode) []float64 {
		b.SetLibMode(mode)
		da, db := upload(t, b, a), upload(t, b, bm)
		dc, err := b.Alloc(backend.Float64, m*n)
		if err != nil {
			t.Fatal(err)
		}
		b.Gemm(dc, da, db, m, n, k, k, n, n, false)
		out := download[float64](t, b, dc)
		b.Free(da)
		b.Free(db)
		b.Free(dc)
		return out
	}
	vend, par := gemm(cuda.VendorMode), gemm(cuda.ParityMode)
	hc := driver.HostBufferOf(make([]float64, m*n))
	cpu.Default.Gemm(hc, driver.HostBufferOf(a), driver.HostBufferOf(bm), m, n, k, k, n, n, false)
	host := driver.HostSlice[float64](hc)
	// |C| + |A||B| bounds the error of any order: 2γ(k+1) between two.
	u := math.Ldexp(1, -53)
	gamma := float64(k+1) * u / (1 - float64(k+1)*u)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			abs := 0.0
			for l := 0; l < k; l++ {
				abs += math.Abs(a[i*k+l] * bm[l*n+j])
			}
			bound := 2 * gamma * abs
			x := i*n + j
			if d := math.Abs(vend[x] - host[x]); d > bound {
				t.Fatalf("GEMM [%d,%d]: vendor %v, CPU %v: %g apart, bound %g", i, j, vend[x], host[x], d, bound)
			}
			if d := math.Abs(vend[x] - par[x]); d > bound {
				t.Fatalf("GEMM [%d,%d]: vendor %v, parity %v: %g apart, bound %g", i, j, vend[x], par[x], d, bound)
			}
			if !blas && math.Float64bits(vend[x]) != math.Float64bits(par[x]) {
				t.Fatalf("GEMM [%d,%d]: without cuBLAS the vendor mode gives %v, the parity mode %v", i, j, vend[x], par[x])
			}
		}
	}
	// FFT: 3 x 60 x 2 lines along the middle axis, and 4 lines of 97.
	for _, shape := range [][3]int{{3, 60, 2}, {4, 97, 1}} {
		pre, nn, post := shape[0], shape[1], shape[2]
		x := make([]complex128, pre*nn*post)
		for i := range x {
			x[i] = complex(math.Sin(float64(i)*0.37), math.Cos(float64(i)*0.11))
		}
		run := func(mode cuda.LibMode, inverse bool) []complex128 {
			b.SetLibMode(mode)
			d := upload(t, b, x)
			if err := b.FFT(d, pre, nn, post, inverse); err != nil {
				t.Fatal(err)
			}
			out := download[complex128](t, b, d)
			b.Free(d)
			return out
		}
		for _, inverse := range []bool{false, true} {
			v, p := run(cuda.VendorMode, inverse), run(cuda.ParityMode, inverse)
			scale := 0.0
			for _, z := range p {
				scale = math.Max(scale, cmplx.Abs(z))
			}
			for i := range v {
				if cmplx.Abs(v[i]-p[i]) > 1e-13*scale {
					t.Fatalf("FFT %v inverse %v: element %d: vendor %v, parity %v", shape, inverse, i, v[i], p[i])
				}
				if !fft && v[i] != p[i] {
					t.Fatalf("FFT %v: without cuFFT the vendor mode gives %v, the parity mode %v at %d", shape, v[i], p[i], i)
				}
			}
		}
	}
	b.SetLibMode(cuda.ParityMode)
	if st := b.Vendor(); st.Mode != "parity" || !strings.Contains(st.GEMM, "XPMPI_CUDA_LIBS=parity") {
		t.Errorf("parity mode: %+v", st)
	}
}

// TestVendorTiming times, on a GPU only (skipped elsewhere, the fake
// driver included), W9's matrix product (2048 x 2048 float64 and float32,
// GFLOP/s counting 2n^3) and W8's 2-D FFT (2048 x 2048 complex128, a
// forward and an inverse transform along both axes, GFLOP/s counting
// 5 N log2 N per transform of N = n^2 points), in the vendor mode (cuBLAS,
// cuFFT) and the parity mode (xpmpi's kernels), best of three each, and
// checks the two modes against each other: GEMM within 2γ(k+1)·(|A||B|)ij
// elementwise (|A||B| computed on the device), the FFT within 1e-12 of
// the largest modulus. It prints one GPUTIME line per figure for
// scripts/gpu-check.sh.
func TestVendorTiming(t *testing.T) {
	b, err := cuda.Default()
	if err != nil {
		t.Skipf("no CUDA backend here: %v", err)
	}
	if emulated(b) {
		t.Skip("the fake driver: timings need a GPU")
	}
	old := b.LibMode()
	defer b.SetLibMode(old)
	st := b.Vendor()
	t.Logf("vendor mode: GEMM %s; FFT %s", st.GEMM, st.FFT)
	const n = 2048
	best := func(f func()) float64 {
		bt := math.Inf(1)
		for range 3 {
			if err := b.Synchronize(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			f()
			if err := b.Synchronize(); err != nil {
				t.Fatal(err)
			}
			bt = math.Min(bt, time.Since(start).Seconds())
		}
		return bt
	}
	t.Run("W9 GEMM", func(t *testing.T) {
		a, bm := statsInputs[float64](n*n, false, 11), statsInputs[float64](n*n, false, 12)
		abs := func(x []float64) []float64 {
			out := make([]float64, len(x))
			for i, v := range x {
				out[i] = math.Abs(v)
			}
			return out
		}
		da, db := upload(t, b, a), upload(t, b, bm)
		c := map[cuda.LibMode][]float64{}
		for _, mode := range []cuda.LibMode{cuda.VendorMode, cuda.ParityMode} {
			b.SetLibMode(mode)
			dc, err := b.Alloc(backend.Float64, n*n)
			if err != nil {
				t.Fatal(err)
			}
			s := best(func() { b.Gemm(dc, da, db, n, n, n, n, n, n, false) })
			fmt.Printf("GPUTIME W9 float64 %s %.1f GFLOP/s (%.2f ms)\n", mode, 2*n*n*float64(n)/s/1e9, s*1e3)
			c[mode] = download[float64](t, b, dc)
			b.Free(dc)
			// float32 at the same size
			a32, b32 := upload(t, b, toF32(a)), upload(t, b, toF32(bm))
			c32, err := b.Alloc(backend.Float32, n*n)
			if err != nil {
				t.Fatal(err)
			}
			s = best(func() { b.Gemm(c32, a32, b32, n, n, n, n, n, n, false) })
			fmt.Printf("GPUTIME W9 float32 %s %.1f GFLOP/s (%.2f ms)\n", mode, 2*n*n*float64(n)/s/1e9, s*1e3)
			b.Free(a32)
			b.Free(b32)
			b.Free(c32)
		}
		b.SetLibMode(cuda.ParityMode)
		dA, dB := upload(t, b, abs(a)), upload(t, b, abs(bm))
		dAB, err := b.Alloc(backend.Float64, n*n)
		if err != nil {
			t.Fatal(err)
		}
		b.Gemm(dAB, dA, dB, n, n, n, n, n, n, false)
		ab := download[float64](t, b, dAB)
		u := math.Ldexp(1, -53)
		gamma := float64(n+1) * u / (1 - float64(n+1)*u)
		for i, v := range c[cuda.VendorMode] {
			if d := math.Abs(v - c[cuda.ParityMode][i]); d > 2*gamma*ab[i]*(1+1e-10) {
				t.Fatalf("W9 GEMM element %d: vendor %v, parity %v: %g apart, bound %g", i, v, c[cuda.ParityMode][i], d, 2*gamma*ab[i])
			}
		}
		for _, x := range []driver.Buffer{da, db, dA, dB, dAB} {
			b.Free(x)
		}
	})
	t.Run("W8 FFT", func(t *testing.T) {
		x := make([]complex128, n*n)
		for i := range x {
			x[i] = complex(math.Sin(float64(i)*0.001), math.Cos(float64(i)*0.0007))
		}
		res := map[cuda.LibMode][]complex128{}
		for _, mode := range []cuda.LibMode{cuda.VendorMode, cuda.ParityMode} {
			b.SetLibMode(mode)
			d := upload(t, b, x)
			fwd := func(inverse bool) {
				if err := b.FFT(d, 1, n, n, inverse); err != nil {
					t.Fatal(err)
				}
				if err := b.FFT(d, n, n, 1, inverse); err != nil {
					t.Fatal(err)
				}
			}
			s := best(func() { fwd(false); fwd(true) })
			flops := 2 * 5 * float64(n*n) * math.Log2(float64(n*n))
			fmt.Printf("GPUTIME W8 complex128 %s %.1f GFLOP/s (%.2f ms forward and inverse)\n", mode, flops/s/1e9, s*1e3)
			// One forward transform from x, kept for the comparison.
			if err := b.CopyFromHost(d, unsafe.Pointer(&x[0])); err != nil {
				t.Fatal(err)
			}
			fwd(false)
			res[mode] = download[complex128](t, b, d)
			b.Free(d)
		}
		scale := 0.0
		for _, z := range res[cuda.ParityMode] {
			scale = math.Max(scale, cmplx.Abs(z))
		}
		for i, v := range res[cuda.VendorMode] {
			if cmplx.Abs(v-res[cuda.ParityMode][i]) > 1e-12*scale {
				t.Fatalf("W8 FFT element %d: vendor %v, parity %v (max modulus %g)", i, v, res[cuda.ParityMode][i], scale)
			}
		}
	})
}

func toF32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}
