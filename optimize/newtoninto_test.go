package optimize

import (
	"errors"
	"math"
	"testing"
)

// TestNewtonInto solves a sequence of Kepler batches of varying sizes and
// methods into one result: each solve matches SciPy's roots at its sampled
// orbits and gives what Newton gives (roots and residuals bit for bit,
// masks, steps, counts), nothing of the previous solve remains, the slices
// are reused when they have the room, and a repeated solve of one size
// allocates nothing.
func TestNewtonInto(t *testing.T) {
	serialOnly(t)
	_, refs := loadNewtonRef(t)
	roots := map[string]keplerRef{}
	for _, r := range refs {
		roots[r.Method] = r
	}
	m, e := kepler(5000)
	var res NewtonResult
	steps := []struct {
		method string
		n      int
	}{
		{"newton", 5000}, {"newton", 10}, {"secant", 2500}, {"halley", 3000}, {"newton", 0},
		{"newton", 4999}, {"secant", 5000}, {"newton", 1},
	}
	for _, s := range steps {
		f, fp, fpp := keplerFuncs(m, e, 0)
		o := &NewtonOptions{}
		switch s.method {
		case "secant":
			fp = nil
		case "halley":
			o.FPrime2 = fpp
		}
		before := &res.Root
		var old *float64
		if cap(*before) >= s.n && s.n > 0 {
			old = &(*before)[:1][0]
		}
		if err := NewtonInto(&res, f, fp, m[:s.n], o); err != nil {
			t.Fatalf("%s n=%d: %v", s.method, s.n, err)
		}
		want, err := Newton(f, fp, m[:s.n], o)
		if err != nil {
			t.Fatal(err)
		}
		if old != nil && &res.Root[0] != old {
			t.Errorf("%s n=%d: the roots were not reused", s.method, s.n)
		}
		if len(res.Root) != s.n || len(res.Converged) != s.n || len(res.ZeroDer) != s.n || len(res.Iterations) != s.n || len(res.Residual) != s.n {
			t.Fatalf("%s n=%d: lengths %d %d %d %d %d", s.method, s.n, len(res.Root), len(res.Converged), len(res.ZeroDer), len(res.Iterations), len(res.Residual))
		}
		ref := roots[s.method]
		for k, i := range ref.Idx {
			if i < s.n && math.Abs(res.Root[i]-ref.Root[k]) > 1e-12 {
				t.Errorf("%s n=%d: orbit %d: E = %.17g, SciPy %.17g", s.method, s.n, i, res.Root[i], ref.Root[k])
			}
		}
		for i := range s.n {
			if res.Root[i] != want.Root[i] || res.Residual[i] != want.Residual[i] || res.Iterations[i] != want.Iterations[i] ||
				res.Converged[i] != want.Converged[i] || res.ZeroDer[i] != want.ZeroDer[i] {
				t.Fatalf("%s n=%d: orbit %d: %v %v %d, Newton %v %v %d", s.method, s.n, i, res.Root[i], res.Residual[i], res.Iterations[i], want.Root[i], want.Residual[i], want.Iterations[i])
			}
		}
		if res.NumConverged != s.n || res.NumZeroDer != 0 || res.NumFailed != 0 || res.Calls != want.Calls || res.Evals != want.Evals || res.Method != s.method {
			t.Errorf("%s n=%d: counts %d %d %d, %d calls, %d evals, %q; Newton %d calls, %d evals",
				s.method, s.n, res.NumConverged, res.NumZeroDer, res.NumFailed, res.Calls, res.Evals, res.Method, want.Calls, want.Evals)
		}
	}
	// Failures are counted afresh: one iteration is not enough.
	f, fp, _ := keplerFuncs(m, e, 0)
	err := NewtonInto(&res, f, fp, m[1:100], &NewtonOptions{MaxIter: 1})
	if !errors.Is(err, ErrNoConvergence) || res.NumFailed+res.NumConverged != 99 || res.NumFailed == 0 {
		t.Errorf("MaxIter 1: %v, %d converged, %d failed", err, res.NumConverged, res.NumFailed)
	}
	// No allocation once the result has the room.
	if a := testing.AllocsPerRun(5, func() { NewtonInto(&res, f, fp, m, nil) }); a != 0 {
		t.Errorf("NewtonInto allocated %v times per solve into a result with room", a)
	}
}

func TestNewtonIntoPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("NewtonInto a nil result did not panic")
		}
	}()
	f, fp, _ := keplerFuncs([]float64{1}, []float64{0.5}, 0)
	NewtonInto(nil, f, fp, []float64{1}, nil)
}
