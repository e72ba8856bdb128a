package cuda_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestGPUStencils checks the CUDA backend's WeightedStencils and
// StencilDots (stencil.cu) against the CPU backend's, which dist's tests
// check against NumPy: the grids must be the CPU's bit for bit (the
// boundary left as it was), and so must Laplace5Dot's sum, for grids too
// small to have an interior, rows and columns around the 16 lanes and the
// 16 rows of a block, weights that float32 cannot hold, and NaN, ±Inf and
// -0 among the inputs.
func TestGPUStencils(t *testing.T) {
	b := gpu(t)
	t.Run("float32", func(t *testing.T) { gpuStencils[float32](t, b) })
	t.Run("float64", func(t *testing.T) { gpuStencils[float64](t, b) })
	t.Run("panics", func(t *testing.T) { gpuStencilPanics(t, b) })
}

var (
	stencil9W = [9]float64{0.1, -0.2, 0.3, 1.0 / 3, -4, 0.7, 1e-3, 2, -1.0 / 7}
	stencil7W = [7]float64{-6.1, 1.0 / 3, 0.9, -0.25, 1e-5, 7, 0.11}
)

func gpuStencils[T backend.Float](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	var c backend.Backend = cpu.Default
	hw, dw := c.(driver.WeightedStencils), backend.Backend(b).(driver.WeightedStencils)
	hd, dd := driver.StencilsOf(c).(driver.StencilDots), driver.StencilsOf(b).(driver.StencilDots)
	grids := [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {2, 9}, {9, 2}, {3, 3}, {4, 7}, {7, 17}, {18, 16}, {3, 18},
		{33, 33}, {17, 35}, {40, 130}, {65, 1}, {5, 64}}
	for gi, g := range grids {
		rows, cols := g[0], g[1]
		for _, special := range []bool{false, true} {
			name := fmt.Sprintf("%v %dx%d special %v", dt, rows, cols, special)
			src := newPair(t, b, statsInputs[T](rows*cols, special, uint64(gi)))
			// dst starts as other values, so that the boundary shows.
			dst := newPair(t, b, statsInputs[T](rows*cols, special, uint64(gi)+1000))
			hw.Stencil9(dst.h, src.h, rows, cols, stencil9W)
			dw.Stencil9(dst.d, src.d, rows, cols, stencil9W)
			compareBuf[T](t, b, name+" Stencil9", dst.d, dst.h)

			hs, ds := hd.Laplace5Dot(dst.h, src.h, rows, cols), dd.Laplace5Dot(dst.d, src.d, rows, cols)
			compareBuf[T](t, b, name+" Laplace5Dot's grid", dst.d, dst.h)
			if !sameBits(hs, ds) {
				t.Errorf("%s: Laplace5Dot %v (%#x) on the GPU, %v (%#x) on the CPU", name, ds, math.Float64bits(ds), hs, math.Float64bits(hs))
			}
			for _, x := range []pair{src, dst} {
				b.Free(x.d)
			}
		}
	}
	shapes := [][3]int{{0, 0, 0}, {3, 3, 0}, {2, 5, 5}, {5, 2, 5}, {5, 5, 2}, {3, 3, 3}, {4, 5, 6}, {7, 3, 40}, {5, 9, 33}, {10, 11, 12}}
	for si, sh := range shapes {
		n := sh[0] * sh[1] * sh[2]
		for _, special := range []bool{false, true} {
			name := fmt.Sprintf("%v %v special %v", dt, sh, special)
			src := newPair(t, b, statsInputs[T](n, special, uint64(si)))
			dst := newPair(t, b, statsInputs[T](n, special, uint64(si)+1000))
			hw.Stencil7(dst.h, src.h, sh[0], sh[1], sh[2], stencil7W)
			dw.Stencil7(dst.d, src.d, sh[0], sh[1], sh[2], stencil7W)
			compareBuf[T](t, b, name+" Stencil7", dst.d, dst.h)
			for _, x := range []pair{src, dst} {
				b.Free(x.d)
			}
		}
	}
}

// gpuStencilPanics checks the panics of bad arguments, before any work.
func gpuStencilPanics(t *testing.T, b *cuda.Backend) {
	f := upload(t, b, make([]float64, 12))
	g := upload(t, b, make([]float64, 12))
	h := upload(t, b, make([]float32, 12))
	i := upload(t, b, make([]int32, 12))
	defer func() {
		for _, x := range []driver.Buffer{f, g, h, i} {
			b.Free(x)
		}
	}()
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Stencil9 types", func() { b.Stencil9(f, h, 3, 4, stencil9W) }},
		{"Stencil9 integers", func() { b.Stencil9(i, i, 3, 4, stencil9W) }},
		{"Stencil9 short", func() { b.Stencil9(f, g, 4, 4, stencil9W) }},
		{"Stencil9 overlap", func() { b.Stencil9(f, b.Slice(f, 1, 12), 3, 3, stencil9W) }},
		{"Stencil7 negative", func() { b.Stencil7(f, g, 3, 4, -1, stencil7W) }},
		{"Stencil7 short", func() { b.Stencil7(f, g, 3, 3, 3, stencil7W) }},
		{"Laplace5Dot short", func() { b.Laplace5Dot(f, g, 5, 3) }},
		{"Laplace5Dot negative", func() { b.Laplace5Dot(f, g, -3, 3) }},
	} {
		func() {
			defer func() {
				if r, ok := recover().(string); !ok || len(r) < 5 || r[:5] != "cuda:" {
					t.Errorf("%s: recovered %v, want a panic of package cuda", c.name, r)
				}
			}()
			c.f()
		}()
	}
}
