package cpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
)

// vectorData returns n float64 values with special values among them.
func vectorData(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, math.MaxFloat64, math.SmallestNonzeroFloat64}
	for k, s := range specials {
		if i := 3 + 5*k; i < n {
			v[i] = s
		}
	}
	return v
}

// bitsEqual reports whether a and b have the same bits everywhere.
func bitsEqual(a, b []float64) (int, bool) {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i, false
		}
	}
	return 0, true
}

// bothPaths runs f with the AVX2 kernels off and then on, and returns the
// two results.
func bothPaths(t *testing.T, f func() []float64) (scalar, vector []float64) {
	t.Helper()
	prev := cpu.SetVector(false)
	defer cpu.SetVector(prev)
	scalar = f()
	cpu.SetVector(true)
	vector = f()
	return scalar, vector
}

// TestVectorKernels checks that the AVX2 kernels give the Go loops' bits
// for Jacobi5, Laplace5, Axpy and Axpby on float64 data with NaN, infinities
// and signed zeros, on rows and vectors of every length around the
// kernels' 8-element steps, and so do the AVX-512 Axpy and Axpby (16-
// element steps) where the processor has AVX-512F. It runs the Go loops
// against themselves where the processor has no AVX2.
func TestVectorKernels(t *testing.T) {
	if !cpu.Vector() {
		prev := cpu.SetVector(true)
		cpu.SetVector(prev)
		if !cpu.Vector() && prev {
			t.Fatal("SetVector lost the setting")
		}
		t.Log("no AVX2 here (or XPMPI_CPU_VECTOR=off): comparing the Go loops with themselves")
	}
	b := cpu.Default
	rng := rand.New(rand.NewPCG(5, 6))
	for _, cols := range []int{3, 4, 9, 10, 11, 17, 18, 33, 130} {
		rows := 5
		src := vectorData(rng, rows*cols)
		init := vectorData(rng, rows*cols)
		for _, op := range []string{"Jacobi5", "Laplace5"} {
			s, v := bothPaths(t, func() []float64 {
				dst := append([]float64(nil), init...)
				d, x := backend.Wrap(dst), backend.Wrap(src)
				if op == "Jacobi5" {
					b.Jacobi5(d.Buffer(), x.Buffer(), rows, cols)
				} else {
					b.Laplace5(d.Buffer(), x.Buffer(), rows, cols)
				}
				return dst
			})
			if i, ok := bitsEqual(s, v); !ok {
				t.Errorf("%s %d x %d: element %d: Go %v, AVX2 %v", op, rows, cols, i, s[i], v[i])
			}
		}
	}
	// Axpy and Axpby: the AVX2 kernels and, where the processor has
	// AVX-512F, the AVX-512 ones (16 elements a step), each against the
	// Go loop.
	prev512 := cpu.SetAVX512(false)
	defer cpu.SetAVX512(prev512)
	for _, avx512 := range []bool{false, true} {
		if cpu.SetAVX512(avx512); avx512 != cpu.AVX512() {
			t.Log("no AVX-512F here: the AVX-512 axpy and axpby do not run")
			continue
		}
		kernel := map[bool]string{false: "AVX2", true: "AVX-512"}[avx512]
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 47, 100, 1003} {
			x, y0 := vectorData(rng, n), vectorData(rng, n)
			for _, a := range []float64{0, -1.5, 3.25e-7, math.Inf(1)} {
				s, v := bothPaths(t, func() []float64 {
					y := append([]float64(nil), y0...)
					backend.Axpy(a, backend.Wrap(x), backend.Wrap(y))
					return y
				})
				if i, ok := bitsEqual(s, v); !ok {
					t.Errorf("Axpy n=%d a=%v: element %d: Go %v, %s %v", n, a, i, s[i], kernel, v[i])
				}
				s, v = bothPaths(t, func() []float64 {
					y := append([]float64(nil), y0...)
					backend.Axpby(a, backend.Wrap(x), 0.75, backend.Wrap(y))
					return y
				})
				if i, ok := bitsEqual(s, v); !ok {
					t.Errorf("Axpby n=%d a=%v: element %d: Go %v, %s %v", n, a, i, s[i], kernel, v[i])
				}
			}
		}
	}
}

// dotData returns two vectors of n terms for the dot tests: x's of
// magnitudes spread over 2^-20 to 2^20, so that the order in which the
// products are summed shows in the last bits of the sum.
func dotData(rng *rand.Rand, n int) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
		y[i] = rng.NormFloat64()
	}
	return x, y
}

// TestVectorDot checks that Dot of float64 arrays gives the same bits with
// and without the AVX2 kernel (32 lanes, combined as lanes32 combines
// them), on lengths around the kernel's 32-element step and across the
// 4096-element chunks, at every alignment of the data, and that a shifted
// start does not change how the elements are grouped.
func TestVectorDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 31, 32, 33, 63, 64, 65, 100, 1003, 4096, 4097, 9000} {
		x, y := dotData(rng, n+1)
		for off := range 2 {
			xs, ys := backend.Wrap(x[off:off+n]), backend.Wrap(y[off:off+n])
			s, v := bothPaths(t, func() []float64 { return []float64{backend.Dot(xs, ys)} })
			if math.Float64bits(s[0]) != math.Float64bits(v[0]) {
				t.Errorf("Dot n=%d offset %d: Go %v, AVX2 %v", n, off, s[0], v[0])
			}
		}
	}
}

// TestVectorDot512 checks that the AVX-512 form of the float64 dot gives
// the bits of the AVX2 kernel and of the Go loop, on the lengths and
// alignments of TestVectorDot, with data whose order of summation shows
// in the last bits (a lane or a half paired differently changes them).
// Where the processor has no AVX-512F the two kernels cannot both run, and
// it says so.
func TestVectorDot512(t *testing.T) {
	prev512 := cpu.SetAVX512(true)
	defer cpu.SetAVX512(prev512)
	if !cpu.AVX512() {
		t.Skip("no AVX-512F here: DotAVX512 does not run")
	}
	prev := cpu.SetVector(true)
	defer cpu.SetVector(prev)
	rng := rand.New(rand.NewPCG(9, 10))
	dot := func(xs, ys *backend.Array[float64], avx512, vector bool) float64 {
		cpu.SetVector(vector)
		cpu.SetAVX512(avx512)
		return backend.Dot(xs, ys)
	}
	differ := 0
	for _, n := range []int{32, 33, 63, 64, 65, 100, 1003, 4096, 4097, 9000, 1 << 16} {
		x, y := dotData(rng, n+1)
		for off := range 2 {
			xs, ys := backend.Wrap(x[off:off+n]), backend.Wrap(y[off:off+n])
			z, a, g := dot(xs, ys, true, true), dot(xs, ys, false, true), dot(xs, ys, false, false)
			if math.Float64bits(z) != math.Float64bits(a) || math.Float64bits(z) != math.Float64bits(g) {
				t.Errorf("Dot n=%d offset %d: AVX-512 %v, AVX2 %v, Go %v", n, off, z, a, g)
			}
			// The same terms summed in another order: the data tell
			// orders apart.
			if s := naiveDot(x[off:off+n], y[off:off+n]); math.Float64bits(s) != math.Float64bits(z) {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("every sum equals the sequential one: the data cannot tell the kernels' order from another")
	}
}

// naiveDot sums x[i]*y[i] from the left.
func naiveDot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// TestVectorValues checks the kernels against values computed here, so
// that both paths being wrong the same way would fail too.
func TestVectorValues(t *testing.T) {
	for _, on := range []bool{false, true} {
		prev := cpu.SetVector(on)
		const rows, cols = 3, 12
		src := make([]float64, rows*cols)
		for i := range src {
			src[i] = float64(i * i % 17)
		}
		dst := make([]float64, rows*cols)
		cpu.Default.Laplace5(backend.Wrap(dst).Buffer(), backend.Wrap(src).Buffer(), rows, cols)
		for j := 1; j < cols-1; j++ {
			i := cols + j
			want := 4*src[i] - src[i-cols] - src[i+cols] - src[i-1] - src[i+1]
			if dst[i] != want {
				t.Errorf("vector %v: Laplace5 [1][%d] = %v, want %v", on, j, dst[i], want)
			}
		}
		y := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		x := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
		backend.Axpby(2, backend.Wrap(x), 0.5, backend.Wrap(y))
		for i := range y {
			if want := 2*x[i] + 0.5*float64(i+1); y[i] != want {
				t.Errorf("vector %v: Axpby [%d] = %v, want %v", on, i, y[i], want)
			}
		}
		// Dot over 70 elements: 64 in the lanes, 6 in the tail. The terms
		// are small integers, so every order gives the exact sum, and a
		// lane left out or counted twice changes it.
		a, c := make([]float64, 70), make([]float64, 70)
		want := 0.0
		for i := range a {
			a[i], c[i] = float64(i%11+1), math.Ldexp(1, i%13)
			want += a[i] * c[i]
		}
		if got := backend.Dot(backend.Wrap(a), backend.Wrap(c)); got != want {
			t.Errorf("vector %v: Dot = %v, want %v", on, got, want)
		}
		cpu.SetVector(prev)
	}
}

// TestVectorStencil512 checks that the AVX-512 forms of the float64
// stencil rows (Jacobi5, Laplace5 and Laplace5Dot, 16 points a step) give
// the bits of the AVX2 kernels and of the Go loops: dst on data with NaN,
// infinities and signed zeros, and Laplace5Dot's sum on data of magnitudes
// spread over 2^-20 to 2^20 (dotData), whose last bits change with the
// order of summation, on rows of every length around the steps and on W4's
// width. Where the processor has no AVX-512F the forms cannot both run,
// and it says so.
func TestVectorStencil512(t *testing.T) {
	prev512 := cpu.SetStencilAVX512(true)
	defer cpu.SetStencilAVX512(prev512)
	if !cpu.StencilAVX512() {
		t.Skip("no AVX-512F here: the AVX-512 stencil rows do not run")
	}
	prev := cpu.SetVector(true)
	defer cpu.SetVector(prev)
	// run returns dst after op, and Laplace5Dot's sum, with the Go loops
	// (path 0), the AVX2 kernels (1) or the AVX-512 ones (2).
	run := func(op string, path int, init, src []float64, rows, cols int) ([]float64, float64) {
		cpu.SetVector(path > 0)
		cpu.SetStencilAVX512(path == 2)
		dst := append([]float64(nil), init...)
		d, x := backend.Wrap(dst).Buffer(), backend.Wrap(src).Buffer()
		dot := 0.0
		switch op {
		case "Jacobi5":
			cpu.Default.Jacobi5(d, x, rows, cols)
		case "Laplace5":
			cpu.Default.Laplace5(d, x, rows, cols)
		default:
			dot = cpu.Default.Laplace5Dot(d, x, rows, cols)
		}
		return dst, dot
	}
	path := []string{"Go", "AVX2", "AVX-512"}
	rng := rand.New(rand.NewPCG(11, 12))
	cols := []int{3, 10, 17, 18, 19, 25, 33, 34, 35, 49, 66, 67, 130, 1026}
	for _, c := range cols {
		const rows = 5
		special, specialInit := vectorData(rng, rows*c), vectorData(rng, rows*c)
		spread, spreadInit := dotData(rng, rows*c)
		for _, op := range []string{"Jacobi5", "Laplace5", "Laplace5Dot"} {
			for k, src := range [][]float64{special, spread} {
				init := [][]float64{specialInit, spreadInit}[k]
				want, wantDot := run(op, 0, init, src, rows, c)
				if op == "Laplace5Dot" && k == 1 && (math.IsNaN(wantDot) || math.IsInf(wantDot, 0)) {
					t.Fatalf("%d x %d: the spread data's dot is %v: its bits would tell nothing", rows, c, wantDot)
				}
				for p := 1; p <= 2; p++ {
					got, dot := run(op, p, init, src, rows, c)
					if i, ok := bitsEqual(want, got); !ok {
						t.Errorf("%s %d x %d: dst[%d]: Go %v, %s %v", op, rows, c, i, want[i], path[p], got[i])
					}
					if math.Float64bits(dot) != math.Float64bits(wantDot) && !(math.IsNaN(dot) && math.IsNaN(wantDot)) {
						t.Errorf("%s %d x %d: dot: Go %v, %s %v", op, rows, c, wantDot, path[p], dot)
					}
				}
			}
		}
	}
}
