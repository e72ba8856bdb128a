package backendtest

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// fftShapes are the (pre, n, post) views of the FFT suite: lengths of 1,
// powers of 2, 3 and 5, a prime (Bluestein's on CUDA), strided lines.
var fftShapes = [][3]int{{1, 1, 1}, {1, 8, 1}, {3, 5, 2}, {2, 12, 1}, {1, 17, 3}, {1, 64, 1}, {2, 45, 2}, {0, 4, 1}, {1, 1024, 1}}

func testFFTer(t *testing.T, b driver.Backend) {
	f := b.(driver.FFTer)
	t.Run("complex128", func(t *testing.T) { fftSuite[complex128](t, b, f, 1e-13) })
	t.Run("complex64", func(t *testing.T) { fftSuite[complex64](t, b, f, 1e-5) })
}

// dft returns the transform of one line by the definition, in complex128.
func dft(x []complex128, inverse bool) []complex128 {
	n := len(x)
	y := make([]complex128, n)
	sign := -1.0
	if inverse {
		sign = 1
	}
	for k := range y {
		var s complex128
		for j, v := range x {
			// The angle reduced modulo n first, so that the reference is
			// accurate for long lines.
			s += v * cmplx.Rect(1, sign*2*math.Pi*float64((j*k)%n)/float64(n))
		}
		if inverse {
			s /= complex(float64(n), 0)
		}
		y[k] = s
	}
	return y
}

func fftSuite[C backend.Complex](t *testing.T, b driver.Backend, f driver.FFTer, tol float64) {
	for _, sh := range fftShapes {
		pre, n, post := sh[0], sh[1], sh[2]
		r := rng(t, pre*n*post)
		x := make([]C, pre*n*post)
		for i := range x {
			x[i] = C(complex(2*r.Float64()-1, 2*r.Float64()-1))
		}
		for _, inverse := range []bool{false, true} {
			want := make([]complex128, len(x))
			scale := 1.0
			line := make([]complex128, n)
			for i := 0; i < pre; i++ {
				for j := 0; j < post; j++ {
					var mag float64
					for k := range line {
						line[k] = complex128(x[(i*n+k)*post+j])
						mag += cmplx.Abs(line[k])
					}
					scale = math.Max(scale, mag)
					for k, v := range dft(line, inverse) {
						want[(i*n+k)*post+j] = v
					}
				}
			}
			bx := up(t, b, x)
			if err := f.FFT(bx, pre, n, post, inverse); err != nil {
				t.Fatalf("FFT(%s, inverse %v): %v", shapeName(sh), inverse, err)
			}
			checkClose(t, fmt.Sprintf("FFT(%s, inverse %v)", shapeName(sh), inverse), down[C](t, b, bx), want, tol, scale)
			freeAll(b, bx)
		}
	}
}

// gemmShapes are (m, n, k) of the GEMM suite: empty matrices, k = 0, a
// vector, and sizes past a tile.
var gemmShapes = [][3]int{{0, 3, 2}, {3, 0, 2}, {2, 3, 0}, {1, 1, 1}, {5, 7, 3}, {1, 9, 4}, {33, 17, 65}, {70, 40, 20}}

func testGEMM(t *testing.T, b driver.Backend) {
	g := b.(driver.GEMM)
	t.Run("float64", func(t *testing.T) { gemm[float64](t, b, g) })
	t.Run("float32", func(t *testing.T) { gemm[float32](t, b, g) })
	t.Run("int32", func(t *testing.T) { gemm[int32](t, b, g) })
	t.Run("uint8", func(t *testing.T) { gemm[uint8](t, b, g) })
}

func gemm[T backend.Element](t *testing.T, b driver.Backend, g driver.GEMM) {
	float := backend.DTypeOf[T]().IsFloat()
	for _, sh := range gemmShapes {
		m, n, k := sh[0], sh[1], sh[2]
		lda, ldb, ldc := k+2, n+1, n+3
		r := rng(t, m*n*k+m)
		val := func() T {
			if float {
				return T(2*r.Float64() - 1)
			}
			return T(r.Uint64())
		}
		a, bb, c0 := make([]T, m*lda), make([]T, k*ldb), make([]T, m*ldc)
		for _, s := range [][]T{a, bb, c0} {
			for i := range s {
				s[i] = val()
			}
		}
		for _, acc := range []bool{false, true} {
			want := append([]T(nil), c0...)
			abs := make([]float64, len(c0))
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var s T
					var sf, sa float64
					for p := 0; p < k; p++ {
						s += a[i*lda+p] * bb[p*ldb+j]
						sf += float64(a[i*lda+p]) * float64(bb[p*ldb+j])
						sa += math.Abs(float64(a[i*lda+p]) * float64(bb[p*ldb+j]))
					}
					if float {
						s = T(sf)
					}
					if acc {
						s += c0[i*ldc+j]
						sa += math.Abs(float64(c0[i*ldc+j]))
					}
					want[i*ldc+j], abs[i*ldc+j] = s, sa
				}
			}
			ba, bbb, bc := up(t, b, a), up(t, b, bb), up(t, b, c0)
			g.Gemm(bc, ba, bbb, m, n, k, lda, ldb, ldc, acc)
			got := down[T](t, b, bc)
			what := fmt.Sprintf("Gemm(m=%d n=%d k=%d, accumulate %v)", m, n, k, acc)
			if !float {
				checkSame(t, what, got, want)
			} else {
				for i := range got {
					tol := 4 * float64(k+1) * eps[T]() * abs[i]
					if !(math.Abs(float64(got[i])-float64(want[i])) <= tol) {
						t.Errorf("%s: element %d (row %d, column %d) = %v, want %v within %.3g (columns past n must be untouched)", what, i, i/ldc, i%ldc, got[i], want[i], tol)
						break
					}
				}
			}
			freeAll(b, ba, bbb, bc)
		}
	}
}
