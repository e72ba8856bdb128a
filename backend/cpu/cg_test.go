package cpu_test

import (
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
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
		cpu.Default.Laplace5(backend.HostBufferOf(dst), backend.HostBufferOf(src), rows, cols)
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
