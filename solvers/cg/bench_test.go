package cg

import (
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// BenchmarkCG times CG iterations of W4's problem (1024 x 1024 unknowns,
// Solve's vectors), 50 iterations per op: plain, fused with fuse's pass
// for p.Ap ("fused"), and fused with PoissonDot ("fused-dot": the stencil
// and p.Ap in one pass, as Solve's fused solve runs), and the iterations
// with Reproducible ("repro": the plain ones, with the dots by DotRepro).
// The figure to read
// is ns/iter; run with -count to interleave the variants.
func BenchmarkCG(b *testing.B) {
	const n, iters = 1024, 50
	c := mpitest.World(b)
	rhs, err := dist.FromFunc(c, []int{n, n + 2}, func(idx []int) float64 {
		if idx[1] == 0 || idx[1] == n+1 {
			return 0
		}
		return 1
	}, dist.Ghosts(1))
	if err != nil {
		b.Fatal(err)
	}
	defer rhs.Free()
	x, err := dist.ZerosLike(rhs)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Free()
	for _, v := range []struct {
		name string
		o    Options
	}{
		{"plain", Options{MaxIter: iters}},
		{"fused", Options{MaxIter: iters, Fused: true}},
		{"fused-dot", Options{MaxIter: iters, Fused: true, OperatorDot: PoissonDot()}},
		{"repro", Options{MaxIter: iters, Reproducible: true}},
	} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				dist.Fill(x, 0)
				st, err := CG(Poisson(), rhs, x, v.o)
				if err != nil {
					b.Fatal(err)
				}
				if st.Iters != iters {
					b.Fatalf("%d iterations", st.Iters)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iters), "ns/iter")
		})
	}
}
