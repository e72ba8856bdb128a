package integrate

import (
	"math"
	"testing"
)

// TestDenseSolution: Sol agrees with the steps' own dense output (TEval)
// and with the closed form, for each method, forward and backward.
func TestDenseSolution(t *testing.T) {
	for _, m := range []Method{RK45, Radau} {
		for _, back := range []bool{false, true} {
			t0, t1 := 0.0, 10.0
			if back {
				t0, t1 = 10, 0
			}
			teval := []float64{t0, 0.7*t0 + 0.3*t1, 0.5*t0 + 0.5*t1, t1}
			name := m.String()
			if back {
				name += "/backward"
			}
			t.Run(name, func(t *testing.T) {
				y0 := []float64{math.Cos(t0), -math.Sin(t0)}
				r, err := SolveIVP(oscF, t0, t1, y0, &IVPOptions{Method: m, RelTol: 1e-9, AbsTol: 1e-12, Dense: true, TEval: teval})
				if err != nil {
					t.Fatal(err)
				}
				if a, b := r.Sol.Span(); a != t0 || b != t1 {
					t.Errorf("span %g %g", a, b)
				}
				for k, tk := range r.T {
					y := r.Sol.At(tk, nil)
					for i := range y {
						if math.Abs(y[i]-r.Y[k][i]) > 1e-14 {
							t.Errorf("Sol(%g) = %v, TEval gave %v", tk, y, r.Y[k])
						}
					}
				}
				for tt := 0.0; tt <= 10; tt += 0.37 {
					y := r.Sol.At(tt, nil)
					if math.Abs(y[0]-math.Cos(tt)) > 1e-6 {
						t.Errorf("Sol(%g) = %g, cos %g", tt, y[0], math.Cos(tt))
					}
				}
			})
		}
	}
}
