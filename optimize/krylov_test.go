package optimize

import (
	_ "embed"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

//go:embed testdata/krylov_ref.json
var krylovRefJSON []byte

// bratu is the 2-D Bratu problem -laplace(u) - lam exp(u) = 0 on the unit
// square with u = 0 on the boundary, the 5-point Laplacian on the n by n
// interior points of a grid split by rows: a halo of width 1 brings each
// rank its neighbours' edge rows (the ghost rows outside the grid stay 0,
// the boundary), and every element is computed the same way at every rank
// count. free releases the halo.
func bratu(n int, lam float64) (f DistSystem, free func()) {
	hh := 1 / float64(n+1)
	h2 := hh * hh
	var h *dist.Array[float64]
	f = func(x, fx *dist.Array[float64]) error {
		if h == nil {
			var err error
			if h, err = dist.New[float64](x.Comm(), x.Layout(), dist.Ghosts(1)); err != nil {
				return err
			}
		}
		dist.Copy(h, x)
		if err := h.Exchange(); err != nil {
			return err
		}
		u := h.Ghosted().Data() // row r of the block is row r+1 here
		out := fx.LocalData()
		rows := len(out) / n
		at := func(r, c int) float64 {
			if c < 0 || c >= n {
				return 0
			}
			return u[r*n+c]
		}
		for r := 0; r < rows; r++ {
			for c := 0; c < n; c++ {
				v := u[(r+1)*n+c]
				lap := (4*v - at(r, c) - at(r+2, c) - at(r+1, c-1) - at(r+1, c+1)) / h2
				out[r*n+c] = lap - lam*math.Exp(v)
			}
		}
		return nil
	}
	return f, func() {
		if h != nil {
			h.Free()
		}
	}
}

// TestNewtonKrylovBratu solves the 2-D Bratu problem on a grid split by
// rows over the ranks, and again on each rank alone: the same Newton and
// GMRES iteration counts and the same bits at every rank count (the dot
// products and norms are exact), and SciPy's newton_krylov solution to
// its f_tol.
func TestNewtonKrylovBratu(t *testing.T) {
	world := mpitest.World(t)
	self, err := world.Split(world.Rank(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			N    int
			Lam  float64
			U    []float64
			Nit  int
			Fmax float64
		}
	}
	if err := json.Unmarshal(krylovRefJSON, &ref); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ref    int
		uneven bool
	}{
		{"n=31 lambda=6", 0, false},
		{"n=20 lambda=1 uneven", 1, true},
	}
	for _, tc := range tests {
		c := ref.Cases[tc.ref]
		t.Run(tc.name, func(t *testing.T) {
			run := func(comm mpi.Comm, opts ...dist.Option) (*KrylovResult, []float64) {
				x0, err := dist.Zeros[float64](comm, []int{c.N, c.N}, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer x0.Free()
				f, free := bratu(c.N, c.Lam)
				defer free()
				res, err := NewtonKrylov(f, x0, nil)
				if err != nil {
					t.Fatalf("%v (%+v)", err, res)
				}
				u := gatherAll(t, res.X)
				res.X.Free()
				return res, u
			}
			var opts []dist.Option
			if tc.uneven {
				opts = append(opts, dist.BlockSizes(unevenCounts(c.N, world.Size())))
			}
			res, u := run(world, opts...)
			alone, uAlone := run(self)
			same := res.NIt == alone.NIt && res.NLinear == alone.NLinear && res.NFev == alone.NFev && res.FNorm == alone.FNorm
			for i := range u {
				same = same && u[i] == uAlone[i]
			}
			mpitest.Check(t, world, same, "%d Newton %d GMRES iterations, |F| %v; on one rank %d %d %v",
				res.NIt, res.NLinear, res.FNorm, alone.NIt, alone.NLinear, alone.FNorm)
			// Both solutions satisfy max|F| <= 6e-6; the Jacobian's
			// inverse is of order 1/(2 pi^2 - lam) here, so they agree to
			// about 1e-6.
			worst := 0.0
			for i := range u {
				worst = math.Max(worst, math.Abs(u[i]-c.U[i]))
			}
			mpitest.Check(t, world, res.Converged && res.FMax <= 6.06e-6 && worst < 1e-5,
				"converged %v, max|F| %g, largest difference from SciPy %g", res.Converged, res.FMax, worst)
			if world.Rank() == 0 {
				t.Logf("%d ranks: %d Newton iterations (SciPy %d), %d GMRES iterations, %d evaluations of F, max|F| %.1e (SciPy %.1e), largest difference from SciPy %.1e",
					world.Size(), res.NIt, c.Nit, res.NLinear, res.NFev, res.FMax, c.Fmax, worst)
			}
		})
	}
}

// TestNewtonKrylovErrors: a system without a real solution stops with
// ErrLineSearch or ErrMaxIter at every rank; an error of F on one rank is
// returned on all.
func TestNewtonKrylovErrors(t *testing.T) {
	world := mpitest.World(t)
	x0, err := dist.Full(world, []int{7}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	defer x0.Free()
	noReal := func(x, fx *dist.Array[float64]) error {
		out := fx.LocalData()
		for i, v := range x.LocalData() {
			out[i] = v*v + 1
		}
		return nil
	}
	res, err := NewtonKrylov(noReal, x0, &KrylovOptions{MaxIter: 30})
	mpitest.Check(t, world, (errors.Is(err, ErrLineSearch) || errors.Is(err, ErrMaxIter)) && !res.Converged, "x^2+1: %v", err)
	res.X.Free()
	bad := errors.New("rank 0 fails")
	_, err = NewtonKrylov(func(x, fx *dist.Array[float64]) error {
		if world.Rank() == 0 {
			return bad
		}
		return nil
	}, x0, nil)
	mpitest.Check(t, world, err != nil, "no error")
	if world.Rank() == 0 && !errors.Is(err, bad) {
		t.Errorf("error %v does not wrap F's", err)
	}
}
