package optimize

import (
	_ "embed"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

//go:embed testdata/minimize_ref.json
var minimizeRefJSON []byte

type minimizeCase struct {
	Name, Method    string
	N               int
	X0, X           []float64
	Fun             float64
	Nit, Nfev, Njev int
	Status          int
	Success         bool
	Message         string
	Lower, Upper    []float64
	Gnorm           float64
}

func loadMinimizeRef(t testing.TB) map[string]minimizeCase {
	t.Helper()
	var ref struct{ Cases []minimizeCase }
	if err := json.Unmarshal(minimizeRefJSON, &ref); err != nil {
		t.Fatal(err)
	}
	m := map[string]minimizeCase{}
	for _, c := range ref.Cases {
		m[c.Name+"/"+c.Method] = c
	}
	return m
}

// rosen and rosenGrad are scipy.optimize.rosen and rosen_der.
func rosen(x []float64) float64 {
	s := 0.0
	for i := 0; i+1 < len(x); i++ {
		a, b := x[i+1]-x[i]*x[i], 1-x[i]
		s += 100*(a*a) + b*b // numpy's order
	}
	return s
}

func rosenGrad(g, x []float64) {
	n := len(x)
	for i := range g {
		g[i] = 0
		if i+1 < n {
			g[i] += -400*x[i]*(x[i+1]-x[i]*x[i]) - 2*(1-x[i])
		}
		if i > 0 {
			g[i] += 200 * (x[i] - x[i-1]*x[i-1])
		}
	}
}

// rosenStart is gen_minimize.py's x0: 0.6, 0.7, 0.8, 0.9, 1.0, 0.6, ...
func rosenStart(i int) float64 { return float64(i%5)*0.1 + 0.6 }

// TestMinimizeSciPy minimizes the Rosenbrock function in 2 dimensions
// with BFGS, L-BFGS and Nelder-Mead and in 1000 with L-BFGS and BFGS, as
// SciPy 1.10 does: the same minimum, the gradient within SciPy's gtol
// (1e-5), success and SciPy's message; Nelder-Mead (a port) with SciPy's
// iterations, evaluations and value. BFGS and L-BFGS counts differ (the
// line searches are not SciPy's) and are logged. L-BFGS runs with FTol
// off, to reach gtol (SciPy's L-BFGS-B stops on ftol first).
func TestMinimizeSciPy(t *testing.T) {
	serialOnly(t)
	ref := loadMinimizeRef(t)
	tests := []struct {
		ref    string
		method Method
		grad   bool
		xtol   float64
		ftol   float64
	}{
		{"rosen2/BFGS", BFGS, true, 1e-5, 0},
		{"rosen2/BFGS", BFGS, false, 1e-5, 0}, // forward differences
		{"rosen2/L-BFGS-B", LBFGS, true, 1e-5, -1},
		{"rosen2/Nelder-Mead", NelderMead, false, 1e-4, 0},
		{"rosen1000/L-BFGS-B", LBFGS, true, 1e-5, -1},
		{"rosen1000/BFGS", BFGS, true, 1e-5, 0},
	}
	for _, tc := range tests {
		c := ref[tc.ref]
		name := tc.ref
		if !tc.grad && tc.method != NelderMead {
			name += "/fd"
		}
		t.Run(name, func(t *testing.T) {
			if c.N == 1000 && tc.method == BFGS && testing.Short() {
				t.Skip("BFGS in 1000 dimensions with -short")
			}
			o := &MinimizeOptions{Method: tc.method, FTol: tc.ftol}
			if tc.grad {
				o.Grad = rosenGrad
			}
			res, err := Minimize(rosen, c.X0, o)
			if err != nil || !res.Success || res.Status != 0 {
				t.Fatalf("error %v, status %d %q", err, res.Status, res.Message)
			}
			for i, v := range res.X {
				if math.Abs(v-1) > tc.xtol || math.Abs(v-c.X[i]) > tc.xtol {
					t.Fatalf("x[%d] = %v, SciPy %v", i, v, c.X[i])
				}
			}
			if tc.method != NelderMead {
				g := make([]float64, len(res.X))
				rosenGrad(g, res.X)
				if infNorm(g) > 1e-5 {
					t.Errorf("gradient %g", infNorm(g))
				}
			}
			wantMsg := c.Message
			if tc.method == LBFGS {
				wantMsg = "CONVERGENCE: NORM_OF_PROJECTED_GRADIENT_<=_PGTOL"
			}
			if res.Message != wantMsg {
				t.Errorf("message %q, SciPy %q", res.Message, wantMsg)
			}
			if tc.method == NelderMead && (res.NIt != c.Nit || res.NFev != c.Nfev || res.Fun != c.Fun) {
				t.Errorf("Nelder-Mead: nit %d nfev %d f %v, SciPy %d %d %v", res.NIt, res.NFev, res.Fun, c.Nit, c.Nfev, c.Fun)
			}
			t.Logf("f %.3g (SciPy %.3g), nit %d (SciPy %d), nfev %d (SciPy %d), njev %d", res.Fun, c.Fun, res.NIt, c.Nit, res.NFev, c.Nfev, res.NJev)
		})
	}
}

// TestMinimizeLimits: the limits and bad options.
func TestMinimizeLimits(t *testing.T) {
	x0 := []float64{-1.2, 1}
	res, err := Minimize(rosen, x0, &MinimizeOptions{Method: BFGS, Grad: rosenGrad, MaxIter: 3})
	if !errors.Is(err, ErrMaxIter) || res.Status != 1 || res.Message != "Maximum number of iterations has been exceeded." {
		t.Errorf("MaxIter 3: %v, %d %q", err, res.Status, res.Message)
	}
	res, err = Minimize(rosen, x0, &MinimizeOptions{Method: NelderMead, MaxFev: 20})
	if !errors.Is(err, ErrMaxFun) || res.Status != 1 || res.Message != "Maximum number of function evaluations has been exceeded." {
		t.Errorf("MaxFev 20: %v, %d %q", err, res.Status, res.Message)
	}
	if x0[0] != -1.2 || x0[1] != 1 {
		t.Error("x0 modified")
	}
	for name, fn := range inKeyOrder(map[string]func(){
		"no variables": func() { Minimize(rosen, nil, nil) },
		"negative":     func() { Minimize(rosen, x0, &MinimizeOptions{GTol: -1}) },
		"method":       func() { Minimize(rosen, x0, &MinimizeOptions{Method: 7}) },
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

// distRosen is the Rosenbrock function of a distributed array: a halo of
// width 1 brings each rank its neighbours' edge elements, each rank
// computes the terms and the gradient of its block, and ExactSum adds the
// terms, so the value is the same at every rank count. evals counts calls.
func distRosen(evals *int) (f DistObjective, free func()) {
	var h *dist.Array[float64]
	var terms []float64
	f = func(x, grad *dist.Array[float64]) (float64, error) {
		*evals++
		if h == nil {
			var err error
			if h, err = dist.New[float64](x.Comm(), x.Layout(), dist.Ghosts(1)); err != nil {
				return 0, err
			}
		}
		dist.Copy(h, x)
		if err := h.Exchange(); err != nil {
			return 0, err
		}
		u := h.Ghosted().Data() // u[k+1] is element lo+k
		lo, hi := x.Range()
		n := x.Len()
		g := grad.LocalData()
		terms = terms[:0]
		for k := 0; k < hi-lo; k++ {
			i, xi := lo+k, u[k+1]
			gi := 0.0
			if i+1 < n {
				a, b := u[k+2]-xi*xi, 1-xi
				terms = append(terms, 100*a*a+b*b)
				gi += -400*xi*a - 2*b
			}
			if i > 0 {
				gi += 200 * (xi - u[k]*u[k])
			}
			g[k] = gi
		}
		return ExactSum(x.Comm(), terms)
	}
	return f, func() {
		if h != nil {
			h.Free()
		}
	}
}

// TestMinimizeDistRosen minimizes the Rosenbrock function in 1000
// dimensions split over the ranks, with and without bounds, and again on
// each rank alone: the same iterations, evaluations and bits at every
// rank count; the minimum of SciPy's L-BFGS-B (with its defaults both
// stop on ftol; without ftol, to its gtol 1e-5; with the bounds [-2, 0.9]
// the same value, where SciPy stops on ftol with a projected gradient of
// 4e-3).
func TestMinimizeDistRosen(t *testing.T) {
	world := mpitest.World(t)
	self, err := world.Split(world.Rank(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ref := loadMinimizeRef(t)
	tests := []struct {
		name    string
		ref     string
		n       int
		bounded bool
		uneven  bool
		ftol    float64
	}{
		{"n=1000", "rosen1000/L-BFGS-B", 1000, false, false, 0},
		{"n=1000 gtol only uneven", "rosen1000/L-BFGS-B", 1000, false, true, -1},
		{"n=1000 bounded", "rosen1000 bounded/L-BFGS-B", 1000, true, false, 0},
		{"n=3", "", 3, false, false, -1}, // fewer elements than ranks at 4
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := func(c mpi.Comm, opts ...dist.Option) (*DistMinimizeResult, []float64, int) {
				x0, err := dist.FromFunc(c, []int{tc.n}, func(idx []int) float64 { return rosenStart(idx[0]) }, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer x0.Free()
				o := &DistMinimizeOptions{FTol: tc.ftol}
				if tc.bounded {
					if o.Lower, err = dist.Full(c, []int{tc.n}, -2.0, opts...); err != nil {
						t.Fatal(err)
					}
					defer o.Lower.Free()
					if o.Upper, err = dist.Full(c, []int{tc.n}, 0.9, opts...); err != nil {
						t.Fatal(err)
					}
					defer o.Upper.Free()
				}
				evals := 0
				f, free := distRosen(&evals)
				defer free()
				res, err := MinimizeDist(f, x0, o)
				if err != nil {
					t.Fatalf("%v (%+v)", err, res)
				}
				x := gatherAll(t, res.X)
				res.X.Free()
				return res, x, evals
			}
			var opts []dist.Option
			if tc.uneven {
				opts = append(opts, dist.BlockSizes(unevenCounts(tc.n, world.Size())))
			}
			res, x, evals := run(world, opts...)
			alone, xAlone, _ := run(self)
			same := res.NIt == alone.NIt && res.NFev == alone.NFev && res.Fun == alone.Fun && res.NFev == evals
			for i := range x {
				same = same && x[i] == xAlone[i]
			}
			mpitest.Check(t, world, same, "%d iterations %d evaluations f %v; on one rank %d %d %v", res.NIt, res.NFev, res.Fun, alone.NIt, alone.NFev, alone.Fun)
			if tc.ref == "" {
				mpitest.Check(t, world, res.PGNorm <= 1e-5 && math.Abs(x[0]-1) < 1e-4, "pg %g x %v", res.PGNorm, x)
				return
			}
			c := ref[tc.ref]
			ok := res.Success
			if tc.bounded {
				ok = ok && math.Abs(res.Fun-c.Fun) <= 1e-6*c.Fun
				for i := range x {
					ok = ok && x[i] >= -2 && x[i] <= 0.9 && math.Abs(x[i]-c.X[i]) < 1e-3
				}
			} else if tc.ftol == 0 {
				// SciPy's defaults: both stop on ftol, near the minimum.
				ok = ok && res.Message == c.Message && res.Fun < 1e-8
				for i := range x {
					ok = ok && math.Abs(x[i]-1) < 1e-3
				}
			} else {
				ok = ok && res.PGNorm <= 1e-5 && res.Fun < 1e-9
				for i := range x {
					ok = ok && math.Abs(x[i]-1) < 1e-4
				}
			}
			mpitest.Check(t, world, ok, "%s: f %g (SciPy %g), pg %g, success %v", res.Message, res.Fun, c.Fun, res.PGNorm, res.Success)
			if world.Rank() == 0 {
				t.Logf("%d ranks: f %.3g (SciPy %.3g), pg %.1e (SciPy %.1e), nit %d (SciPy %d), nfev %d (SciPy %d): %s",
					world.Size(), res.Fun, c.Fun, res.PGNorm, c.Gnorm, res.NIt, c.Nit, res.NFev, c.Nfev, res.Message)
			}
		})
	}
}

// TestMinimizeDistLimits: MaxIter stops with ErrMaxIter at every rank, as
// SciPy's maxiter 10 on the 100-dimensional case.
func TestMinimizeDistLimits(t *testing.T) {
	world := mpitest.World(t)
	c := loadMinimizeRef(t)["rosen100 maxiter/L-BFGS-B"]
	x0, err := dist.FromFunc(world, []int{100}, func(idx []int) float64 { return rosenStart(idx[0]) })
	if err != nil {
		t.Fatal(err)
	}
	defer x0.Free()
	evals := 0
	f, free := distRosen(&evals)
	defer free()
	res, err := MinimizeDist(f, x0, &DistMinimizeOptions{MaxIter: 10})
	mpitest.Check(t, world, errors.Is(err, ErrMaxIter) && res.NIt == 10 && res.Status == c.Status && res.Message == c.Message,
		"error %v, %d iterations, status %d %q (SciPy %d %q)", err, res.NIt, res.Status, res.Message, c.Status, c.Message)
	res.X.Free()
}
