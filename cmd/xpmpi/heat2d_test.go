package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestSolverErrorsNameFlags: the solvers' errors about their Config fields
// reach the user as errors about the flags, and keep what they wrap. Tests
// of the solvers themselves are in solvers/heat and solvers/cg.
func TestSolverErrorsNameFlags(t *testing.T) {
	world := mpitest.World(t)
	ck := filepath.Join(t.TempDir(), "ck")
	for _, c := range []struct {
		args []string
		want string // the whole message, or its start where it ends with "..."
		is   error  // what it wraps, if anything
	}{
		{[]string{"heat2d", "--n", "0"}, "heat2d: --n 0: want at least 1", nil},
		{[]string{"heat2d", "--iters", "-1"}, "heat2d: --iters -1: want 0 or more", nil},
		{[]string{"heat2d", "--every", "2"}, "heat2d: --every 2 without --checkpoint: say where to save", nil},
		{[]string{"heat2d", "--every", "-2", "--checkpoint", ck}, "heat2d: --every -2: want a positive number of iterations", nil},
		{[]string{"heat2d", "--n", "4294967294"}, "heat2d: --n 4294967294: dist: shape [4294967294 4294967296] has more than ...", dist.ErrTooLarge},
		{[]string{"heat2d", "--n", "9223372036854775807"}, "heat2d: --n 9223372036854775807: too large: n+2 columns overflow an int", dist.ErrTooLarge},
		// 3 x 10^6 x 10^6 float64 is 24 TB: no node has it.
		{[]string{"heat2d", "--n", "1000000"}, fmt.Sprintf("heat2d: --n 1000000 on %d ranks: it needs ...", world.Size()), dist.ErrTooLarge},
		// The same path on every rank: opening a checkpoint is collective.
		{[]string{"heat2d", "--n", "8", "--restart", "/no/such/ck"}, "heat2d: --restart /no/such/ck: ...", dist.ErrNoCheckpoint},
		{[]string{"cg", "--n", "0"}, "cg: --n 0: want at least 1", nil},
		{[]string{"cg", "--n", "2147483648"}, "cg: --n 2147483648: too large (n*n unknowns)", dist.ErrTooLarge},
		{[]string{"cg", "--n", "8", "--tol", "-1"}, "cg: --tol -1: want 0 or more", nil},
		{[]string{"cg", "--n", "8", "--tol", "NaN"}, "cg: --tol NaN: want 0 or more", nil},
		{[]string{"cg", "--n", "8", "--maxiter", "-1"}, "cg: --maxiter -1: want 0 (n*n) or more", nil},
	} {
		what := strings.Join(c.args, " ")
		_, _, err := execute(t, append([]string{"run", c.args[0], "--quiet"}, c.args[1:]...)...)
		if err == nil {
			t.Errorf("%s: no error", what)
			continue
		}
		if prefix, ok := strings.CutSuffix(c.want, "..."); ok {
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("%s: %q, want %q", what, err, c.want)
			}
		} else if err.Error() != c.want {
			t.Errorf("%s: %q, want %q", what, err, c.want)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: %q does not wrap %v", what, err, c.is)
		}
	}
}

func TestHeatMemoryHint(t *testing.T) {
	world := mpitest.World(t)
	_, _, err := execute(t, "run", "heat2d", "--n", "1000000", "--quiet")
	oneLine(t, "--n 1000000", err, "per rank", "available (", "fits")
	var me *dist.MemoryError
	if !errors.As(err, &me) || me.Need <= 0 {
		t.Errorf("--n 1000000 on %d ranks: %v is not a *dist.MemoryError", world.Size(), err)
	}
}

// TestHeatGridFlags: --grid (with or without --dims) gives the row blocks'
// checksum, also through a checkpoint saved on the grid and restarted on
// row blocks, and the flags that do not go with it are refused, naming
// them.
func TestHeatGridFlags(t *testing.T) {
	world := mpitest.World(t)
	p := world.Size()
	checksum := func(args ...string) float64 {
		t.Helper()
		out, _, err := execute(t, append([]string{"run", "heat2d", "--n", "17", "--iters", "30", "--quiet", "--json"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if world.Rank() != 0 {
			return 0
		}
		var rep heatReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %q: %v", args, out, err)
		}
		if rep.Grid != slices.Contains(args, "--grid") {
			t.Errorf("%v: grid %v in the report", args, rep.Grid)
		}
		return rep.Sum
	}
	want := checksum()
	for _, args := range [][]string{{"--grid"}, {"--grid", "--dims", fmt.Sprintf("1,%d", p)}, {"--grid", "--dims", "0,1"}} {
		if got := checksum(args...); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%v: checksum %.17g, row blocks %.17g", args, got, want)
		}
	}
	// A checkpoint saved on the grid restarts on row blocks.
	ck := filepath.Join(mpitest.TempDir(t, world), "ck")
	for _, args := range [][]string{{"--grid", "--checkpoint", ck}, {"--restart", ck}} {
		if got := checksum(args...); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%v: checksum %.17g, row blocks %.17g", args, got, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dims", "1,1"}, "heat2d: --dims [1 1] without --grid: a process grid's dimensions go with it"},
		{[]string{"--grid", "--dims", "1,2,3"}, "heat2d: --dims [1 2 3]: want two numbers"},
		{[]string{"--grid", "--dims", "-1,0"}, "heat2d: --dims [-1 0]: want 0 (chosen)"},
		{[]string{"--grid", "--dims", fmt.Sprintf("%d,2", p)}, fmt.Sprintf("heat2d: --dims [%d 2] on %d ranks: no process grid", p, p)},
	} {
		_, _, err := execute(t, append([]string{"run", "heat2d", "--n", "8", "--quiet"}, c.args...)...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q...", c.args, err, c.want)
		}
	}
}
