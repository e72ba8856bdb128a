//go:build petsc

package petsc_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestBenchW4PETSc: in a -tags petsc build, xpmpi bench's W2 also times
// PETSc's VecDot over the same arrays, and W4 also solves the problem with
// PETSc's KSP over the Go shell operator, beside our code and the C
// reference; PETSc's dot, iterations and solution agree with the
// reference's. PETSc stays started: the tests' TestMain started it.
func TestBenchW4PETSc(t *testing.T) {
	c := mpitest.World(t)
	if os.Getenv("XPMPI_BENCH_REF") == "" {
		t.Skip("XPMPI_BENCH_REF is not set (scripts/test.sh builds the C reference and sets it)")
	}
	rep, err := bench.Run(c, bench.Options{Small: true, Reps: 2, Only: "W2,W4"})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range rep.Rows {
		if strings.Contains(r.Metric, "PETSc") {
			rows = append(rows, r.Workload+" "+r.Metric)
			if !r.ChecksumOK {
				t.Errorf("%s %s: checksums disagree", r.Workload, r.Metric)
			}
			if r.Reps != 2 {
				t.Errorf("%s %s: %d repetitions, want 2", r.Workload, r.Metric, r.Reps)
			}
		}
	}
	want := []string{
		"W2 dot + allreduce, PETSc VecDot",
		"W4 CG time, PETSc KSP + Go shell operator",
		"W4 CG iteration, PETSc KSP + Go shell operator",
		"W4 CG iterations, PETSc KSP",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("PETSc rows %q, want %q", rows, want)
	}
}
