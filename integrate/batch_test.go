package integrate

import (
	"errors"
	"math"
	"testing"
)

// vdpMu is Van der Pol's right-hand side for one mu.
func vdpMu(mu float64) Func {
	return func(t float64, y, dy []float64) {
		dy[0] = y[1]
		dy[1] = mu*(1-y[0]*y[0])*y[1] - y[0]
	}
}

// TestSolveIVPBatch: every system of a batch takes exactly the steps and
// gets exactly the results SolveIVP gets for it alone, with its own step
// size; the stiff one stops with ErrStiff without stopping the others.
func TestSolveIVPBatch(t *testing.T) {
	mus := []float64{0.5, 1, 2, 5, 10, 1000, 3, 0.1}
	const dim = 2
	ns := len(mus)
	y0 := make([]float64, ns*dim)
	for s := range mus {
		y0[s*dim], y0[s*dim+1] = 2, float64(s)/10
	}
	teval := []float64{0, 0.5, 1, 2.5, 4, 7.5, 10}
	opts := &IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9, TEval: teval}
	f := func(tv, y, dy []float64) {
		if len(tv) != ns || len(y) != ns*dim {
			panic("wrong shapes")
		}
		for s, mu := range mus {
			vdpMu(mu)(tv[s], y[s*dim:(s+1)*dim], dy[s*dim:(s+1)*dim])
		}
	}
	res, err := SolveIVPBatch(f, ns, dim, 0, 10, y0, opts)
	if !errors.Is(err, ErrStiff) {
		t.Errorf("error %v, want the stiff system's ErrStiff", err)
	}
	maxSteps := 0
	for s, mu := range mus {
		alone, errAlone := SolveIVP(vdpMu(mu), 0, 10, y0[s*dim:(s+1)*dim], opts)
		if !errors.Is(res.Err[s], errAlone) && (res.Err[s] == nil) != (errAlone == nil) {
			t.Errorf("system %d: error %v, alone %v", s, res.Err[s], errAlone)
		}
		if res.Steps[s] != alone.Steps || res.Rejected[s] != alone.Rejected || res.Stiff[s] != alone.Stiff {
			t.Errorf("system %d (mu %g): %d steps %d rejected, alone %d %d", s, mu, res.Steps[s], res.Rejected[s], alone.Steps, alone.Rejected)
		}
		for k := range alone.T {
			for i := 0; i < dim; i++ {
				if got, want := res.Y[k][s*dim+i], alone.Y[k][i]; got != want {
					t.Errorf("system %d: y(%g)[%d] = %.17g, alone %.17g", s, alone.T[k], i, got, want)
				}
			}
		}
		if errAlone == nil && res.TFinal[s] != 10 {
			t.Errorf("system %d stopped at %g", s, res.TFinal[s])
		}
		maxSteps = max(maxSteps, res.Steps[s]+res.Rejected[s])
	}
	// One initial call, one for the initial step, 6 per round.
	if want := 2 + 6*maxSteps; res.Calls != want {
		t.Errorf("%d calls, want %d", res.Calls, want)
	}
	if !res.Stiff[5] || res.Status[5] != -1 || res.Status[0] != 0 {
		t.Errorf("stiff %v status %v", res.Stiff, res.Status)
	}
}

// TestSolveIVPBatchDecay: many decays without TEval: the final states.
func TestSolveIVPBatchDecay(t *testing.T) {
	const ns = 100
	y0 := make([]float64, ns)
	for i := range y0 {
		y0[i] = 1
	}
	res, err := SolveIVPBatch(func(tv, y, dy []float64) {
		for s := range y {
			dy[s] = -float64(s%10+1) * 0.1 * y[s]
		}
	}, ns, 1, 0, 3, y0, &IVPOptions{RelTol: 1e-8, AbsTol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < ns; s++ {
		want := math.Exp(-float64(s%10+1) * 0.1 * 3)
		if math.Abs(res.Y[1][s]-want) > 1e-6*want {
			t.Errorf("system %d: %g, want %g", s, res.Y[1][s], want)
		}
	}
}
