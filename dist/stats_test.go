package dist_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// statsFixture is testdata/stats_fixtures.json, NumPy's values written by
// testdata/stats_gen.py; numbers are strings.
type statsFixture struct {
	Bins     int
	Lo, Hi   string
	AutoBins int `json:"auto_bins"`
	Cases    []statsCase
	Big      struct {
		N                int
		Var0, Var1, Mean string
	}
	Edges []struct {
		Bins          int
		Lo, Hi        string
		Counts, Edges []string
	}
}

type statsCase struct {
	Shape                        []int
	DType                        string
	Mean, Var0, Var1, Std1, Prod string
	Any, All                     bool
	Hist                         []string
	HistAuto                     []string `json:"hist_auto"`
	HistAutoEdges                []string `json:"hist_auto_edges"`
	Cumsum, Cumprod              [][]string
	MeanAxis                     [][]string `json:"mean_axis"`
	VarAxis                      [][]string `json:"var_axis"`
	StdAxis                      [][]string `json:"std_axis"`
}

var loadStats = sync.OnceValues(func() (*statsFixture, error) {
	b, err := os.ReadFile("testdata/stats_fixtures.json")
	if err != nil {
		return nil, err
	}
	var f statsFixture
	return &f, json.Unmarshal(b, &f)
})

func statsFixtures(t *testing.T) *statsFixture {
	t.Helper()
	f, err := loadStats()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// parse reads a fixture number as a T.
func parse[T backend.Element](s string) T {
	switch dt := backend.DTypeOf[T](); {
	case dt.IsFloat():
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic(err)
		}
		return T(v)
	case dt.IsSigned():
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			panic(err)
		}
		return T(v)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return T(v)
}

func parseAll[T backend.Element](s []string) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = parse[T](v)
	}
	return out
}

func isUnsigned[T backend.Element]() bool {
	dt := backend.DTypeOf[T]()
	return !dt.IsFloat() && !dt.IsSigned()
}

// statVals and statFacs are the fixture's arrays (see stats_gen.py).
func statVals[T backend.Element](i int) T {
	v := (7*i + 3) % 11
	if !isUnsigned[T]() {
		v -= 4
	}
	return T(v)
}

func statFacs[T backend.Element](i int) T {
	v := (7*i+3)%5 + 1
	if !isUnsigned[T]() && i%4 == 1 {
		v = -v
	}
	return T(v)
}

// near reports whether got is want to within rtol (relative; absolute
// near 0), NaN matching NaN and infinities matching themselves.
func near(got, want, rtol float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= rtol*math.Max(1, math.Abs(want))
}

// rel reports whether got is want to within rtol relative to want.
func rel(got, want, rtol float64) bool { return math.Abs(got-want) <= rtol*math.Abs(want) }

// same compares a result of T with the fixture's values: exactly for
// integers, to within rtol for floats.
func same[T backend.Element](got, want []T, rtol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !near(float64(got[i]), float64(want[i]), rtol) {
			return false
		}
		if !backend.DTypeOf[T]().IsFloat() && got[i] != want[i] {
			return false
		}
	}
	return true
}

// statLayouts returns the layouts of a test: every split axis with the
// even split, replicated, and, along each axis, a skewed split: one index
// on rank 0, the rest on the last rank, the ranks between them empty.
func statLayouts(shape []int, p int) (names []string, opts [][]dist.Option) {
	for _, a := range axes(shape) {
		names = append(names, fmt.Sprintf("axis%d", a))
		opts = append(opts, []dist.Option{dist.SplitAxis(a)})
		if a == dist.Replicated || p == 1 {
			continue
		}
		n := shape[a]
		counts := make([]int, p)
		counts[p-1] = n
		if n > 0 {
			counts[0], counts[p-1] = 1, n-1
		}
		names = append(names, fmt.Sprintf("axis%d%v", a, counts))
		opts = append(opts, []dist.Option{dist.SplitAxis(a), dist.BlockSizes(counts)})
	}
	return names, opts
}

// errs collects a rank's failures, reported once per case with
// mpitest.Check (which every rank calls the same number of times).
type errs []string

func (e *errs) add(format string, args ...any) { *e = append(*e, fmt.Sprintf(format, args...)) }

func (e errs) check(t *testing.T, c mpi.Comm, name string) {
	t.Helper()
	mpitest.Check(t, c, len(e) == 0, "%s: %s", name, strings.Join(e, "; "))
}

// sameOnEveryRank reports whether every rank holds the same bits.
func sameOnEveryRank(c mpi.Comm, v float64) bool {
	all := make([]uint64, c.Size())
	if err := mpi.Allgather(c, []uint64{math.Float64bits(v)}, all); err != nil {
		return false
	}
	for _, b := range all {
		if b != all[0] {
			return false
		}
	}
	return true
}

// TestStats checks every statistic against NumPy's values for every
// element type, the shapes of the fixtures (1-D to 3-D, empty, fewer
// elements than ranks) and every layout of statLayouts, on the CPU.
func TestStats(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testStats[float32](t, cpu.Default) })
	t.Run("float64", func(t *testing.T) { testStats[float64](t, cpu.Default) })
	t.Run("int32", func(t *testing.T) { testStats[int32](t, cpu.Default) })
	t.Run("int64", func(t *testing.T) { testStats[int64](t, cpu.Default) })
	t.Run("uint32", func(t *testing.T) { testStats[uint32](t, cpu.Default) })
	t.Run("uint64", func(t *testing.T) { testStats[uint64](t, cpu.Default) })
}

func testStats[T backend.Element](t *testing.T, b backend.Backend) {
	c := mpitest.World(t)
	fx := statsFixtures(t)
	dt := backend.DTypeOf[T]()
	// Tolerances of the floating-point results that are not exact: the
	// rounding of float32 products, and the order of NumPy's operations.
	rtol := 1e-12
	if dt == backend.Float32 {
		rtol = 1e-6
	}
	lo, hi := parse[float64](fx.Lo), parse[float64](fx.Hi)
	for _, cs := range fx.Cases {
		if cs.DType != dt.String() {
			continue
		}
		shape := cs.Shape
		names, opts := statLayouts(shape, c.Size())
		for l := range names {
			name := fmt.Sprintf("%v/%s", shape, names[l])
			var e errs
			o := append(opts[l], dist.OnBackend(b))
			x, err := dist.FromFunc(c, shape, func(idx []int) T { return statVals[T](flat(idx, shape)) }, o...)
			if err != nil {
				t.Fatal(err)
			}
			f, err := dist.FromFunc(c, shape, func(idx []int) T { return statFacs[T](flat(idx, shape)) }, o...)
			if err != nil {
				t.Fatal(err)
			}
			empty := prod(shape) == 0
			scalar := func(what string, got float64, err error, want string) {
				if empty {
					if !errors.Is(err, dist.ErrEmpty) || !math.IsNaN(got) {
						e.add("%s of an empty array: %v, %v; want NaN and ErrEmpty", what, got, err)
					}
				} else if err != nil || !near(got, parse[float64](want), 1e-12) {
					e.add("%s: %v, %v; want %s", what, got, err, want)
				}
				if !sameOnEveryRank(c, got) {
					e.add("%s: the ranks' results differ", what)
				}
			}
			m, err := dist.Mean(x)
			scalar("Mean", m, err, cs.Mean)
			v, err := dist.Var(x, 0)
			scalar("Var(0)", v, err, cs.Var0)
			v, err = dist.Var(x, 1)
			scalar("Var(1)", v, err, cs.Var1)
			v, err = dist.Std(x, 1)
			scalar("Std(1)", v, err, cs.Std1)

			if p, err := dist.Prod(f); err != nil || !same([]T{p}, []T{parse[T](cs.Prod)}, rtol) {
				e.add("Prod: %v, %v; want %s", p, err, cs.Prod)
			}
			if a, err := dist.Any(x); err != nil || a != cs.Any {
				e.add("Any: %v, %v; want %v", a, err, cs.Any)
			}
			if a, err := dist.All(x); err != nil || a != cs.All {
				e.add("All: %v, %v; want %v", a, err, cs.All)
			}
			if h, edges, err := dist.Histogram(x, fx.Bins, lo, hi); err != nil || !same(h, parseAll[int64](cs.Hist), 0) || len(edges) != fx.Bins+1 {
				e.add("Histogram: %v, %v; want %v", h, err, cs.Hist)
			}
			h, edges, err := dist.HistogramAuto(x, fx.AutoBins)
			if err != nil || !same(h, parseAll[int64](cs.HistAuto), 0) || !same(edges, parseAll[float64](cs.HistAutoEdges), rtol) {
				e.add("HistogramAuto: %v %v, %v; want %v %v", h, edges, err, cs.HistAuto, cs.HistAutoEdges)
			}

			for axis := range shape {
				arrayResult(&e, fmt.Sprintf("Cumsum(%d)", axis), x, parseAll[T](cs.Cumsum[axis]), 0,
					func() (*dist.Array[T], error) { return dist.Cumsum(x, axis) })
				arrayResult(&e, fmt.Sprintf("Cumprod(%d)", axis), x, parseAll[T](cs.Cumprod[axis]), rtol,
					func() (*dist.Array[T], error) { return dist.Cumprod(f, axis) })
				arrayResult(&e, fmt.Sprintf("MeanAxis(%d)", axis), x, parseAll[float64](cs.MeanAxis[axis]), 1e-12,
					func() (*dist.Array[float64], error) { return dist.MeanAxis(x, axis) })
				arrayResult(&e, fmt.Sprintf("VarAxis(%d, 1)", axis), x, parseAll[float64](cs.VarAxis[axis]), 1e-12,
					func() (*dist.Array[float64], error) { return dist.VarAxis(x, axis, 1) })
				arrayResult(&e, fmt.Sprintf("StdAxis(%d, 0)", axis), x, parseAll[float64](cs.StdAxis[axis]), 1e-12,
					func() (*dist.Array[float64], error) { return dist.StdAxis(x, axis, 0) })
			}
			x.Free()
			f.Free()
			e.check(t, c, name)
		}
	}
}

// arrayResult checks an array result of op against want, and that it is
// on x's device and backend.
func arrayResult[T, U backend.Element](e *errs, what string, x *dist.Array[T], want []U, rtol float64, op func() (*dist.Array[U], error)) {
	r, err := op()
	if err != nil {
		e.add("%s: %v", what, err)
		return
	}
	defer r.Free()
	got, err := dist.Allgather(r)
	if err != nil || !same(got, want, rtol) {
		e.add("%s: %v, %v; want %v", what, got, err, want)
	}
	if r.Device() != x.Device() || r.Local().Backend() != x.Local().Backend() {
		e.add("%s: result on %v, want %v", what, r.Device(), x.Device())
	}
}

// TestVarLargeMean checks that Var keeps its precision when the mean is
// large: values 1e8 + a noise of 1e-3, to 1e-12 relative of NumPy's
// two-pass result at every rank count and layout (a
// one-pass sum of squares would lose every digit of the variance).
func TestVarLargeMean(t *testing.T) {
	c := mpitest.World(t)
	fx := statsFixtures(t)
	n := fx.Big.N
	for _, counts := range [][]int{nil, skewCounts(n, c.Size())} {
		var e errs
		o := []dist.Option{}
		if counts != nil {
			o = append(o, dist.BlockSizes(counts))
		}
		x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 {
			return 1e8 + float64((7*idx[0]+3)%11-5)*1e-3
		}, o...)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []struct {
			ddof int
			want string
		}{{0, fx.Big.Var0}, {1, fx.Big.Var1}} {
			v, err := dist.Var(x, k.ddof)
			if err != nil || !rel(v, parse[float64](k.want), 1e-12) {
				e.add("Var(%d): %v, %v; want %s", k.ddof, v, err, k.want)
			}
			s, err := dist.Std(x, k.ddof)
			if err != nil || !rel(s, math.Sqrt(parse[float64](k.want)), 1e-12) {
				e.add("Std(%d): %v, %v; want sqrt(%s)", k.ddof, s, err, k.want)
			}
		}
		if m, err := dist.Mean(x); err != nil || !near(m, parse[float64](fx.Big.Mean), 1e-15) {
			e.add("Mean: %v, %v; want %s", m, err, fx.Big.Mean)
		}
		// Along an axis: the same values as a 1 x n array.
		x2, err := dist.FromFunc(c, []int{1, n}, func(idx []int) float64 {
			return 1e8 + float64((7*idx[1]+3)%11-5)*1e-3
		}, append(o, dist.SplitAxis(1))...)
		if err != nil {
			t.Fatal(err)
		}
		if va, err := dist.VarAxis(x2, 1, 1); err != nil {
			e.add("VarAxis(1, 1): %v", err)
		} else {
			g, err := dist.Allgather(va)
			if err != nil || len(g) != 1 || !rel(g[0], parse[float64](fx.Big.Var1), 1e-12) {
				e.add("VarAxis(1, 1): %v, %v; want [%s]", g, err, fx.Big.Var1)
			}
			va.Free()
		}
		x.Free()
		x2.Free()
		e.check(t, c, fmt.Sprintf("counts %v", counts))
	}
}

func skewCounts(n, p int) []int {
	counts := make([]int, p)
	counts[p-1] = n
	if n > 0 && p > 1 {
		counts[0], counts[p-1] = 1, n-1
	}
	return counts
}

// TestHistogramEdges checks Histogram's edges and counts against
// numpy.histogram for ranges whose edges are not exact in binary, with
// values on both sides of every edge, and lo == hi.
func TestHistogramEdges(t *testing.T) {
	c := mpitest.World(t)
	fx := statsFixtures(t)
	for _, k := range fx.Edges {
		var e errs
		lo, hi := parse[float64](k.Lo), parse[float64](k.Hi)
		x, err := dist.Linspace(c, lo-0.3, hi+0.3, 97)
		if err != nil {
			t.Fatal(err)
		}
		h, edges, err := dist.Histogram(x, k.Bins, lo, hi)
		if err != nil || !same(h, parseAll[int64](k.Counts), 0) || !same(edges, parseAll[float64](k.Edges), 0) {
			e.add("counts %v edges %v, %v; want %v %v", h, edges, err, k.Counts, k.Edges)
		}
		x.Free()
		e.check(t, c, fmt.Sprintf("%d bins over [%v, %v]", k.Bins, lo, hi))
	}
}

// TestStatsNaN checks NaN and the degenerate cases against NumPy's
// answers: a NaN is true for Any and All, is not counted by Histogram,
// makes Mean and Var NaN, and makes HistogramAuto fail; Var with ddof >= N
// divides by 0 (+Inf, or NaN if every deviation is 0).
func TestStatsNaN(t *testing.T) {
	c := mpitest.World(t)
	nan := math.NaN()
	mk := func(v []float64) *dist.Array[float64] {
		x, err := dist.FromFunc(c, []int{len(v)}, func(idx []int) float64 { return v[idx[0]] })
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	var e errs
	x := mk([]float64{0, nan, 2, 3, 0.5})
	if a, _ := dist.All(x); a {
		e.add("All([0 NaN ...]) true")
	}
	y := mk([]float64{nan, 1, nan})
	if a, err := dist.All(y); !a || err != nil {
		e.add("All([NaN 1 NaN]): %v, %v", a, err)
	}
	z := mk([]float64{0, nan, 0})
	if a, err := dist.Any(z); !a || err != nil {
		e.add("Any([0 NaN 0]): %v, %v", a, err)
	}
	if h, _, err := dist.Histogram(x, 2, 0, 4); err != nil || h[0] != 2 || h[1] != 2 {
		e.add("Histogram of NaN: %v, %v; want [2 2]", h, err)
	}
	if m, err := dist.Mean(x); err != nil || !math.IsNaN(m) {
		e.add("Mean with NaN: %v, %v", m, err)
	}
	if v, err := dist.Var(x, 0); err != nil || !math.IsNaN(v) {
		e.add("Var with NaN: %v, %v", v, err)
	}
	if _, _, err := dist.HistogramAuto(x, 3); err == nil {
		e.add("HistogramAuto with NaN: no error")
	}
	w := mk([]float64{1, 2})
	if v, err := dist.Var(w, 2); err != nil || !math.IsInf(v, 1) {
		e.add("Var([1 2], 2): %v, %v; want +Inf", v, err)
	}
	if v, err := dist.Var(w, 3); err != nil || !math.IsInf(v, 1) {
		e.add("Var([1 2], 3): %v, %v; want +Inf", v, err)
	}
	u := mk([]float64{1, 1})
	if v, err := dist.Var(u, 2); err != nil || !math.IsNaN(v) {
		e.add("Var([1 1], 2): %v, %v; want NaN", v, err)
	}
	if v, err := dist.Var(mk([]float64{1, 2, 4}), -1); err != nil || !near(v, 1.1666666666666665, 1e-15) {
		e.add("Var([1 2 4], -1): %v, %v; want 1.1666666666666665", v, err)
	}
	for _, a := range []*dist.Array[float64]{x, y, z, w, u} {
		a.Free()
	}
	e.check(t, c, "NaN")
}

// TestStatsPanics checks the argument errors.
func TestStatsPanics(t *testing.T) {
	c := mpitest.World(t)
	x, err := dist.Zeros[float64](c, []int{4, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	for _, k := range []struct {
		name string
		f    func()
	}{
		{"bins 0", func() { dist.Histogram(x, 0, 0, 1) }},
		{"lo > hi", func() { dist.Histogram(x, 2, 1, 0) }},
		{"NaN range", func() { dist.Histogram(x, 2, math.NaN(), 1) }},
		{"infinite range", func() { dist.Histogram(x, 2, 0, math.Inf(1)) }},
		{"auto bins 0", func() { dist.HistogramAuto(x, 0) }},
		{"Cumsum axis 2", func() { dist.Cumsum(x, 2) }},
		{"Cumprod axis -3", func() { dist.Cumprod(x, -3) }}, // -1 and -2 are NumPy's last axes
		{"MeanAxis axis 2", func() { dist.MeanAxis(x, 2) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "dist: ") {
					t.Errorf("%s: recovered %v, want a panic starting with \"dist: \"", k.name, r)
				}
			}()
			k.f()
		}()
	}
}
