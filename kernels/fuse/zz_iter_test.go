package fuse_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

func TestZZIter(t *testing.T) {
	const rows, cols = 1026, 1026
	n := rows * cols
	x, r, p, ap := benchVectors(n)
	xa, ra, pa, apa := backend.Wrap(x), backend.Wrap(r), backend.Wrap(p), backend.Wrap(ap)
	ks := newCGKernels()
	alpha, beta := 1e-9, 0.999
	args := fuse.Args{"x": xa, "r": ra, "p": pa, "ap": apa, "alpha": &alpha, "beta": &beta}
	defer backend.SetThreads(backend.SetThreads(1))
	best := func(f func()) time.Duration {
		b := time.Hour
		for i := 0; i < 60; i++ {
			t0 := time.Now()
			f()
			if d := time.Since(t0); d < b {
				b = d
			}
		}
		return b
	}
	fmt.Println("laplace", best(func() { backend.Laplace5(apa, pa, rows, cols) }))
	fmt.Println("fused dot", best(func() { ks.dot.Run(args) }), "update", best(func() { ks.update.Run(args) }), "direction", best(func() { ks.direction.Run(args) }))
	fmt.Println("backend dot", best(func() { backend.Dot(pa, apa) }), "axpy", best(func() { backend.Axpy(1e-9, pa, xa) }), "axpby", best(func() { backend.Axpby(1, ra, 0.999, pa) }))
}
