package optimize

import (
	_ "embed"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

// The reference values are embedded, so that the test binary runs from any
// directory (mpirun starts it where it was launched).
//
//go:embed testdata/newton_ref.json
var newtonRefJSON []byte

type newtonCase struct {
	Name, Method string
	X0           []float64
	Maxiter      int
	Tol          float64
	Root         []float64
	Converged    []bool
	ZeroDer      []bool `json:"zero_der"`
	Error        string
}

type keplerRef struct {
	N         int
	Method    string
	Idx       []int
	Root      []float64
	Converged int
	ZeroDer   int `json:"zero_der"`
}

func loadNewtonRef(t testing.TB) (cases []newtonCase, kepler []keplerRef) {
	t.Helper()
	var ref struct {
		Scipy  string
		Cases  []newtonCase
		Kepler []keplerRef
	}
	if err := json.Unmarshal(newtonRefJSON, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Cases, ref.Kepler
}

// diodeA are the parameters of SciPy's test_array_newton (the diode
// equation of a solar cell, one per element).
var (
	diodeA0 = []float64{5.32725221, 5.48673747, 5.49539973, 5.36387202, 4.80237316,
		1.43764452, 5.23063958, 5.46094772, 5.50512718, 5.42046290}
	diodeA1 = func() []float64 {
		a := make([]float64, 10)
		for i := range a {
			a[i] = (math.Sin(float64(i)) + 1.0) * 7.0
		}
		return a
	}()
)

const (
	diodeA2, diodeA3, diodeA4, diodeA5 = 1e-09, 0.004, 10.0, 0.27456
)

// elementwise makes a BatchFunc from a function of one element.
func elementwise(g func(i int, x float64) float64) BatchFunc {
	return func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = g(i, x[k])
		}
	}
}

// newtonFuncs are the functions of testdata/gen_newton.py: f, fp, fpp.
var newtonFuncs = map[string][3]BatchFunc{
	"diode": {
		elementwise(func(i int, x float64) float64 {
			b := diodeA0[i] + x*diodeA3
			return diodeA1[i] - diodeA2*(math.Exp(b/diodeA5)-1.0) - b/diodeA4 - x
		}),
		elementwise(func(i int, x float64) float64 {
			b := diodeA3 / diodeA5
			return -diodeA2*math.Exp(diodeA0[i]/diodeA5+x*b)*b - diodeA3/diodeA4 - 1
		}),
		elementwise(func(i int, x float64) float64 {
			b := diodeA3 / diodeA5
			return -diodeA2 * math.Exp(diodeA0[i]/diodeA5+x*b) * b * b
		}),
	},
	"quad": {
		elementwise(func(_ int, x float64) float64 { return x*x - 2*x - 1 }),
		elementwise(func(_ int, x float64) float64 { return 2*x - 2 }),
		elementwise(func(_ int, x float64) float64 { return 2 }),
	},
	"expcos": {
		elementwise(func(_ int, x float64) float64 { return math.Exp(x) - math.Cos(x) }),
		elementwise(func(_ int, x float64) float64 { return math.Exp(x) + math.Sin(x) }),
		elementwise(func(_ int, x float64) float64 { return math.Exp(x) + math.Cos(x) }),
	},
	"cubic": {
		elementwise(func(_ int, x float64) float64 { return x*x*x - 2*x - 5 }),
		elementwise(func(_ int, x float64) float64 { return 3*x*x - 2 }),
		elementwise(func(_ int, x float64) float64 { return 6 * x }),
	},
	"sq1": {
		elementwise(func(_ int, x float64) float64 { return x*x - 1 }),
		elementwise(func(_ int, x float64) float64 { return 2 * x }),
		elementwise(func(_ int, x float64) float64 { return 2 }),
	},
	"flat": {
		elementwise(func(_ int, x float64) float64 {
			if x < 10 {
				return 1
			}
			return x - 11
		}),
		elementwise(func(_ int, x float64) float64 {
			if x < 10 {
				return 0
			}
			return 1
		}),
		elementwise(func(_ int, x float64) float64 { return 0 }),
	},
}

func runNewton(name, method string, x0 []float64, o NewtonOptions) (*NewtonResult, error) {
	fs := newtonFuncs[name]
	var fp BatchFunc
	if method != "secant" {
		fp = fs[1]
	}
	if method == "halley" {
		o.FPrime2 = fs[2]
	}
	return Newton(fs[0], fp, x0, &o)
}

// TestNewtonSciPy: SciPy's array newton cases (the diode equation of
// test_array_newton, polynomials, a transcendental function, zero
// derivatives) with Newton, Halley and the secant method: the same
// converged and zero_der masks, and the roots to 1e-9. SciPy keeps
// stepping converged elements until all have; ours stop, so the roots
// agree to the tolerance's square, not bit for bit.
func TestNewtonSciPy(t *testing.T) {
	cases, _ := loadNewtonRef(t)
	for _, c := range cases {
		want := c.Root
		if c.Method == "secant" && c.Maxiter < 50 {
			// When SciPy's secant runs out of iterations, its roots are
			// the next-to-last iterates of every element (a swap of its
			// lockstep loop), converged ones included: compare with the
			// full run's.
			for _, full := range cases {
				if full.Name == c.Name && full.Method == c.Method && full.Maxiter == 50 {
					want = full.Root
				}
			}
		}
		t.Run(c.Name+"/"+c.Method, func(t *testing.T) {
			for _, lockstep := range []bool{false, true} {
				res, err := runNewton(c.Name, c.Method, c.X0, NewtonOptions{MaxIter: c.Maxiter, Tol: c.Tol, Lockstep: lockstep})
				worst := 0.0
				for i := range c.X0 {
					if res.Converged[i] != c.Converged[i] || res.ZeroDer[i] != c.ZeroDer[i] {
						t.Errorf("element %d: converged %v zero_der %v, SciPy %v %v", i, res.Converged[i], res.ZeroDer[i], c.Converged[i], c.ZeroDer[i])
					}
					if !res.Converged[i] {
						// SciPy's unconverged secant roots depend on its
						// lockstep swaps; ours are the last iterate.
						if c.Method != "secant" && res.Root[i] != c.Root[i] {
							t.Errorf("element %d (not converged): root %v, SciPy %v", i, res.Root[i], c.Root[i])
						}
						continue
					}
					d := math.Abs(res.Root[i]-want[i]) / math.Max(1, math.Abs(want[i]))
					worst = math.Max(worst, d)
					if d > 1e-9 {
						t.Errorf("element %d: root %.17g, SciPy %.17g", i, res.Root[i], want[i])
					}
					if math.Abs(res.Residual[i]) > 1e-6 {
						t.Errorf("element %d: residual %g", i, res.Residual[i])
					}
				}
				allConv := res.NumConverged == len(c.X0)
				if allConv != (err == nil) {
					t.Errorf("error %v with %d of %d converged", err, res.NumConverged, len(c.X0))
				}
				if res.NumZeroDer > 0 && !errors.Is(err, ErrZeroDerivative) {
					t.Errorf("error %v with %d zero derivatives", err, res.NumZeroDer)
				}
				if res.NumZeroDer == 0 && res.NumFailed > 0 && !errors.Is(err, ErrNoConvergence) {
					t.Errorf("error %v with %d failures", err, res.NumFailed)
				}
				if !lockstep {
					t.Logf("worst relative difference from SciPy %.1e, %d calls", worst, res.Calls)
				}
			}
		})
	}
}

// kepler returns the mean anomalies and eccentricities of n orbits, the
// same formulas (and bits) as gen_newton.py's.
func kepler(n int) (m, e []float64) {
	m, e = make([]float64, n), make([]float64, n)
	for i := range m {
		m[i] = 2 * math.Pi * float64(i%1009) / 1009
		e[i] = 0.8 * float64((i*7919)%1000) / 1000
	}
	return m, e
}

// keplerFuncs are Kepler's equation E - e sin E = M and its derivatives,
// for orbits whose element i is orbit off+i.
func keplerFuncs(m, e []float64, off int) (f, fp, fpp BatchFunc) {
	f = func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = x[k] - e[off+i]*math.Sin(x[k]) - m[off+i]
		}
	}
	fp = func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = 1 - e[off+i]*math.Cos(x[k])
		}
	}
	fpp = func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = e[off+i] * math.Sin(x[k])
		}
	}
	return f, fp, fpp
}

func keplerNewton(t testing.TB, method string, m, e []float64, lockstep bool) *NewtonResult {
	t.Helper()
	f, fp, fpp := keplerFuncs(m, e, 0)
	o := &NewtonOptions{Lockstep: lockstep}
	switch method {
	case "secant":
		fp = nil
	case "halley":
		o.FPrime2 = fpp
	}
	res, err := Newton(f, fp, m, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestNewtonKeplerSciPy solves 10^6 Kepler equations (10^5 with -short)
// with Newton, and 10^5 with Halley and the secant method: all converge,
// as in SciPy, to SciPy's roots within 1e-12 at the sampled elements.
func TestNewtonKeplerSciPy(t *testing.T) {
	serialOnly(t)
	_, refs := loadNewtonRef(t)
	for _, ref := range refs {
		t.Run(ref.Method, func(t *testing.T) {
			n := ref.N
			if testing.Short() {
				n = min(n, 100000)
			}
			m, e := kepler(n)
			res := keplerNewton(t, ref.Method, m, e, false)
			if res.NumConverged != n || res.NumZeroDer != ref.ZeroDer {
				t.Errorf("%d converged, %d zero derivatives; SciPy %d of %d, %d", res.NumConverged, res.NumZeroDer, ref.Converged, ref.N, ref.ZeroDer)
			}
			worst, maxIt := 0.0, 0
			for k, i := range ref.Idx {
				if i >= n {
					break
				}
				d := math.Abs(res.Root[i] - ref.Root[k])
				worst = math.Max(worst, d)
				if d > 1e-12 {
					t.Errorf("orbit %d: E = %.17g, SciPy %.17g", i, res.Root[i], ref.Root[k])
				}
			}
			for _, it := range res.Iterations {
				maxIt = max(maxIt, it)
			}
			t.Logf("n=%d: largest difference from SciPy %.1e; %d calls, %d element evaluations (lockstep: %d), at most %d iterations",
				n, worst, res.Calls, res.Evals, res.Calls*n, maxIt)
		})
	}
}

// TestNewtonSameBits: the batch gives every element the bits that Newton
// gives it alone, and so does the lockstep form, for the three methods.
func TestNewtonSameBits(t *testing.T) {
	serialOnly(t)
	n := 100000
	if testing.Short() {
		n = 20000
	}
	m, e := kepler(n)
	for _, method := range []string{"newton", "halley", "secant"} {
		t.Run(method, func(t *testing.T) {
			batch := keplerNewton(t, method, m, e, false)
			lock := keplerNewton(t, method, m, e, true)
			for i := 0; i < n; i++ {
				alone := keplerNewton(t, method, m[i:i+1], e[i:i+1], false)
				if batch.Root[i] != alone.Root[0] || batch.Iterations[i] != alone.Iterations[0] || batch.Residual[i] != alone.Residual[0] {
					t.Fatalf("orbit %d: batch %v (%d steps), alone %v (%d steps)", i, batch.Root[i], batch.Iterations[i], alone.Root[0], alone.Iterations[0])
				}
				if batch.Root[i] != lock.Root[i] || batch.Iterations[i] != lock.Iterations[i] {
					t.Fatalf("orbit %d: batch %v, lockstep %v", i, batch.Root[i], lock.Root[i])
				}
			}
			if batch.Evals >= lock.Evals {
				t.Errorf("compaction evaluated %d elements, lockstep %d", batch.Evals, lock.Evals)
			}
			t.Logf("compacted: %d element evaluations; lockstep %d", batch.Evals, lock.Evals)
		})
	}
}

// TestNewtonOptions: RTol loosens the test, MaxIter stops, Tol tightens;
// wrong options panic.
func TestNewtonOptions(t *testing.T) {
	m, e := kepler(1000)
	f, fp, _ := keplerFuncs(m, e, 0)
	tight, _ := Newton(f, fp, m, &NewtonOptions{Tol: 1e-15})
	loose, _ := Newton(f, fp, m, &NewtonOptions{Tol: 1e-300, RTol: 1e-3})
	def, _ := Newton(f, fp, m, nil)
	sum := func(r *NewtonResult) (s int) {
		for _, it := range r.Iterations {
			s += it
		}
		return s
	}
	if !(sum(loose) < sum(def) && sum(def) <= sum(tight)) {
		t.Errorf("total steps: rtol 1e-3 %d, default %d, tol 1e-15 %d", sum(loose), sum(def), sum(tight))
	}
	short, err := Newton(f, fp, m, &NewtonOptions{MaxIter: 2})
	if !errors.Is(err, ErrNoConvergence) || short.NumFailed == 0 {
		t.Errorf("MaxIter 2: error %v, %d failed", err, short.NumFailed)
	}
	for _, it := range short.Iterations {
		if it > 2 {
			t.Fatalf("%d iterations with MaxIter 2", it)
		}
	}
	empty, err := Newton(f, fp, nil, nil)
	if err != nil || len(empty.Root) != 0 {
		t.Errorf("empty: %v %v", empty, err)
	}
	for name, fn := range inKeyOrder(map[string]func(){
		"negative tol": func() { Newton(f, fp, m, &NewtonOptions{Tol: -1}) },
		"nil f":        func() { Newton(nil, fp, m, nil) },
		"fprime2 only": func() { Newton(f, nil, m, &NewtonOptions{FPrime2: fp}) },
	}) {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			fn()
		}()
	}
}
