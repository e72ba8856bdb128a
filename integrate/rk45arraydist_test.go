package integrate

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// blockCounts are uneven block sizes of n systems over p ranks: 1, 4,
// 7, ... systems, the rest on the last rank (so empty blocks where n is
// small).
func blockCounts(n, p int) []int {
	counts := make([]int, p)
	left := n
	for r := range counts {
		counts[r] = min(left, 1+3*r)
		left -= counts[r]
	}
	counts[p-1] += left
	return counts
}

// TestSolveIVPBatchDist integrates oscProblem's systems split over the
// ranks in uneven blocks (empty ones, fewer systems than ranks), on the
// CPU backend and the fake device, and compares every rank's systems with
// SolveIVPBatch of the whole batch, bit for bit: the same at every rank
// count.
func TestSolveIVPBatchDist(t *testing.T) {
	world := mpitest.World(t)
	p := world.Size()
	opts := &IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9}
	for _, be := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, n := range []int{0, 2, 47} {
			t.Run(fmt.Sprintf("%v/n=%d", be.Device(), n), func(t *testing.T) {
				y0, a, b, c := oscProblem(n, 0)
				hf, _, free := oscFuncs(t, backend.Current(), a, b, c)
				free()
				want, werr := SolveIVPBatch(hf, n, 2, 0, 3, y0, opts)
				ys, err := dist.FromFunc(world, []int{n, 2}, func(idx []int) float64 { return y0[2*idx[0]+idx[1]] },
					dist.OnBackend(be), dist.BlockSizes(blockCounts(n, p)))
				if err != nil {
					t.Fatal(err)
				}
				defer ys.Free()
				start, shape := ys.Layout().Block(world.Rank())
				lo, nl := start[0], shape[0]
				_, df, free := oscFuncs(t, be, a[lo:lo+nl], b[lo:lo+nl], c[lo:lo+nl])
				defer free()
				res, err := SolveIVPBatchDist(df, 0, 3, ys, opts)
				if res == nil {
					t.Fatalf("no result: %v", err)
				}
				defer res.Free()
				mpitest.Check(t, world, (err == nil) == (werr == nil), "error %v, host batch %v", err, werr)
				failed := 0
				for _, e := range want.Err {
					if e != nil {
						failed++
					}
				}
				mpitest.Check(t, world, res.NumFailed == failed && res.Lo == lo, "%d failed (host batch %d), lo %d (%d)", res.NumFailed, failed, res.Lo, lo)
				if n > 24 {
					mpitest.Check(t, world, errors.Is(err, ErrStepTooSmall) && errors.Is(err, ErrStiff) && errors.Is(err, ErrNonFiniteState),
						"error %v", err)
				}
				got := &ArrayBatchResult{TFinal: res.TFinal, Steps: res.Steps, Rejected: res.Rejected, Status: res.Status, Stiff: res.Stiff, Err: res.Err}
				err = sameBatch(want, lo, 2, hostCopy(t, res.Y.Local()), got)
				mpitest.Check(t, world, err == nil, "rank %d: %v", world.Rank(), err)
			})
		}
	}
}
