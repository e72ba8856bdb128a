package fuse_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// The benchmarks of the three CG passes, fused (with the default thread
// budget, and with one thread: "fused1") against hand-written Go loops
// that do the same in one loop each, on one thread:
//
//	go test -run - -bench CG ./kernels/fuse
//
// SetBytes counts the bytes each pass must move: 16 per element for p.Ap,
// 48 for the update (x, r read and written, p and Ap read), 24 for p.

var benchSizes = []int{1 << 14, 1 << 20}

// benchVectors returns vectors of numbers in [-1.5, 1.5] away from 0 (no
// subnormal products, which are slow).
func benchVectors(n int) (x, r, p, ap []float64) {
	v := func(seed uint64) []float64 {
		out := make([]float64, n)
		rng := rand.New(rand.NewPCG(seed, 3))
		for i := range out {
			out[i] = (0.5 + rng.Float64()) * float64(1-2*rng.IntN(2))
		}
		return out
	}
	return make([]float64, n), v(1), v(2), v(3)
}

// loopUpdate is the hand-written update: x += alpha p, r -= alpha Ap,
// returning r.r.
func loopUpdate(alpha float64, x, r, p, ap []float64) float64 {
	r, p, ap = r[:len(x)], p[:len(x)], ap[:len(x)]
	var s float64
	for i := range x {
		x[i] += alpha * p[i]
		v := r[i] - alpha*ap[i]
		r[i] = v
		s += v * v
	}
	return s
}

func loopDot(p, ap []float64) float64 {
	ap = ap[:len(p)]
	var s float64
	for i := range p {
		s += p[i] * ap[i]
	}
	return s
}

func loopDirection(beta float64, r, p []float64) {
	r = r[:len(p)]
	for i := range p {
		p[i] = r[i] + beta*p[i]
	}
}

func BenchmarkCG(b *testing.B) {
	ks := newCGKernels()
	for _, n := range benchSizes {
		x, r, p, ap := benchVectors(n)
		alpha, beta := 1e-9, 0.5
		args := fuse.Args{"x": backend.Wrap(x), "r": backend.Wrap(r), "p": backend.Wrap(p), "ap": backend.Wrap(ap), "alpha": &alpha, "beta": &beta}
		run := func(k *fuse.Kernel) {
			if _, err := k.Run(args); err != nil {
				b.Fatal(err)
			}
		}
		one := func(name string, bytes int, k *fuse.Kernel) {
			b.Run(fmt.Sprintf("%s/fused1/n=%d", name, n), func(b *testing.B) {
				defer backend.SetThreads(backend.SetThreads(1))
				b.SetBytes(int64(bytes * n))
				for b.Loop() {
					run(k)
				}
			})
		}
		var sink float64
		b.Run(fmt.Sprintf("dot/fused/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				run(ks.dot)
			}
		})
		one("dot", 16, ks.dot)
		b.Run(fmt.Sprintf("dot/loop/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				sink += loopDot(p, ap)
			}
		})
		b.Run(fmt.Sprintf("update/fused/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(48 * n))
			for b.Loop() {
				run(ks.update)
			}
		})
		one("update", 48, ks.update)
		b.Run(fmt.Sprintf("update/loop/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(48 * n))
			for b.Loop() {
				sink += loopUpdate(alpha, x, r, p, ap)
			}
		})
		b.Run(fmt.Sprintf("direction/fused/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				run(ks.direction)
			}
		})
		one("direction", 24, ks.direction)
		b.Run(fmt.Sprintf("direction/loop/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				loopDirection(beta, r, p)
			}
		})
		_ = sink
	}
}

// BenchmarkCGIteration times one CG iteration on a 1024 x 1024 interior
// (W4's size): the stencil (backend.Laplace5) and the three fused vector
// passes ("fused"); the stencil fused with p.Ap, then the update and the
// direction ("fused-stencil": three passes in all, as W4-fused's C); and
// the same iteration with package backend's operations (Dot, Axpy, Axpy,
// Dot, Axpby: five vector passes after the stencil).
func BenchmarkCGIteration(b *testing.B) {
	const rows, cols = 1026, 1026
	n := rows * cols
	x, r, p, ap := benchVectors(n)
	for i := range n {
		if i/cols == 0 || i/cols == rows-1 || i%cols == 0 || i%cols == cols-1 {
			r[i], p[i] = 0, 0
		}
	}
	xa, ra, pa, apa := backend.Wrap(x), backend.Wrap(r), backend.Wrap(p), backend.Wrap(ap)
	ks := newCGKernels()
	var alpha, beta float64
	args := fuse.Args{"x": xa, "r": ra, "p": pa, "ap": apa, "alpha": &alpha, "beta": &beta}
	for _, threads := range []int{1, 0} {
		name := "threads=default"
		if threads == 1 {
			name = "threads=1"
		}
		b.Run("fused/"+name, func(b *testing.B) {
			defer backend.SetThreads(backend.SetThreads(threads))
			rr := backend.Dot(ra, ra)
			for b.Loop() {
				backend.Laplace5(apa, pa, rows, cols)
				res, err := ks.dot.Run(args)
				if err != nil {
					b.Fatal(err)
				}
				alpha = 1e-6 * rr / res.Float64("pap") // small steps: the vectors stay bounded
				if res, err = ks.update.Run(args); err != nil {
					b.Fatal(err)
				}
				rrNew := res.Float64("rr")
				beta = 0.5 * rrNew / rr
				rr = rrNew
				if _, err := ks.direction.Run(args); err != nil {
					b.Fatal(err)
				}
			}
		})
		stencil, _ := cgStencilKernels(cols)
		b.Run("fused-stencil/"+name, func(b *testing.B) {
			defer backend.SetThreads(backend.SetThreads(threads))
			rr := backend.Dot(ra, ra)
			for b.Loop() {
				res, err := stencil.Run(args)
				if err != nil {
					b.Fatal(err)
				}
				zeroBoundary(ap, rows, cols)
				alpha = 1e-6 * rr / res.Float64("pap")
				if res, err = ks.update.Run(args); err != nil {
					b.Fatal(err)
				}
				rrNew := res.Float64("rr")
				beta = 0.5 * rrNew / rr
				rr = rrNew
				if _, err := ks.direction.Run(args); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("backend/"+name, func(b *testing.B) {
			defer backend.SetThreads(backend.SetThreads(threads))
			rr := backend.Dot(ra, ra)
			for b.Loop() {
				backend.Laplace5(apa, pa, rows, cols)
				alpha := 1e-6 * rr / backend.Dot(pa, apa)
				backend.Axpy(alpha, pa, xa)
				backend.Axpy(-alpha, apa, ra)
				rrNew := backend.Dot(ra, ra)
				beta := 0.5 * rrNew / rr
				rr = rrNew
				backend.Axpby(1, ra, beta, pa)
			}
		})
	}
}
