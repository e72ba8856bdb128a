//go:build mpi

package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// result is how one command ended.
type result struct {
	stdout   string
	combined string // stdout and stderr as they came
	code     int    // exit code; -1 if killed or not started
	elapsed  time.Duration
	timedOut bool
}

// lockedBuffer lets stdout and stderr write into one buffer.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// run runs name with args, stopping it after timeout.
func run(t *testing.T, timeout time.Duration, name string, args ...string) result {
	t.Helper()
	return runEnv(t, timeout, nil, name, args...)
}

// runEnv is run with extra environment variables (NAME=value) for the
// command, which a parallel test cannot set with t.Setenv.
func runEnv(t *testing.T, timeout time.Duration, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(),
		"OMPI_MCA_rmaps_base_oversubscribe=1",
		"OMPI_MCA_btl_vader_single_copy_mechanism=none",
	)
	cmd.Env = append(cmd.Env, env...)
	// mpirun ends its ranks on SIGTERM (they are not in its process group);
	// if it has not exited 5 s later, it is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stdout bytes.Buffer
	var combined lockedBuffer
	cmd.Stdout = io.MultiWriter(&stdout, &combined)
	cmd.Stderr = &combined
	t.Logf("$ %s %s", name, strings.Join(args, " "))
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), combined: combined.String(), elapsed: time.Since(start)}
	r.timedOut = ctx.Err() != nil
	var exit *exec.ExitError
	switch {
	case err == nil:
		r.code = 0
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		r.code = -1
		r.combined += "\n(run: " + err.Error() + ")"
	}
	return r
}

// fail prints the command's whole output and fails the test.
func (r result) fail(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Errorf("%s\nexit code %d after %v (timed out: %v); output:\n%s",
		fmt.Sprintf(format, args...), r.code, r.elapsed.Round(time.Millisecond), r.timedOut, r.combined)
}

// mpirun returns Open MPI's launcher and the flags every job gets, or skips.
func mpirun(t *testing.T) (string, []string) {
	t.Helper()
	path := os.Getenv("XPMPI_MPIRUN")
	if path == "" {
		for _, name := range []string{"mpirun.openmpi", "mpirun"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		t.Skip("no mpirun (set XPMPI_MPIRUN, or install openmpi-bin: scripts/setup.sh)")
	}
	flags := []string{"--oversubscribe"}
	if os.Geteuid() == 0 {
		flags = append(flags, "--allow-run-as-root")
	}
	return path, flags
}

// launch runs bin with args under mpirun -np np.
func launch(t *testing.T, timeout time.Duration, np int, bin string, args ...string) result {
	t.Helper()
	launcher, flags := mpirun(t)
	all := append(append(flags, "-np", strconv.Itoa(np), bin), args...)
	return run(t, timeout, launcher, all...)
}

// binary returns the path in the environment variable env, or skips.
func binary(t *testing.T, env string) string {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Skipf("%s is not set: scripts/test.sh builds the binaries and sets it", env)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s=%s: %v", env, path, err)
	}
	return path
}

func TestInfoJSON(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	for np := 1; np <= 4; np++ {
		t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
			r := launch(t, 60*time.Second, np, bin, "info", "--json")
			if r.code != 0 {
				r.fail(t, "xpmpi info --json at %d ranks failed", np)
				return
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal([]byte(r.stdout), &top); err != nil {
				r.fail(t, "standard output is not one JSON document: %v", err)
				return
			}
			for _, key := range []string{"mpi", "cuda_aware", "cuda_aware_source", "ranks"} {
				if _, ok := top[key]; !ok {
					r.fail(t, "no %q at the top level", key)
				}
			}
			var mpiName string
			if err := json.Unmarshal(top["mpi"], &mpiName); err != nil || mpiName == "" || strings.Contains(mpiName, "serial") {
				r.fail(t, "mpi is %s: want the MPI library's name", top["mpi"])
			}
			var ranks []struct {
				Rank      *int `json:"rank"`
				Size      *int `json:"size"`
				LocalRank *int `json:"local_rank"`
			}
			if err := json.Unmarshal(top["ranks"], &ranks); err != nil {
				r.fail(t, "ranks: %v", err)
				return
			}
			if len(ranks) != np {
				r.fail(t, "%d objects under ranks, want %d", len(ranks), np)
				return
			}
			for i, rk := range ranks {
				if rk.Rank == nil || rk.Size == nil || rk.LocalRank == nil {
					r.fail(t, "ranks[%d] lacks rank, size or local_rank", i)
					continue
				}
				if *rk.Rank != i || *rk.Size != np {
					r.fail(t, "ranks[%d]: rank %d of %d, want %d of %d", i, *rk.Rank, *rk.Size, i, np)
				}
				// One node: the local rank is the rank.
				if *rk.LocalRank != i {
					r.fail(t, "ranks[%d]: local_rank %d, want %d", i, *rk.LocalRank, i)
				}
			}
		})
	}
}

func TestDefaultBuildRefusesLauncher(t *testing.T) {
	bin := binary(t, "XPMPI_NOMPI_BIN")
	r := launch(t, 30*time.Second, 2, bin, "info")
	if r.code == 0 {
		r.fail(t, "the build without MPI ran under mpirun -np 2 and exited 0")
	}
	if r.elapsed > 10*time.Second {
		r.fail(t, "the build without MPI took %v to stop under mpirun -np 2, want under 10s", r.elapsed)
	}
	if !strings.Contains(r.combined, "-tags mpi") {
		r.fail(t, "the output does not say to rebuild with -tags mpi")
	}
	if strings.Contains(r.stdout, "RANK") {
		r.fail(t, "a rank ran the info command")
	}
}

func TestPanicOnOneRankAbortsJob(t *testing.T) {
	mpirun(t) // skip early without a launcher
	bin := filepath.Join(t.TempDir(), "panicker")
	build := run(t, 5*time.Minute, goTool(t), "build", "-tags", "mpi", "-o", bin, "./testdata/panicker")
	if build.code != 0 {
		build.fail(t, "building testdata/panicker failed")
		return
	}
	r := launch(t, 60*time.Second, 3, bin)
	if r.code == 0 {
		r.fail(t, "the job exited 0 after a panic on rank 1")
	}
	if r.elapsed >= 10*time.Second {
		r.fail(t, "the job took %v to end after a panic on rank 1, want under 10s", r.elapsed)
	}
	for _, want := range []string{"panic on rank 1", "deliberate panic on rank 1"} {
		if !strings.Contains(r.combined, want) {
			r.fail(t, "the output lacks %q", want)
		}
	}
	if strings.Contains(r.combined, "allreduce gave") {
		r.fail(t, "a rank went past the collective that rank 1 never joined")
	}
}

var checksumLine = regexp.MustCompile(`(?m)^checksum\s+(\S+)\s*$`)

func TestHeat2DRanksAgree(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	probe := run(t, 60*time.Second, bin, "run", "heat2d", "--help")
	if probe.code != 0 || !strings.Contains(probe.combined, "heat2d") ||
		!strings.Contains(probe.combined, "--iters") {
		t.Skipf("xpmpi run heat2d is not available yet:\n%s", probe.combined)
	}
	var ref float64
	haveRef := false
	for np := 1; np <= 4; np++ {
		r := launch(t, 2*time.Minute, np, bin, "run", "heat2d", "--n", "67", "--iters", "30")
		if r.code != 0 {
			r.fail(t, "heat2d at %d ranks failed", np)
			continue
		}
		m := checksumLine.FindAllStringSubmatch(r.stdout, -1)
		if len(m) != 1 {
			r.fail(t, "heat2d at %d ranks printed %d checksum lines, want 1", np, len(m))
			continue
		}
		v, err := strconv.ParseFloat(m[0][1], 64)
		if err != nil {
			r.fail(t, "heat2d at %d ranks: checksum %q: %v", np, m[0][1], err)
			continue
		}
		t.Logf("np %d: checksum %v", np, v)
		if !haveRef {
			ref, haveRef = v, true
			continue
		}
		if d := math.Abs(v - ref); d > 1e-12*math.Max(math.Abs(ref), math.Abs(v)) {
			r.fail(t, "heat2d at %d ranks: checksum %v, at fewer ranks %v (relative difference %.3g)", np, v, ref, d/math.Abs(ref))
		}
	}
}
