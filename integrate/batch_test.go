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

// TestSolveIVPBatchCoroutines: Radau, Auto and events in a batch give every
// system exactly what SolveIVP gives it alone, with one call of f per
// round: as many calls as the system that needs the most evaluations.
func TestSolveIVPBatchCoroutines(t *testing.T) {
	scales := []float64{1, 0.5, 2, 10, 0.1, 1}
	robF := func(k float64) Func {
		return func(t float64, y, dy []float64) {
			a, b, c := y[0], y[1], y[2]
			dy[0] = -0.04*k*a + 1e4*b*c
			dy[1] = 0.04*k*a - 1e4*b*c - 3e7*b*b
			dy[2] = 3e7 * b * b
		}
	}
	vdpB := func(s int) Func { return vdpMu([]float64{1, 10, 100, 1000, 5, 300}[s]) }
	heights := []float64{10, 1, 50, 0.5, 20, 5}
	ballB := func(s int) Func { return ballF }
	ground := []Event{{F: func(t float64, y []float64) float64 { return y[0] }, Terminal: true, Direction: -1}}
	tests := []struct {
		name   string
		sys    func(s int) Func
		dim    int
		t1     float64
		y0     func(s int) []float64
		opts   *IVPOptions
		status int
	}{
		{"robertson/Radau", func(s int) Func { return robF(scales[s]) }, 3, 1e3,
			func(int) []float64 { return []float64{1, 0, 0} },
			&IVPOptions{Method: Radau, RelTol: 1e-6, AbsTols: []float64{1e-8, 1e-12, 1e-8}, TEval: []float64{0, 1, 10, 100, 1e3}}, 0},
		{"vdp/Auto", vdpB, 2, 100, func(int) []float64 { return []float64{2, 0} }, &IVPOptions{}, 0},
		{"ball/events", ballB, 2, 10, func(s int) []float64 { return []float64{heights[s], 0} },
			&IVPOptions{Method: RK45, Events: ground}, 1},
	}
	const ns = 6
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var y0 []float64
			for s := 0; s < ns; s++ {
				y0 = append(y0, tc.y0(s)...)
			}
			dim := tc.dim
			res, err := SolveIVPBatch(func(tv, y, dy []float64) {
				for s := 0; s < ns; s++ {
					tc.sys(s)(tv[s], y[s*dim:(s+1)*dim], dy[s*dim:(s+1)*dim])
				}
			}, ns, dim, 0, tc.t1, y0, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			maxEvals := 0
			for s := 0; s < ns; s++ {
				alone, err := SolveIVP(tc.sys(s), 0, tc.t1, tc.y0(s), tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				got := res.Systems[s]
				if got.Steps != alone.Steps || got.NFev != alone.NFev || len(got.Switches) != len(alone.Switches) || res.Status[s] != tc.status {
					t.Errorf("system %d: %d steps %d evaluations %v switches (status %d), alone %d %d %v", s, got.Steps, got.NFev, got.Switches, res.Status[s], alone.Steps, alone.NFev, alone.Switches)
				}
				for k := range alone.Y {
					for i := range alone.Y[k] {
						if got.Y[k][i] != alone.Y[k][i] {
							t.Fatalf("system %d: y(%g)[%d] = %.17g, alone %.17g", s, alone.T[k], i, got.Y[k][i], alone.Y[k][i])
						}
					}
				}
				if tc.opts.TEval != nil {
					for k := range alone.Y {
						for i := range alone.Y[k] {
							if res.Y[k][s*dim+i] != alone.Y[k][i] {
								t.Fatalf("system %d: the batch's Y[%d] differs", s, k)
							}
						}
					}
				}
				if tc.opts.Events != nil {
					want := math.Sqrt(2 * heights[s] / 9.81)
					if math.Abs(res.TFinal[s]-want) > 1e-9 || math.Abs(got.TEvents[0][0]-want) > 1e-9 {
						t.Errorf("system %d stopped at %g, event at %v, want %g", s, res.TFinal[s], got.TEvents, want)
					}
				}
				maxEvals = max(maxEvals, alone.NFev)
			}
			if res.Calls != maxEvals {
				t.Errorf("%d calls of f, want %d", res.Calls, maxEvals)
			}
			t.Logf("%d calls of f for %d systems", res.Calls, ns)
		})
	}
}

// TestSolveIVPBatchPanics: a Jacobian (per system) and bad shapes panic.
func TestSolveIVPBatchPanics(t *testing.T) {
	f := func(tv, y, dy []float64) {}
	for name, call := range inKeyOrder(map[string]func(){
		"jac":    func() { SolveIVPBatch(f, 1, 2, 0, 1, []float64{1, 0}, &IVPOptions{Jac: vdpJ}) },
		"shape":  func() { SolveIVPBatch(f, 2, 2, 0, 1, []float64{1, 0}, nil) },
		"bounds": func() { SolveIVPBatch(f, 1, 2, 0, math.NaN(), []float64{1, 0}, &IVPOptions{Method: RK45}) },
		// A panic in a system's coroutine reaches the caller.
		"coroutine": func() { SolveIVPBatch(f, 3, 2, 0, math.NaN(), make([]float64, 6), nil) },
	}) {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 10 || s[:10] != "integrate:" {
					t.Errorf("panic %v", r)
				}
			}()
			call()
		})
	}
}
