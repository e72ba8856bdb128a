package fuse_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// TestShift checks shifted reads against a plain loop with zeros outside
// the array, at shifts inside, across and beyond chunks, on the host and
// the fake device, serial and parallel.
func TestShift(t *testing.T) {
	shifts := []int{0, 1, -1, 7, -513, 1000, -100003, 100004}
	for _, n := range append(sizes, fuse.ParallelMin+11) {
		for _, dev := range []string{"cpu", "fake"} {
			x, z := fuse.Var[float64]("x"), fuse.Var[float64]("z")
			e := fuse.Mul(z, fuse.Const(0.5))
			for _, k := range shifts {
				e = fuse.Add(e, fuse.Shift(x, k))
			}
			e = fuse.Sub(e, fuse.Shift(z, -3))
			yn := fuse.Out("y", e)
			kern := fuse.MustCompile(yn, fuse.Dot("d", fuse.Shift(x, 2), yn))
			xs, zs := data[float64](n, 11), data[float64](n, 12)
			at := func(v []float64, i int) float64 {
				if i < 0 || i >= len(v) {
					return 0
				}
				return v[i]
			}
			want := make([]float64, n)
			prods := make([]float64, n)
			for i := range want {
				v := zs[i] * 0.5
				for _, k := range shifts {
					v += at(xs, i+k)
				}
				want[i] = v - at(zs, i-3)
				prods[i] = at(xs, i+2) * want[i]
			}
			xa, _ := place(t, dev, xs)
			za, _ := place(t, dev, zs)
			ya, get := place(t, dev, make([]float64, n))
			res, err := kern.Run(fuse.Args{"x": xa, "z": za, "y": ya})
			if err != nil {
				t.Fatal(err)
			}
			checkSlice(t, fmt.Sprintf("y (n=%d on %s)", n, dev), get(), want)
			if got, w := res.Float64("d"), refSum(prods); !sameBits(got, w) {
				t.Errorf("n=%d on %s: d = %v, want %v", n, dev, got, w)
			}
		}
	}
	x := fuse.Var[float64]("x")
	k := fuse.MustCompile(fuse.Out("x", fuse.Shift(x, 1)))
	xs := backend.Wrap(make([]float64, 10))
	if _, err := k.Run(fuse.Args{"x": xs}); err == nil || !strings.Contains(err.Error(), `output "x" is the memory of "x", which the kernel reads shifted`) {
		t.Errorf("output shifted in place: error %v", err)
	}
	if _, err := fuse.Compile(fuse.Out("y", fuse.Shift(fuse.Add(x, x), 1))); err == nil || !strings.Contains(err.Error(), "only Vars") {
		t.Errorf("Shift of an operation: error %v", err)
	}
}

// cgStencilKernels are the passes of a CG iteration with the stencil
// fused: Ap = A p and p.Ap in one pass (the Laplacian from shifted reads
// of p), then the update and the direction as in cgKernels: three passes
// over memory per iteration, as a hand-fused C loop makes.
func cgStencilKernels(cols int) (stencil *fuse.Kernel, rest cgKernels) {
	p := fuse.Var[float64]("p")
	lap := fuse.Sub(fuse.Mul(fuse.Const(4.0), p), fuse.Shift(p, -cols))
	lap = fuse.Sub(fuse.Sub(fuse.Sub(lap, fuse.Shift(p, cols)), fuse.Shift(p, -1)), fuse.Shift(p, 1))
	ap := fuse.Out("ap", lap)
	return fuse.MustCompile(ap, fuse.Dot("pap", p, ap)), newCGKernels()
}

// zeroBoundary zeroes the boundary of a rows x cols grid: the stencil
// kernel computes garbage there (from neighbours across the edges), and
// the boundary of Ap must stay 0.
func zeroBoundary(a []float64, rows, cols int) {
	clear(a[:cols])
	clear(a[(rows-1)*cols:])
	for i := 1; i < rows-1; i++ {
		a[i*cols], a[i*cols+cols-1] = 0, 0
	}
}

// TestCGStencil checks that CG with the stencil fused into the p.Ap pass
// (three passes per iteration) reaches the iterate of the unfused loops
// bit for bit: the fused Laplacian subtracts in Laplace5's order.
func TestCGStencil(t *testing.T) {
	for _, g := range [][2]int{{34, 34}, {23, 41}} {
		rows, cols := g[0], g[1]
		want, wantIt := cgLoops(rows, cols)
		n := rows * cols
		x, r, p, ap := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := 1; i < rows-1; i++ {
			for j := 1; j < cols-1; j++ {
				r[i*cols+j] = 1
			}
		}
		copy(p, r)
		stencil, ks := cgStencilKernels(cols)
		var alpha, beta float64
		args := fuse.Args{"x": backend.Wrap(x), "r": backend.Wrap(r), "p": backend.Wrap(p), "ap": backend.Wrap(ap), "alpha": &alpha, "beta": &beta}
		rr := refSum(mul(r, r))
		rr0 := rr
		it := 0
		for ; it < 10*n && math.Sqrt(rr/rr0) > cgTol; it++ {
			res, err := stencil.Run(args)
			if err != nil {
				t.Fatal(err)
			}
			zeroBoundary(ap, rows, cols)
			alpha = rr / res.Float64("pap")
			if res, err = ks.update.Run(args); err != nil {
				t.Fatal(err)
			}
			beta = res.Float64("rr") / rr
			rr = res.Float64("rr")
			if _, err := ks.direction.Run(args); err != nil {
				t.Fatal(err)
			}
		}
		if it != wantIt {
			t.Errorf("%dx%d: %d iterations, unfused loops %d", rows, cols, it, wantIt)
		}
		checkSlice(t, fmt.Sprintf("x (%dx%d)", rows, cols), x, want)
		// The stencil pass alone equals Laplace5 inside the grid.
		lap := make([]float64, n)
		cpu.Default.Laplace5(backend.HostBufferOf(lap), backend.HostBufferOf(p), rows, cols)
		if _, err := stencil.Run(args); err != nil {
			t.Fatal(err)
		}
		zeroBoundary(ap, rows, cols)
		checkSlice(t, "Ap", ap, lap)
	}
}
