package cpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

func TestAxpbyLaplace5(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 1 << 17} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		want := make([]float64, n)
		for i := range want {
			want[i] = 1.5*x[i] + -0.25*y[i]
		}
		backend.Axpby(1.5, backend.Wrap(x), -0.25, backend.Wrap(y))
		for i := range y {
			if y[i] != want[i] {
				t.Fatalf("n=%d: Axpby[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
	}
	for _, sh := range [][2]int{{1, 1}, {2, 5}, {3, 3}, {64, 33}, {700, 300}} {
		rows, cols := sh[0], sh[1]
		src, dst := make([]float64, rows*cols), make([]float64, rows*cols)
		for i := range src {
			src[i], dst[i] = rng.Float64(), -7
		}
		cpu.Default.Laplace5(driver.HostBufferOf(dst), driver.HostBufferOf(src), rows, cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				want := -7.0
				if i > 0 && i < rows-1 && j > 0 && j < cols-1 {
					want = 4*src[i*cols+j] - src[(i-1)*cols+j] - src[(i+1)*cols+j] - src[i*cols+j-1] - src[i*cols+j+1]
				}
				if dst[i*cols+j] != want {
					t.Fatalf("%dx%d: [%d][%d] = %v, want %v", rows, cols, i, j, dst[i*cols+j], want)
				}
			}
		}
	}
}

// laplaceDotWant is driver.StencilDots' order written out plainly: per
// row, interior point k in lane k%16 up to the last full 16, the lanes
// combined, the rest in order, then columns 0 and cols-1; the rows in
// order.
func laplaceDotWant(dst, src []float64, rows, cols int) float64 {
	s := 0.0
	for i := 1; i < rows-1; i++ {
		n := max(cols-2, 0)
		var l [16]float64
		m := n - n%16
		for k := 0; k < m; k++ {
			l[k%16] += src[i*cols+1+k] * dst[i*cols+1+k]
		}
		r := ((l[0] + l[8]) + (l[4] + l[12])) + ((l[2] + l[10]) + (l[6] + l[14])) +
			(((l[1] + l[9]) + (l[5] + l[13])) + ((l[3] + l[11]) + (l[7] + l[15])))
		for k := m; k < n; k++ {
			r += src[i*cols+1+k] * dst[i*cols+1+k]
		}
		if cols >= 1 {
			r += src[i*cols] * dst[i*cols]
		}
		if cols >= 2 {
			r += src[i*cols+cols-1] * dst[i*cols+cols-1]
		}
		s += r
	}
	return s
}

// TestLaplace5Dot checks Laplace5Dot against Laplace5 (the same bits of
// dst) and against the documented order of its sum written out here, on
// both paths, on grids with every row tail around the AVX2 kernel's 16
// points, without an interior, and large enough to run in parallel (with
// 1 and 2 threads, which must give the same bits); and, on small-integer
// data whose sums are exact in any order, against the plain sum.
func TestLaplace5Dot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type grid struct{ rows, cols int }
	var grids []grid
	for cols := 0; cols <= 52; cols++ {
		grids = append(grids, grid{4, cols})
	}
	grids = append(grids, grid{0, 5}, grid{1, 40}, grid{2, 40}, grid{3, 3}, grid{3, 130}, grid{300, 515}, grid{517, 258})
	for _, on := range []bool{false, true} {
		prev := cpu.SetVector(on)
		for _, threads := range []int{1, 2} {
			pt := backend.SetThreads(threads)
			for _, g := range grids {
				rows, cols := g.rows, g.cols
				src, init := vectorData(rng, rows*cols), vectorData(rng, rows*cols)
				for i := range src { // finite data: the sums are numbers
					if math.IsNaN(src[i]) || math.IsInf(src[i], 0) || math.Abs(src[i]) > 1e300 {
						src[i] = 1.5
					}
					if math.IsNaN(init[i]) || math.IsInf(init[i], 0) || math.Abs(init[i]) > 1e300 {
						init[i] = -2
					}
				}
				want := append([]float64(nil), init...)
				cpu.Default.Laplace5(backend.Wrap(want).Buffer(), backend.Wrap(src).Buffer(), rows, cols)
				dst := append([]float64(nil), init...)
				got := cpu.Default.Laplace5Dot(backend.Wrap(dst).Buffer(), backend.Wrap(src).Buffer(), rows, cols)
				if i, ok := bitsEqual(dst, want); !ok {
					t.Errorf("vector %v, %d threads, %d x %d: dst[%d] = %v, Laplace5 %v", on, threads, rows, cols, i, dst[i], want[i])
				}
				if w := laplaceDotWant(want, src, rows, cols); math.Float64bits(got) != math.Float64bits(w) {
					t.Errorf("vector %v, %d threads, %d x %d: dot %v, want %v", on, threads, rows, cols, got, w)
				}
				// Small integers: every sum exact.
				for i := range src {
					src[i], dst[i] = float64(rng.IntN(9)-4), float64(rng.IntN(5)-2)
				}
				got = cpu.Default.Laplace5Dot(backend.Wrap(dst).Buffer(), backend.Wrap(src).Buffer(), rows, cols)
				exact := 0.0
				for i := 1; i < rows-1; i++ {
					for j := 0; j < cols; j++ {
						exact += src[i*cols+j] * dst[i*cols+j]
					}
				}
				if got != exact {
					t.Errorf("vector %v, %d threads, %d x %d, integers: dot %v, want %v", on, threads, rows, cols, got, exact)
				}
			}
			backend.SetThreads(pt)
		}
		cpu.SetVector(prev)
	}
}

// TestLaplace5DotVector checks that the AVX2 kernel gives the Go loops'
// bits, dst and dot, on data with NaN, infinities and signed zeros, for
// every row tail around its 16 points, and float32 grids against float64.
func TestLaplace5DotVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for cols := 3; cols <= 70; cols++ {
		rows := 5
		src, init := vectorData(rng, rows*cols), vectorData(rng, rows*cols)
		var dots []float64 // the Go loops', then the AVX2 kernel's
		s, v := bothPaths(t, func() []float64 {
			dst := append([]float64(nil), init...)
			dots = append(dots, cpu.Default.Laplace5Dot(backend.Wrap(dst).Buffer(), backend.Wrap(src).Buffer(), rows, cols))
			return dst
		})
		if i, ok := bitsEqual(s, v); !ok {
			t.Errorf("%d x %d: dst[%d]: Go %v, AVX2 %v", rows, cols, i, s[i], v[i])
		}
		if math.Float64bits(dots[0]) != math.Float64bits(dots[1]) && !(math.IsNaN(dots[0]) && math.IsNaN(dots[1])) {
			t.Errorf("%d x %d: dot: Go %v, AVX2 %v", rows, cols, dots[0], dots[1])
		}
	}
	// float32: the Go loops, the products of float32 values exact in
	// float64, so the sum is that of the float64 grid of the same values
	// whose dst is the float32 result.
	const rows, cols = 6, 37
	src32, dst32 := make([]float32, rows*cols), make([]float32, rows*cols)
	for i := range src32 {
		src32[i], dst32[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	got := cpu.Default.Laplace5Dot(backend.Wrap(dst32).Buffer(), backend.Wrap(src32).Buffer(), rows, cols)
	src64, dst64 := make([]float64, rows*cols), make([]float64, rows*cols)
	for i := range src32 {
		src64[i], dst64[i] = float64(src32[i]), float64(dst32[i])
	}
	if want := laplaceDotWant(dst64, src64, rows, cols); got != want {
		t.Errorf("float32: dot %v, want %v", got, want)
	}
}
