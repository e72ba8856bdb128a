//go:build petsc

package petsc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// childEnv names what the test binary does when started by TestPanicAborts
// as a one-rank job of its own.
const childEnv = "XPMPI_PETSC_TEST_CHILD"

// childMain is the program of a child: petsc.Main, and a panic where the
// mode says.
func childMain(mode string) int {
	return Main([]string{"-xp_child_option 1"}, func(w mpi.Comm) error {
		switch mode {
		case "callback":
			l := dist.NewLayout([]int{4}, 0, w.Size())
			a, err := NewShell(w, l, func(x, y *dist.Array[float64]) error {
				panic("a Go panic inside a PETSc callback")
			})
			if err != nil {
				return err
			}
			x, y, err := a.CreateVecs()
			if err != nil {
				return err
			}
			return a.Mult(x, y)
		case "nil":
			var p *Vec
			_ = p.comm // a nil dereference: SIGSEGV, which Go (not PETSc) must handle
		case "ok":
			if _, set, _ := Option("-xp_child_option"); !set {
				return errors.New("the option of petsc.Main did not reach PETSc")
			}
			return nil
		}
		return errors.New("unknown child mode " + mode)
	})
}

// childEnviron is the environment without the variables of the launcher
// that started this rank, so that the child is a job of its own (MPI's
// singleton start) instead of a rank of this job.
func childEnviron(mode string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		launcher := false
		for _, p := range []string{"OMPI_", "PMIX_", "PMI_", "HYDI_", "MPI_LOCAL", "SLURM_", "PALS_", "ALPS_"} {
			launcher = launcher || strings.HasPrefix(name, p)
		}
		switch name {
		case "OMPI_MCA_btl_vader_single_copy_mechanism":
			launcher = false
		case "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM":
			launcher = true // set again below where needed
		}
		if !launcher {
			env = append(env, kv)
		}
	}
	if os.Geteuid() == 0 {
		// This job may run as root by mpirun's --allow-run-as-root, which
		// the child cannot inherit: without these, its singleton start
		// takes seconds longer.
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	return append(env, childEnv+"="+mode)
}

// A Go panic, inside a PETSc callback or from a nil dereference after
// PETSc started, ends the job with Go's message and stack (PETSc's signal
// handler is off), not with PETSc's abort; petsc.Main passes its options.
// Rank 0 runs each case as a child job of one rank.
func TestPanicAborts(t *testing.T) {
	c := mpitest.World(t)
	if testing.Short() {
		t.Skip("starts child jobs")
	}
	ok := true
	if c.Rank() == 0 {
		for _, tc := range []struct{ mode, want string }{
			{"callback", "a Go panic inside a PETSc callback"},
			{"nil", "nil pointer dereference"},
			{"ok", ""},
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = childEnviron(tc.mode)
			out, err := cmd.CombinedOutput()
			cancel()
			text := string(out)
			if tc.want == "" {
				if err != nil {
					t.Errorf("child %s: %v\n%s", tc.mode, err, text)
					ok = false
				}
				continue
			}
			if err == nil || !strings.Contains(text, "xpmpi: panic on rank 0 of 1") || !strings.Contains(text, tc.want) || !strings.Contains(text, "goroutine") {
				t.Errorf("child %s: %v; want a failure with Go's panic message %q and stack; output:\n%s", tc.mode, err, tc.want, text)
				ok = false
			} else if strings.Contains(text, "PETSC ERROR") {
				t.Errorf("child %s: PETSc handled the signal:\n%s", tc.mode, text)
				ok = false
			} else {
				t.Logf("child %s: %v, its first line: %s", tc.mode, err, strings.SplitN(text, "\n", 2)[0])
			}
		}
	}
	mpitest.Check(t, c, ok, "a child job did not end as it should")
}
