package fuse_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// randExpr is a random float64 expression and its reference: the value of
// element i computed one operator at a time in plain Go.
type randExpr struct {
	e *fuse.Expr
	f func(i int) float64
}

// exprGen makes random expressions over Vars x, y, z (read from the
// copies in old: a Var reads the values from before the call) and Params
// a, b.
type exprGen struct {
	r    *rand.Rand
	old  map[string][]float64
	a, b float64
}

func (g *exprGen) leaf() randExpr {
	switch g.r.IntN(6) {
	case 0, 1, 2:
		name := []string{"x", "y", "z"}[g.r.IntN(3)]
		v := g.old[name]
		return randExpr{fuse.Var[float64](name), func(i int) float64 { return v[i] }}
	case 3:
		return randExpr{fuse.Param[float64]("a"), func(int) float64 { return g.a }}
	case 4:
		return randExpr{fuse.Param[float64]("b"), func(int) float64 { return g.b }}
	}
	c := math.Round(g.r.NormFloat64()*8) / 4
	return randExpr{fuse.Const(c), func(int) float64 { return c }}
}

func (g *exprGen) gen(depth int) randExpr {
	if depth == 0 || g.r.IntN(5) == 0 {
		return g.leaf()
	}
	p := g.a
	if g.r.IntN(2) == 0 {
		p = g.b
	}
	pe := map[float64]*fuse.Expr{g.a: fuse.Param[float64]("a"), g.b: fuse.Param[float64]("b")}[p]
	switch g.r.IntN(14) {
	case 0: // y + s*x: an axpy
		x, y := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Add(y.e, fuse.Mul(pe, x.e)), func(i int) float64 { return y.f(i) + float64(p*x.f(i)) }}
	case 1: // y - x*s
		x, y := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Sub(y.e, fuse.Mul(x.e, pe)), func(i int) float64 { return y.f(i) - float64(x.f(i)*p) }}
	case 2:
		a, b := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Add(a.e, b.e), func(i int) float64 { return a.f(i) + b.f(i) }}
	case 3:
		a, b := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Sub(a.e, b.e), func(i int) float64 { return a.f(i) - b.f(i) }}
	case 4:
		a, b := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Mul(a.e, b.e), func(i int) float64 { return a.f(i) * b.f(i) }}
	case 5:
		a, b := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Div(a.e, b.e), func(i int) float64 { return a.f(i) / b.f(i) }}
	case 6:
		a, b := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Min(a.e, b.e), func(i int) float64 { return min(a.f(i), b.f(i)) }}
	case 7:
		a, b := g.gen(depth-1), g.gen(depth-1)
		return randExpr{fuse.Max(a.e, b.e), func(i int) float64 { return max(a.f(i), b.f(i)) }}
	case 8:
		a := g.gen(depth - 1)
		return randExpr{fuse.Pow(fuse.Abs(a.e), fuse.Const(0.5)), func(i int) float64 { return math.Pow(math.Abs(a.f(i)), 0.5) }}
	case 9:
		a := g.gen(depth - 1)
		return randExpr{fuse.Sqrt(fuse.Abs(a.e)), func(i int) float64 { return math.Sqrt(math.Abs(a.f(i))) }}
	case 10:
		a := g.gen(depth - 1)
		return randExpr{fuse.Exp(fuse.Neg(fuse.Abs(a.e))), func(i int) float64 { return math.Exp(-math.Abs(a.f(i))) }}
	case 11:
		a := g.gen(depth - 1)
		return randExpr{fuse.Log(fuse.Abs(a.e)), func(i int) float64 { return math.Log(math.Abs(a.f(i))) }}
	case 12:
		a := g.gen(depth - 1)
		return randExpr{fuse.Cast[float64](fuse.Cast[float32](a.e)), func(i int) float64 { return float64(float32(a.f(i))) }}
	}
	c1, c2, a, b := g.gen(depth-1), g.gen(depth-1), g.gen(depth-1), g.gen(depth-1)
	cmps := []struct {
		e func(a, b *fuse.Expr) *fuse.Expr
		f func(a, b float64) bool
	}{
		{fuse.Lt, func(a, b float64) bool { return a < b }},
		{fuse.Ge, func(a, b float64) bool { return a >= b }},
		{fuse.Eq, func(a, b float64) bool { return a == b }},
		{fuse.Ne, func(a, b float64) bool { return a != b }},
	}
	cmp := cmps[g.r.IntN(len(cmps))]
	return randExpr{fuse.Where(cmp.e(c1.e, c2.e), a.e, b.e), func(i int) float64 {
		if cmp.f(c1.f(i), c2.f(i)) {
			return a.f(i)
		}
		return b.f(i)
	}}
}

// TestRandom compiles random expressions with random outputs (some of
// them the Vars' arrays, updated in place) and reductions (some of the
// outputs' new values), and checks every result bitwise against the
// operators applied one at a time: the planner's rewrites, shared loops,
// buffer reuse and in-place writes change nothing.
func TestRandom(t *testing.T) {
	cases := 400
	if testing.Short() {
		cases = 100
	}
	r := rand.New(rand.NewPCG(2026, 12))
	for c := range cases {
		n := []int{0, 1, 7, 100, 513, 1000, 5003}[r.IntN(7)]
		if c%50 == 49 {
			n = fuse.ParallelMin + 1 + r.IntN(1000)
		}
		old := map[string][]float64{"x": data[float64](n, uint64(3*c)), "y": data[float64](n, uint64(3*c+1)), "z": data[float64](n, uint64(3*c+2))}
		g := &exprGen{r: r, old: old, a: 0.5 + r.Float64(), b: -0.25 - r.Float64()}
		var roots []*fuse.Expr
		outNames := []string{"x", "y", "z", "u", "w"}
		r.Shuffle(len(outNames), func(i, j int) { outNames[i], outNames[j] = outNames[j], outNames[i] })
		want := map[string][]float64{}
		var outs []randExpr
		for _, name := range outNames[:1+r.IntN(3)] {
			e := g.gen(1 + r.IntN(4))
			o := fuse.Out(name, e.e)
			roots = append(roots, o)
			outs = append(outs, randExpr{o, e.f})
			w := make([]float64, n)
			for i := range w {
				w[i] = e.f(i)
			}
			want[name] = w
		}
		type redWant struct {
			name string
			bits float64
		}
		var reds []redWant
		for k := range r.IntN(4) {
			name := fmt.Sprintf("r%d", k)
			a := g.gen(2)
			if r.IntN(2) == 0 {
				a = outs[r.IntN(len(outs))] // the new values of an output
			}
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = a.f(i)
			}
			switch r.IntN(5) {
			case 0:
				roots = append(roots, fuse.Sum(name, a.e))
				reds = append(reds, redWant{name, refSum(vals)})
			case 1:
				roots = append(roots, fuse.Sum(name, fuse.Mul(a.e, a.e)))
				reds = append(reds, redWant{name, refSum(mul(vals, vals))})
			case 2:
				roots = append(roots, fuse.Dot(name, a.e, a.e))
				reds = append(reds, redWant{name, refSum(mul(vals, vals))})
			case 3:
				roots = append(roots, fuse.ReduceMax(name, a.e))
				reds = append(reds, redWant{name, refMax(vals, math.Inf(-1))})
			default:
				roots = append(roots, fuse.ReduceMin(name, a.e))
				reds = append(reds, redWant{name, refMin(vals, math.Inf(1))})
			}
		}
		k, err := fuse.Compile(roots...)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		args := fuse.Args{"a": g.a, "b": g.b}
		got := map[string][]float64{}
		for _, name := range []string{"x", "y", "z", "u", "w"} {
			v := make([]float64, n)
			if o, ok := old[name]; ok {
				copy(v, o)
			}
			got[name] = v
			args[name] = backend.Wrap(v)
		}
		res, err := k.Run(args)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		for name, w := range want {
			for i := range w {
				if !sameBits(got[name][i], w[i]) {
					t.Fatalf("case %d (n=%d, %v): %s[%d] = %v, want %v", c, n, k, name, i, got[name][i], w[i])
				}
			}
		}
		for name, o := range old {
			if _, ok := want[name]; !ok {
				for i := range o {
					if !sameBits(got[name][i], o[i]) {
						t.Fatalf("case %d: the input %s changed", c, name)
					}
				}
			}
		}
		for _, rw := range reds {
			if g := res.Float64(rw.name); !sameBits(g, rw.bits) {
				t.Fatalf("case %d (n=%d, %v): %s = %v, want %v", c, n, k, rw.name, g, rw.bits)
			}
		}
	}
}
