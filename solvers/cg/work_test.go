package cg

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// poissonB returns Solve's right-hand side for an n x n interior: 1 at the
// unknowns, 0 on the walls, with one ghost row.
func poissonB(t *testing.T, n int) *dist.Array[float64] {
	t.Helper()
	b, err := dist.FromFunc(mpitest.World(t), []int{n, n + 2}, func(idx []int) float64 {
		if idx[1] == 0 || idx[1] == n+1 {
			return 0
		}
		return 1
	}, dist.Ghosts(1))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNewWork: the work vectors have b's layout and ghost layers, are zero
// everywhere (ghosts included), touched or not, and z is made only for a
// preconditioned solve; sizes include fewer rows than ranks.
func TestNewWork(t *testing.T) {
	for _, n := range []int{1, 3, 6} {
		b := poissonB(t, n)
		for _, c := range []struct{ precond, touch bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
			w, err := newWork(b, c.precond, c.touch)
			if err != nil {
				t.Fatal(err)
			}
			if (w.z != nil) != c.precond {
				t.Errorf("n=%d %+v: z made %v", n, c, w.z != nil)
			}
			for i, v := range []*dist.Array[float64]{w.r, w.p, w.ap, w.z} {
				if v == nil {
					if i < 3 {
						t.Fatalf("n=%d %+v: vector %d not made", n, c, i)
					}
					continue
				}
				if !v.Layout().Equal(b.Layout()) || v.Ghosts() != b.Ghosts() {
					t.Errorf("n=%d %+v: vector %d of %v with %d ghosts, b of %v with %d", n, c, i, v.Layout(), v.Ghosts(), b.Layout(), b.Ghosts())
				}
				for j, e := range v.Ghosted().Data() {
					if e != 0 {
						t.Errorf("n=%d %+v: vector %d holds %g at %d of its ghosted storage", n, c, i, e, j)
						break
					}
				}
			}
			w.free()
		}
		b.Free()
	}
}

// TestSolveAsCG: Solve, whose work vectors are made (and touched) before
// its timer, gives the same bits as CG called on the same problem with
// vectors of its own, plain and fused, at every rank count.
func TestSolveAsCG(t *testing.T) {
	for _, n := range []int{1, 3, 17} {
		for _, fused := range []bool{false, true} {
			res, err := Solve(mpitest.World(t), Config{N: n, Tol: 1e-9, Fused: fused})
			if err != nil {
				t.Fatal(err)
			}
			b := poissonB(t, n)
			x, err := dist.ZerosLike(b)
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Tol: 1e-9, MaxIter: n * n, Fused: fused}
			if fused {
				o.OperatorDot = PoissonDot()
			}
			st, err := CG(Poisson(), b, x, o)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := dist.SumRepro(x)
			if err != nil {
				t.Fatal(err)
			}
			if res.Iters != st.Iters || math.Float64bits(res.Checksum) != math.Float64bits(sum) || math.Float64bits(res.RelRes) != math.Float64bits(st.RelRes) {
				t.Errorf("n=%d fused=%v: Solve %d iterations, residual %g, sum %.17g; CG %d, %g, %.17g", n, fused, res.Iters, res.RelRes, res.Checksum, st.Iters, st.RelRes, sum)
			}
			x.Free()
			b.Free()
		}
	}
}
