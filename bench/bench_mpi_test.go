//go:build mpi || petsc

package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestRunEndToEnd runs the bench at --small --reps 1 against the C
// reference library that $XPMPI_BENCH_REF names (scripts/bench.sh builds
// it), at the rank count of the test run.
func TestRunEndToEnd(t *testing.T) {
	world := mpitest.World(t)
	path := os.Getenv("XPMPI_BENCH_REF")
	if path == "" {
		t.Skip("XPMPI_BENCH_REF does not name the reference library (build it with: " + RefBuildCommand + ")")
	}
	rep, err := Run(world, Options{Small: true, Reps: 1, Threads: 1, Ref: path})
	if err != nil {
		t.Fatalf("rank %d: %v", world.Rank(), err)
	}
	// Every rank writes into its own directory.
	dir := t.TempDir()
	jsonPath, plotPath := filepath.Join(dir, "bench.json"), filepath.Join(dir, "bench.png")
	var out bytes.Buffer
	if err := rep.WriteText(&out, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(jsonPath); err != nil {
		t.Fatal(err)
	}
	if err := rep.WritePNG(plotPath); err != nil {
		t.Fatal(err)
	}
	if world.Rank() == 0 {
		t.Logf("\n%s", out.String())
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Workload] = true
		if !r.ChecksumOK || r.Ranks != world.Size() || r.Reps != 1 || r.XPMPI <= 0 || r.Reference <= 0 {
			t.Errorf("row %+v", r)
		}
	}
	want := []string{"W2", "W3", "W4", "W5", "W6"}
	if world.Size() == 1 {
		want = append(want, "W1")
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no %s row", w)
		}
	}
	if _, err := os.Stat(plotPath); err != nil {
		t.Error(err)
	}
	if !strings.Contains(out.String(), "W6 allreduce breakdown") {
		t.Errorf("no breakdown:\n%s", out.String())
	}
}

func TestRunRefMissing(t *testing.T) {
	world := mpitest.World(t)
	rep, err := Run(world, Options{Small: true, Reps: 1, Ref: filepath.Join(t.TempDir(), "nothing.so")})
	if err == nil || rep != nil || !strings.Contains(err.Error(), "scripts/bench.sh") {
		t.Fatalf("error %v", err)
	}
}

// BenchmarkAllreduce8B splits the cost of an 8-byte allreduce through the
// binding (run with XPMPI_CHECK=0, as the bench runs, and with
// XPMPI_BENCH_REF naming the reference library):
//
//	C:             a C loop of MPI_Allreduce (xpref_allreduce)
//	CgoCAllreduce: a Go loop calling C, which calls MPI_Allreduce once
//	CgoNoop:       a Go loop calling an empty C function
//	CommMethod:    world.Allreduce (checking wrapper, lock at SERIALIZED, binding)
//	Value:         mpi.AllreduceValue (the typed wrapper on top)
func BenchmarkAllreduce8B(b *testing.B) {
	world := mpitest.World(b)
	path := os.Getenv("XPMPI_BENCH_REF")
	if path == "" {
		b.Skip("XPMPI_BENCH_REF does not name the reference library")
	}
	ref, err := OpenReference(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("C", func(b *testing.B) {
		if _, err := ref.Call("xpref_allreduce", Params{Iters: int64(b.N)}); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("CgoCAllreduce", func(b *testing.B) {
		if _, err := ref.CallLoop("xpref_allreduce1", b.N); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("CgoNoop", func(b *testing.B) {
		if _, err := ref.CallLoop("xpref_noop", b.N); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("CommMethod", func(b *testing.B) {
		b.ReportAllocs()
		one, out := 1.0, 0.0
		for i := 0; i < b.N; i++ {
			if err := world.Allreduce(unsafe.Pointer(&one), unsafe.Pointer(&out), 1, mpi.Float64, mpi.Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Value", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := mpi.AllreduceValue(world, 1.0, mpi.Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
}
