package optimize

import (
	_ "embed"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

//go:embed testdata/root_ref.json
var rootRefJSON []byte

type rootCase struct {
	Name    string
	X0      []float64
	Jac     bool
	Options struct {
		Maxfev int
		Xtol   float64
		Diag   []float64
		Factor float64
	}
	X, Fun     []float64
	Nfev, Njev int
	Ier        int
	Msg        string
}

// rootFuncs are the systems of testdata/gen_root.py and their Jacobians.
var rootFuncs = map[string]struct {
	f   func(x, fx []float64)
	jac func(x []float64, j *mat.Dense)
}{
	"powell_badly": {
		func(x, fx []float64) {
			fx[0] = 1e4*x[0]*x[1] - 1
			fx[1] = math.Exp(-x[0]) + math.Exp(-x[1]) - 1.0001
		},
		func(x []float64, j *mat.Dense) {
			j.Set(0, 0, 1e4*x[1])
			j.Set(0, 1, 1e4*x[0])
			j.Set(1, 0, -math.Exp(-x[0]))
			j.Set(1, 1, -math.Exp(-x[1]))
		},
	},
	"rosen": {
		func(x, fx []float64) {
			for i := 0; i < len(x); i += 2 {
				fx[i] = 10 * (x[i+1] - x[i]*x[i])
				fx[i+1] = 1 - x[i]
			}
		},
		func(x []float64, j *mat.Dense) {
			j.Zero()
			for i := 0; i < len(x); i += 2 {
				j.Set(i, i, -20*x[i])
				j.Set(i, i+1, 10)
				j.Set(i+1, i, -1)
			}
		},
	},
	"helical": {
		func(x, fx []float64) {
			t := math.Atan(x[1]/x[0]) / (2 * math.Pi)
			if x[0] < 0 {
				t += 0.5
			}
			fx[0] = 10 * (x[2] - 10*t)
			fx[1] = 10 * (math.Sqrt(x[0]*x[0]+x[1]*x[1]) - 1)
			fx[2] = x[2]
		},
		nil,
	},
	"powell_singular": {
		func(x, fx []float64) {
			fx[0] = x[0] + 10*x[1]
			fx[1] = math.Sqrt(5) * (x[2] - x[3])
			fx[2] = (x[1] - 2*x[2]) * (x[1] - 2*x[2])
			fx[3] = math.Sqrt(10) * ((x[0] - x[3]) * (x[0] - x[3])) // Python's sqrt(10)*(x0-x3)**2
		},
		nil,
	},
	"noreal": {func(x, fx []float64) { fx[0] = x[0]*x[0] + 1 }, nil},
}

var infoErrs = map[int]error{2: ErrMaxFev, 3: ErrXTolTooSmall, 4: ErrNoProgressJacobian, 5: ErrNoProgress}

// TestRootSciPy runs Root on the systems of gen_root.py, with and without
// a Jacobian and with SciPy's options: the same info code, message and
// number of calls as scipy.optimize.fsolve (the port takes the same
// steps), and the same solution to 1e-10 (relative to its size).
func TestRootSciPy(t *testing.T) {
	var ref struct{ Cases []rootCase }
	if err := json.Unmarshal(rootRefJSON, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.Cases {
		name := c.Name
		if c.Jac {
			name += "/jac"
		}
		t.Run(name, func(t *testing.T) {
			fs := rootFuncs[c.Name]
			o := &RootOptions{MaxFev: c.Options.Maxfev, XTol: c.Options.Xtol, Diag: c.Options.Diag, Factor: c.Options.Factor}
			if c.Jac {
				o.Jac = fs.jac
			}
			res, err := Root(fs.f, c.X0, o)
			if res.Info != c.Ier || res.Message != c.Msg {
				t.Errorf("info %d %q, SciPy %d %q", res.Info, res.Message, c.Ier, c.Msg)
			}
			if want := infoErrs[c.Ier]; err != want {
				t.Errorf("error %v, want %v", err, want)
			}
			if res.NFev != c.Nfev || c.Jac && res.NJev != c.Njev {
				t.Errorf("nfev %d njev %d, SciPy %d %d", res.NFev, res.NJev, c.Nfev, c.Njev)
			}
			xn := enorm(c.X)
			worst := 0.0
			for i := range c.X {
				worst = math.Max(worst, math.Abs(res.X[i]-c.X[i]))
			}
			// Powell's badly scaled function amplifies the last bits of
			// exp (Go's and C's differ) where XTol stops it early.
			tol := 1e-10 * math.Max(xn, 1e-8)
			if c.Options.Xtol != 0 {
				tol = c.Options.Xtol * xn
			}
			if worst > tol {
				t.Errorf("x %v, SciPy %v (difference %g)", res.X, c.X, worst)
			}
			if res.Success != (c.Ier == 1) {
				t.Errorf("success %v with info %d", res.Success, res.Info)
			}
			t.Logf("info %d, nfev %d (SciPy %d), njev %d, largest difference in x %.1e", res.Info, res.NFev, c.Nfev, res.NJev, worst)
		})
	}
}

// TestRootErrors: the sentinels are errors.Is-able; bad options panic.
func TestRootErrors(t *testing.T) {
	fs := rootFuncs["noreal"]
	_, err := Root(fs.f, []float64{1}, nil)
	if !errors.Is(err, ErrNoProgress) {
		t.Errorf("x^2+1: %v", err)
	}
	for name, fn := range inKeyOrder(map[string]func(){
		"no variables":  func() { Root(fs.f, nil, nil) },
		"negative xtol": func() { Root(fs.f, []float64{1}, &RootOptions{XTol: -1}) },
		"zero diag":     func() { Root(fs.f, []float64{1}, &RootOptions{Diag: []float64{0}}) },
		"diag length":   func() { Root(fs.f, []float64{1}, &RootOptions{Diag: []float64{1, 1}}) },
	}) {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			fn()
		}()
	}
}
