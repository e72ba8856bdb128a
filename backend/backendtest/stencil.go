package backendtest

import (
	"fmt"
	"math"
	"testing"
)

// Shapes are the grids of the Jacobi5 test: grids without an interior,
// thin and square ones, and one past the CPU backend's parallel threshold.
var Shapes = [][2]int{{0, 0}, {1, 1}, {2, 5}, {5, 2}, {3, 3}, {3, 4}, {4, 3}, {64, 33}, {3, 1000}, {1000, 3}, {257, 513}}

// jacobi5 checks one sweep against a reference computed in T, with every
// element of dst outside the interior untouched.
func (s *suite[T]) jacobi5(t *testing.T) {
	if !s.isFloat() {
		t.Skip("Jacobi5 is defined for float grids only")
	}
	for _, sh := range Shapes {
		rows, cols := sh[0], sh[1]
		n := rows * cols
		r := rng(t, n)
		srcH, dstH := s.random(r, n), s.random(r, n)
		src, dst := s.upload(t, srcH), s.upload(t, dstH)
		s.b.Jacobi5(dst, src, rows, cols)
		got := s.download(t, dst)
		want := append([]T(nil), dstH...)
		q := T(1) / 4
		for i := 1; i < rows-1; i++ {
			for j := 1; j < cols-1; j++ {
				want[i*cols+j] = q * (srcH[(i-1)*cols+j] + srcH[(i+1)*cols+j] + srcH[i*cols+j-1] + srcH[i*cols+j+1])
			}
		}
		bad := 0
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				k := i*cols + j
				if same(got[k], want[k]) {
					continue
				}
				interior := i > 0 && i < rows-1 && j > 0 && j < cols-1
				if interior {
					// Allow another order of the four additions.
					mag := 0.25 * (abs(srcH[k-cols]) + abs(srcH[k+cols]) + abs(srcH[k-1]) + abs(srcH[k+1]))
					if math.Abs(float64(got[k])-float64(want[k])) <= 4*eps[T]()*mag {
						continue
					}
				}
				if bad < 5 {
					where := "interior"
					if !interior {
						where = "boundary, must be untouched"
					}
					t.Errorf("%dx%d grid: element [%d][%d] (%s) = %v, want %v", rows, cols, i, j, where, got[k], want[k])
				}
				bad++
			}
		}
		if bad > 5 {
			t.Errorf("%dx%d grid: %d elements wrong in all", rows, cols, bad)
		}
		checkSame(t, fmt.Sprintf("%dx%d grid: src", rows, cols), s.download(t, src), srcH)
		s.b.Free(src)
		s.b.Free(dst)
	}
}

func abs[T ~float32 | ~float64 | ~int32 | ~int64 | ~uint32 | ~uint64](v T) float64 {
	return math.Abs(float64(v))
}
