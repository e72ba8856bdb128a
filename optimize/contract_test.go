package optimize

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"gonum.org/v1/gonum/mat"
)

// The contract matrix: every solver of the package on every kind of bad
// input (non-finite values in the starting point, in f, in a derivative;
// a derivative of the wrong shape; a callback that panics; an empty
// problem; bad bounds; the limits). Each case must end within
// contractCap evaluations of the callbacks (counted; past it the callback
// panics and the case fails), and must not report success, except an
// empty problem, which is valid. The outcomes make the table of
// docs/SCIPY.md, which the test checks (XPMPI_UPDATE_DOCS=1 rewrites it).

// contractInputs are the matrix's columns, in order.
var contractInputs = []string{
	"x0 NaN", "x0 +Inf", "f NaN", "f +Inf", "derivative NaN", "derivative wrong shape",
	"callback panics", "n = 0", "bad bounds", "iteration limit", "evaluation limit",
}

// contractCap bounds the evaluations of every case.
const contractCap = 5000

// errRunaway is the panic of a callback called more than contractCap
// times; errCallback that of a callback that panics on purpose.
var (
	errRunaway  = errors.New("more than contractCap evaluations")
	errCallback = errors.New("the callback's panic")
)

// counter counts a case's evaluations (elements for batched callbacks).
type counter struct{ n int }

func (c *counter) tick(k int) {
	c.n += k
	if c.n > contractCap {
		panic(errRunaway)
	}
}

// contractCase is one cell: run calls the solver and returns whether it
// reported success, a detail for the table (a status), and its error.
type contractCase struct {
	solver, input string
	run           func(c *counter) (success bool, detail string, err error)
}

// optimizeSentinels name the errors of the table.
var optimizeSentinels = []struct {
	name string
	err  error
}{
	{"ErrNaN", ErrNaN}, {"ErrMaxIter", ErrMaxIter}, {"ErrMaxFun", ErrMaxFun}, {"ErrMaxFev", ErrMaxFev},
	{"ErrLineSearch", ErrLineSearch}, {"ErrNoConvergence", ErrNoConvergence}, {"ErrZeroDerivative", ErrZeroDerivative},
	{"ErrXTolTooSmall", ErrXTolTooSmall}, {"ErrNoProgressJacobian", ErrNoProgressJacobian}, {"ErrNoProgress", ErrNoProgress},
}

// runContract runs a case and returns its cell, or an error saying how it
// broke the contract.
func runContract(cc contractCase) (cell string, evals int, broke error) {
	c := &counter{}
	var (
		success bool
		detail  string
		err     error
		pv      any
	)
	func() {
		defer func() { pv = recover() }()
		success, detail, err = cc.run(c)
	}()
	switch {
	case pv == errRunaway:
		return "", c.n, fmt.Errorf("more than %d evaluations", contractCap)
	case pv == errCallback:
		cell = "the callback's panic"
	case pv != nil:
		msg := fmt.Sprint(pv)
		if !strings.HasPrefix(msg, "optimize: ") {
			return "", c.n, fmt.Errorf("a panic that is not the package's: %s", msg)
		}
		cell = "panics"
	case err == nil:
		cell = "ok"
	default:
		cell = "error"
		for _, s := range optimizeSentinels {
			if errors.Is(err, s.err) {
				cell = s.name
				break
			}
		}
	}
	if detail != "" && pv == nil {
		cell += ", " + detail
	}
	if success && cc.input != "n = 0" {
		return cell, c.n, fmt.Errorf("success reported (%s, %v)", cell, err)
	}
	if err == nil && pv == nil && cc.input != "n = 0" {
		return cell, c.n, fmt.Errorf("no error")
	}
	return cell, c.n, nil
}

// badValue is the value a case puts into the starting point or f.
func badValue(input string) float64 {
	if strings.HasSuffix(input, "NaN") {
		return math.NaN()
	}
	return math.Inf(1)
}

// newtonCases are Newton's, Halley's and the secant method's cases, and
// NewtonFDF's (Newton's and Halley's method), on x^2 - 2 per element
// (three elements, the second the bad one).
func newtonCases() []contractCase {
	var cases []contractCase
	for _, method := range []string{"newton", "halley", "secant", "newton, fdf", "halley, fdf"} {
		for _, input := range contractInputs {
			method, input := method, input
			if input == "derivative wrong shape" || input == "bad bounds" || input == "evaluation limit" ||
				method == "secant" && input == "derivative NaN" {
				continue
			}
			solver := "Newton (" + method + ")"
			if m, ok := strings.CutSuffix(method, ", fdf"); ok {
				solver = "NewtonFDF (" + m + ")"
			}
			cases = append(cases, contractCase{solver, input, func(c *counter) (bool, string, error) {
				x0 := []float64{1, 3, 10}
				o := &NewtonOptions{}
				elem := func(g func(i int, x float64) float64, bad string) BatchFunc {
					return func(idx []int, x, out []float64) {
						c.tick(len(x))
						for k := range x {
							out[k] = g(idx[k], x[k])
							if idx[k] == 1 && input == bad {
								out[k] = badValue(bad)
							}
							if input == "callback panics" && bad == "f NaN" {
								panic(errCallback)
							}
						}
					}
				}
				f := elem(func(_ int, x float64) float64 { return x*x - 2 }, "f NaN")
				if input == "f +Inf" {
					f = elem(func(_ int, x float64) float64 { return x*x - 2 }, "f +Inf")
				}
				fp := elem(func(_ int, x float64) float64 { return 2 * x }, "derivative NaN")
				switch input {
				case "x0 NaN", "x0 +Inf":
					x0[1] = badValue(input)
				case "n = 0":
					x0 = nil
				case "iteration limit":
					o.MaxIter = 2
				}
				switch method {
				case "secant":
					fp = nil
				case "halley", "halley, fdf":
					o.FPrime2 = elem(func(int, float64) float64 { return 2 }, "")
				}
				var res *NewtonResult
				var err error
				if strings.HasSuffix(method, ", fdf") {
					// NewtonFDF with the value and the derivative from one
					// callback, bad where f or fp is.
					res, err = NewtonFDF(func(idx []int, x, fv, dv []float64) {
						f(idx, x, fv)
						fp(idx, x, dv)
					}, x0, o)
				} else {
					res, err = Newton(f, fp, x0, o)
				}
				return err == nil && res.NumConverged == len(x0), fmt.Sprintf("%d failed", res.NumFailed), err
			}})
		}
	}
	return cases
}

// distVector is a distributed vector of n elements with value v at global
// index 1 and 1.5 elsewhere.
func distVector(n int, v float64) *dist.Array[float64] {
	a, err := dist.FromFunc(mpi.World(), []int{n}, func(idx []int) float64 {
		if idx[0] == 1 {
			return v
		}
		return 1.5
	})
	if err != nil {
		panic(err)
	}
	return a
}

// distInput reports whether the distributed Newton forms take input: they
// have no derivative of another shape, no bounds and no evaluation limit.
func distInput(input string) bool {
	switch input {
	case "derivative wrong shape", "bad bounds", "evaluation limit":
		return false
	}
	return true
}

// distStart returns the distributed Newton cases' length, starting value
// and iteration limit (0: the default) for input: three elements (fewer
// than ranks at 4), five where f panics (so that every rank calls it).
func distStart(input string) (n int, v float64, maxIter int) {
	n, v = 3, 1.5
	switch input {
	case "x0 NaN", "x0 +Inf":
		v = badValue(input)
	case "n = 0":
		n = 0
	case "callback panics":
		n = 5
	case "iteration limit":
		maxIter = 1
	}
	return n, v, maxIter
}

// newtonDistCases are NewtonDist's and NewtonDistFDF's: three elements
// (fewer than ranks at 4), five where f panics (so that every rank calls
// it).
func newtonDistCases() []contractCase {
	var cases []contractCase
	for _, solver := range []string{"NewtonDist", "NewtonDistFDF"} {
		for _, input := range contractInputs {
			input := input
			if !distInput(input) {
				continue
			}
			cases = append(cases, contractCase{solver, input, func(c *counter) (bool, string, error) {
				n, v, maxIter := distStart(input)
				o := &NewtonOptions{MaxIter: maxIter}
				x0 := distVector(n, v)
				defer x0.Free()
				lo, _ := x0.Range()
				f := func(idx []int, x, out []float64) {
					c.tick(len(x))
					if input == "callback panics" {
						panic(errCallback)
					}
					for k := range x {
						out[k] = x[k]*x[k] - 2
						if lo+idx[k] == 1 && strings.HasPrefix(input, "f ") {
							out[k] = badValue(input)
						}
					}
				}
				fp := func(idx []int, x, out []float64) {
					c.tick(len(x))
					for k := range x {
						out[k] = 2 * x[k]
						if lo+idx[k] == 1 && input == "derivative NaN" {
							out[k] = math.NaN()
						}
					}
				}
				var res *DistNewtonResult
				var err error
				if solver == "NewtonDistFDF" {
					res, err = NewtonDistFDF(func(idx []int, x, fv, dv []float64) {
						f(idx, x, fv)
						fp(idx, x, dv)
					}, x0, o)
				} else {
					res, err = NewtonDist(f, fp, x0, o)
				}
				if res == nil {
					return false, "", err
				}
				res.Root.Free()
				res.Residual.Free()
				return err == nil && res.NumConverged == n, fmt.Sprintf("%d failed", res.NumFailed), err
			}})
		}
	}
	return cases
}

// newtonArrayDistCases are NewtonArrayDist's (the device form, here on
// the CPU backend), as NewtonDist's.
func newtonArrayDistCases() []contractCase {
	var cases []contractCase
	for _, input := range contractInputs {
		input := input
		if !distInput(input) {
			continue
		}
		cases = append(cases, contractCase{"NewtonArrayDist (CPU)", input, func(c *counter) (bool, string, error) {
			n, v, maxIter := distStart(input)
			o := &ArrayNewtonOptions{MaxIter: maxIter}
			x0 := distVector(n, v)
			defer x0.Free()
			lo, _ := x0.Range()
			elem := func(g func(x float64) float64, bad string) ArrayFunc {
				return func(x, out *backend.Array[float64]) error {
					xs, os := x.Data(), out.Data()
					c.tick(len(xs))
					if input == "callback panics" && bad == "f" {
						panic(errCallback)
					}
					for k := range xs {
						os[k] = g(xs[k])
						if lo+k == 1 && (bad == "f" && strings.HasPrefix(input, "f ") || bad == "fp" && input == "derivative NaN") {
							os[k] = badValue(input)
						}
					}
					return nil
				}
			}
			res, err := NewtonArrayDist(elem(func(x float64) float64 { return x*x - 2 }, "f"),
				elem(func(x float64) float64 { return 2 * x }, "fp"), x0, o)
			if res == nil {
				return false, "", err
			}
			res.Free()
			return err == nil && res.NumConverged == n, fmt.Sprintf("%d failed", res.NumFailed), err
		}})
	}
	return cases
}

// rootCases are Root's (hybrd, and hybrj with Jac) on x0^2 = 2, x1 = 1.
func rootCases() []contractCase {
	var cases []contractCase
	for _, jac := range []bool{false, true} {
		for _, input := range contractInputs {
			jac, input := jac, input
			name := "Root (hybrd)"
			if jac {
				name = "Root (hybrj, Jac)"
			}
			if input == "bad bounds" || input == "iteration limit" || !jac && strings.HasPrefix(input, "derivative") {
				continue
			}
			cases = append(cases, contractCase{name, input, func(c *counter) (bool, string, error) {
				x0 := []float64{1, 1}
				o := &RootOptions{}
				f := func(x, fx []float64) {
					c.tick(1)
					if input == "callback panics" {
						panic(errCallback)
					}
					fx[0], fx[1] = x[0]*x[0]-2, x[1]-1
					if strings.HasPrefix(input, "f ") {
						fx[1] = badValue(input)
					}
				}
				if jac {
					o.Jac = func(x []float64, j *mat.Dense) {
						c.tick(1)
						if input == "derivative wrong shape" {
							*j = *mat.NewDense(3, 3, nil)
							return
						}
						j.Set(0, 0, 2*x[0])
						j.Set(0, 1, 0)
						j.Set(1, 0, 0)
						j.Set(1, 1, 1)
						if input == "derivative NaN" {
							j.Set(1, 1, math.NaN())
						}
					}
				}
				switch input {
				case "x0 NaN", "x0 +Inf":
					x0[1] = badValue(input)
				case "n = 0":
					x0 = nil
				case "evaluation limit":
					o.MaxFev = 3
				}
				res, err := Root(f, x0, o)
				return res.Success, fmt.Sprintf("info %d", res.Info), err
			}})
		}
	}
	return cases
}

// minimizeCases are Minimize's three methods on the Rosenbrock function
// in two variables (BFGS and L-BFGS with its gradient).
func minimizeCases() []contractCase {
	var cases []contractCase
	for _, m := range []Method{BFGS, LBFGS, NelderMead} {
		for _, input := range contractInputs {
			m, input := m, input
			if input == "derivative wrong shape" || input == "bad bounds" || m == NelderMead && input == "derivative NaN" {
				continue
			}
			cases = append(cases, contractCase{"Minimize (" + m.String() + ")", input, func(c *counter) (bool, string, error) {
				x0 := []float64{-1.2, 1}
				o := &MinimizeOptions{Method: m}
				f := func(x []float64) float64 {
					c.tick(1)
					if input == "callback panics" {
						panic(errCallback)
					}
					if strings.HasPrefix(input, "f ") {
						return badValue(input)
					}
					return rosen(x)
				}
				if m != NelderMead {
					o.Grad = func(g, x []float64) {
						c.tick(1)
						rosenGrad(g, x)
						if input == "derivative NaN" {
							g[1] = math.NaN()
						}
					}
				}
				switch input {
				case "x0 NaN", "x0 +Inf":
					x0[1] = badValue(input)
				case "n = 0":
					x0 = nil
				case "iteration limit":
					o.MaxIter = 2
				case "evaluation limit":
					o.MaxFev = 5
				}
				res, err := Minimize(f, x0, o)
				return res.Success, fmt.Sprintf("status %d", res.Status), err
			}})
		}
	}
	return cases
}

// minimizeDistCases are MinimizeDist's, on sum((x_i - 1)^2) over three
// elements (five where f panics), collective.
func minimizeDistCases() []contractCase {
	var cases []contractCase
	for _, input := range contractInputs {
		input := input
		if input == "derivative wrong shape" {
			continue
		}
		cases = append(cases, contractCase{"MinimizeDist", input, func(c *counter) (bool, string, error) {
			n, v := 3, 1.5
			o := &DistMinimizeOptions{}
			switch input {
			case "x0 NaN", "x0 +Inf":
				v = badValue(input)
			case "n = 0":
				n = 0
			case "iteration limit":
				o.MaxIter = 1
			case "evaluation limit":
				o.MaxFun = 1
			}
			x0 := distVector(n, v)
			defer x0.Free()
			if input == "bad bounds" {
				lo, hi := distVector(n, 2), distVector(n, 1)
				defer lo.Free()
				defer hi.Free()
				o.Lower, o.Upper = lo, hi
			}
			f := func(x, g *dist.Array[float64]) (float64, error) {
				c.tick(1)
				if input == "callback panics" {
					panic(errCallback)
				}
				gl := g.LocalData()
				terms := make([]float64, 0, len(gl))
				for k, xk := range x.LocalData() {
					terms = append(terms, (xk-1)*(xk-1)*float64(k+1))
					gl[k] = 2 * (xk - 1) * float64(k+1)
					if input == "derivative NaN" {
						gl[k] = math.NaN()
					}
				}
				s, err := ExactSum(x.Comm(), terms)
				if strings.HasPrefix(input, "f ") {
					s = badValue(input)
				}
				return s, err
			}
			res, err := MinimizeDist(f, x0, o)
			if res == nil {
				return false, "", err
			}
			res.X.Free()
			return res.Success, fmt.Sprintf("status %d", res.Status), err
		}})
	}
	return cases
}

// krylovCases are NewtonKrylov's, on x_i^2 = 2 (three elements, five
// where F panics), collective.
func krylovCases() []contractCase {
	var cases []contractCase
	for _, input := range contractInputs {
		input := input
		switch input {
		case "derivative NaN", "derivative wrong shape", "bad bounds":
			continue
		}
		cases = append(cases, contractCase{"NewtonKrylov", input, func(c *counter) (bool, string, error) {
			n, v := 3, 1.5
			o := &KrylovOptions{}
			switch input {
			case "x0 NaN", "x0 +Inf":
				v = badValue(input)
			case "n = 0":
				n = 0
			case "iteration limit":
				o.MaxIter = 1
			case "evaluation limit":
				o.MaxFev = 2
			}
			x0 := distVector(n, v)
			defer x0.Free()
			f := func(x, fx *dist.Array[float64]) error {
				c.tick(1)
				if input == "callback panics" {
					panic(errCallback)
				}
				lo, _ := x.Range()
				out := fx.LocalData()
				for k, xk := range x.LocalData() {
					out[k] = xk*xk - 2
					if lo+k == 1 && strings.HasPrefix(input, "f ") {
						out[k] = badValue(input)
					}
				}
				return nil
			}
			res, err := NewtonKrylov(f, x0, o)
			if res == nil {
				return false, "", err
			}
			res.X.Free()
			return res.Converged, "", err
		}})
	}
	return cases
}

// TestContractMatrix runs the matrix (at every rank count: the
// distributed solvers' cases are collective) and checks docs/SCIPY.md's
// table against it.
func TestContractMatrix(t *testing.T) {
	world := mpitest.World(t)
	var all []contractCase
	all = append(all, newtonCases()...)
	all = append(all, newtonDistCases()...)
	all = append(all, newtonArrayDistCases()...)
	all = append(all, rootCases()...)
	all = append(all, minimizeCases()...)
	all = append(all, minimizeDistCases()...)
	all = append(all, krylovCases()...)
	cells := map[[2]string]string{}
	var solvers []string
	for _, cc := range all {
		cell, evals, broke := runContract(cc)
		mpitest.Check(t, world, broke == nil, "%s, %s: %v (%s after %d evaluations)", cc.solver, cc.input, broke, cell, evals)
		if len(solvers) == 0 || solvers[len(solvers)-1] != cc.solver {
			solvers = append(solvers, cc.solver)
		}
		cells[[2]string{cc.solver, cc.input}] = cell
	}
	checkContractTable(t, "optimize", contractTable(solvers, cells))
}

// contractTable is the markdown table of the cells.
func contractTable(solvers []string, cells map[[2]string]string) string {
	var b strings.Builder
	b.WriteString("| solver | " + strings.Join(contractInputs, " | ") + " |\n|---|")
	b.WriteString(strings.Repeat("---|", len(contractInputs)) + "\n")
	for _, s := range solvers {
		b.WriteString("| " + s + " |")
		for _, in := range contractInputs {
			cell, ok := cells[[2]string{s, in}]
			if !ok {
				cell = "n/a"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkContractTable compares the table between docs/SCIPY.md's markers
// for pkg with table (XPMPI_UPDATE_DOCS=1: writes it there, at rank 0).
// Where the file is not found (a binary run from elsewhere) it skips.
func checkContractTable(t *testing.T, pkg, table string) {
	begin := "<!-- contract table " + pkg + ": TestContractMatrix generates it; XPMPI_UPDATE_DOCS=1 go test ./" + pkg + " -run ContractMatrix rewrites it -->\n"
	end := "<!-- end of the contract table " + pkg + " -->"
	var path string
	var doc []byte
	for _, p := range []string{"../docs/SCIPY.md", "docs/SCIPY.md"} {
		if b, err := os.ReadFile(p); err == nil {
			path, doc = p, b
			break
		}
	}
	if path == "" {
		t.Log("docs/SCIPY.md not found: its table is not checked")
		return
	}
	s := string(doc)
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if os.Getenv("XPMPI_UPDATE_DOCS") == "1" {
		if mpi.World().Rank() != 0 {
			return
		}
		if i < 0 || j < i {
			s += "\n" + begin + table + end + "\n"
		} else {
			s = s[:i] + begin + table + s[j:]
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if i < 0 || j < i {
		t.Fatalf("%s has no contract table for %s; XPMPI_UPDATE_DOCS=1 writes it:\n%s", path, pkg, table)
	}
	if got := s[i+len(begin) : j]; got != table {
		t.Errorf("%s's contract table for %s is not the matrix's; XPMPI_UPDATE_DOCS=1 rewrites it. The matrix gives:\n%s", path, pkg, table)
	}
}
