//go:build hdf5 && mpi && !mpich

package h5_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/solvers/heat"
)

// TestHeatRestartH5 saves heat2d's field as an HDF5 checkpoint (rows from
// all ranks, and a process grid from the first 3) and restarts it on 1, 2,
// 3 and 4 ranks (those the world has), on row blocks and on a process
// grid: every restart reaches the uninterrupted run's checksum exactly
// (dist.SumRepro does not depend on the rank count). Here in package h5,
// which the suite builds with -tags mpi,hdf5, rather than in solvers/heat.
func TestHeatRestartH5(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	base := mpitest.TempDir(t, c)
	const n, half, iters = 25, 30, 60
	full, err := heat.Solve(c, heat.Config{N: n, Iters: iters})
	if err != nil {
		t.Fatal(err)
	}
	for _, save := range []struct {
		name    string
		writers int
		grid    bool
	}{{"rows", p, false}, {"grid", min(3, p), true}} {
		dir := filepath.Join(base, save.name)
		w := firstRanks(t, c, save.writers)
		err = nil
		if w != nil {
			_, err = heat.Solve(w, heat.Config{N: n, Iters: half, Checkpoint: dir, CheckpointFormat: "h5", Grid: save.grid})
			w.Free()
		}
		mpitest.Check(t, c, err == nil, "saving from %d ranks: %v", save.writers, err)
		r, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			t.Fatal(err)
		}
		mpitest.Check(t, c, h5.IsCheckpoint(r.Manifest()) && r.Manifest().Step == half, "manifest %+v", r.Manifest())
		for np := 1; np <= min(4, p); np++ {
			for _, grid := range []bool{false, true} {
				sub := firstRanks(t, c, np)
				msg := ""
				if sub != nil {
					res, err := heat.Solve(sub, heat.Config{N: n, Iters: iters, Restart: dir, Grid: grid})
					if err != nil {
						msg = err.Error()
					} else if res.Checksum != full.Checksum {
						msg = fmt.Sprintf("checksum %.17g, uninterrupted %.17g", res.Checksum, full.Checksum)
					}
					sub.Free()
				}
				mpitest.Check(t, c, msg == "", "saved (%s) at %d ranks, restarted at %d (grid %v): %s", save.name, save.writers, np, grid, msg)
			}
		}
	}
	// Saving the restarted run in HDF5 again, into the checkpoint it
	// restarted from, at another rank count.
	dir := filepath.Join(base, "rows")
	sub := firstRanks(t, c, max(1, p-1))
	err = nil
	if sub != nil {
		_, err = heat.Solve(sub, heat.Config{N: n, Iters: 45, Restart: dir, Checkpoint: dir, CheckpointFormat: "h5"})
		sub.Free()
	}
	mpitest.Check(t, c, err == nil, "restart and save into the same directory: %v", err)
	res, err := heat.Solve(c, heat.Config{N: n, Iters: iters, Restart: dir})
	mpitest.Check(t, c, err == nil && res.Checksum == full.Checksum, "second restart: %v, %v", res.Checksum, err)
}
