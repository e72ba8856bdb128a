package integrate

import (
	"errors"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// heatRHS is the method of lines for u_t = u_xx on (0, 1) with u = 0 at
// both ends, on n interior points: a halo of width 1 brings each rank its
// neighbours' edge values (the ghosts outside the array stay 0, the
// boundary values), and each rank computes its block of the second
// difference, every element the same way at every rank count. free
// releases the halo.
func heatRHS(n int) (f DistFunc, free func()) {
	dx := 1 / float64(n+1)
	var h *dist.Array[float64]
	f = func(t float64, y, dy *dist.Array[float64]) error {
		if h == nil {
			var err error
			if h, err = dist.New[float64](y.Comm(), y.Layout(), dist.Ghosts(1)); err != nil {
				return err
			}
		}
		dist.Copy(h, y)
		if err := h.Exchange(); err != nil {
			return err
		}
		u := h.Ghosted().Data() // u[1 : len-1] is the block
		out := dy.LocalData()
		for i := range out {
			out[i] = (u[i] - 2*u[i+1] + u[i+2]) / (dx * dx)
		}
		return nil
	}
	return f, func() {
		if h != nil {
			h.Free()
		}
	}
}

// heatExact is the exact solution of the semi-discrete system from
// sin(pi x) + 0.5 sin(3 pi x): each sine mode decays with its discrete
// eigenvalue.
func heatExact(n int, t float64, i int) float64 {
	dx := 1 / float64(n+1)
	x := float64(i+1) * dx
	lam := func(k float64) float64 { s := math.Sin(k * math.Pi * dx / 2); return -4 / (dx * dx) * s * s }
	return math.Exp(lam(1)*t)*math.Sin(math.Pi*x) + 0.5*math.Exp(lam(3)*t)*math.Sin(3*math.Pi*x)
}

func heatInit(c mpi.Comm, n int, opts ...dist.Option) (*dist.Array[float64], error) {
	return dist.FromFunc(c, []int{n}, func(idx []int) float64 { return heatExact(n, 0, idx[0]) }, opts...)
}

// gatherAll returns the whole of a on every rank.
func gatherAll(t *testing.T, a *dist.Array[float64]) []float64 {
	t.Helper()
	full := make([]float64, a.Len())
	if err := mpi.Allgatherv(a.Comm(), a.LocalData(), full, a.Layout().Counts(), nil); err != nil {
		t.Fatal(err)
	}
	return full
}

// TestSolveIVPDistHeat solves the heat equation by the method of lines
// split over the ranks, and again on each rank alone (a one-rank
// communicator): the same steps and the same bits, and the exact
// semi-discrete solution to the tolerance. Under mpirun at 1-4 ranks this
// shows that the steps do not depend on the rank count.
func TestSolveIVPDistHeat(t *testing.T) {
	world := mpitest.World(t)
	self, err := world.Split(world.Rank(), 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		n      int
		uneven bool
	}{
		{"n=50", 50, false},
		{"n=3", 3, false}, // fewer elements than ranks at 4
		{"n=37 uneven", 37, true},
	}
	teval := []float64{0, 0.001, 0.01, 0.02, 0.05}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []dist.Option
			if tc.uneven {
				counts := make([]int, world.Size())
				left := tc.n
				for r := range counts {
					counts[r] = min(left, 1+3*r)
					left -= counts[r]
				}
				counts[len(counts)-1] += left
				opts = append(opts, dist.BlockSizes(counts))
			}
			y0, err := heatInit(world, tc.n, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer y0.Free()
			iv := &IVPOptions{RelTol: 1e-6, AbsTol: 1e-9, TEval: teval, IgnoreStiffness: true}
			f, free := heatRHS(tc.n)
			defer free()
			res, err := SolveIVPDist(f, 0, 0.05, y0, iv)
			if err != nil {
				t.Fatal(err)
			}
			y1, err := heatInit(self, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			defer y1.Free()
			f1, free1 := heatRHS(tc.n)
			defer free1()
			alone, err := SolveIVPDist(f1, 0, 0.05, y1, iv)
			if err != nil {
				t.Fatal(err)
			}
			mpitest.Check(t, world, res.Steps == alone.Steps && res.Rejected == alone.Rejected && res.NFev == alone.NFev,
				"%d steps %d rejected %d evaluations; on one rank %d %d %d", res.Steps, res.Rejected, res.NFev, alone.Steps, alone.Rejected, alone.NFev)
			for k := range teval {
				got := gatherAll(t, res.Y[k])
				want := alone.Y[k].LocalData()
				same, close := true, true
				for i := range got {
					if got[i] != want[i] {
						same = false
					}
					if math.Abs(got[i]-heatExact(tc.n, teval[k], i)) > 1e-5 {
						close = false
					}
				}
				mpitest.Check(t, world, same, "t=%g: the result differs from the one-rank run", teval[k])
				mpitest.Check(t, world, close, "t=%g: the result differs from the exact solution", teval[k])
				res.Y[k].Free()
				alone.Y[k].Free()
			}
			if world.Rank() == 0 {
				t.Logf("%d ranks: %d steps, %d rejected, %d evaluations", world.Size(), res.Steps, res.Rejected, res.NFev)
			}
		})
	}
}

// TestSolveIVPDistStiff: the heat equation on a fine grid is stiff for
// RK45, which says so at every rank.
func TestSolveIVPDistStiff(t *testing.T) {
	world := mpitest.World(t)
	const n = 200
	y0, err := heatInit(world, n)
	if err != nil {
		t.Fatal(err)
	}
	defer y0.Free()
	f, free := heatRHS(n)
	defer free()
	res, err := SolveIVPDist(f, 0, 0.1, y0, &IVPOptions{RelTol: 1e-3, AbsTol: 1e-6})
	mpitest.Check(t, world, errors.Is(err, ErrStiff) && res.Stiff && res.Status == -1, "error %v, stiff %v", err, res.Stiff)
}

// TestSolveIVPDistError: an error of f on one rank is returned on all.
func TestSolveIVPDistError(t *testing.T) {
	world := mpitest.World(t)
	y0, err := dist.Full(world, []int{10}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	defer y0.Free()
	bad := errors.New("rank 0 fails")
	_, err = SolveIVPDist(func(t float64, y, dy *dist.Array[float64]) error {
		if world.Rank() == 0 && t > 0.5 {
			return bad
		}
		copy(dy.LocalData(), y.LocalData())
		return nil
	}, 0, 1, y0, nil)
	mpitest.Check(t, world, err != nil, "no error")
	if world.Rank() == 0 && !errors.Is(err, bad) {
		t.Errorf("error %v does not wrap f's", err)
	}
}

// TestSolveIVPDistBackward: y' = -y integrated backward from t = 1 to 0,
// final state only, at every rank count the same as on one rank.
func TestSolveIVPDistBackward(t *testing.T) {
	world := mpitest.World(t)
	self, err := world.Split(world.Rank(), 0)
	if err != nil {
		t.Fatal(err)
	}
	f := func(t float64, y, dy *dist.Array[float64]) error {
		lo, _ := y.Range()
		out := dy.LocalData()
		for i, v := range y.LocalData() {
			out[i] = -float64(lo+i+1) * 0.1 * v
		}
		return nil
	}
	run := func(c mpi.Comm) *DistResult {
		y0, err := dist.FromFunc(c, []int{11}, func(idx []int) float64 { return float64(idx[0]) })
		if err != nil {
			t.Fatal(err)
		}
		defer y0.Free()
		r, err := SolveIVPDist(f, 1, 0, y0, &IVPOptions{RelTol: 1e-8, AbsTol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r, alone := run(world), run(self)
	defer r.Y[0].Free()
	defer alone.Y[0].Free()
	got, want := gatherAll(t, r.Y[0]), alone.Y[0].LocalData()
	ok := r.Steps == alone.Steps && len(r.T) == 1 && r.T[0] == 0
	for i := range got {
		exact := float64(i) * math.Exp(float64(i+1)*0.1)
		ok = ok && got[i] == want[i] && math.Abs(got[i]-exact) < 1e-6*math.Max(1, exact)
	}
	mpitest.Check(t, world, ok, "steps %d (alone %d), T %v, y %v (alone %v)", r.Steps, alone.Steps, r.T, got, want)
	mpitest.Check(t, world, func() (panicked bool) {
		defer func() { panicked = recover() != nil }()
		SolveIVPDist(f, 0, 1, r.Y[0], &IVPOptions{Dense: true})
		return false
	}(), "Dense did not panic")
}
