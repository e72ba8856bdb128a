package dist_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// dotOrder is backend.StencilDots' order written out plainly over a
// block of rows x cols (dst's values after the stencil): per row, the
// interior points in 16 lanes up to the last full 16, the lanes combined,
// the rest in order, then the first and last column; the rows in order.
func dotOrder(src, dst []float64, rows, cols int) float64 {
	s := 0.0
	for i := range rows {
		x, y := src[i*cols:(i+1)*cols], dst[i*cols:(i+1)*cols]
		n := max(cols-2, 0)
		m := n - n%16
		var l [16]float64
		for k := 0; k < m; k++ {
			l[k%16] += x[1+k] * y[1+k]
		}
		var c [4]float64
		for q := range 4 {
			c[q] = (l[q] + l[8+q]) + (l[4+q] + l[12+q])
		}
		r := (c[0] + c[2]) + (c[1] + c[3])
		for k := m; k < n; k++ {
			r += x[1+k] * y[1+k]
		}
		if cols >= 1 {
			r += x[0] * y[0]
		}
		if cols >= 2 {
			r += x[cols-1] * y[cols-1]
		}
		s += r
	}
	return s
}

// TestLaplace5Dot checks Laplace5Dot against Laplace5 then a dot, at
// every rank count, on shapes whose rows do not divide evenly (ranks with
// no rows among them), with ghosts of width 1 and 2, periodic or not, on
// the CPU backend (one pass: the stencil's bits, and the sum in
// StencilDots' order, written out here), on the fake device (the same
// order, with no copy between host and device) and on a process grid
// (Laplace5 and then the block's Dot: the second pass). On small
// integers, whose sums are exact in any order, every path must give the
// exact dot; on other values, the ranks' sum must agree with dist.Dot to
// 2n ulps of the sum of |src*dst| over the n elements.
func TestLaplace5Dot(t *testing.T) {
	c := mpitest.World(t)
	shapes := [][]int{{0, 4}, {1, 3}, {2, 4}, {3, 1}, {3, 2}, {5, 3}, {7, 4}, {13, 21}, {9, 40}, {37, 53}}
	values := []struct {
		name string
		f    func(idx []int) float64
	}{
		{"integers", stencilValue},
		{"reals", func(idx []int) float64 { return stencilValue(idx) + math.Sin(float64(3*idx[0]+7*idx[1]))/3 }},
	}
	type setup struct {
		name string
		b    backend.Backend
		opts []dist.Option
	}
	setups := []setup{
		{"cpu/w1", cpu.Default, []dist.Option{dist.Ghosts(1)}},
		{"cpu/w2/periodic", cpu.Default, []dist.Option{dist.Ghosts(2), dist.Periodic()}},
		{"fakedev/w1", fakedev.Default, []dist.Option{dist.Ghosts(1)}},
		{"cpu/grid", cpu.Default, []dist.Option{dist.Ghosts(1), dist.ProcessGrid(0, 0)}},
	}
	for _, s := range setups {
		for _, v := range values {
			for _, shape := range shapes {
				t.Run(fmt.Sprintf("%s/%s/%v", s.name, v.name, shape), func(t *testing.T) {
					opts := append([]dist.Option{dist.OnBackend(s.b)}, s.opts...)
					src, err := dist.FromFunc(c, shape, v.f, opts...)
					if err != nil {
						t.Fatal(err)
					}
					defer src.Free()
					dst, _ := dist.Full(c, shape, -0.5, opts...)
					defer dst.Free()
					ref, _ := dist.Full(c, shape, -0.5, opts...)
					defer ref.Free()
					dist.FillBoundary(src, 1.25, -2)
					if err := src.Exchange(); err != nil {
						t.Fatal(err)
					}
					dist.Laplace5(ref, src)
					cnt := profiling.Count()
					got := dist.Laplace5Dot(dst, src)
					cnt.Stop()
					copies := cnt.Count(profiling.ToHost) + cnt.Count(profiling.ToDevice)
					mpitest.Check(t, c, copies == 0, "%d copies between host and device", copies)

					host := func(a *dist.Array[float64]) []float64 {
						v := make([]float64, a.Local().Len())
						if err := backend.CopyToHostSlice(v, a.Local()); err != nil {
							t.Fatal(err)
						}
						return v
					}
					xs, ys, rs := host(src), host(dst), host(ref)
					same := len(ys) == len(rs)
					for i := range ys {
						same = same && math.Float64bits(ys[i]) == math.Float64bits(rs[i])
					}
					mpitest.Check(t, c, same, "dst %v, Laplace5 %v", ys, rs)

					var want float64 // this rank's dot in the path's order
					ls := dst.LocalShape()
					switch {
					case s.name == "cpu/grid":
						want = backend.Dot(src.Local(), dst.Local())
					case len(ls) == 2:
						want = dotOrder(xs, rs, ls[0], ls[1])
					}
					mpitest.Check(t, c, math.Float64bits(got) == math.Float64bits(want), "local dot %v, want %v", got, want)

					exact, abs := 0.0, 0.0
					for i := range xs {
						exact += xs[i] * rs[i]
						abs += math.Abs(xs[i] * rs[i])
					}
					if v.name == "integers" {
						mpitest.Check(t, c, got == exact, "local dot %v, want %v", got, exact)
					}
					sum, err := mpi.AllreduceValue(c, got, mpi.Sum)
					if err != nil {
						t.Fatal(err)
					}
					abs, _ = mpi.AllreduceValue(c, abs, mpi.Sum)
					d, err := dist.Dot(src, ref)
					if err != nil {
						t.Fatal(err)
					}
					n := float64(src.Len())
					mpitest.Check(t, c, math.Abs(sum-d) <= 2*n*0x1p-53*abs, "dot over the ranks %v, dist.Dot %v", sum, d)
				})
			}
		}
	}
}

// TestLaplace5DotPanics: Laplace5Dot refuses what Laplace5 refuses.
func TestLaplace5DotPanics(t *testing.T) {
	c := mpitest.World(t)
	g, _ := dist.Zeros[float64](c, []int{4, 4}, dist.Ghosts(1))
	plain, _ := dist.Zeros[float64](c, []int{4, 4})
	three, _ := dist.Zeros[float64](c, []int{4, 4, 4}, dist.Ghosts(1))
	other, _ := dist.Zeros[float64](c, []int{5, 4}, dist.Ghosts(1))
	for name, f := range map[string]func(){ // no collective calls: any order
		"no ghosts":      func() { dist.Laplace5Dot(g, plain) },
		"same array":     func() { dist.Laplace5Dot(g, g) },
		"3-D":            func() { dist.Laplace5Dot(three, three) },
		"layouts differ": func() { dist.Laplace5Dot(g, other) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 6 || s[:6] != "dist: " {
					t.Errorf("panic %v, want one starting with dist:", r)
				}
			}()
			f()
		})
	}
}
