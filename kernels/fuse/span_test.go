package fuse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
)

// spanCase is a kernel that has a span, with the arrays and parameters
// its Run takes.
type spanCase struct {
	name   string
	roots  func() []*Expr
	arrays []string // Vars and Outs, each an array of the test's length
}

func spanCases[T backend.Float]() []spanCase {
	x, r, p, ap := Var[T]("x"), Var[T]("r"), Var[T]("p"), Var[T]("ap")
	alpha, beta := Param[T]("alpha"), Param[T]("beta")
	return []spanCase{
		{"update", func() []*Expr {
			rn := Out("r", Sub(r, Mul(alpha, ap)))
			return []*Expr{Out("x", Add(x, Mul(alpha, p))), rn, Dot("rr", rn, rn)}
		}, []string{"x", "r", "p", "ap"}},
		{"pair", func() []*Expr {
			return []*Expr{Out("x", Add(x, Mul(alpha, p))), Out("r", Sub(r, Mul(alpha, ap)))}
		}, []string{"x", "r", "p", "ap"}},
		{"axpy-dot", func() []*Expr {
			rn := Out("r", Sub(r, Mul(alpha, ap)))
			return []*Expr{rn, Dot("rr", rn, rn)}
		}, []string{"r", "ap"}},
		{"axpy", func() []*Expr { return []*Expr{Out("p", Add(r, Mul(beta, p)))} }, []string{"r", "p"}},
		{"axmy", func() []*Expr { return []*Expr{Out("p", Sub(r, Mul(beta, p)))} }, []string{"r", "p"}},
		{"axpy-to", func() []*Expr { return []*Expr{Out("x", Add(r, Mul(beta, p)))} }, []string{"x", "r", "p"}},
		{"dot", func() []*Expr { return []*Expr{Dot("pap", p, ap)} }, []string{"p", "ap"}},
	}
}

// TestSpans runs every kernel that has a span with spans on and off, on
// the same data, and compares the outputs and the reductions bit for bit,
// at lengths with and without a partial chunk, below and above the
// parallel threshold, with one thread and two; and checks that the span
// ran.
func TestSpans(t *testing.T) {
	testSpans[float64](t)
	testSpans[float32](t)
}

func testSpans[T backend.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sizes := []int{0, 1, 15, 17, 511, 512, 513, 1500, ParallelMin + 700}
	for _, c := range spanCases[T]() {
		k := MustCompile(c.roots()...)
		if k.span == nil {
			t.Fatalf("%s: %v has no span", c.name, k)
		}
		for _, n := range sizes {
			for _, threads := range []int{1, 2} {
				name := fmt.Sprintf("%T/%s/n=%d/threads=%d", T(0), c.name, n, threads)
				data := map[string][]T{}
				for i, a := range c.arrays {
					v := make([]T, n)
					for j := range v {
						v[j] = T(rng.NormFloat64() * math.Ldexp(1, rng.IntN(30)-15))
					}
					if i == 0 && n > 3 {
						v[n/2] = T(math.NaN())
					}
					data[a] = v
				}
				run := func(spans bool) (map[string][]T, Result) {
					defer func(prev bool) { noSpans = prev }(noSpans)
					noSpans = !spans
					defer backend.SetThreads(backend.SetThreads(threads))
					args := Args{"alpha": T(0.75), "beta": T(-1.25)}
					arrs := map[string][]T{}
					for _, a := range c.arrays {
						arrs[a] = append([]T(nil), data[a]...)
						args[a] = backend.Wrap(arrs[a])
					}
					ws := k.workspace()
					if _, _, _, err := k.bind(ws, args); err != nil {
						t.Fatal(err)
					}
					if err := k.aliases(ws); err != nil {
						t.Fatal(err)
					}
					// An empty array has no memory, and nothing to run.
					if want := spans && n > 0; ws.rs.span != want {
						t.Errorf("%s: span %v, want %v", name, ws.rs.span, want)
					}
					k.release(ws)
					res, err := k.Run(args)
					if err != nil {
						t.Fatal(err)
					}
					return arrs, res
				}
				on, ron := run(true)
				off, roff := run(false)
				for _, a := range c.arrays {
					for i := range on[a] {
						if x, y := float64(on[a][i]), float64(off[a][i]); !sameBits(x, y) {
							t.Fatalf("%s: %s[%d] = %v with the span, %v without", name, a, i, x, y)
						}
					}
				}
				for _, red := range k.Reductions() {
					if x, y := ron.Float64(red), roff.Float64(red); !sameBits(x, y) {
						t.Errorf("%s: %s = %v with the span, %v without", name, red, x, y)
					}
				}
			}
		}
	}
}

// TestSpanNotTaken checks kernels that must run chunk by chunk: two
// computations (a temporary), a shifted read, an output of a Var (a cast,
// a second computation) and an output of a Param (a store that fills).
func TestSpanNotTaken(t *testing.T) {
	x, y, p := Var[float64]("x"), Var[float64]("y"), Var[float64]("p")
	a := Param[float64]("a")
	n := 1000
	args := Args{"a": 2.0}
	for _, s := range []string{"x", "y", "p", "z"} {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i%7) - 3
		}
		args[s] = backend.Wrap(v)
	}
	for _, c := range []struct {
		name  string
		roots []*Expr
		span  bool // compiled with a span
	}{
		{"two computations", []*Expr{Out("z", Add(x, Mul(a, Mul(p, y))))}, false},
		{"shifted", []*Expr{Out("z", Add(Shift(x, 1), Mul(a, p)))}, true},
		{"output of a Var", []*Expr{Out("z", Add(y, Mul(a, p))), Out("p", y)}, false},
		{"output of a Param", []*Expr{Out("z", Add(y, Mul(a, p))), Out("x", a)}, true},
	} {
		k := MustCompile(c.roots...)
		if (k.span != nil) != c.span {
			t.Errorf("%s: %v: span %v, want %v", c.name, k, k.span != nil, c.span)
		}
		ws := k.workspace()
		if _, _, _, err := k.bind(ws, args); err != nil {
			t.Fatal(err)
		}
		if err := k.aliases(ws); err != nil {
			t.Fatal(err)
		}
		if ws.rs.span {
			t.Errorf("%s: %v runs as a span", c.name, k)
		}
		k.release(ws)
	}
}
