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
