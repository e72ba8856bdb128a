package cuda_test

import (
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
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
	hc := backend.HostBufferOf(make([]float64, m*n))
	cpu.Default.Gemm(hc, backend.HostBufferOf(a), backend.HostBufferOf(bm), m, n, k, k, n, n, false)
	host := backend.HostSlice[float64](hc)
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
