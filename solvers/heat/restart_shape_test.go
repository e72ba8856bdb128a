package heat

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// A checkpoint that says heat2d with this n but whose field u has another
// shape is refused with both shapes, the checkpoint's and the run's, not
// with the block sizes of the run's layout.
func TestRestartWrongShape(t *testing.T) {
	world := mpitest.World(t)
	dir := filepath.Join(mpitest.TempDir(t, world), "ck")
	u, err := dist.Full(world, []int{5, 7}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	err = dist.SaveCheckpoint(world, dir, 2, map[string]string{"app": checkpointApp, "n": "9"}, dist.Entry("u", u))
	u.Free()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Solve(world, Config{N: 9, Iters: 5, Restart: dir})
	if err == nil || !strings.Contains(err.Error(), "has shape [5 7]") || !strings.Contains(err.Error(), "needs shape [") || strings.Contains(err.Error(), "block sizes") {
		t.Errorf("restart from a checkpoint whose u has shape [5 7]: %v", err)
	}
}
