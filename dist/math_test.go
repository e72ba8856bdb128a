package dist_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// mathCase is one case of testdata/math.json (written by math_gen.py with
// NumPy): every value is the integer of its bits.
type mathCase struct {
	Func, DType string
	X, Y, Want  []uint64
	S, Lo, Hi   uint64
}

var mathFixtures struct {
	once  sync.Once
	numpy string
	cases []mathCase
	err   error
}

func loadMathCases(t *testing.T) []mathCase {
	t.Helper()
	mathFixtures.once.Do(func() {
		data, err := os.ReadFile("testdata/math.json")
		if err != nil {
			mathFixtures.err = err
			return
		}
		var f struct {
			NumPy string
			Cases []mathCase
		}
		mathFixtures.err = json.Unmarshal(data, &f)
		mathFixtures.numpy, mathFixtures.cases = f.NumPy, f.Cases
	})
	if mathFixtures.err != nil {
		t.Fatal(mathFixtures.err)
	}
	return mathFixtures.cases
}

// mathULPs is the largest distance in ulps allowed between a result of the
// CPU backend and NumPy's, by function and float type, over the fixtures;
// functions not listed must match exactly (Floor, Abs, Clip, Sqrt). A zero,
// an infinity or a NaN must match exactly (a NaN in any of its forms).
//
// float32: the CPU computes in float64 and rounds once, so its results are
// correctly rounded but for rare double roundings; NumPy's float32 exp
// (SIMD) is the one 2 ulps off (exp(float32(pi)): NumPy 23.140692, the
// float32 nearest e**pi 23.140696). float64: NumPy calls glibc, which is
// within 1 ulp; Go's Sin and Cos reduce the argument with a three-part pi/4
// below 2**29 and lose bits near multiples of pi/2 (sin(pi): 7 ulps) and in
// their Payne-Hanek reduction of huge arguments (sin(1.8e308): 25 ulps).
// Pow is the CPU backend's own (backend/cpu/math.go; math.Pow was 10 ulps
// off at pow(1e30, 1/3)), within 2 ulps of NumPy's over 300000 random
// pairs as well.
var mathULPs = map[string][2]int64{ // float32, float64
	"exp":  {2, 1},
	"log":  {1, 1},
	"sin":  {1, 25},
	"cos":  {1, 7},
	"tanh": {1, 1},
	"pow":  {1, 2},
	"pows": {1, 2},
}

// fromBits returns the T whose bits are the low bits of b.
func fromBits[T backend.Element](b uint64) T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(math.Float32frombits(uint32(b))).(T)
	case float64:
		return any(math.Float64frombits(b)).(T)
	}
	return T(b) // integers: conversion keeps the low bits
}

func fromBitsAll[T backend.Element](b []uint64) []T {
	out := make([]T, len(b))
	for i, v := range b {
		out[i] = fromBits[T](v)
	}
	return out
}

// ulps returns the distance of got from want in units in the last place of
// T, 0 for two NaNs, and MaxInt64 where the two must match exactly and do
// not (a NaN, a zero or an infinity on either side; integers).
func ulps[T backend.Element](got, want T) int64 {
	if got != got && want != want {
		return 0
	}
	g, w := backend.ScalarOf(got), backend.ScalarOf(want)
	if g.Bits() == w.Bits() {
		return 0
	}
	if !g.DType().IsFloat() {
		return math.MaxInt64
	}
	gf, wf := g.Float64(), w.Float64()
	if gf != gf || wf != wf || gf == 0 || wf == 0 || math.IsInf(gf, 0) || math.IsInf(wf, 0) {
		return math.MaxInt64
	}
	key := func(s backend.Scalar) int64 {
		b, sign := s.Bits(), uint64(1)<<63
		if s.DType() == backend.Float32 {
			sign = 1 << 31
		}
		if b&sign != 0 {
			return -int64(b &^ sign)
		}
		return int64(b)
	}
	d := key(g) - key(w)
	if d < 0 {
		d = -d
	}
	return d
}

// mathLayouts returns the layouts of the math tests for n elements on p
// ranks: even blocks, every element on the last rank (empty blocks
// elsewhere), and replicated.
func mathLayouts(n, p int) (names []string, opts [][]dist.Option) {
	names, opts = append(names, "even"), append(opts, nil)
	if p > 1 {
		counts := make([]int, p)
		counts[p-1] = n
		names, opts = append(names, fmt.Sprintf("blocks%v", counts)), append(opts, []dist.Option{dist.BlockSizes(counts)})
	}
	names, opts = append(names, "replicated"), append(opts, []dist.Option{dist.SplitAxis(dist.Replicated)})
	return names, opts
}

// applyMath applies case mc's function with dst the first array and x (and
// y) the others.
func applyMath[T backend.Float](mc mathCase, dst, x, y *dist.Array[T]) error {
	switch mc.Func {
	case "exp":
		return dist.Exp(dst, x)
	case "log":
		return dist.Log(dst, x)
	case "sqrt":
		return dist.Sqrt(dst, x)
	case "sin":
		return dist.Sin(dst, x)
	case "cos":
		return dist.Cos(dst, x)
	case "tanh":
		return dist.Tanh(dst, x)
	case "floor":
		return dist.Floor(dst, x)
	case "pow":
		return dist.Pow(dst, x, y)
	case "pows":
		return dist.PowScalar(dst, x, fromBits[T](mc.S))
	}
	return applyMathAll(mc, dst, x)
}

// applyMathAll applies the functions of every element type, Abs and Clip.
func applyMathAll[T backend.Element](mc mathCase, dst, x *dist.Array[T]) error {
	switch mc.Func {
	case "abs":
		return dist.Abs(dst, x)
	case "clip":
		return dist.Clip(dst, x, fromBits[T](mc.Lo), fromBits[T](mc.Hi))
	}
	panic("unknown function " + mc.Func)
}

// TestMathNumPy checks every function against NumPy's values, element type
// by element type, on even, uneven (empty blocks) and replicated layouts,
// with the whole fixture, two elements (fewer than ranks) and none, into a
// new array and in place (dst == x, and dst == y for Pow).
func TestMathNumPy(t *testing.T) {
	c := mpitest.World(t)
	cases := loadMathCases(t)
	worst := map[string]int64{}
	for i, mc := range cases {
		name := fmt.Sprintf("%d:%s/%s", i, mc.Func, mc.DType)
		var w int64
		switch mc.DType {
		case "float32":
			w = runMathCase[float32](t, c, name, mc, cpu.Default, func(mc mathCase, d, x, y *dist.Array[float32]) error { return applyMath(mc, d, x, y) })
		case "float64":
			w = runMathCase[float64](t, c, name, mc, cpu.Default, func(mc mathCase, d, x, y *dist.Array[float64]) error { return applyMath(mc, d, x, y) })
		case "int32":
			w = runMathCase[int32](t, c, name, mc, cpu.Default, intMath[int32])
		case "int64":
			w = runMathCase[int64](t, c, name, mc, cpu.Default, intMath[int64])
		case "uint32":
			w = runMathCase[uint32](t, c, name, mc, cpu.Default, intMath[uint32])
		case "uint64":
			w = runMathCase[uint64](t, c, name, mc, cpu.Default, intMath[uint64])
		default:
			t.Fatalf("%s: unknown dtype", name)
		}
		k := mc.Func + "/" + mc.DType
		worst[k] = max(worst[k], w)
	}
	if c.Rank() == 0 {
		t.Logf("largest distances from NumPy %s's results, in ulps: %v", mathFixtures.numpy, worst)
	}
}

func intMath[T backend.Element](mc mathCase, d, x, _ *dist.Array[T]) error {
	return applyMathAll(mc, d, x)
}

// runMathCase runs case mc on backend b in every layout, length and
// aliasing, and returns the largest distance in ulps from NumPy's results.
func runMathCase[T backend.Element](t *testing.T, c mpi.Comm, name string, mc mathCase, b backend.Backend,
	apply func(mc mathCase, dst, x, y *dist.Array[T]) error) (worst int64) {
	t.Helper()
	xs, want := fromBitsAll[T](mc.X), fromBitsAll[T](mc.Want)
	ys := fromBitsAll[T](mc.Y)
	var tol int64
	if u, ok := mathULPs[mc.Func]; ok {
		tol = u[0]
		if mc.DType == "float64" {
			tol = u[1]
		}
	}
	for _, n := range []int{len(xs), 2, 0} {
		names, opts := mathLayouts(n, c.Size())
		for l := range names {
			for _, alias := range []string{"new", "dst=x", "dst=y"} {
				if alias == "dst=y" && mc.Func != "pow" {
					continue
				}
				what := fmt.Sprintf("%s/n=%d/%s/%s", name, n, names[l], alias)
				o := append(opts[l], dist.OnBackend(b))
				x, err := dist.FromFunc(c, []int{n}, func(idx []int) T { return xs[idx[0]] }, o...)
				if err != nil {
					t.Fatal(err)
				}
				y := x
				if mc.Func == "pow" {
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
				for _, a := range []*dist.Array[T]{x, y, dst} {
					if a != nil && (a == x || a != dst || alias == "new") {
						a.Free()
					}
				}
			}
		}
	}
	return worst
}

// at returns s[i] for a failure message, or "-" where i is out of range.
func at[T any](s []T, i int) any {
	if i >= 0 && i < len(s) {
		return s[i]
	}
	return "-"
}

// TestMathPanics checks the argument panics: different layouts, and blocks
// on different devices.
func TestMathPanics(t *testing.T) {
	c := mpitest.World(t)
	x, _ := dist.Zeros[float64](c, []int{5})
	y, _ := dist.Zeros[float64](c, []int{6})
	z, _ := dist.Zeros[float64](c, []int{5}, dist.OnBackend(fakedev.Default))
	defer x.Free()
	defer y.Free()
	defer z.Free()
	for _, tc := range []struct {
		name string
		f    func() error
	}{
		{"Exp layouts", func() error { return dist.Exp(y, x) }},
		{"Pow layouts", func() error { return dist.Pow(x, x, y) }},
		{"Clip layouts", func() error { return dist.Clip(y, x, 0, 1) }},
		{"Log devices", func() error { return dist.Log(z, x) }},
		{"PowScalar devices", func() error { return dist.PowScalar(x, z, 2) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 6 || s[:6] != "dist: " {
					t.Errorf("%s: panic %v, want one starting \"dist: \"", tc.name, r)
				}
			}()
			tc.f()
		}()
	}
}

// TestDeviceMath checks the math functions of fake-device arrays: the CPU's
// results bit for bit, on the device, and no copy between host and device,
// since the fake device is a backend.Math; and, on the fake device without
// its math functions ("plain"), one recorded copy of each operand's block
// to the host and one of the result's block back.
func TestDeviceMath(t *testing.T) {
	c := mpitest.World(t)
	cases := loadMathCases(t)
	for _, mode := range []string{"aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			for i, mc := range cases {
				name := fmt.Sprintf("%d:%s/%s", i, mc.Func, mc.DType)
				switch mc.DType {
				case "float32":
					deviceMathCase[float32](t, c, name, mc, b, mode == "plain", func(mc mathCase, d, x, y *dist.Array[float32]) error { return applyMath(mc, d, x, y) })
				case "float64":
					deviceMathCase[float64](t, c, name, mc, b, mode == "plain", func(mc mathCase, d, x, y *dist.Array[float64]) error { return applyMath(mc, d, x, y) })
				case "int32":
					deviceMathCase[int32](t, c, name, mc, b, mode == "plain", intMath[int32])
				case "int64":
					deviceMathCase[int64](t, c, name, mc, b, mode == "plain", intMath[int64])
				case "uint32":
					deviceMathCase[uint32](t, c, name, mc, b, mode == "plain", intMath[uint32])
				case "uint64":
					deviceMathCase[uint64](t, c, name, mc, b, mode == "plain", intMath[uint64])
				}
			}
		})
	}
}

func deviceMathCase[T backend.Element](t *testing.T, c mpi.Comm, name string, mc mathCase, b backend.Backend, plain bool,
	apply func(mc mathCase, dst, x, y *dist.Array[T]) error) {
	t.Helper()
	me := c.Rank()
	xs, ys := fromBitsAll[T](mc.X), fromBitsAll[T](mc.Y)
	size := int64(backend.DTypeOf[T]().Size())
	for _, n := range []int{len(xs), 2} {
		names, opts := mathLayouts(n, c.Size())
		for l := range names {
			for _, alias := range []string{"new", "dst=x", "dst=y"} {
				if alias == "dst=y" && mc.Func != "pow" {
					continue
				}
				what := fmt.Sprintf("%s/n=%d/%s/%s", name, n, names[l], alias)
				var res [2][]T
				for k, on := range []backend.Backend{cpu.Default, b} {
					o := append(opts[l], dist.OnBackend(on))
					x, err := dist.FromFunc(c, []int{n}, func(idx []int) T { return xs[idx[0]] }, o...)
					if err != nil {
						t.Fatal(err)
					}
					operands := 1
					y := x
					if mc.Func == "pow" {
						operands = 2
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
					if k == 0 {
						err = apply(mc, dst, x, y)
					} else {
						block := size * int64(x.Layout().LocalLen(me))
						var w transfers
						if plain {
							for range operands {
								w = w.plus(toHost(block))
							}
							w = w.plus(toDevice(block))
						}
						expectCopies(t, what, w, func() error { return apply(mc, dst, x, y) })
						if dst.Device() != b.Device() {
							t.Errorf("%s: result on %v", what, dst.Device())
						}
					}
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if res[k], err = dist.Allgather(dst); err != nil {
						t.Fatal(err)
					}
					x.Free()
					if y != x {
						y.Free()
					}
					if dst != x && dst != y {
						dst.Free()
					}
				}
				ok := len(res[0]) == len(res[1])
				for i := 0; ok && i < len(res[0]); i++ {
					ok = backend.ScalarOf(res[0][i]).Bits() == backend.ScalarOf(res[1][i]).Bits()
				}
				mpitest.Check(t, c, ok, "%s: on the device %v, on the CPU %v", what, res[1], res[0])
			}
		}
	}
}

// TestMath2D checks the functions on 2-D and 3-D arrays split along each
// axis (blocks that are not runs of the global order) and replicated,
// against exact values: the functions work on each rank's block whatever
// its box.
func TestMath2D(t *testing.T) {
	c := mpitest.World(t)
	for _, shape := range [][]int{{7, 5}, {2, 9}, {3, 1, 4}} {
		for _, axis := range axes(shape) {
			v := func(idx []int) float64 { return float64(flat(idx, shape)) - 9.5 }
			x, err := dist.FromFunc(c, shape, v, dist.SplitAxis(axis))
			if err != nil {
				t.Fatal(err)
			}
			y, _ := dist.ZerosLike(x)
			if err := dist.Abs(y, x); err != nil {
				t.Fatal(err)
			}
			if err := dist.Clip(y, y, 1, 6); err != nil {
				t.Fatal(err)
			}
			if err := dist.Floor(x, x); err != nil { // in place
				t.Fatal(err)
			}
			gy, err1 := dist.Allgather(y)
			gx, err2 := dist.Allgather(x)
			ok := err1 == nil && err2 == nil
			for i := 0; ok && i < prod(shape); i++ {
				w := float64(i) - 9.5
				ok = gx[i] == math.Floor(w) && gy[i] == min(max(math.Abs(w), 1), 6)
			}
			mpitest.Check(t, c, ok, "%v split along %d: floor %v, clip(abs) %v", shape, axis, gx, gy)
			x.Free()
			y.Free()
		}
	}
}
