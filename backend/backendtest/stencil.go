package backendtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// Shapes are the grids of the Jacobi5 and Laplace5 tests: grids without an interior,
// thin and square ones, and one past the CPU backend's parallel threshold.
var Shapes = [][2]int{{0, 0}, {1, 1}, {2, 5}, {5, 2}, {3, 3}, {3, 4}, {4, 3}, {4, 6}, {6, 7}, {64, 33}, {3, 1000}, {1000, 3}, {257, 513}}

// jacobi5 checks one sweep against a reference computed in T, with every
// element of dst outside the interior untouched.
func (s *suite[T]) jacobi5(t *testing.T) {
	q := T(1) / 4
	s.stencil(t, "Jacobi5", driver.StencilsOf(s.b).Jacobi5,
		func(c, u, d, l, r T) T { return q * (u + d + l + r) },
		func(c, u, d, l, r T) float64 { return 0.25 * (abs(u) + abs(d) + abs(l) + abs(r)) })
}

// laplace5 checks the 5-point Laplacian as jacobi5 checks the sweep.
func (s *suite[T]) laplace5(t *testing.T) {
	s.stencil(t, "Laplace5", driver.StencilsOf(s.b).Laplace5,
		func(c, u, d, l, r T) T { return 4*c - u - d - l - r },
		func(c, u, d, l, r T) float64 { return 4*abs(c) + abs(u) + abs(d) + abs(l) + abs(r) })
}

// stencil checks a 5-point stencil op on every grid of Shapes against ref
// (of the centre and the up, down, left and right neighbours), allowing
// 4 eps times mag for another order of the operations; elements of dst
// outside the interior must be untouched, and src unchanged.
func (s *suite[T]) stencil(t *testing.T, name string, op func(dst, src driver.Buffer, rows, cols int),
	ref func(c, u, d, l, r T) T, mag func(c, u, d, l, r T) float64) {
	if !s.isFloat() {
		t.Skip(name + " is defined for float grids only")
	}
	for _, sh := range Shapes {
		rows, cols := sh[0], sh[1]
		n := rows * cols
		r := rng(t, n)
		srcH, dstH := s.random(r, n), s.random(r, n)
		src, dst := s.upload(t, srcH), s.upload(t, dstH)
		op(dst, src, rows, cols)
		got := s.download(t, dst)
		bad := 0
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				k := i*cols + j
				want := dstH[k]
				interior := i > 0 && i < rows-1 && j > 0 && j < cols-1
				if interior {
					want = ref(srcH[k], srcH[k-cols], srcH[k+cols], srcH[k-1], srcH[k+1])
				}
				if same(got[k], want) {
					continue
				}
				if interior {
					m := mag(srcH[k], srcH[k-cols], srcH[k+cols], srcH[k-1], srcH[k+1])
					if math.Abs(float64(got[k])-float64(want)) <= 4*eps[T]()*m {
						continue
					}
				}
				if bad < 5 {
					where := "interior"
					if !interior {
						where = "boundary, must be untouched"
					}
					t.Errorf("%s of a %dx%d grid: element [%d][%d] (%s) = %v, want %v", name, rows, cols, i, j, where, got[k], want)
				}
				bad++
			}
		}
		if bad > 5 {
			t.Errorf("%s of a %dx%d grid: %d elements wrong in all", name, rows, cols, bad)
		}
		checkSame(t, fmt.Sprintf("%s of a %dx%d grid: src", name, rows, cols), s.download(t, src), srcH)
		s.b.Free(src)
		s.b.Free(dst)
	}
}

func abs[T backend.Element](v T) float64 {
	return math.Abs(float64(v))
}
