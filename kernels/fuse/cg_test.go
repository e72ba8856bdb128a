package fuse_test

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// cgKernels are the three fused passes of a conjugate-gradient iteration
// (after the stencil Ap = A p): p.Ap; x += alpha p, r -= alpha Ap and r.r
// in one pass; p = r + beta p.
type cgKernels struct{ dot, update, direction *fuse.Kernel }

func newCGKernels() cgKernels {
	x, r, p, ap := fuse.Var[float64]("x"), fuse.Var[float64]("r"), fuse.Var[float64]("p"), fuse.Var[float64]("ap")
	alpha, beta := fuse.Param[float64]("alpha"), fuse.Param[float64]("beta")
	rn := fuse.Out("r", fuse.Sub(r, fuse.Mul(alpha, ap)))
	return cgKernels{
		dot:       fuse.MustCompile(fuse.Dot("pap", p, ap)),
		update:    fuse.MustCompile(fuse.Out("x", fuse.Add(x, fuse.Mul(alpha, p))), rn, fuse.Dot("rr", rn, rn)),
		direction: fuse.MustCompile(fuse.Out("p", fuse.Add(r, fuse.Mul(beta, p)))),
	}
}

const cgTol = 1e-8

// cgFused solves the 5-point Laplacian system with b = 1 on the interior
// of a rows x cols grid (zero boundary), x0 = 0, on backend be, with the
// vector updates fused. It returns x and the number of iterations.
func cgFused(t *testing.T, be backend.Backend, rows, cols int) ([]float64, int) {
	n := rows * cols
	mk := func() *backend.Array[float64] {
		a, err := backend.NewOn[float64](be, n)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	x, r, p, ap := mk(), mk(), mk(), mk()
	b := make([]float64, n)
	for i := 1; i < rows-1; i++ {
		for j := 1; j < cols-1; j++ {
			b[i*cols+j] = 1
		}
	}
	if err := backend.CopyFromHostSlice(r, b); err != nil {
		t.Fatal(err)
	}
	backend.Copy(p, r)
	ks := newCGKernels()
	var alpha, beta float64
	args := fuse.Args{"x": x, "r": r, "p": p, "ap": ap, "alpha": &alpha, "beta": &beta}
	rr := refSum(mul(b, b))
	rr0 := rr
	it := 0
	for ; it < 10*n && math.Sqrt(rr/rr0) > cgTol; it++ {
		backend.Laplace5(ap, p, rows, cols)
		res, err := ks.dot.Run(args)
		if err != nil {
			t.Fatal(err)
		}
		alpha = rr / res.Float64("pap")
		if res, err = ks.update.Run(args); err != nil {
			t.Fatal(err)
		}
		rrNew := res.Float64("rr")
		beta = rrNew / rr
		rr = rrNew
		if _, err := ks.direction.Run(args); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]float64, n)
	if err := backend.CopyToHostSlice(out, x); err != nil {
		t.Fatal(err)
	}
	return out, it
}

func mul(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] * b[i]
	}
	return out
}

// cgLoops is cgFused with every operation a plain Go loop, one operator at
// a time, and dots added in the documented order (refSum).
func cgLoops(rows, cols int) ([]float64, int) {
	n := rows * cols
	x, r, ap := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := 1; i < rows-1; i++ {
		for j := 1; j < cols-1; j++ {
			r[i*cols+j] = 1
		}
	}
	p := append([]float64(nil), r...)
	rr := refSum(mul(r, r))
	rr0 := rr
	it := 0
	for ; it < 10*n && math.Sqrt(rr/rr0) > cgTol; it++ {
		cpu.Default.Laplace5(backend.HostBufferOf(ap), backend.HostBufferOf(p), rows, cols)
		alpha := rr / refSum(mul(p, ap))
		for i := range x {
			x[i] = x[i] + float64(alpha*p[i]) // float64(): no fused multiply-add
		}
		for i := range r {
			r[i] = r[i] - float64(alpha*ap[i])
		}
		rrNew := refSum(mul(r, r))
		beta := rrNew / rr
		rr = rrNew
		for i := range p {
			p[i] = r[i] + float64(beta*p[i])
		}
	}
	return x, it
}

// cgBackend is cgFused with the operations of package backend (Dot, Axpy,
// Axpby): the unfused program, whose dots add in another order.
func cgBackend(rows, cols int) ([]float64, int) {
	n := rows * cols
	x, r, p, ap := backend.Wrap(make([]float64, n)), backend.Wrap(make([]float64, n)), backend.Wrap(make([]float64, n)), backend.Wrap(make([]float64, n))
	for i := 1; i < rows-1; i++ {
		for j := 1; j < cols-1; j++ {
			r.Data()[i*cols+j] = 1
		}
	}
	backend.Copy(p, r)
	rr := backend.Dot(r, r)
	rr0 := rr
	it := 0
	for ; it < 10*n && math.Sqrt(rr/rr0) > cgTol; it++ {
		backend.Laplace5(ap, p, rows, cols)
		alpha := rr / backend.Dot(p, ap)
		backend.Axpy(alpha, p, x)
		backend.Axpy(-alpha, ap, r)
		rrNew := backend.Dot(r, r)
		beta := rrNew / rr
		rr = rrNew
		backend.Axpby(1, r, beta, p)
	}
	return x.Data(), it
}

// TestCG checks that conjugate gradients with fused vector updates (three
// kernels per iteration) reach the same iterate as the unfused program:
// bitwise against plain loops with the same order of operations, on the
// host and on the fake device, and to within rounding against package
// backend's operations.
func TestCG(t *testing.T) {
	for _, g := range [][2]int{{34, 34}, {23, 41}} {
		rows, cols := g[0], g[1]
		want, wantIt := cgLoops(rows, cols)
		for _, be := range []backend.Backend{cpu.Default, fakedev.Default} {
			got, it := cgFused(t, be, rows, cols)
			if it != wantIt {
				t.Errorf("%dx%d on %s: %d iterations, unfused loops %d", rows, cols, be.Name(), it, wantIt)
			}
			checkSlice(t, "x on "+be.Name(), got, want)
		}
		ref, refIt := cgBackend(rows, cols)
		if d := refIt - wantIt; d < -1 || d > 1 {
			t.Errorf("%dx%d: %d iterations, with package backend's operations %d", rows, cols, wantIt, refIt)
		}
		var maxDiff, maxX float64
		for i := range ref {
			maxDiff = max(maxDiff, math.Abs(ref[i]-want[i]))
			maxX = max(maxX, math.Abs(ref[i]))
		}
		if maxDiff > 1e-9*maxX {
			t.Errorf("%dx%d: fused and package backend's CG differ by %g (max |x| %g)", rows, cols, maxDiff, maxX)
		}
		t.Logf("%dx%d: %d iterations; against package backend's CG (%d iterations) max difference %.3g of max |x| %.3g", rows, cols, wantIt, refIt, maxDiff, maxX)
	}
}
