package dist_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// mathMoreULPs is the largest distance in ulps allowed between the CPU
// backend's (and the fake device's) results of math_more.go's functions
// and NumPy's, by function and float type (float32, float64), over
// testdata/math_more.json; functions not listed must match exactly
// (Sign, Maximum, Minimum, Mod, FloorDivide). float32 results are computed
// in float64 and rounded once; NumPy's float32 functions are glibc's
// float32 ones (log10f, tanf: up to 2 ulps off) or its own SIMD loops.
// float64: Go's Tan reduces huge arguments with 25 ulps of error, as Sin;
// Go's Atan, Asinh, Acosh, Atanh are within a few ulps of glibc's.
var mathMoreULPs = map[string][2]int64{
	"log10":   {2, 1},
	"log2":    {2, 1},
	"tan":     {2, 26},
	"arcsin":  {2, 2},
	"arccos":  {2, 2},
	"arctan":  {2, 2},
	"sinh":    {2, 2},
	"cosh":    {2, 2},
	"arcsinh": {2, 2},
	"arccosh": {2, 2},
	"arctanh": {2, 2},
	"arctan2": {2, 2},
}

func loadMathMoreCases(t *testing.T) (string, []mathCase) {
	t.Helper()
	data, err := os.ReadFile("testdata/math_more.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		NumPy string
		Cases []mathCase
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.NumPy, f.Cases
}

// applyMathMore applies case mc's function of a float type.
func applyMathMore[T backend.Float](mc mathCase, dst, x, y *dist.Array[T]) error {
	f := map[string]func(d, x *dist.Array[T]) error{
		"log10": dist.Log10[T], "log2": dist.Log2[T], "tan": dist.Tan[T], "arcsin": dist.Arcsin[T],
		"arccos": dist.Arccos[T], "arctan": dist.Arctan[T], "sinh": dist.Sinh[T], "cosh": dist.Cosh[T],
		"arcsinh": dist.Arcsinh[T], "arccosh": dist.Arccosh[T], "arctanh": dist.Arctanh[T],
	}[mc.Func]
	if f != nil {
		return f(dst, x)
	}
	if mc.Func == "arctan2" {
		return dist.Arctan2(dst, x, y)
	}
	return applyMathMoreAll(mc, dst, x, y)
}

// applyMathMoreAll applies the functions of every real element type.
func applyMathMoreAll[T backend.Element](mc mathCase, dst, x, y *dist.Array[T]) error {
	switch mc.Func {
	case "sign":
		return dist.Sign(dst, x)
	case "maximum":
		return dist.Maximum(dst, x, y)
	case "minimum":
		return dist.Minimum(dst, x, y)
	case "mod":
		return dist.Mod(dst, x, y)
	case "floordiv":
		return dist.FloorDivide(dst, x, y)
	}
	panic("unknown function " + mc.Func)
}

// TestMathMoreNumPy checks math_more.go's functions against NumPy's values
// (special values: NaN, ±Inf, -0, negative divisors, integer division by 0
// and of the most negative integer by -1), element type by element type,
// on the CPU backend, the fake device (a backend.Math) and the fake device
// without math ("plain": host copies), on even, uneven (empty blocks) and
// replicated layouts, with the whole fixture, two elements (fewer than
// ranks) and none, into a new array and in place (dst == x, and dst == y).
func TestMathMoreNumPy(t *testing.T) {
	c := mpitest.World(t)
	numpy, cases := loadMathMoreCases(t)
	worst := map[string]int64{}
	for _, mode := range []string{"cpu", "aware", "plain"} {
		var b backend.Backend = cpu.Default
		if mode != "cpu" {
			b = modeBackend(t, mode)
		}
		for i, mc := range cases {
			name := fmt.Sprintf("%s/%d:%s/%s", mode, i, mc.Func, mc.DType)
			var w int64
			switch mc.DType {
			case "float32":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMore[float32])
			case "float64":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMore[float64])
			case "int32":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMoreAll[int32])
			case "int64":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMoreAll[int64])
			case "uint32":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMoreAll[uint32])
			case "uint64":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMoreAll[uint64])
			case "int8":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMoreAll[int8])
			case "uint16":
				w = runMathMoreCase(t, c, name, mc, b, applyMathMoreAll[uint16])
			default:
				t.Fatalf("%s: unknown dtype", name)
			}
			k := mc.Func + "/" + mc.DType
			worst[k] = max(worst[k], w)
		}
	}
	if c.Rank() == 0 {
		t.Logf("largest distances from NumPy %s's results, in ulps: %v", numpy, worst)
	}
}

func runMathMoreCase[T backend.Element](t *testing.T, c mpi.Comm, name string, mc mathCase, b backend.Backend,
	apply func(mc mathCase, dst, x, y *dist.Array[T]) error) (worst int64) {
	t.Helper()
	xs, ys, want := fromBitsAll[T](mc.X), fromBitsAll[T](mc.Y), fromBitsAll[T](mc.Want)
	binary := len(ys) > 0
	var tol int64
	if u, ok := mathMoreULPs[mc.Func]; ok {
		tol = u[0]
		if mc.DType == "float64" {
			tol = u[1]
		}
	}
	for _, n := range []int{len(xs), 2, 0} {
		names, opts := mathLayouts(n, c.Size())
		for l := range names {
			for _, alias := range []string{"new", "dst=x", "dst=y"} {
				if alias == "dst=y" && !binary {
					continue
				}
				what := fmt.Sprintf("%s/n=%d/%s/%s", name, n, names[l], alias)
				o := append(opts[l], dist.OnBackend(b))
				x, err := dist.FromFunc(c, []int{n}, func(idx []int) T { return xs[idx[0]] }, o...)
				if err != nil {
					t.Fatal(err)
				}
				y := x
				if binary {
					if y, err = dist.FromFunc(c, []int{n}, func(idx []int) T { return ys[idx[0]] }, o...); err != nil {
						t.Fatal(err)
					}
				}
				dst := x
				switch alias {
				case "new":
					if dst, err = dist.Zeros[T](c, []int{n}, o...); err != nil {
						t.Fatal(err)
					}
				case "dst=y":
					dst = y
				}
				if err := apply(mc, dst, x, y); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got, err := dist.Allgather(dst)
				if err != nil {
					t.Fatal(err)
				}
				bad := -1
				for i := range got {
					d := ulps(got[i], want[i])
					if d > tol && bad < 0 {
						bad = i
					}
					if d != math.MaxInt64 {
						worst = max(worst, d)
					}
				}
				if bad >= 0 {
					mpitest.Check(t, c, false, "%s: element %d: %s(%v, y %v) = %v, NumPy %v (%d ulps, at most %d allowed)",
						what, bad, mc.Func, xs[bad], at(ys, bad), got[bad], want[bad], ulps(got[bad], want[bad]), tol)
				}
				x.Free()
				if binary {
					y.Free()
				}
				if alias == "new" {
					dst.Free()
				}
			}
		}
	}
	return worst
}
