package integrate

import (
	_ "embed"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

// The reference values are embedded, so that the test binary runs from any
// directory (mpirun starts it where it was launched).
var (
	//go:embed testdata/quad_ref.json
	quadRefJSON []byte
	//go:embed testdata/ode_ref.json
	odeRefJSON []byte
)

// quadFuncs are the integrands of testdata/gen_quad.py, by name.
var quadFuncs = map[string]func(float64) float64{
	"exp":        math.Exp,
	"cubic":      func(x float64) float64 { return x*x*x - 2*x + 1 },
	"cos100":     func(x float64) float64 { return math.Cos(100 * x) },
	"sin30exp":   func(x float64) float64 { return math.Sin(30*x) * math.Exp(-x) },
	"invsqrt":    func(x float64) float64 { return 1 / math.Sqrt(x) },
	"log":        math.Log,
	"logsin":     func(x float64) float64 { return math.Log(x) * math.Sin(x) },
	"gauss":      func(x float64) float64 { return math.Exp(-x * x) },
	"lorentz":    func(x float64) float64 { return 1 / (1 + x*x) },
	"expx":       math.Exp,
	"sq":         func(x float64) float64 { return x * x },
	"inv":        func(x float64) float64 { return 1 / x },
	"sininv":     func(x float64) float64 { return math.Sin(1 / x) },
	"x09":        func(x float64) float64 { return math.Pow(x, -0.9) },
	"besselish":  func(x float64) float64 { return math.Cos(x) / math.Sqrt(x) },
	"invsqrtabs": func(x float64) float64 { return 1 / math.Sqrt(math.Abs(x-0.3)) },
	"logabs":     func(x float64) float64 { return math.Log(math.Abs(x - 0.5)) },
	"steps":      func(x float64) float64 { return math.Floor(3 * x) },
	"kink":       func(x float64) float64 { return math.Abs(x-0.7) * math.Exp(x) },
}

type quadCase struct {
	Name           string
	F              string
	A, B           any
	Epsabs, Epsrel float64
	Limit          int
	Value, Abserr  float64
	Neval, Last    int
	Ier            int
	Points         []float64
}

func (c quadCase) bounds() (float64, float64) {
	conv := func(v any) float64 {
		switch v := v.(type) {
		case float64:
			return v
		case string:
			if v == "inf" {
				return math.Inf(1)
			}
			return math.Inf(-1)
		}
		panic("bad bound")
	}
	return conv(c.A), conv(c.B)
}

func loadQuadCases(t *testing.T) []quadCase {
	t.Helper()
	b := quadRefJSON
	var ref struct {
		Scipy string
		Cases []quadCase
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Cases
}

// TestQuadMatchesSciPy compares Quad with scipy.integrate.quad 1.10 on
// smooth, oscillatory, endpoint-singular, infinite and failing integrals:
// the same value (to 1e-13), error estimate (to 1e-5, or its order of
// magnitude where it is at roundoff level), evaluation count, subintervals
// and ier.
func TestQuadMatchesSciPy(t *testing.T) {
	for _, c := range loadQuadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			a, b := c.bounds()
			r, err := Quad(quadFuncs[c.F], a, b, &QuadOptions{AbsTol: c.Epsabs, RelTol: c.Epsrel, Limit: c.Limit, Points: c.Points})
			if r.Ier != c.Ier || noFusedMultiplyAdd && (r.Evals != c.Neval || r.Intervals != c.Last) {
				t.Errorf("ier %d evals %d intervals %d, SciPy %d %d %d", r.Ier, r.Evals, r.Intervals, c.Ier, c.Neval, c.Last)
			}
			if (err != nil) != (c.Ier != 0) || !errors.Is(err, ierErr(c.Ier)) {
				t.Errorf("error %v for ier %d", err, c.Ier)
			}
			if d := math.Abs(r.Value - c.Value); d > 1e-13*math.Max(1, math.Abs(c.Value)) {
				t.Errorf("value %.17g, SciPy %.17g (diff %g)", r.Value, c.Value, d)
			}
			// An error estimate near roundoff level is a difference of nearly
			// equal numbers, which differs with the order of the operations.
			relTol := 1e-5
			if c.Abserr < 1e-10*math.Abs(c.Value) {
				relTol = 20
			}
			if d := math.Abs(r.AbsErr - c.Abserr); d > relTol*c.Abserr {
				t.Errorf("abserr %.17g, SciPy %.17g", r.AbsErr, c.Abserr)
			}
		})
	}
}

// TestQuadClosedForms checks the requested tolerance against exact values.
func TestQuadClosedForms(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name  string
		f     func(float64) float64
		a, b  float64
		exact float64
		tol   float64
	}{
		{"exp", math.Exp, 0, 1, math.E - 1, 1e-12},
		{"1/sqrt(x)", func(x float64) float64 { return 1 / math.Sqrt(x) }, 0, 1, 2, 1e-10},
		{"log(x)", math.Log, 0, 1, -1, 1e-10},
		{"gauss", func(x float64) float64 { return math.Exp(-x * x) }, -inf, inf, math.Sqrt(math.Pi), 1e-10},
		{"1/(1+x^2)", func(x float64) float64 { return 1 / (1 + x*x) }, 0, inf, math.Pi / 2, 1e-10},
		{"exp(x) lower", math.Exp, -inf, 0, 1, 1e-10},
		{"sin(50x)^2", func(x float64) float64 { s := math.Sin(50 * x); return s * s }, 0, math.Pi, math.Pi / 2, 1e-10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Quad(tc.f, tc.a, tc.b, &QuadOptions{AbsTol: tc.tol, RelTol: tc.tol})
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(r.Value - tc.exact); d > tc.tol*math.Max(1, math.Abs(tc.exact)) || d > 10*r.AbsErr+1e-15 {
				t.Errorf("value %.17g, exact %.17g, error %g, estimate %g", r.Value, tc.exact, d, r.AbsErr)
			}
		})
	}
}

// TestQuadEmpty: empty intervals give 0 (a finite one with QUADPACK's one
// rule application, one at infinity without evaluations).
func TestQuadEmpty(t *testing.T) {
	inf := math.Inf(1)
	for _, x := range []float64{0, 2.5, inf, -inf} {
		calls := 0
		r, err := Quad(func(float64) float64 { calls++; return 1 }, x, x, nil)
		if err != nil || r.Value != 0 || r.Evals != calls {
			t.Errorf("[%g, %g]: %+v, %v, %d calls", x, x, r, err, calls)
		}
	}
	res, err := QuadBatch(func(p []int, x, y []float64) {
		for i := range y {
			y[i] = 1
		}
	}, []float64{inf, 0}, []float64{inf, 1}, nil)
	if err != nil || res[0].Value != 0 || res[0].Evals != 0 || math.Abs(res[1].Value-1) > 1e-15 {
		t.Errorf("batch: %+v, %v", res, err)
	}
}

// TestQuadNonFinite: a NaN or infinite integrand value is reported with
// where it happened.
func TestQuadNonFinite(t *testing.T) {
	r, err := Quad(func(x float64) float64 {
		if x > 0.5 {
			return math.NaN()
		}
		return x
	}, 0, 1, nil)
	if !errors.Is(err, ErrNonFinite) || r.Ier != 7 {
		t.Fatalf("got %v (ier %d)", err, r.Ier)
	}
	_, err = Quad(func(x float64) float64 { return 1 / (x - x) }, 0, 1, nil)
	if !errors.Is(err, ErrNonFinite) {
		t.Fatalf("got %v", err)
	}
}

// TestQuadPanics: caller errors panic with the package's name.
func TestQuadPanics(t *testing.T) {
	for name, f := range inKeyOrder(map[string]func(){
		"NaN bound":  func() { Quad(math.Exp, math.NaN(), 1, nil) },
		"bad limit":  func() { Quad(math.Exp, 0, 1, &QuadOptions{Limit: -1}) },
		"tolerances": func() { Quad(math.Exp, 0, 1, &QuadOptions{AbsTol: -1, RelTol: 1e-20}) },
		"batch":      func() { QuadBatch(nil, []float64{0}, nil, nil) },
		"points inf": func() { Quad(math.Exp, 0, math.Inf(1), &QuadOptions{Points: []float64{1}}) },
		"points NaN": func() { Quad(math.Exp, 0, 1, &QuadOptions{Points: []float64{math.NaN()}}) },
		"points too many": func() {
			Quad(math.Exp, 0, 1, &QuadOptions{Points: []float64{0.1, 0.2, 0.3}, Limit: 3})
		},
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

// TestQuadPointsOutsideLimit1: breakpoints none of which lies inside the
// interval leave one subinterval. With Limit 1 a result that has not
// converged there ends with ErrMaxSubdivisions, as without points (it
// wrote past the lists); one that has converged has no error.
func TestQuadPointsOutsideLimit1(t *testing.T) {
	f := quadFuncs["cos100"]
	want, _ := Quad(f, 0, 1, &QuadOptions{Limit: 1})
	for _, pts := range [][]float64{{5}, {-1, 0, 1, 2}, {}} {
		r, err := Quad(f, 0, 1, &QuadOptions{Limit: 1, Points: pts})
		if !errors.Is(err, ErrMaxSubdivisions) || r.Ier != 1 {
			t.Errorf("points %v: ier %d, error %v; want 1 and ErrMaxSubdivisions", pts, r.Ier, err)
		}
		if r.Value != want.Value || r.AbsErr != want.AbsErr || r.Evals != want.Evals || r.Intervals != 1 {
			t.Errorf("points %v: %+v, without points %+v", pts, r, want)
		}
		rs, _ := QuadBatch(func(_ []int, x, y []float64) {
			for i, xi := range x {
				y[i] = f(xi)
			}
		}, []float64{0, 1}, []float64{1, 0}, &QuadOptions{Limit: 1, Points: pts})
		if rs[0].Value != want.Value || rs[1].Value != -want.Value || rs[0].Ier != 1 || rs[1].Ier != 1 {
			t.Errorf("points %v, QuadBatch: %+v", pts, rs)
		}
		if r, err := Quad(math.Exp, 0, 1, &QuadOptions{Limit: 1, Points: pts}); err != nil || math.Abs(r.Value-(math.E-1)) > 1e-14 {
			t.Errorf("points %v, exp: %+v", pts, r)
		}
	}
}

// TestQuadBatch: the batch gives each problem what Quad gives it alone,
// with one call of the integrand per round.
func TestQuadBatch(t *testing.T) {
	cases := loadQuadCases(t)
	var a, b []float64
	var fs []func(float64) float64
	for _, c := range cases {
		if c.Limit != 50 || c.Epsabs != 1.49e-8 || c.Points != nil {
			continue
		}
		lo, hi := c.bounds()
		a, b = append(a, lo), append(b, hi)
		fs = append(fs, quadFuncs[c.F])
	}
	calls := 0
	res, err := QuadBatch(func(p []int, x, y []float64) {
		calls++
		for i := range x {
			y[i] = fs[p[i]](x[i])
		}
	}, a, b, nil)
	if !errors.Is(err, ErrMaxSubdivisions) {
		t.Errorf("error %v, want the failing problems' ErrMaxSubdivisions", err)
	}
	maxIntervals := 0
	for i := range a {
		want, _ := Quad(fs[i], a[i], b[i], nil)
		got := res[i]
		if got.Value != want.Value || got.AbsErr != want.AbsErr || got.Evals != want.Evals || got.Ier != want.Ier {
			t.Errorf("problem %d: %+v, alone %+v", i, got, want)
		}
		maxIntervals = max(maxIntervals, want.Intervals)
	}
	if calls != maxIntervals {
		t.Errorf("%d calls of the integrand, want one per round (%d)", calls, maxIntervals)
	}
}

// TestQuadBatchPoints: breakpoints apply to every problem of a batch, as
// to Quad alone.
func TestQuadBatchPoints(t *testing.T) {
	fs := []func(float64) float64{quadFuncs["invsqrtabs"], quadFuncs["steps"], quadFuncs["kink"], math.Exp}
	a := []float64{0, 0, 0, 0.3}
	b := []float64{1, 1, 2, 5}
	opts := &QuadOptions{Points: []float64{0.3, 1.0 / 3, 2.0 / 3, 0.7}}
	res, err := QuadBatch(func(p []int, x, y []float64) {
		for i := range x {
			y[i] = fs[p[i]](x[i])
		}
	}, a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fs {
		want, _ := Quad(fs[i], a[i], b[i], opts)
		if res[i] != want {
			t.Errorf("problem %d: %+v, alone %+v", i, res[i], want)
		}
	}
	if math.Abs(res[3].Value-(math.Exp(5)-math.Exp(0.3))) > 1e-10 {
		t.Errorf("exp: %g", res[3].Value)
	}
}

// TestQuadBatchParameters integrates x^k over [0, 1] for many k at once.
func TestQuadBatchParameters(t *testing.T) {
	const n = 40
	a, b := make([]float64, n), make([]float64, n)
	for i := range b {
		b[i] = 1
	}
	res, err := QuadBatch(func(p []int, x, y []float64) {
		for i := range x {
			y[i] = math.Pow(x[i], float64(p[i])/4-0.5)
		}
	}, a, b, &QuadOptions{AbsTol: 1e-12, RelTol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range res {
		exact := 1 / (float64(k)/4 + 0.5)
		if math.Abs(r.Value-exact) > 1e-11*exact {
			t.Errorf("k=%d: %.17g, exact %.17g", k, r.Value, exact)
		}
	}
}
