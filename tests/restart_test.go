//go:build mpi

package tests

import (
	"path/filepath"
	"testing"
	"time"
)

// TestHeat2DRestartAtAnotherRankCount stops heat2d at 3 ranks after a
// checkpoint and finishes it at 2 and at 4: the checksum is the one of an
// uninterrupted run at the same rank count, to the last digit (the field is
// the same bit for bit; only the order of the final sum depends on the rank
// count).
func TestHeat2DRestartAtAnotherRankCount(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	dir := filepath.Join(t.TempDir(), "ck")
	args := []string{"run", "heat2d", "--n", "61", "--quiet"}
	part := launch(t, 2*time.Minute, 3, bin, append(args, "--iters", "25", "--checkpoint", dir, "--every", "10")...)
	if part.code != 0 {
		part.fail(t, "heat2d with checkpoints at 3 ranks")
		return
	}
	for _, np := range []int{2, 4} {
		full := launch(t, 2*time.Minute, np, bin, append(args, "--iters", "40")...)
		want := checksum(t, full, "uninterrupted")
		r := launch(t, 2*time.Minute, np, bin, append(args, "--iters", "40", "--restart", dir)...)
		if got := checksum(t, r, "restarted"); got != want {
			r.fail(t, "restarted at %d ranks: checksum %v, uninterrupted %v", np, got, want)
		}
	}
}

func checksum(t *testing.T, r result, what string) string {
	t.Helper()
	m := checksumLine.FindAllStringSubmatch(r.stdout, -1)
	if r.code != 0 || len(m) != 1 {
		r.fail(t, "%s: no checksum", what)
		return ""
	}
	return m[0][1]
}
