package integrate

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// idxMu is the Van der Pol parameter of system i in the indexed tests:
// mostly mild, every 7th stiff (1000: ErrStiff part way, unless
// IgnoreStiffness), every 5th with a start at rest (a different first
// step).
func idxMu(i int) float64 {
	if i%7 == 3 {
		return 1000
	}
	return 0.3 + float64(i%11)/5
}

func idxY0(nsys int) []float64 {
	y0 := make([]float64, 2*nsys)
	for i := 0; i < nsys; i++ {
		y0[2*i], y0[2*i+1] = 2, float64(i%3)/4
		if i%5 == 4 {
			y0[2*i], y0[2*i+1] = 0, 0
		}
	}
	return y0
}

// checkAlone checks that system i of res (y0 its start) got exactly what
// SolveIVP gives it alone, over (t0, tf), and was evaluated as often
// (evals, unless nil): never after it stopped.
func checkAlone(t *testing.T, res *BatchResult, evals []int, i int, y0 []float64, t0, tf float64, opts *IVPOptions) {
	t.Helper()
	const dim = 2
	alone, errAlone := SolveIVP(vdpMu(idxMu(i)), t0, tf, y0, opts)
	if (res.Err[i] == nil) != (errAlone == nil) || errAlone != nil && !errors.Is(res.Err[i], errors.Unwrap(errAlone)) && !errors.Is(res.Err[i], errAlone) {
		t.Errorf("system %d: error %v, alone %v", i, res.Err[i], errAlone)
	}
	if res.Steps[i] != alone.Steps || res.Rejected[i] != alone.Rejected || res.Stiff[i] != alone.Stiff || res.Status[i] != alone.Status {
		t.Errorf("system %d: %d steps %d rejected stiff %v status %d, alone %d %d %v %d", i,
			res.Steps[i], res.Rejected[i], res.Stiff[i], res.Status[i], alone.Steps, alone.Rejected, alone.Stiff, alone.Status)
	}
	if evals != nil && evals[i] != alone.NFev {
		t.Errorf("system %d: %d evaluations, alone %d", i, evals[i], alone.NFev)
	}
	if res.TFinal[i] != alone.tEnd {
		t.Errorf("system %d stopped at %g, alone %g", i, res.TFinal[i], alone.tEnd)
	}
	for k := range res.T {
		for c := 0; c < dim; c++ {
			got := res.Y[k][i*dim+c]
			if opts.TEval == nil && k == 1 {
				// The final state, where the system stopped.
				if want := alone.Y[len(alone.Y)-1][c]; math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("system %d: final y[%d] = %.17g, alone %.17g", i, c, got, want)
				}
				continue
			}
			if k >= len(alone.Y) {
				if !math.IsNaN(got) {
					t.Errorf("system %d: y(%g)[%d] = %g after it stopped, want NaN", i, res.T[k], c, got)
				}
				continue
			}
			if want := alone.Y[k][c]; math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("system %d: y(%g)[%d] = %.17g, alone %.17g", i, res.T[k], c, got, want)
			}
		}
	}
}

// idxVdp is the indexed right-hand side of the idxMu systems; it checks
// its arguments and counts the evaluations of each system in evals.
func idxVdp(nsys int, evals []int) IndexedODEFunc {
	seen := make([]int, nsys)
	call := 0
	return func(idx []int, tv, y, dy []float64) {
		call++
		if len(tv) != len(idx) || len(y) != 2*len(idx) || len(dy) != len(y) || len(idx) == 0 {
			panic(fmt.Sprintf("shapes %d %d %d %d", len(idx), len(tv), len(y), len(dy)))
		}
		for k, i := range idx {
			if i < 0 || i >= nsys || seen[i] == call {
				panic(fmt.Sprintf("system %d twice or out of range", i))
			}
			seen[i] = call
			evals[i]++
			vdpMu(idxMu(i))(tv[k], y[2*k:2*k+2], dy[2*k:2*k+2])
		}
	}
}

// TestSolveIVPIndexed: at chunk sizes around the number of slots (none,
// one, a slot short, exact, one over, several), every system gets the bits
// SolveIVP gives it alone, failures (stiff systems) included, with and
// without TEval, forwards and backwards, and is evaluated as often as
// alone: f never sees a finished system.
func TestSolveIVPIndexed(t *testing.T) {
	defer func(f func(int) int) { indexedSlots = f }(indexedSlots)
	teval := []float64{0, 0.5, 1, 2.5, 4, 7.5, 10}
	back := []float64{0, -1.5, -3}
	for _, slots := range []int{1, 4, 5} {
		indexedSlots = func(int) int { return slots }
		for _, nsys := range []int{0, 1, slots - 1, slots, slots + 1, 3*slots + 2, 23} {
			for _, tc := range []struct {
				name string
				tf   float64
				opts *IVPOptions
			}{
				{"teval", 10, &IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9, TEval: teval}},
				{"final", 10, &IVPOptions{Method: RK45, RelTol: 1e-5, AbsTol: 1e-8, IgnoreStiffness: true, MaxSteps: 400}},
				{"backward", -3, &IVPOptions{Method: RK45, TEval: back, MaxStep: 0.5}},
				{"tiny", 1e-300, &IVPOptions{Method: RK45, FirstStep: 1e-320}},
			} {
				t.Run(fmt.Sprintf("slots%d/n%d/%s", slots, nsys, tc.name), func(t *testing.T) {
					y0 := idxY0(nsys)
					evals := make([]int, nsys)
					res, err := SolveIVPIndexed(idxVdp(nsys, evals), nsys, 2, 0, tc.tf, y0, tc.opts)
					failed := 0
					for i := 0; i < nsys; i++ {
						checkAlone(t, res, evals, i, y0[2*i:2*i+2], 0, tc.tf, tc.opts)
						if res.Err[i] != nil {
							failed++
						}
					}
					if (err != nil) != (failed > 0) {
						t.Errorf("error %v with %d systems failed", err, failed)
					}
					if len(res.Y) != len(res.T) || len(res.TFinal) != nsys {
						t.Errorf("%d outputs at %d times, %d systems", len(res.Y), len(res.T), len(res.TFinal))
					}
				})
			}
		}
	}
}

// TestSolveIVPIndexedCoroutines: a method other than RK45 runs the
// coroutine path with f called for all systems, idx 0 to nsys-1.
func TestSolveIVPIndexedCoroutines(t *testing.T) {
	const nsys = 3
	y0 := idxY0(nsys)
	opts := &IVPOptions{Method: Radau, RelTol: 1e-5}
	res, err := SolveIVPIndexed(func(idx []int, tv, y, dy []float64) {
		if len(idx) != nsys {
			panic("not all systems")
		}
		for k, i := range idx {
			if i != k {
				panic("idx is not 0, ..., nsys-1")
			}
			vdpMu(1+float64(i))(tv[k], y[2*k:2*k+2], dy[2*k:2*k+2])
		}
	}, nsys, 2, 0, 2, y0, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < nsys; i++ {
		alone, _ := SolveIVP(vdpMu(1+float64(i)), 0, 2, y0[2*i:2*i+2], opts)
		if res.Steps[i] != alone.Steps || res.Y[1][2*i] != alone.Y[len(alone.Y)-1][0] {
			t.Errorf("system %d: %d steps y %g, alone %d %g", i, res.Steps[i], res.Y[1][2*i], alone.Steps, alone.Y[len(alone.Y)-1][0])
		}
	}
}

// TestSolveIVPIndexedRanks: the systems split over the ranks in blocks
// (fewer systems than ranks, and counts that do not divide), each rank
// integrating its block with SolveIVPIndexed at the real chunk size: every
// system gets the bits it gets alone, so the same bits at every rank
// count; the sums over the ranks agree with one rank's sums of the alone
// results.
func TestSolveIVPIndexedRanks(t *testing.T) {
	comm := mpi.World()
	for _, nsys := range []int{2, 7, indexedSlots(2) + 3} {
		lo, hi := dist.NewLayout([]int{nsys}, 0, comm.Size()).Range(comm.Rank())
		all := idxY0(nsys)
		opts := &IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9, IgnoreStiffness: true}
		f := func(idx []int, tv, y, dy []float64) {
			for k, i := range idx {
				vdpMu(idxMu(lo+i))(tv[k], y[2*k:2*k+2], dy[2*k:2*k+2])
			}
		}
		res, err := SolveIVPIndexed(f, hi-lo, 2, 0, 3, all[2*lo:2*hi], opts)
		if err != nil {
			t.Fatal(err)
		}
		steps := 0.0
		for i := 0; i < hi-lo; i++ {
			alone, _ := SolveIVP(vdpMu(idxMu(lo+i)), 0, 3, all[2*(lo+i):2*(lo+i)+2], opts)
			last := alone.Y[len(alone.Y)-1]
			if res.Steps[i] != alone.Steps || math.Float64bits(res.Y[1][2*i]) != math.Float64bits(last[0]) ||
				math.Float64bits(res.Y[1][2*i+1]) != math.Float64bits(last[1]) {
				t.Errorf("rank %d, system %d: %d steps, y %v; alone %d, %v", comm.Rank(), lo+i, res.Steps[i], res.Y[1][2*i:2*i+2], alone.Steps, last)
			}
			steps += float64(res.Steps[i])
		}
		got := []float64{steps}
		if err := mpi.AllreduceInPlace(comm, got, mpi.Sum); err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for i := 0; i < nsys; i++ {
			alone, _ := SolveIVP(vdpMu(idxMu(i)), 0, 3, all[2*i:2*i+2], opts)
			want += float64(alone.Steps)
		}
		if got[0] != want {
			t.Errorf("nsys %d: %g steps over the ranks, %g alone", nsys, got[0], want)
		}
	}
}
