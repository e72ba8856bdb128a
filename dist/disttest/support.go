package disttest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
)

// SupportPage returns the text of docs/SUPPORT.md: for every operation of
// the matrix, on which kinds of layout it gives a value and where it
// refuses (with what its refusal says), from the long matrix's cells at 1 to
// 4 ranks, and the matrix's size.
func SupportPage() string {
	type key struct{ fn, layout string }
	type entry struct {
		value   bool
		refuses map[string][]string // refusal words -> variants (and rank counts) that refuse
		dtypes  map[backend.DType]bool
	}
	entries := map[key]*entry{}
	var funcs []string
	family := map[string]string{}
	dtypes := map[string]map[backend.DType]bool{}
	// The number of cells does not depend on the rank count, only the
	// refusals do.
	counts := map[Level][2]int{}
	for _, l := range []Level{Short, Default, Long} {
		counts[l] = [2]int{len(Cells(Config{Level: l}, 1)), len(Cells(Config{Level: l, Freed: true}, 1))}
	}
	for p := 1; p <= 4; p++ {
		// The refusals are the backends' alike: the CPU's cells.
		h := &harness{cfg: Config{Level: Long}, c: fakeComm{p: p}, only: "cpu"}
		h.each(true)
		for _, c := range h.cells {
			k := key{c.Func, c.Layout}
			e := entries[k]
			if e == nil {
				e = &entry{refuses: map[string][]string{}}
				entries[k] = e
			}
			if _, ok := family[c.Func]; !ok {
				funcs = append(funcs, c.Func)
				family[c.Func] = c.Family
				dtypes[c.Func] = map[backend.DType]bool{}
			}
			dtypes[c.Func][c.DType] = true
			if c.Refuse == "" {
				e.value = true
				continue
			}
			what := strings.TrimPrefix(strings.TrimPrefix(c.Op, c.Func), "(")
			what = strings.TrimSuffix(what, ")")
			if what == "" {
				what = "all"
			}
			w := fmt.Sprintf("%s at %d ranks", what, p)
			if !slices.Contains(e.refuses[c.Refuse], w) {
				e.refuses[c.Refuse] = append(e.refuses[c.Refuse], w)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# What dist supports: operations by layout

This page is generated from the conformance matrix of package dist
(dist/disttest): do not edit it; after a change to the matrix, regenerate it
with

    XPMPI_UPDATE_SUPPORT=1 go test ./dist/disttest -run TestSupportPage

(TestSupportPage fails while the page and the matrix disagree).

Each cell of the matrix is one operation on one kind of layout, one shape, one
element type and one backend (the CPU backend, and the fake device of
backend/fakedev, which takes every device path of dist on host memory), run
at 1 to 4 ranks by the test command. Every rank compares its block of the
result with the same operation computed serially by the matrix's own
reference loops on the whole input: exactly where the data (small nonzero
integers) make the result exact, otherwise within disttest.Tolerance (1e-5
relative for float32 and complex64, 1e-12 for float64 and complex128). Where
the table says an operation refuses, the cell checks that the call returns an
error, or panics, with a message that says the words given (the layout, and
what to do instead), and never returns a value. The refusals are the same on
both backends. Every operation also runs on a freed array, where it must fail
with an error wrapping dist.ErrFreed (TestFreed).

Shapes: 1-D, 2-D and 3-D, with zero-size arrays, fewer elements than ranks,
and sizes that 2, 3 and 4 do not divide. Element types: as the column says
(all twelve: float32, float64, int8 to int64, uint8 to uint64, complex64,
complex128; "real" is the ten real types, "float" float32 and float64).

## Layouts

| layout | how the arrays are made |
|---|---|
`)
	for _, l := range Layouts {
		fmt.Fprintf(&b, "| %s | %s |\n", l.Name, l.Doc)
	}
	fmt.Fprintf(&b, "\n## Operations\n\n")
	fmt.Fprintf(&b, "yes: a value, checked against the reference; no: a refusal that says the words given, for the variants given; -: no cell (the operation does not take the shapes of that layout).\n\n")
	fmt.Fprintf(&b, "| operation | family | types |")
	for _, l := range Layouts {
		fmt.Fprintf(&b, " %s |", l.Name)
	}
	fmt.Fprintf(&b, "\n|---|---|---|%s\n", strings.Repeat("---|", len(Layouts)))
	for _, fn := range funcs {
		fmt.Fprintf(&b, "| %s | %s | %s |", fn, family[fn], typeSet(dtypes[fn]))
		for _, l := range Layouts {
			e := entries[key{fn, l.Name}]
			switch {
			case e == nil:
				b.WriteString(" - |")
			case len(e.refuses) == 0:
				b.WriteString(" yes |")
			default:
				var parts []string
				for _, words := range sortedKeys(e.refuses) {
					which := compact(e.refuses[words])
					quoted := strings.ReplaceAll(words, "|", " ... ")
					if !e.value && everywhere(which) {
						parts = append(parts, fmt.Sprintf("no: %q", quoted))
					} else {
						parts = append(parts, fmt.Sprintf("no (%s): %q", strings.Join(which, "; "), quoted))
					}
				}
				if e.value {
					parts = append([]string{"yes"}, parts...)
				}
				fmt.Fprintf(&b, " %s |", strings.Join(parts, "; "))
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, `
## Where the reference differs from NumPy

The reference loops follow dist's documented conventions where they differ
from NumPy's:

- an axis reduction of a 1-D array (SumAxis, MeanAxis, ArgminAxis, ...)
  gives an array of shape [1], where NumPy gives a 0-d array;
- integer sums, products and their cumulative forms wrap in the element type
  (NumPy widens int32 and uint32 to 64 bits);
- floating-point products are taken in float64 (complex128) and rounded at
  the end; where the result overflows the element type, both must be
  infinite.
`)
	fmt.Fprintf(&b, "\n## The size of the matrix\n\n")
	fmt.Fprintf(&b, "Cells, and freed cells, at every rank count. The test command runs the short matrix (-short) where the ranks outnumber the cores, the default one otherwise; XPMPI_DISTTEST_LONG=1 runs the long one.\n\n")
	fmt.Fprintf(&b, "| matrix | cells | freed cells |\n|---|---|---|\n")
	for _, l := range []Level{Short, Default, Long} {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", [...]string{"short", "default", "long"}[l], counts[l][0], counts[l][1])
	}
	return b.String()
}

// compact joins "X at N ranks" entries of one X into "X at N, M ranks".
func compact(ws []string) []string {
	var order []string
	ranks := map[string][]string{}
	for _, w := range ws {
		what, p, _ := strings.Cut(w, " at ")
		p = strings.TrimSuffix(strings.TrimSuffix(p, " ranks"), " rank")
		if _, ok := ranks[what]; !ok {
			order = append(order, what)
		}
		ranks[what] = append(ranks[what], p)
	}
	var out []string
	for _, what := range order {
		r := ranks[what]
		s := strings.Join(r, ", ") + " ranks"
		if len(r) == 4 {
			s = "any ranks"
		}
		out = append(out, what+" at "+s)
	}
	return out
}

// everywhere reports whether every entry of compact's is at any ranks.
func everywhere(which []string) bool {
	for _, w := range which {
		if !strings.HasSuffix(w, " at any ranks") {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string][]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	slices.Sort(k)
	return k
}

// typeSet names a set of element types.
func typeSet(s map[backend.DType]bool) string {
	has := func(dts ...backend.DType) bool {
		for _, d := range dts {
			if !s[d] {
				return false
			}
		}
		return true
	}
	real := []backend.DType{backend.Float32, backend.Float64, backend.Int32, backend.Int64, backend.Uint32, backend.Uint64, backend.Int8, backend.Int16, backend.Uint8, backend.Uint16}
	cplx := []backend.DType{backend.Complex64, backend.Complex128}
	switch {
	case has(real...) && has(cplx...):
		return "all"
	case has(real...):
		return "real"
	case has(backend.Float32, backend.Float64) && has(cplx...) && len(s) == 4:
		return "float, complex"
	case has(backend.Float32, backend.Float64) && len(s) == 2:
		return "float"
	case has(cplx...) && len(s) == 2:
		return "complex"
	}
	var n []string
	for d := backend.DType(0); int(d) < backend.NumDTypes; d++ {
		if s[d] {
			n = append(n, d.String())
		}
	}
	return strings.Join(n, ", ")
}
