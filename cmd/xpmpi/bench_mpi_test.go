//go:build mpi || petsc

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestBenchEndToEnd runs `xpmpi bench --small --reps 1 --json --plot`
// against the C reference library that $XPMPI_BENCH_REF names
// (scripts/bench.sh builds it), at the rank count of the test run: rank 0
// prints the table and writes the files, the other ranks print nothing.
func TestBenchEndToEnd(t *testing.T) {
	world := mpitest.World(t)
	path := os.Getenv("XPMPI_BENCH_REF")
	if path == "" {
		t.Skip("XPMPI_BENCH_REF does not name the reference library (build it with: " + bench.RefBuildCommand + ")")
	}
	// Every rank gets its own directory; rank 0's files are checked.
	dir := t.TempDir()
	o := benchFlags{Small: true, Reps: 1, Threads: 1, Ref: path, Quiet: true,
		JSON: filepath.Join(dir, "bench.json"), Plot: filepath.Join(dir, "bench.png")}
	var out bytes.Buffer
	if err := runBenchCmd(world, o, &out); err != nil {
		t.Fatalf("rank %d: %v\n%s", world.Rank(), err, out.String())
	}
	if world.Rank() != 0 {
		if out.Len() != 0 {
			t.Fatalf("rank %d printed:\n%s", world.Rank(), out.String())
		}
		return
	}
	t.Logf("\n%s", out.String())
	for _, w := range []string{"xpmpi bench: ", "workload  ranks  backend", "checksums (first repetition):", "W6 allreduce breakdown", "wrote " + o.JSON, "wrote " + o.Plot} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q", w)
		}
	}
	data, err := os.ReadFile(o.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var rows []bench.Row
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) == 0 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	if _, err := os.Stat(o.Plot); err != nil {
		t.Error(err)
	}
}

func TestBenchRefMissing(t *testing.T) {
	world := mpitest.World(t)
	o := benchFlags{Small: true, Reps: 1, Ref: filepath.Join(t.TempDir(), "nothing.so"), Quiet: true}
	var out bytes.Buffer
	err := runBenchCmd(world, o, &out)
	if err == nil || !strings.Contains(err.Error(), "scripts/bench.sh") {
		t.Fatalf("error %v", err)
	}
	if out.Len() != 0 {
		t.Fatalf("printed %q", out.String())
	}
}

// TestBenchCheckThenWrite runs `xpmpi bench --small --only W6 --reps 3
// --check F --write-baseline F` with one file F whose W6 allreduce row says
// the ratio was 0.01: the run must be judged against that old row (slower,
// failing and naming W6, or too noisy to judge) and then replace it with
// its own ratio.
func TestBenchCheckThenWrite(t *testing.T) {
	world := mpitest.World(t)
	path := os.Getenv("XPMPI_BENCH_REF")
	if path == "" {
		t.Skip("XPMPI_BENCH_REF does not name the reference library (build it with: " + bench.RefBuildCommand + ")")
	}
	file := filepath.Join(t.TempDir(), "baseline.json")
	old := bench.BaselineEntry{Workload: "W6", Metric: "allreduce 8 B", Ranks: world.Size(), Small: true,
		Ratio: 0.01, Noise: 0, Reps: 3, Commit: "test", Date: "test", Machine: bench.MachineName()}
	if err := bench.WriteBaseline(file, []bench.BaselineEntry{old}); err != nil {
		t.Fatal(err)
	}
	if err := world.Barrier(); err != nil { // every rank sees the file before rank 0 rewrites it
		t.Fatal(err)
	}
	o := benchFlags{Small: true, Only: "W6", Reps: 3, Threads: 1, Ref: path, Quiet: true, Check: file, Baseline: file}
	var out bytes.Buffer
	err := runBenchCmd(world, o, &out)
	if world.Rank() != 0 {
		return
	}
	// The verdict line compares with the old row's 0.010: "slower", or
	// "noisy" where this run's repetitions are too spread to judge (then
	// the run passes).
	var verdict string
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[0] == "W6" && strings.Contains(line, "allreduce 8 B") && strings.Contains(line, "0.010") {
			verdict = line
		}
	}
	switch {
	case verdict == "":
		t.Fatalf("no W6 verdict against the old row (0.010):\n%s", out.String())
	case strings.Contains(verdict, "slower"):
		if err == nil || !strings.Contains(err.Error(), "W6") {
			t.Fatalf("W6 judged slower, but the run's error is %v", err)
		}
	case !strings.Contains(verdict, "noisy"):
		t.Fatalf("W6 against a ratio of 0.010 judged neither slower nor noisy: %q", verdict)
	}
	if !strings.Contains(out.String(), "add runs of this code with --add-baseline-run "+file) {
		t.Errorf("--write-baseline did not say that its rows have one run:\n%s", out.String())
	}
	base, rerr := bench.ReadBaseline(file)
	if rerr != nil {
		t.Fatal(rerr)
	}
	found := false
	for _, e := range base.Entries {
		if e.Workload == "W6" && e.Metric == "allreduce 8 B" && e.Ranks == world.Size() && e.Small {
			found = true
			if e.Ratio == old.Ratio || e.Commit == old.Commit {
				t.Errorf("the row was not replaced: %+v", e)
			}
		}
	}
	if !found {
		t.Errorf("no W6 allreduce row in %s after the run", file)
	}
}
