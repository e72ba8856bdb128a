package cg

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// BenchmarkSolve times CG iterations of W4's problem (1024 x 1024
// unknowns), 100 iterations per solve, plain and fused; the figure to read
// is ns/iter.
func BenchmarkSolve(b *testing.B) {
	for _, fused := range []bool{false, true} {
		name := "plain"
		if fused {
			name = "fused"
		}
		b.Run(name, func(b *testing.B) {
			c := mpitest.World(b)
			const iters = 100
			for b.Loop() {
				res, err := Solve(c, Config{N: 1024, Tol: 0, MaxIter: iters, Fused: fused})
				if err != nil {
					b.Fatal(err)
				}
				if res.Iters != iters {
					b.Fatalf("%d iterations", res.Iters)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iters), "ns/iter")
		})
	}
}
