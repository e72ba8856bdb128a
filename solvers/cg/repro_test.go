package cg

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/serialloop"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestReproducibleSolve: with Reproducible, the solve (with Fused set or
// not: it runs the plain iterations) gives the bits of the one-rank solve (computed on every rank, in process,
// on the serial stand-in communicator) at every rank count and at 1 and 3
// threads: the iteration count, the final residual and the checksum; and
// they agree with the serial loop. The grids divide unevenly over 2-4
// ranks, and n = 3 at 4 ranks leaves a rank with an empty block.
func TestReproducibleSolve(t *testing.T) {
	c := mpitest.World(t)
	self := mpi.NewSerial()
	defer backend.SetThreads(backend.SetThreads(1))
	for _, n := range []int{1, 3, 7, 30, 97} {
		if testing.Short() && n > 7 {
			continue // hundreds of iterations: the full suite runs it
		}
		k, rel, sum, _ := serialloop.CG(n, 1e-10, n*n)
		for _, fused := range []bool{false, true} {
			if fused && testing.Short() {
				continue // the reproducible iterations ignore Fused: the full suite checks that
			}
			cfg := Config{N: n, Tol: 1e-10, Fused: fused, Reproducible: true}
			backend.SetThreads(1)
			want, err := Solve(self, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 3} {
				backend.SetThreads(threads)
				got, err := Solve(c, cfg)
				if err != nil {
					t.Fatal(err)
				}
				same := got.Iters == want.Iters && got.RelRes == want.RelRes && got.Checksum == want.Checksum && got.Converged
				mpitest.Check(t, c, same, "n=%d fused=%v, %d threads: %d iterations, residual %.17g, checksum %.17g; one rank: %d, %.17g, %.17g",
					n, fused, threads, got.Iters, got.RelRes, got.Checksum, want.Iters, want.RelRes, want.Checksum)
			}
			if abs(want.Iters-k) > 2 || !agree(want.Checksum, sum, 1e-9) || want.RelRes > 1e-10 {
				t.Errorf("n=%d fused=%v: %d iterations, checksum %.17g, residual %g; serial loop %d, %.17g, %g", n, fused, want.Iters, want.Checksum, want.RelRes, k, sum, rel)
			}
		}
	}
}

// TestReproducibleHistory: CG with Reproducible gives the residual history
// and the solution of the one-rank solve to the bit, with Fused and
// OperatorDot set or not (the reproducible iterations use neither), on a
// grid of 23 x 19 unknowns.
func TestReproducibleHistory(t *testing.T) {
	c := mpitest.World(t)
	const rows, cols = 23, 21
	solve := func(comm mpi.Comm, fused bool) (Stats, []float64) {
		b, err := dist.FromFunc(comm, []int{rows, cols}, func(idx []int) float64 {
			if idx[1] == 0 || idx[1] == cols-1 {
				return 0
			}
			return math.Sin(float64(idx[0]*cols+idx[1])) + 0.25
		}, dist.Ghosts(1))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free()
		x, err := dist.ZerosLike(b)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Free()
		o := Options{Tol: 1e-12, Fused: fused, Reproducible: true}
		if fused {
			o.OperatorDot = PoissonDot()
		}
		st, err := CG(Poisson(), b, x, o)
		if err != nil {
			t.Fatal(err)
		}
		all, err := dist.Gather(x, 0)
		if err != nil {
			t.Fatal(err)
		}
		return st, all
	}
	for _, fused := range []bool{false, true} {
		if fused && testing.Short() {
			continue // the reproducible iterations ignore Fused: the full suite checks that
		}
		want, wx := solve(mpi.NewSerial(), fused)
		got, gx := solve(c, fused)
		same := got.Iters == want.Iters && len(got.History) == len(want.History)
		for i := 0; same && i < len(got.History); i++ {
			same = got.History[i] == want.History[i]
		}
		mpitest.Check(t, c, same && got.Converged, "fused=%v: %d iterations, history %v; one rank: %d, %v", fused, got.Iters, got.History, want.Iters, want.History)
		if c.Rank() == 0 {
			for i := range wx {
				if gx[i] != wx[i] {
					t.Fatalf("fused=%v: x[%d] = %.17g, one rank %.17g", fused, i, gx[i], wx[i])
				}
			}
		}
	}
}
