package main

import (
	"errors"
	"fmt"
	"path/filepath"
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
