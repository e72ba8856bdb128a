//go:build mpi

package tests

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// cgRun is what `xpmpi run cg --json` prints that must not change with
// the rank count.
type cgRun struct {
	Iters     int     `json:"iterations"`
	RelRes    float64 `json:"relative_residual"`
	Checksum  float64 `json:"checksum"`
	Converged bool    `json:"converged"`
	Ranks     int     `json:"ranks"`
}

// TestCGReproducibleRanksAgree: `xpmpi run cg --reproducible` prints the
// same iteration count, residual and checksum, to the bit, at 1, 2, 3 and
// 4 ranks of Open MPI (1 thread at 1 and 3 ranks, 2 at 2 and 4), with
// --fused too (ignored with it) and at 2 ranks of MPICH
// (XPMPI_MPICH_BIN), on a grid of 61 rows that divides evenly over none of
// 2, 3 and 4 ranks. JSON prints a float64 in the fewest digits that give
// its bits back.
func TestCGReproducibleRanksAgree(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	parse := func(t *testing.T, r result, what string) (cgRun, bool) {
		var got cgRun
		if r.code != 0 {
			r.fail(t, "%s failed", what)
			return got, false
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || !got.Converged || got.Iters == 0 {
			r.fail(t, "%s printed %+v (%v)", what, got, err)
			return got, false
		}
		return got, true
	}
	args := []string{"run", "cg", "--n", "61", "--reproducible", "--json"}
	var ref cgRun
	haveRef := false
	check := func(t *testing.T, r result, what string, np int) {
		t.Helper()
		got, ok := parse(t, r, what)
		if !ok {
			return
		}
		if got.Ranks != np {
			r.fail(t, "%s: ranks %d, want %d", what, got.Ranks, np)
		}
		t.Logf("%s: %d iterations, residual %v, checksum %v", what, got.Iters, got.RelRes, got.Checksum)
		if !haveRef {
			ref, haveRef = got, true
			return
		}
		if got.Iters != ref.Iters || got.RelRes != ref.RelRes || got.Checksum != ref.Checksum {
			r.fail(t, "%s: %d iterations, residual %v, checksum %v; first run %d, %v, %v", what, got.Iters, got.RelRes, got.Checksum, ref.Iters, ref.RelRes, ref.Checksum)
		}
	}
	launcher, flags := mpirun(t)
	for np := 1; np <= 4; np++ {
		threads := 2 - np%2
		all := append(append(slices.Clone(flags), "-x", fmt.Sprintf("XPMPI_THREADS=%d", threads), "-np", fmt.Sprint(np), bin), args...)
		check(t, run(t, 2*time.Minute, launcher, all...), fmt.Sprintf("%s at %d ranks, %d threads", strings.Join(args, " "), np, threads), np)
	}
	// --fused is ignored with --reproducible: the same bits.
	all := append(append(slices.Clone(flags), "-np", "3", bin), append(args, "--fused")...)
	check(t, run(t, 2*time.Minute, launcher, all...), strings.Join(args, " ")+" --fused at 3 ranks", 3)
	t.Run("mpich", func(t *testing.T) {
		mbin := binary(t, "XPMPI_MPICH_BIN")
		all := append([]string{"-np", "2", mbin}, args...)
		check(t, run(t, 2*time.Minute, mpichRun(t), all...), strings.Join(args, " ")+" at 2 ranks of MPICH", 2)
	})
}
