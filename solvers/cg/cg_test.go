package cg

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/serialloop"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/solvers"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// agree says whether a and b agree to a relative tolerance.
func agree(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func TestMatchesSerialLoop(t *testing.T) {
	world := mpitest.World(t)
	for _, c := range []struct {
		n   int
		tol float64
	}{{1, 1e-8}, {2, 1e-8}, {3, 1e-10}, {5, 1e-8}, {16, 1e-8}, {33, 1e-8}, {64, 1e-6}} {
		if testing.Short() && c.n > 16 {
			continue // hundreds of iterations: the full suite runs them
		}
		res, err := Solve(world, Config{N: c.n, Tol: c.tol})
		if err != nil {
			t.Fatal(err)
		}
		k, rel, sum, _ := serialloop.CG(c.n, c.tol, c.n*c.n)
		if res.Iters != k {
			t.Errorf("n=%d on %d ranks: %d iterations, serial loop %d", c.n, world.Size(), res.Iters, k)
		}
		if !agree(res.Checksum, sum, 1e-10) {
			t.Errorf("n=%d on %d ranks: sum of x %.17g, serial loop %.17g", c.n, world.Size(), res.Checksum, sum)
		}
		// Where CG ends exactly (small n), both residuals are rounding noise.
		if !res.Converged || res.RelRes > c.tol || (!agree(res.RelRes, rel, 1e-6) && rel > 1e-13) {
			t.Errorf("n=%d: relative residual %g (converged %v), serial loop %g", c.n, res.RelRes, res.Converged, rel)
		}
		if res.Ranks != world.Size() || (res.Iters > 0 && !(res.PerIter > 0)) {
			t.Errorf("n=%d: ranks %d, per iteration %g", c.n, res.Ranks, res.PerIter)
		}
	}
}

func TestStopsAtMaxIter(t *testing.T) {
	world := mpitest.World(t)
	res, err := Solve(world, Config{N: 40, Tol: 1e-12, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	k, rel, sum, _ := serialloop.CG(40, 1e-12, 5)
	if res.Iters != 5 || k != 5 || res.Converged || !agree(res.Checksum, sum, 1e-12) || !agree(res.RelRes, rel, 1e-10) {
		t.Fatalf("%+v; serial loop: %d iterations, residual %g, sum %g", res, k, rel, sum)
	}
}

func TestRejectsBadArguments(t *testing.T) {
	world := mpitest.World(t)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{N: 0, Tol: 1e-8}, "cg: N 0: want at least 1"},
		{Config{N: 4, Tol: -1}, "cg: Tol -1: want 0 or more"},
		{Config{N: 4, Tol: math.NaN()}, "cg: Tol NaN: want 0 or more"},
		{Config{N: 4, Tol: 1e-8, MaxIter: -1}, "cg: MaxIter -1: want 0 (n*n) or more"},
		{Config{N: math.MaxInt32 + 1, Tol: 1e-8}, "cg: N 2147483648: too large"},
	} {
		_, err := Solve(world, c.cfg)
		var ce *solvers.ConfigError
		if err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a *solvers.ConfigError saying %q", c.cfg, err, c.want)
		}
	}
	if err := (Config{N: math.MaxInt32 + 1}).Check(); !errors.Is(err, dist.ErrTooLarge) {
		t.Errorf("N past MaxInt32: %v does not wrap dist.ErrTooLarge", err)
	}
}

// TestSolveFused: the fused vector updates converge to the plain solve's
// solution with about its iteration count, at every rank count.
func TestSolveFused(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{1, 5, 37} {
		if testing.Short() && n > 5 {
			continue
		}
		plain, err := Solve(c, Config{N: n, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		fused, err := Solve(c, Config{N: n, Tol: 1e-10, Fused: true})
		if err != nil {
			t.Fatal(err)
		}
		if !fused.Converged || abs(fused.Iters-plain.Iters) > 2 || math.Abs(fused.Checksum-plain.Checksum) > 1e-8*math.Abs(plain.Checksum) {
			t.Errorf("n=%d: fused %+v, plain %+v", n, fused, plain)
		}
	}
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}
