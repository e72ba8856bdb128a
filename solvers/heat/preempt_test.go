package heat

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/solvers"
)

// TestStoppable: a stop requested on the last rank (as a signal to that
// rank would) stops every rank after the next iteration with a checkpoint
// at that step, and a restart from it ends with the uninterrupted checksum;
// a row-block and a process-grid run, and N smaller than the ranks.
func TestStoppable(t *testing.T) {
	world := mpitest.World(t)
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"row blocks", Config{N: 17, Iters: 30}},
		{"grid", Config{N: 13, Iters: 30, Grid: true}},
		{"n below ranks", Config{N: 2, Iters: 9}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(mpitest.TempDir(t, world), "ck")
			cfg := c.cfg
			cfg.Checkpoint, cfg.Stoppable = dir, true
			if world.Rank() == world.Size()-1 {
				mpi.RequestStop("test")
			}
			_, err := Solve(world, cfg)
			var se *mpi.StopError
			if !errors.As(err, &se) || !errors.Is(err, mpi.ErrStopped) || se.Step != 1 || se.Checkpoint != dir {
				t.Fatalf("Solve with a stop pending: %v; want a *mpi.StopError at step 1 in %s", err, dir)
			}
			if p, _ := mpi.StopPending(); !p && world.Rank() == world.Size()-1 {
				t.Fatal("the stop is no longer pending on the rank that asked")
			}
			clearPending(world)
			cfg.Restart = dir
			got, err := Solve(world, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Solve(world, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Checksum != want.Checksum {
				t.Fatalf("restarted after the stop: checksum %.17g, uninterrupted %.17g", got.Checksum, want.Checksum)
			}
		})
	}
	var ce *solvers.ConfigError
	if err := (Config{N: 4, Iters: 1, Stoppable: true}).Check(); !errors.As(err, &ce) || ce.Field != "Stoppable" {
		t.Fatalf("Stoppable without Checkpoint: %v", err)
	}
}

// clearPending ends the stop the test asked for, on every rank.
func clearPending(world mpi.Comm) {
	mpi.ClearStopForTest()
	world.Barrier()
}
