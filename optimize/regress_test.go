package optimize

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"gonum.org/v1/gonum/mat"
)

// TestBFGSNaNIsNoSuccess: BFGS returned Success true, "Optimization
// terminated successfully.", Fun NaN and a nil error where f was NaN or
// +Inf everywhere or Grad wrote NaN (the largest |g_i|, NaN, passed the
// gtol test as false). SciPy 1.10.1 returns status 3, "NaN result
// encountered"; so must it, with ErrNaN.
func TestBFGSNaNIsNoSuccess(t *testing.T) {
	serialOnly(t)
	tests := []struct {
		name string
		f    func([]float64) float64
		grad func(g, x []float64)
	}{
		{"f NaN", func([]float64) float64 { return math.NaN() }, nil},
		{"f +Inf", func([]float64) float64 { return math.Inf(1) }, nil},
		{"grad NaN", rosen, func(g, x []float64) {
			for i := range g {
				g[i] = math.NaN()
			}
		}},
	}
	for _, tc := range tests {
		res, err := Minimize(tc.f, []float64{1, 2}, &MinimizeOptions{Grad: tc.grad})
		if res.Success || !errors.Is(err, ErrNaN) || res.Status != 3 || res.Message != "NaN result encountered." {
			t.Errorf("%s: success %v, status %d %q, error %v; want status 3 and ErrNaN", tc.name, res.Success, res.Status, res.Message, err)
		}
	}
}

// TestMinimizeDistBadBounds: Lower 2 > Upper 1 was accepted (it reported
// convergence at x = 1), and NaN bounds or bounds infinite the wrong way
// were refused only as "NaN result encountered"; they panic on every rank
// with a message that names the bounds, as SciPy raises.
func TestMinimizeDistBadBounds(t *testing.T) {
	world := mpitest.World(t)
	inf := math.Inf(1)
	tests := []struct {
		name   string
		lo, hi float64
		want   string
	}{
		{"inverted", 2, 1, "one of the lower bounds is greater than an upper bound"},
		{"NaN lower", math.NaN(), 1, "a bound is NaN"},
		{"NaN upper", 0, math.NaN(), "a bound is NaN"},
		{"lower +Inf", inf, inf, "a lower bound +Inf"},
		{"upper -Inf", -inf, -inf, "an upper bound -Inf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{3, 0} { // 3: fewer elements than ranks at 4
				x0, _ := dist.Full(world, []int{n}, 0.5)
				lo, _ := dist.Full(world, []int{n}, tc.lo)
				hi, _ := dist.Full(world, []int{n}, tc.hi)
				evals := 0
				msg := func() (msg string) {
					defer func() { msg = fmt.Sprint(recover()) }()
					res, _ := MinimizeDist(func(x, g *dist.Array[float64]) (float64, error) {
						evals++
						return 0, nil
					}, x0, &DistMinimizeOptions{Lower: lo, Upper: hi})
					res.X.Free()
					return ""
				}()
				x0.Free()
				lo.Free()
				hi.Free()
				if n == 0 {
					// An empty problem has no bound to check.
					mpitest.Check(t, world, msg == "<nil>", "n=0: %s", msg)
					continue
				}
				mpitest.Check(t, world, strings.HasPrefix(msg, "optimize: MinimizeDist") && strings.Contains(msg, tc.want) && evals == 0,
					"n=%d: panic %q after %d evaluations; want one with %q before any", n, msg, evals, tc.want)
			}
		})
	}
}

// TestRootJacWrongShape: a Jac that wrote a 3x3 matrix for 2 variables,
// or wrote nothing, converged with "The solution converged." and no
// error. The first panics; the second stops with ErrNaN.
func TestRootJacWrongShape(t *testing.T) {
	serialOnly(t)
	f := func(x, fx []float64) { fx[0], fx[1] = x[0]*x[0]-2, x[1]-1 }
	calls := 0
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		Root(f, []float64{1, 1}, &RootOptions{Jac: func(x []float64, jac *mat.Dense) {
			calls++
			*jac = *mat.NewDense(3, 3, []float64{2 * x[0], 0, 0, 0, 1, 0, 0, 0, 1})
		}})
		return ""
	}()
	if !strings.Contains(msg, "optimize: Root: Jac wrote a 3x3 matrix for 2 variables") || calls != 1 {
		t.Errorf("3x3 Jacobian: panic %q after %d calls", msg, calls)
	}
	res, err := Root(f, []float64{1, 1}, &RootOptions{Jac: func(x []float64, jac *mat.Dense) {}})
	if res.Success || !errors.Is(err, ErrNaN) || res.Info != 6 || res.NJev != 1 {
		t.Errorf("a Jac that writes nothing: success %v, info %d %q, %d Jacobians, error %v; want ErrNaN", res.Success, res.Info, res.Message, res.NJev, err)
	}
}

// TestNewtonEvalsCountF: NewtonResult.Evals, documented as the element
// evaluations of f, counted f + f' + f”; DerivEvals counts the
// derivatives.
func TestNewtonEvalsCountF(t *testing.T) {
	serialOnly(t)
	var nf, nd int
	count := func(n *int, g func(x float64) float64) BatchFunc {
		return func(_ []int, x, out []float64) {
			*n += len(x)
			for k := range x {
				out[k] = g(x[k])
			}
		}
	}
	f := count(&nf, func(x float64) float64 { return x*x - 2 })
	fp := count(&nd, func(x float64) float64 { return 2 * x })
	fpp := count(&nd, func(float64) float64 { return 2 })
	for _, tc := range []struct {
		name    string
		fp, fpp BatchFunc
	}{{"newton", fp, nil}, {"halley", fp, fpp}, {"secant", nil, nil}} {
		nf, nd = 0, 0
		res, err := Newton(f, tc.fp, []float64{1, 3, 10}, &NewtonOptions{FPrime2: tc.fpp})
		if err != nil || res.Evals != nf || res.DerivEvals != nd {
			t.Errorf("%s: Evals %d, DerivEvals %d; f evaluated %d elements, the derivatives %d (%v)", tc.name, res.Evals, res.DerivEvals, nf, nd, err)
		}
	}
}
