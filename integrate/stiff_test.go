package integrate

import (
	"errors"
	"math"
	"testing"
)

// TestStiffDetection: on Van der Pol with mu = 1000 and on Robertson's
// kinetics, RK45 says the problem is stiff (ErrStiff, Stiff set) after few
// steps, and Auto switches to Radau and finishes with a step count
// comparable to SciPy's Radau (287 and 201 steps).
func TestStiffDetection(t *testing.T) {
	refs := loadODECases(t)
	tests := []struct {
		name   string
		f      Func
		jac    JacFunc
		ref    string
		t1     float64
		y0     []float64
		rtol   float64
		atol   []float64
		maxRK  int // most RK45 steps before the test fires
		expect []float64
	}{
		{"vdp1000", vdpF, nil, "vdp1000-radau", 3000, []float64{2, 0}, 1e-3, []float64{1e-6, 1e-6}, 2000, nil},
		{"robertson", roberF, roberJ, "rober-radau", 1e5, []float64{1, 0, 0}, 1e-6, []float64{1e-8, 1e-12, 1e-8}, 2000, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/RK45", func(t *testing.T) {
			r, err := SolveIVP(tc.f, 0, tc.t1, tc.y0, &IVPOptions{Method: RK45, RelTol: tc.rtol, AbsTols: tc.atol})
			if !errors.Is(err, ErrStiff) || !r.Stiff || r.Status != -1 {
				t.Fatalf("err %v, stiff %v, status %d", err, r.Stiff, r.Status)
			}
			if r.Steps > tc.maxRK {
				t.Errorf("stiffness found after %d steps", r.Steps)
			}
			t.Logf("RK45 stopped at t=%g after %d steps: %v", r.StiffAt, r.Steps, err)
		})
		t.Run(tc.name+"/Auto", func(t *testing.T) {
			r, err := SolveIVP(tc.f, 0, tc.t1, tc.y0, &IVPOptions{RelTol: tc.rtol, AbsTols: tc.atol, Jac: tc.jac})
			if err != nil {
				t.Fatal(err)
			}
			ref := refs[tc.ref]
			if len(r.Switches) == 0 || r.Switches[0].To != Radau || !r.Stiff {
				t.Errorf("method %v, switches %v", r.Method, r.Switches)
			}
			if r.Steps > 2*ref.Steps+tc.maxRK {
				t.Errorf("%d steps, SciPy's Radau %d", r.Steps, ref.Steps)
			}
			yl := r.Y[len(r.Y)-1]
			for i := range yl {
				if math.Abs(yl[i]-ref.YLast[i]) > 1e-2*math.Abs(ref.YLast[i])+10*tc.atol[i] {
					t.Errorf("y[%d] = %g, SciPy %g", i, yl[i], ref.YLast[i])
				}
			}
			t.Logf("switches %v; %d steps (SciPy Radau %d), nfev %d", r.Switches, r.Steps, ref.Steps, r.NFev)
		})
	}
}

// TestAutoNonStiff: Auto stays explicit on a non-stiff problem.
func TestAutoNonStiff(t *testing.T) {
	r, err := SolveIVP(oscF, 0, 20, []float64{1, 0}, &IVPOptions{RelTol: 1e-8, AbsTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != RK45 || r.Stiff || r.Switches != nil {
		t.Errorf("method %v stiff %v", r.Method, r.Stiff)
	}
}

// TestClosedForms: exponential decay and the harmonic oscillator over 100
// periods, with the energy drift bounded by the tolerance.
func TestClosedForms(t *testing.T) {
	for _, m := range []Method{RK45, Radau} {
		t.Run("decay/"+m.String(), func(t *testing.T) {
			y0 := []float64{1, -2, 3}
			r, err := SolveIVP(decayF, 0, 5, y0, &IVPOptions{Method: m, RelTol: 1e-9, AbsTol: 1e-12, TEval: []float64{0, 1, 2.5, 5}})
			if err != nil {
				t.Fatal(err)
			}
			for k, tk := range r.T {
				for i := range y0 {
					want := y0[i] * math.Exp(-0.5*tk)
					if math.Abs(r.Y[k][i]-want) > 1e-7*math.Abs(want) {
						t.Errorf("y(%g)[%d] = %.15g, want %.15g", tk, i, r.Y[k][i], want)
					}
				}
			}
		})
	}
	t.Run("oscillator", func(t *testing.T) {
		periods := 100.0
		tf := periods * 2 * math.Pi
		r, err := SolveIVP(oscF, 0, tf, []float64{1, 0}, &IVPOptions{Method: RK45, RelTol: 1e-10, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		maxDrift := 0.0
		for _, y := range r.Y {
			maxDrift = math.Max(maxDrift, math.Abs(y[0]*y[0]+y[1]*y[1]-1))
		}
		if maxDrift > 1e-6 {
			t.Errorf("energy drift %g over %g periods", maxDrift, periods)
		}
		yl := r.Y[len(r.Y)-1]
		if math.Abs(yl[0]-1) > 1e-6 || math.Abs(yl[1]) > 1e-6 {
			t.Errorf("y(%g) = %v, want [1 0]", tf, yl)
		}
		t.Logf("%d steps, energy drift %.3g", r.Steps, maxDrift)
	})
}

// TestEvents: a terminal event with a direction stops at the closed-form
// time; recorded events find every zero crossing of cos(t).
func TestEvents(t *testing.T) {
	r, err := SolveIVP(ballF, 0, 10, []float64{10, 0}, &IVPOptions{
		Events: []Event{{F: func(t float64, y []float64) float64 { return y[0] }, Terminal: true, Direction: -1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := math.Sqrt(20 / 9.81)
	if r.Status != 1 || len(r.TEvents[0]) != 1 || math.Abs(r.TEvents[0][0]-want) > 1e-9 {
		t.Fatalf("status %d, events %v, want %g", r.Status, r.TEvents, want)
	}
	if last := r.T[len(r.T)-1]; last != r.TEvents[0][0] || math.Abs(r.Y[len(r.Y)-1][0]) > 1e-9 {
		t.Errorf("the solution ends at t=%g y=%v", last, r.Y[len(r.Y)-1])
	}
	// Rising and falling zeros of y0 = cos(t) separately.
	r, err = SolveIVP(oscF, 0, 10, []float64{1, 0}, &IVPOptions{RelTol: 1e-10, AbsTol: 1e-12,
		Events: []Event{
			{F: func(t float64, y []float64) float64 { return y[0] }, Direction: 1},
			{F: func(t float64, y []float64) float64 { return y[0] }, Direction: -1},
		}})
	if err != nil {
		t.Fatal(err)
	}
	wantUp := []float64{3 * math.Pi / 2}
	wantDown := []float64{math.Pi / 2, 5 * math.Pi / 2}
	for i, want := range [][]float64{wantUp, wantDown} {
		if len(r.TEvents[i]) != len(want) {
			t.Fatalf("event %d at %v, want %v", i, r.TEvents[i], want)
		}
		for k := range want {
			if math.Abs(r.TEvents[i][k]-want[k]) > 1e-8 {
				t.Errorf("event %d at %v, want %v", i, r.TEvents[i], want)
			}
			if math.Abs(r.YEvents[i][k][0]) > 1e-8 {
				t.Errorf("y at the event: %v", r.YEvents[i][k])
			}
		}
	}
}

// TestSolveIVPFailures: too small steps, MaxSteps, and caller errors.
func TestSolveIVPFailures(t *testing.T) {
	// y' = y^2 blows up at t = 1.
	_, err := SolveIVP(func(t float64, y, dy []float64) { dy[0] = y[0] * y[0] }, 0, 2, []float64{1}, nil)
	if !errors.Is(err, ErrStepTooSmall) && !errors.Is(err, ErrNonFiniteState) {
		t.Errorf("blow-up: %v", err)
	}
	r, err := SolveIVP(oscF, 0, 100, []float64{1, 0}, &IVPOptions{MaxSteps: 5})
	if !errors.Is(err, ErrMaxSteps) || r.Steps != 5 || r.Status != -1 {
		t.Errorf("MaxSteps: %v after %d steps", err, r.Steps)
	}
	for name, f := range inKeyOrder(map[string]func(){
		"atols":  func() { SolveIVP(oscF, 0, 1, []float64{1, 0}, &IVPOptions{AbsTols: []float64{1}}) },
		"teval":  func() { SolveIVP(oscF, 0, 1, []float64{1, 0}, &IVPOptions{TEval: []float64{2}}) },
		"order":  func() { SolveIVP(oscF, 0, 1, []float64{1, 0}, &IVPOptions{TEval: []float64{0.5, 0.2}}) },
		"method": func() { SolveIVP(oscF, 0, 1, []float64{1, 0}, &IVPOptions{Method: 9}) },
		"inf":    func() { SolveIVP(oscF, 0, math.Inf(1), []float64{1, 0}, nil) },
	}) {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 10 || s[:10] != "integrate:" {
					t.Errorf("panic %v", r)
				}
			}()
			f()
		})
	}
}

// TestAutoSwitchesBack: y' = -lambda(t) (y - cos t) - sin t has the
// solution cos t from y(0) = 1; with lambda(t) = 1e4 exp(-t) it is stiff at
// first and not after t of about 8: Auto goes to Radau and comes back to
// RK45, as LSODA does.
func TestAutoSwitchesBack(t *testing.T) {
	f := func(t float64, y, dy []float64) {
		dy[0] = -1e4*math.Exp(-t)*(y[0]-math.Cos(t)) - math.Sin(t)
	}
	r, err := SolveIVP(f, 0, 30, []float64{1}, &IVPOptions{RelTol: 1e-6, AbsTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Switches) < 2 || r.Switches[0].To != Radau || r.Switches[len(r.Switches)-1].To != RK45 || r.Method != RK45 {
		t.Fatalf("switches %v, final method %v", r.Switches, r.Method)
	}
	last := r.Switches[len(r.Switches)-1].T
	if last < 5 || last > 20 {
		t.Errorf("back to RK45 at t=%g", last)
	}
	for k, tk := range r.T {
		if d := math.Abs(r.Y[k][0] - math.Cos(tk)); d > 1e-4 {
			t.Fatalf("y(%g) = %g, cos %g", tk, r.Y[k][0], math.Cos(tk))
		}
	}
	t.Logf("switches %v, %d steps, %d evaluations", r.Switches, r.Steps, r.NFev)
}
