package cpu_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
)

// gemmCase is one product: sizes, and the padding added to each leading
// dimension.
type gemmCase struct{ m, n, k, pa, pb, pc int }

var gemmCases = []gemmCase{
	{0, 0, 0, 0, 0, 0}, {0, 3, 2, 1, 0, 0}, {3, 0, 2, 0, 1, 0}, {2, 3, 0, 0, 0, 1},
	{1, 1, 1, 0, 0, 0}, {3, 4, 5, 0, 0, 0}, {3, 4, 5, 2, 1, 3}, {7, 1, 9, 1, 0, 2},
	{1, 8, 3, 0, 4, 0}, {130, 67, 129, 3, 2, 1},
}

// TestGemm checks Gemm against a triple loop in int64 on small integers,
// whose products and sums every element type holds exactly, with padded
// leading dimensions whose padding must be left alone, and with and
// without accumulation.
func TestGemm(t *testing.T) {
	testGemm[float64](t)
	testGemm[float32](t)
	testGemm[int32](t)
	testGemm[int64](t)
	testGemm[uint32](t)
	testGemm[uint64](t)
	testGemmComplex[complex128](t)
	testGemmComplex[complex64](t)
}

// testGemmComplex checks complex Gemm against a triple loop in complex128
// on Gaussian integers with small parts, whose products and sums both
// complex types hold exactly; padding must be left alone, and NaNs in C do
// not survive a product that does not accumulate.
func testGemmComplex[T complex64 | complex128](t *testing.T) {
	dt := backend.DTypeOf[T]()
	for _, tc := range gemmCases {
		for _, acc := range []bool{false, true} {
			name := fmt.Sprintf("%v/%+v/accumulate=%v", dt, tc, acc)
			lda, ldb, ldc := max(tc.k+tc.pa, 1), max(tc.n+tc.pb, 1), max(tc.n+tc.pc, 1)
			val := func(i, mod int) T {
				return T(complex(float64((i*7+3)%mod-2), float64((i*5+1)%(mod+1)-3)))
			}
			pad := T(complex(99, -99))
			a, b, c := make([]T, tc.m*lda), make([]T, tc.k*ldb), make([]T, tc.m*ldc)
			for i := range a {
				if a[i] = val(i, 5); i%lda >= tc.k {
					a[i] = pad
				}
			}
			for i := range b {
				if b[i] = val(i, 6); i%ldb >= tc.n {
					b[i] = pad
				}
			}
			for i := range c {
				if c[i] = val(i, 4); i%ldc >= tc.n {
					c[i] = pad
				} else if !acc && i%3 == 0 {
					c[i] = T(complex(math.NaN(), math.NaN()))
				}
			}
			want := make([]complex128, len(c))
			for i := range want {
				want[i] = complex128(c[i])
				if i%ldc >= tc.n {
					continue
				}
				r, col := i/ldc, i%ldc
				if !acc {
					want[i] = 0
				}
				for l := 0; l < tc.k; l++ {
					want[i] += complex128(a[r*lda+l]) * complex128(b[l*ldb+col])
				}
			}
			cpu.Default.Gemm(backend.Wrap(c).Buffer(), backend.Wrap(a).Buffer(), backend.Wrap(b).Buffer(), tc.m, tc.n, tc.k, lda, ldb, ldc, acc)
			for i := range c {
				if complex128(c[i]) != want[i] {
					t.Fatalf("%s: c[%d] = %v, want %v", name, i, c[i], want[i])
				}
			}
		}
	}
}

func testGemm[T backend.Element](t *testing.T) {
	dt := backend.DTypeOf[T]()
	for _, tc := range gemmCases {
		for _, acc := range []bool{false, true} {
			name := fmt.Sprintf("%v/%+v/accumulate=%v", dt, tc, acc)
			lda, ldb, ldc := max(tc.k+tc.pa, 1), max(tc.n+tc.pb, 1), max(tc.n+tc.pc, 1)
			// Unsigned types get non-negative values so that the int64
			// reference is theirs too.
			val := func(i, mod int) int64 {
				v := int64((i*7+3)%mod) - 2
				if dt == backend.Uint32 || dt == backend.Uint64 {
					v += 2
				}
				return v
			}
			a := make([]T, tc.m*lda)
			b := make([]T, tc.k*ldb)
			c := make([]T, tc.m*ldc)
			const pad = 99
			for i := range a {
				a[i] = T(val(i, 5))
				if i%lda >= tc.k {
					a[i] = pad
				}
			}
			for i := range b {
				b[i] = T(val(i, 6))
				if i%ldb >= tc.n {
					b[i] = pad
				}
			}
			for i := range c {
				c[i] = T(val(i, 4))
				if i%ldc >= tc.n {
					c[i] = pad
				}
			}
			want := make([]int64, len(c))
			for i := range want {
				want[i] = int64(c[i])
				if i%ldc >= tc.n {
					continue
				}
				r, col := i/ldc, i%ldc
				if !acc {
					want[i] = 0
				}
				for l := 0; l < tc.k; l++ {
					want[i] += int64(a[r*lda+l]) * int64(b[l*ldb+col])
				}
			}
			cpu.Default.Gemm(backend.Wrap(c).Buffer(), backend.Wrap(a).Buffer(), backend.Wrap(b).Buffer(), tc.m, tc.n, tc.k, lda, ldb, ldc, acc)
			for i := range c {
				if c[i] != T(want[i]) {
					t.Fatalf("%s: c[%d] = %v, want %v", name, i, c[i], want[i])
				}
			}
		}
	}
}

// TestGemmPanics checks that arguments the buffers cannot hold panic.
func TestGemmPanics(t *testing.T) {
	f := backend.Wrap(make([]float64, 6)).Buffer()
	g := backend.Wrap(make([]float32, 6)).Buffer()
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"types", func() { cpu.Default.Gemm(f, g, f, 2, 3, 2, 2, 3, 3, false) }},
		{"short", func() { cpu.Default.Gemm(f, f, f, 3, 3, 2, 2, 3, 3, false) }},
		{"lda", func() { cpu.Default.Gemm(f, f, f, 2, 3, 2, 1, 3, 3, false) }},
		{"negative", func() { cpu.Default.Gemm(f, f, f, -1, 3, 2, 2, 3, 3, false) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.call()
		}()
	}
}

// TestGemmLibraries runs the float and complex products on gonum and, where it loads,
// on OpenBLAS, and checks that GEMMLibrary says which.
func TestGemmLibraries(t *testing.T) {
	defer cpu.SetGEMM(cpu.GEMMAuto)
	for _, lib := range []string{cpu.GEMMGonum, cpu.GEMMOpenBLAS} {
		if err := cpu.SetGEMM(lib); err != nil {
			t.Logf("%s: %v: not tested", lib, err)
			continue
		}
		if got := cpu.GEMMLibrary(); !strings.HasPrefix(got, lib) {
			t.Errorf("SetGEMM(%q): GEMMLibrary says %q", lib, got)
		}
		testGemm[float64](t)
		testGemm[float32](t)
		testGemmComplex[complex128](t)
		testGemmComplex[complex64](t)
	}
}

// TestGemmFallback checks, in child processes where OpenBLAS cannot be
// found, that products fall back to gonum and that GEMMLibrary and SetGEMM
// say why.
func TestGemmFallback(t *testing.T) {
	if os.Getenv("XPMPI_GEMM_CHILD") == "1" {
		c := make([]float64, 4)
		cpu.Default.Gemm(backend.Wrap(c).Buffer(), backend.Wrap([]float64{1, 2, 3, 4}).Buffer(), backend.Wrap([]float64{1, 0, 0, 1}).Buffer(), 2, 2, 2, 2, 2, 2, false)
		fmt.Printf("library: %s\nproduct: %v\nSetGEMM: %v\n", cpu.GEMMLibrary(), c, cpu.SetGEMM(cpu.GEMMOpenBLAS))
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary twice")
	}
	for _, tc := range []struct{ env, want string }{
		{"", "library: gonum (OpenBLAS not loaded: "},
		{"openblas", "library: gonum [XPMPI_GEMM=openblas, but cpu: loading OpenBLAS (/nonexistent/libopenblas.so.0): "},
		{"bogus", `is not auto, openblas or gonum: ignored]`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestGemmFallback$")
		cmd.Env = append(os.Environ(), "XPMPI_GEMM_CHILD=1", "XPMPI_OPENBLAS=/nonexistent/libopenblas.so.0", "XPMPI_GEMM="+tc.env)
		out, err := cmd.CombinedOutput()
		s := string(out)
		if err != nil || !strings.Contains(s, tc.want) || !strings.Contains(s, "product: [1 2 3 4]") || !strings.Contains(s, "SetGEMM: cpu: loading OpenBLAS") {
			t.Errorf("XPMPI_GEMM=%q: %v\n%s\nwant %q", tc.env, err, s, tc.want)
		}
	}
}

// TestGemmNaN checks that a product that does not accumulate overwrites C:
// NaNs there do not survive, on either library.
func TestGemmNaN(t *testing.T) {
	defer cpu.SetGEMM(cpu.GEMMAuto)
	for _, lib := range []string{cpu.GEMMGonum, cpu.GEMMOpenBLAS} {
		if err := cpu.SetGEMM(lib); err != nil {
			continue
		}
		for _, n := range []int{2, 67} {
			a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
			c32 := make([]float32, n*n)
			for i := range a {
				a[i], b[i], c[i], c32[i] = 1, 2, math.NaN(), float32(math.NaN())
			}
			cpu.Default.Gemm(backend.Wrap(c).Buffer(), backend.Wrap(a).Buffer(), backend.Wrap(b).Buffer(), n, n, n, n, n, n, false)
			a32, b32 := make([]float32, n*n), make([]float32, n*n)
			for i := range a32 {
				a32[i], b32[i] = 1, 2
			}
			cpu.Default.Gemm(backend.Wrap(c32).Buffer(), backend.Wrap(a32).Buffer(), backend.Wrap(b32).Buffer(), n, n, n, n, n, n, false)
			for i := range c {
				if c[i] != float64(2*n) || c32[i] != float32(2*n) {
					t.Fatalf("%s, n=%d: c[%d] = %v, %v, want %d", lib, n, i, c[i], c32[i], 2*n)
				}
			}
		}
	}
}
