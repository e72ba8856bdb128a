package serialloop

import "testing"

func TestCGSolves(t *testing.T) {
	for _, n := range []int{1, 4, 17} {
		k, rel, _, x := CG(n, 1e-10, n*n)
		if rel > 1e-10 || TrueResidual(n, x) > 1e-9 {
			t.Fatalf("n=%d: %d iterations, recursive residual %g, true residual %g", n, k, rel, TrueResidual(n, x))
		}
	}
	// A = 4 for one unknown: x = 1/4 in one step.
	if k, _, sum, _ := CG(1, 1e-12, 10); k != 1 || sum != 0.25 {
		t.Fatalf("n=1: %d iterations, x = %g", k, sum)
	}
}

func TestHeat(t *testing.T) {
	// One iteration of n = 1: the one point averages the top edge (1) and
	// three zeros.
	if s := Heat(1, 1); s != 0.25 {
		t.Fatalf("n=1, one iteration: sum %g, want 0.25", s)
	}
	if s := Heat(5, 0); s != 0 {
		t.Fatalf("no iteration: sum %g, want 0", s)
	}
}
