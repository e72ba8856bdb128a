package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/solvers/cg"
	"github.com/xpmpi/xpmpi/solvers/heat"
)

// peerPython returns a python3 that imports mpi4py and NumPy, or "".
func peerPython() string {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import mpi4py.MPI, numpy").Run() == nil {
			return p
		}
	}
	return ""
}

// smallChecks are the checks of xpmpi's side of W2-W6 at --small, run here
// on the one-rank stand-in communicator with the bench's own code (W2 and
// W6 are exact at any rank count, W3-W5 equal within the bench's
// tolerances), for a report of ranks ranks.
func smallChecks(t *testing.T, ranks int) []Check {
	t.Helper()
	world := mpitest.World(t)
	e := newBenchEnv(world, nil, Options{Small: true, Reps: 1, Threads: 1})
	s := e.sizes
	check := func(w, what string, v, tol float64) Check {
		return Check{Workload: w, What: what, XPMPI: v, Ref: v, OK: true, Tol: tol}
	}
	dot, err := e.dot(s.DotN, s.Dots, nil)
	if err != nil {
		t.Fatal(err)
	}
	jac, err := heat.Solve(world, heat.Config{N: s.JacobiN, Iters: s.JacobiIters})
	if err != nil {
		t.Fatal(err)
	}
	cgr, err := cg.Solve(world, cg.Config{N: s.CGN, Tol: s.CGTol})
	if err != nil || !cgr.Converged {
		t.Fatalf("cg: %+v, %v", cgr, err)
	}
	srt, err := e.sort(s.SortN)
	if err != nil || !srt.OK {
		t.Fatalf("sort: %+v, %v", srt, err)
	}
	buf := 0.0
	for i := range s.PingBytes / 8 {
		buf += float64(i % 1000)
	}
	// W11's checksums, as benchOrder computed them.
	if _, err := e.benchOrder(); err != nil {
		t.Fatal(err)
	}
	var w11 []Check
	for _, c := range e.checks {
		if c.Workload == "W11" {
			w11 = append(w11, check("W11", c.What, c.XPMPI, tolSum))
		}
	}
	if len(w11) != 2 {
		t.Fatalf("W11 made %d checks, want 2", len(w11))
	}
	// The tolerances of workloads.go's compareChecksums calls.
	return append([]Check{
		check("W2", "dot", dot.Checksum, 0),
		check("W3", "sum of u", jac.Checksum, tolSum),
		check("W4", "iterations", float64(cgr.Iters), 0),
		check("W4", "sum of x", cgr.Checksum, tolSum),
		check("W5", "weighted sum of the sorted keys", srt.Checksum, tolSum),
		check("W6", "sum of the allreduce results", float64(s.AllreduceCalls*ranks), 0),
		check("W6", "ping-pong buffer sum", buf, 0),
	}, w11...)
}

// TestPeerProgramsSmall builds bench/ref/w6.c as scripts/bench.sh does,
// runs it and bench/peers/mpi4py_w2_w5.py at --small under Open MPI's
// mpirun at 1 and 2 ranks, and checks that their checksums agree with
// xpmpi's side of the bench, through AddPeers as `xpmpi bench --peers`
// does. It skips where mpicc, mpirun or mpi4py is missing, in -short, and
// in the mpi build (whose tests run under mpirun already).
func TestPeerProgramsSmall(t *testing.T) {
	if mpi.Built {
		t.Skip("runs in the default build: it starts its own MPI jobs")
	}
	if testing.Short() {
		t.Skip("starts MPI jobs of C and Python (about a minute)")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("no mpirun")
	}
	mpicc, err := exec.LookPath("mpicc")
	if err != nil {
		t.Skip("no mpicc")
	}
	py := peerPython()
	dir := t.TempDir()
	w6 := filepath.Join(dir, "xpmpi-w6")
	if out, err := exec.Command(mpicc, "-O3", "-march=native", "-o", w6, "ref/w6.c").CombinedOutput(); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	run := func(np int, prog ...string) []Peer {
		t.Helper()
		args := append([]string{"--oversubscribe", "-np", fmt.Sprint(np)}, prog...)
		cmd := exec.Command(mpirun, append(args, "--small", "--reps", "2")...)
		cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1",
			"OMPI_MCA_rmaps_base_oversubscribe=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none")
		if os.Getuid() == 0 {
			cmd.Env = append(cmd.Env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
		}
		peers, err := ReadPeers(&stdout)
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stdout.String())
		}
		return peers
	}
	for _, np := range []int{1, 2} {
		peers := run(np, w6)
		if py != "" {
			peers = append(peers, run(np, py, "peers/mpi4py_w2_w5.py")...)
		}
		if err := CheckPeers(peers, np, true); err != nil {
			t.Fatal(err)
		}
		r := &Report{Ranks: np, Reps: 1, Checks: smallChecks(t, np)}
		// One row per figure, so that every figure and checksum is placed.
		for _, p := range peers {
			for _, f := range p.Figures {
				r.Rows = append(r.Rows, Row{Workload: f.Workload, Ranks: np, Unit: f.Unit, ChecksumOK: true})
			}
		}
		if err := r.AddPeers(peers); err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		if err := r.WriteText(&text, false); err != nil {
			t.Fatal(err)
		}
		if err := r.Err(); err != nil {
			t.Errorf("%d ranks: %v\n%s", np, err, text.String())
		}
		// Every checksum of every peer was compared: C alone's allreduce
		// sum, mpi4py's W2, W3, W4 (two), W5, allreduce and W11 (two)
		// sums, and at 2 ranks each one's ping-pong sum.
		compared := len(r.Checks) - 9
		want := 1
		if np > 1 {
			want++
		}
		if py != "" {
			want += 8
			if np > 1 {
				want++
			}
		}
		if compared != want {
			t.Errorf("%d ranks: %d checksums compared, want %d:\n%s", np, compared, want, text.String())
		}
		t.Logf("%d ranks:\n%s", np, text.String())
	}
	if py == "" {
		t.Log("mpi4py is not installed (python3-mpi4py): only the C program ran")
	}
}
