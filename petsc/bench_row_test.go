//go:build petsc

package petsc_test

import (
	"os"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestBenchW4PETSc: in a -tags petsc build, xpmpi bench's W4 also solves
// the problem with PETSc's KSP over the Go shell operator, beside our CG
// and the C reference, and PETSc's iterations and solution agree with the
// reference's. PETSc stays started: the tests' TestMain started it.
func TestBenchW4PETSc(t *testing.T) {
	c := mpitest.World(t)
	if os.Getenv("XPMPI_BENCH_REF") == "" {
		t.Skip("XPMPI_BENCH_REF is not set (scripts/test.sh builds the C reference and sets it)")
	}
	rep, err := bench.Run(c, bench.Options{Small: true, Reps: 1, Only: "W4"})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range rep.Rows {
		if strings.Contains(r.Metric, "PETSc") {
			rows = append(rows, r.Metric)
			if !r.ChecksumOK {
				t.Errorf("%s: checksums disagree", r.Metric)
			}
		}
	}
	if len(rows) != 3 {
		t.Errorf("PETSc rows %q, want time, iteration and iterations", rows)
	}
}
