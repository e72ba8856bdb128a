package integrate

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
)

// The contract matrix, as optimize's: every solver of the package on every
// kind of bad input, each case ending within contractCap evaluations
// (counted; past it the callback panics and the case fails) without
// reporting success, except an empty problem, which is valid. The outcomes
// make the table of docs/SCIPY.md, which the test checks
// (XPMPI_UPDATE_DOCS=1 rewrites it).

// contractInputs are the matrix's columns, in order. For Quad the
// starting point is the interval; for the ODEs the derivative is Jac.
var contractInputs = []string{
	"x0 NaN", "x0 +Inf", "f NaN", "f +Inf", "derivative NaN", "derivative not written",
	"callback panics", "n = 0", "bad bounds", "iteration limit", "evaluation limit",
}

const contractCap = 5000

var (
	errRunaway  = errors.New("more than contractCap evaluations")
	errCallback = errors.New("the callback's panic")
)

type counter struct{ n int }

func (c *counter) tick(k int) {
	c.n += k
	if c.n > contractCap {
		panic(errRunaway)
	}
}

// contractCase is one cell: run calls the solver and returns whether it
// reported success, a detail for the table, and its error.
type contractCase struct {
	solver, input string
	run           func(c *counter) (success bool, detail string, err error)
}

var integrateSentinels = []struct {
	name string
	err  error
}{
	{"ErrNonFinite", ErrNonFinite}, {"ErrMaxSubdivisions", ErrMaxSubdivisions}, {"ErrRoundoff", ErrRoundoff},
	{"ErrBadIntegrand", ErrBadIntegrand}, {"ErrNoConvergence", ErrNoConvergence}, {"ErrDivergent", ErrDivergent},
	{"ErrNonFiniteState", ErrNonFiniteState}, {"ErrStepTooSmall", ErrStepTooSmall}, {"ErrStiff", ErrStiff},
	{"ErrMaxSteps", ErrMaxSteps}, {"ErrMaxFev", ErrMaxFev},
}

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
		if !strings.HasPrefix(msg, "integrate: ") {
			return "", c.n, fmt.Errorf("a panic that is not the package's: %s", msg)
		}
		cell = "panics"
	case err == nil:
		cell = "ok"
	default:
		cell = "error"
		for _, s := range integrateSentinels {
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

func badValue(input string) float64 {
	if strings.HasSuffix(input, "NaN") {
		return math.NaN()
	}
	return math.Inf(1)
}

// quadCases are Quad's and QuadBatch's on sqrt(x) over [0, 1] (three
// problems for QuadBatch, the second the bad one).
func quadCases() []contractCase {
	var cases []contractCase
	for _, batch := range []bool{false, true} {
		for _, input := range contractInputs {
			batch, input := batch, input
			switch input {
			case "x0 NaN", "x0 +Inf", "derivative NaN", "derivative not written", "evaluation limit":
				continue
			}
			name := "Quad"
			if batch {
				name = "QuadBatch"
			}
			cases = append(cases, contractCase{name, input, func(c *counter) (bool, string, error) {
				a, b := []float64{0, 0, 0}, []float64{1, 1, 1}
				o := &QuadOptions{}
				switch input {
				case "n = 0":
					a, b = a[:0], b[:0]
					if !batch {
						a, b = []float64{0, 1, 0}, []float64{1, 1, 1} // an empty interval
					}
				case "bad bounds":
					a[1] = math.NaN()
				case "iteration limit":
					o.Limit, o.AbsTol, o.RelTol = 2, 1e-14, 1e-14
				}
				g := func(p int, x float64) float64 {
					if input == "callback panics" {
						panic(errCallback)
					}
					if p == 1 && strings.HasPrefix(input, "f ") {
						return badValue(input)
					}
					return math.Sqrt(x)
				}
				if !batch {
					r, err := Quad(func(x float64) float64 { c.tick(1); return g(1, x) }, a[1], b[1], o)
					return err == nil, fmt.Sprintf("ier %d", r.Ier), err
				}
				rs, err := QuadBatch(func(p []int, x, y []float64) {
					c.tick(len(x))
					for k := range x {
						y[k] = g(p[k], x[k])
					}
				}, a, b, o)
				ok := err == nil
				for _, r := range rs {
					ok = ok && r.Err == nil
				}
				return ok, "", err
			}})
		}
	}
	return cases
}

// odeInput prepares an ODE case on y' = -y (two components, the second
// the bad one): the initial state, the options and the right-hand side of
// one system.
func odeInput(input string, m Method) (y0 []float64, o *IVPOptions, f func(t float64, y, dy []float64), jac JacFunc) {
	y0 = []float64{1, 2}
	o = &IVPOptions{Method: m}
	f = func(t float64, y, dy []float64) {
		if input == "callback panics" {
			panic(errCallback)
		}
		for i := range y {
			dy[i] = -y[i]
		}
		if len(dy) > 1 && strings.HasPrefix(input, "f ") {
			dy[1] = badValue(input)
		}
	}
	switch input {
	case "x0 NaN", "x0 +Inf":
		y0[1] = badValue(input)
	case "n = 0":
		y0 = nil
	case "iteration limit":
		o.MaxSteps, o.RelTol = 2, 1e-10
	case "evaluation limit":
		o.MaxFev, o.RelTol = 5, 1e-10
	case "derivative NaN", "derivative not written":
		jac = func(t float64, y, j []float64) {
			if input == "derivative not written" {
				return
			}
			n := len(y)
			for i := range j {
				j[i] = 0
			}
			for i := 0; i < n; i++ {
				j[i*n+i] = -1
			}
			j[n*n-1] = math.NaN()
		}
		o.Jac = jac
	}
	return
}

// odeCases are SolveIVP's cases with each method, and the batches'
// (three systems, the second the bad one; the first sharing the bad
// value where a system's input is its own).
func odeCases() []contractCase {
	var cases []contractCase
	for _, m := range []Method{RK45, Radau, Auto} {
		for _, input := range contractInputs {
			m, input := m, input
			if input == "bad bounds" {
				// t0 or tf not finite.
			} else if m != Radau && strings.HasPrefix(input, "derivative") {
				continue
			}
			cases = append(cases, contractCase{"SolveIVP (" + m.String() + ")", input, func(c *counter) (bool, string, error) {
				y0, o, f, _ := odeInput(input, m)
				t0 := 0.0
				if input == "bad bounds" {
					t0 = math.NaN()
				}
				res, err := SolveIVP(func(t float64, y, dy []float64) { c.tick(1); f(t, y, dy) }, t0, 1, y0, o)
				return res.Status == 0 && err == nil, fmt.Sprintf("status %d", res.Status), err
			}})
		}
	}
	for _, form := range []string{"SolveIVPBatch (RK45)", "SolveIVPBatch (Radau)", "SolveIVPIndexed (RK45)"} {
		for _, input := range contractInputs {
			form, input := form, input
			if strings.HasPrefix(input, "derivative") {
				continue // the batches take no Jacobian
			}
			m := RK45
			if strings.Contains(form, "Radau") {
				m = Radau
			}
			cases = append(cases, contractCase{form, input, func(c *counter) (bool, string, error) {
				y1, o, f, _ := odeInput(input, m)
				dim := len(y1)
				nsys := 3
				if input == "n = 0" {
					dim, nsys = 1, 0
				}
				y0 := make([]float64, 0, nsys*dim)
				for s := 0; s < nsys; s++ {
					for _, v := range y1 {
						if s != 1 && !isFinite(v) {
							v = 1
						}
						y0 = append(y0, v)
					}
				}
				t0 := 0.0
				if input == "bad bounds" {
					t0 = math.NaN()
				}
				sys := func(idx []int, t, y, dy []float64) {
					c.tick(len(t))
					for k := range t {
						s := k
						if idx != nil {
							s = idx[k]
						}
						yk, dk := y[k*dim:(k+1)*dim], dy[k*dim:(k+1)*dim]
						if s == 1 {
							f(t[k], yk, dk)
							continue
						}
						if input == "callback panics" {
							panic(errCallback)
						}
						for i := range yk {
							dk[i] = -yk[i]
						}
					}
				}
				var res *BatchResult
				var err error
				if strings.HasPrefix(form, "SolveIVPIndexed") {
					res, err = SolveIVPIndexed(sys, nsys, dim, t0, 1, y0, o)
				} else {
					res, err = SolveIVPBatch(func(t, y, dy []float64) { sys(nil, t, y, dy) }, nsys, dim, t0, 1, y0, o)
				}
				ok := err == nil
				for _, st := range res.Status {
					ok = ok && st == 0
				}
				return ok, "", err
			}})
		}
	}
	for _, input := range contractInputs {
		input := input
		if strings.HasPrefix(input, "derivative") {
			continue
		}
		cases = append(cases, contractCase{"SolveIVPDist (RK45)", input, func(c *counter) (bool, string, error) {
			_, o, _, _ := odeInput(input, RK45)
			n, v := 3, 1.5
			switch input {
			case "x0 NaN", "x0 +Inf":
				v = badValue(input)
			case "n = 0":
				n = 0
			}
			y0, err := dist.FromFunc(mpi.World(), []int{n}, func(idx []int) float64 {
				if idx[0] == 1 {
					return v
				}
				return 1.5
			})
			if err != nil {
				return false, "", err
			}
			defer y0.Free()
			t0 := 0.0
			if input == "bad bounds" {
				t0 = math.NaN()
			}
			res, err := SolveIVPDist(func(t float64, y, dy *dist.Array[float64]) error {
				c.tick(1)
				if input == "callback panics" {
					panic(errCallback)
				}
				lo, _ := y.Range()
				out := dy.LocalData()
				for k, yk := range y.LocalData() {
					out[k] = -yk
					if lo+k == 1 && strings.HasPrefix(input, "f ") {
						out[k] = badValue(input)
					}
				}
				return nil
			}, t0, 1, y0, o)
			if res == nil {
				return false, "", err
			}
			for _, a := range res.Y {
				a.Free()
			}
			return res.Status == 0 && err == nil, fmt.Sprintf("status %d", res.Status), err
		}})
	}
	return cases
}

// batchDistCases are SolveIVPBatchDist's (the device batch over a dist
// array, here on the CPU backend): three systems of two equations (five
// where f panics, so that every rank calls it), the second the bad one.
// It counts no evaluations: no evaluation limit.
func batchDistCases() []contractCase {
	var cases []contractCase
	for _, input := range contractInputs {
		input := input
		if strings.HasPrefix(input, "derivative") || input == "evaluation limit" {
			continue
		}
		cases = append(cases, contractCase{"SolveIVPBatchDist (RK45, CPU)", input, func(c *counter) (bool, string, error) {
			_, o, _, _ := odeInput(input, RK45)
			nsys, v := 3, 1.5
			switch input {
			case "x0 NaN", "x0 +Inf":
				v = badValue(input)
			case "n = 0":
				nsys = 0
			case "callback panics":
				nsys = 5
			}
			y0, err := dist.FromFunc(mpi.World(), []int{nsys, 2}, func(idx []int) float64 {
				if idx[0] == 1 && idx[1] == 1 {
					return v
				}
				return 1.5
			})
			if err != nil {
				return false, "", err
			}
			defer y0.Free()
			start, _ := y0.Layout().Block(mpi.World().Rank())
			lo := start[0]
			t0 := 0.0
			if input == "bad bounds" {
				t0 = math.NaN()
			}
			res, err := SolveIVPBatchDist(func(tv, y, dy *backend.Array[float64]) error {
				ts, ys, ds := tv.Data(), y.Data(), dy.Data()
				c.tick(len(ts))
				if input == "callback panics" {
					panic(errCallback)
				}
				for k := range ts {
					ds[2*k], ds[2*k+1] = -ys[2*k], -ys[2*k+1]
					if lo+k == 1 && strings.HasPrefix(input, "f ") {
						ds[2*k+1] = badValue(input)
					}
				}
				return nil
			}, t0, 1, y0, o)
			if res == nil {
				return false, "", err
			}
			res.Free()
			return err == nil && res.NumFailed == 0, fmt.Sprintf("%d failed", res.NumFailed), err
		}})
	}
	return cases
}

// TestContractMatrix runs the matrix (at every rank count: SolveIVPDist's
// cases are collective) and checks docs/SCIPY.md's table against it.
func TestContractMatrix(t *testing.T) {
	world := mpitest.World(t)
	var all []contractCase
	all = append(all, quadCases()...)
	all = append(all, odeCases()...)
	all = append(all, batchDistCases()...)
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
	checkContractTable(t, "integrate", contractTable(solvers, cells))
}

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

// checkContractTable is optimize's: the table between docs/SCIPY.md's
// markers for pkg must be table (XPMPI_UPDATE_DOCS=1 writes it, at rank
// 0); where the file is not found it is not checked.
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
