package dist_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// fusedCase is a layout of the arrays of a RunFused test.
type fusedCase struct {
	name  string
	shape []int
	opts  func(p int) []dist.Option
}

// fusedCases are 1-D arrays of 0, 1, 7 and 1000 elements split evenly (at
// 4 ranks the 1-element array leaves 3 ranks empty), 1000 elements all on
// the last rank, and 2-D arrays split along axis 1, one with fewer
// columns than ranks at 3 and 4 ranks, one on a process grid, and arrays
// with ghost layers (the kernel runs on the blocks between them).
func fusedCases() []fusedCase {
	even := func(int) []dist.Option { return nil }
	return []fusedCase{
		{"n=0", []int{0}, even},
		{"n=1", []int{1}, even},
		{"n=7", []int{7}, even},
		{"n=1000", []int{1000}, even},
		{"n=1000/last", []int{1000}, func(p int) []dist.Option {
			counts := make([]int, p)
			counts[p-1] = 1000
			return []dist.Option{dist.BlockSizes(counts)}
		}},
		{"3x7/axis1", []int{3, 7}, func(int) []dist.Option { return []dist.Option{dist.SplitAxis(1)} }},
		{"4x2/axis1", []int{4, 2}, func(int) []dist.Option { return []dist.Option{dist.SplitAxis(1)} }},
		{"5x6/grid", []int{5, 6}, func(int) []dist.Option { return []dist.Option{dist.ProcessGrid(0, 0)} }},
		{"9x3/ghosts", []int{9, 3}, func(int) []dist.Option { return []dist.Option{dist.Ghosts(1)} }},
	}
}

// fusedElem is an element type of the RunFused tests.
type fusedElem interface{ float32 | float64 | int32 }

// fusedX and fusedY are the test's values at global flat index i: small
// integers (with quarters and halves for floats), so that every product
// and sum below is exact in T and every float sum exact in float64, in any
// order.
func fusedX[T fusedElem](i int) T {
	v := T(i%13) - 6
	if fusedFloat[T]() {
		v += T(float64(i%4) * 0.25)
	}
	return v
}

func fusedY[T fusedElem](i int) T {
	if fusedFloat[T]() {
		return T(float64(i%7)*0.5 - 1)
	}
	return T(i%7) - 3
}

func fusedFloat[T fusedElem]() bool { return backend.DTypeOf[T]().IsFloat() }

// fusedKernel is y = a*x + y; z = x*x - y (the old y), with the sum of the
// new y, the dot of x with it, the maximum of z and the minimum of the new
// y.
func fusedKernel[T fusedElem]() *fuse.Kernel {
	x, y, a := fuse.Var[T]("x"), fuse.Var[T]("y"), fuse.Param[T]("a")
	yNew := fuse.Out("y", fuse.Add(fuse.Mul(a, x), y))
	z := fuse.Out("z", fuse.Sub(fuse.Mul(x, x), y))
	return fuse.MustCompile(yNew, z, fuse.Sum("s", yNew), fuse.Dot("d", x, yNew),
		fuse.ReduceMax("mx", z), fuse.ReduceMin("mn", yNew))
}

// bitsEqual reports whether a and b hold the same bits.
func bitsEqual[T fusedElem](a, b []T) bool {
	return slices.EqualFunc(a, b, func(u, v T) bool { return backend.ScalarOf(u).Bits() == backend.ScalarOf(v).Bits() })
}

func bitsOf[T fusedElem](v T) uint64 { return backend.ScalarOf(v).Bits() }

// TestRunFused checks RunFused's outputs and reductions, on the CPU and on
// the fake device, for float64, float32 and int32: the outputs equal the
// unfused operations (MulScalar, Add, Mul, Sub) bit for bit and the values
// computed here; the reductions equal the exact values computed here and
// Sum, Dot, Max and Min of the outputs (the data make every sum exact, so
// any order of additions gives these bits); an array with no elements gives
// the identities. On the fake device the arrays stay there and nothing is
// copied between host and device.
func TestRunFused(t *testing.T) {
	for _, be := range []string{"cpu", "fake"} {
		t.Run(be, func(t *testing.T) {
			b := backend.Backend(cpu.Default)
			if be == "fake" {
				b = fakedev.Default
				slowDevice(t)
			}
			t.Run("float64", func(t *testing.T) { testRunFused[float64](t, b) })
			t.Run("float32", func(t *testing.T) { testRunFused[float32](t, b) })
			t.Run("int32", func(t *testing.T) { testRunFused[int32](t, b) })
		})
	}
}

func testRunFused[T fusedElem](t *testing.T, b backend.Backend) {
	c := mpitest.World(t)
	p := c.Size()
	k := fusedKernel[T]()
	a := T(3)
	for _, fc := range fusedCases() {
		t.Run(fc.name, func(t *testing.T) {
			opts := append(fc.opts(p), dist.OnBackend(b))
			n := prod(fc.shape)
			mk := func(f func(int) T, bk backend.Backend) *dist.Array[T] {
				arr, err := dist.FromFunc(c, fc.shape, func(idx []int) T { return f(flat(idx, fc.shape)) }, append(fc.opts(p), dist.OnBackend(bk))...)
				if err != nil {
					t.Fatal(err)
				}
				return arr
			}
			x, y := mk(fusedX[T], b), mk(fusedY[T], b)
			z, err := dist.Zeros[T](c, fc.shape, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { x.Free(); y.Free(); z.Free() }()

			var res dist.FusedResult
			run := func() (err error) {
				res, err = dist.RunFused(k, fuse.Args{"x": x, "y": y, "z": z, "a": a})
				return err
			}
			if b == backend.Backend(fakedev.Default) {
				before := fakedev.Stats()
				expectCopies(t, "RunFused", transfers{}, run)
				mpitest.Check(t, c, y.Device() == x.Device() && z.Device() == x.Device() && !x.Device().IsHost(),
					"outputs on %v and %v, inputs on %v", y.Device(), z.Device(), x.Device())
				d := fakedev.Stats().Sub(before)
				mpitest.Check(t, c, d.ToHost == 0 && d.ToDevice == 0, "the fake device made %v", d)
			} else if err := run(); err != nil {
				t.Fatal(err)
			}

			// The values computed here, in T's arithmetic as Go does it.
			wantY, wantZ := make([]T, n), make([]T, n)
			var s, d float64
			var is, id int64
			var mx, mn T
			for i := range n {
				xi, yi := fusedX[T](i), fusedY[T](i)
				wantY[i], wantZ[i] = a*xi+yi, xi*xi-yi
				s += float64(wantY[i])
				d += float64(xi) * float64(wantY[i])
				is += int64(wantY[i])
				id += int64(xi) * int64(wantY[i])
				if i == 0 || wantZ[i] > mx {
					mx = wantZ[i]
				}
				if i == 0 || wantY[i] < mn {
					mn = wantY[i]
				}
			}
			if n == 0 {
				mx, mn = fusedIdentity[T](true), fusedIdentity[T](false)
			}
			gy, err1 := dist.Allgather(y)
			gz, err2 := dist.Allgather(z)
			mpitest.Check(t, c, err1 == nil && err2 == nil && bitsEqual(gy, wantY) && bitsEqual(gz, wantZ),
				"y = %v, z = %v, want %v and %v (%v, %v)", gy, gz, wantY, wantZ, err1, err2)

			// The unfused operations on the CPU give the same bits.
			hx, hy := mk(fusedX[T], cpu.Default), mk(fusedY[T], cpu.Default)
			ht, err := dist.ZerosLike(hx)
			if err != nil {
				t.Fatal(err)
			}
			hz, err := dist.ZerosLike(hx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { hx.Free(); hy.Free(); ht.Free(); hz.Free() }()
			dist.Mul(hz, hx, hx)
			dist.Sub(hz, hz, hy)
			dist.MulScalar(ht, hx, a)
			dist.Add(hy, ht, hy)
			uy, err1 := dist.Allgather(hy)
			uz, err2 := dist.Allgather(hz)
			mpitest.Check(t, c, err1 == nil && err2 == nil && bitsEqual(gy, uy) && bitsEqual(gz, uz),
				"fused y = %v, z = %v; unfused %v and %v (%v, %v)", gy, gz, uy, uz, err1, err2)

			// The reductions: the exact values, and the unfused reductions
			// of the outputs, in T where they return a T.
			rs, rd := res.Scalar("s"), res.Scalar("d")
			rmx, rmn := backend.ValueOf[T](res.Scalar("mx")), backend.ValueOf[T](res.Scalar("mn"))
			okTypes := res.Scalar("mx").DType() == backend.DTypeOf[T]() && res.Scalar("mn").DType() == backend.DTypeOf[T]()
			var okSums bool
			if fusedFloat[T]() {
				okSums = rs.DType() == backend.Float64 && rs.Float64() == s && rd.Float64() == d
			} else {
				okSums = rs.DType() == backend.Int64 && rs.Int64() == is && rd.Int64() == id
			}
			mpitest.Check(t, c, okTypes && okSums && bitsOf(rmx) == bitsOf(mx) && bitsOf(rmn) == bitsOf(mn),
				"sum %v, dot %v, max %v, min %v; want %v/%v, %v/%v, %v, %v", rs, rd, res.Scalar("mx"), res.Scalar("mn"), s, is, d, id, mx, mn)
			us, err1 := dist.Sum(hy)
			ud, err2 := dist.Dot(hx, hy)
			mpitest.Check(t, c, err1 == nil && err2 == nil && bitsOf(backend.ValueOf[T](rs)) == bitsOf(us) && bitsOf(backend.ValueOf[T](rd)) == bitsOf(ud),
				"fused sum %v, dot %v; Sum %v, Dot %v (%v, %v)", rs, rd, us, ud, err1, err2)
			umx, err1 := dist.Max(hz)
			umn, err2 := dist.Min(hy)
			if n == 0 {
				mpitest.Check(t, c, errors.Is(err1, dist.ErrEmpty) && errors.Is(err2, dist.ErrEmpty), "Max and Min of nothing: %v, %v", err1, err2)
			} else {
				mpitest.Check(t, c, err1 == nil && err2 == nil && bitsOf(rmx) == bitsOf(umx) && bitsOf(rmn) == bitsOf(umn),
					"fused max %v, min %v; Max %v, Min %v (%v, %v)", rmx, rmn, umx, umn, err1, err2)
			}
		})
	}
}

// fusedIdentity is the result of a maximum (max) or minimum of nothing:
// -Inf and +Inf for floats, the smallest and largest int32.
func fusedIdentity[T fusedElem](max bool) T {
	var v T
	switch p := any(&v).(type) {
	case *float64:
		*p = math.Inf(1)
		if max {
			*p = math.Inf(-1)
		}
	case *float32:
		*p = float32(math.Inf(1))
		if max {
			*p = float32(math.Inf(-1))
		}
	case *int32:
		*p = math.MaxInt32
		if max {
			*p = math.MinInt32
		}
	}
	return v
}

// TestRunFusedExtremes checks the combination of maxima and minima over the
// ranks for every element type, with one value placed at each global index
// in turn (so on each rank in turn, the others holding larger or smaller
// ones): the largest and smallest values of the type, the infinities, a NaN
// (which wins wherever it is), and -0 beside +0.
func TestRunFusedExtremes(t *testing.T) {
	c := mpitest.World(t)
	t.Run("float64", func(t *testing.T) {
		testExtremes(t, c, []float64{-math.MaxFloat64, -1, -0.5, math.Copysign(0, -1), 0, 2, math.MaxFloat64, math.Inf(-1), math.Inf(1), math.NaN()})
	})
	t.Run("float32", func(t *testing.T) {
		testExtremes(t, c, []float32{-math.MaxFloat32, -1, float32(math.Copysign(0, -1)), 0, 3, math.MaxFloat32, float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.NaN())})
	})
	t.Run("int32", func(t *testing.T) { testExtremes(t, c, []int32{math.MinInt32, -7, -1, 0, 1, math.MaxInt32}) })
	t.Run("int64", func(t *testing.T) { testExtremes(t, c, []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}) })
	t.Run("uint32", func(t *testing.T) { testExtremes(t, c, []uint32{0, 1, 1 << 31, math.MaxUint32}) })
	t.Run("uint64", func(t *testing.T) { testExtremes(t, c, []uint64{0, 1, 1 << 63, math.MaxUint64}) })
}

func testExtremes[T backend.Element](t *testing.T, c mpi.Comm, vals []T) {
	const n = 6
	v := fuse.Var[T]("v")
	k := fuse.MustCompile(fuse.ReduceMax("max", v), fuse.ReduceMin("min", v))
	arr, err := dist.Zeros[T](c, []int{n})
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Free()
	lo, _ := arr.Range()
	local := arr.LocalData()
	nan := func(x T) bool { return x != x }
	var bad []string
	global := make([]T, n)
	for _, fill := range vals {
		for _, special := range vals {
			for _, at := range []int{0, n / 2, n - 1} {
				for i := range global {
					global[i] = fill
				}
				global[at] = special
				copy(local, global[lo:])
				res, err := dist.RunFused(k, fuse.Args{"v": arr})
				// The documented result: each rank's block in order, the
				// first of equal values kept (fuse's fold), then the
				// ranks' results combined by Go's max and min (-0 below
				// +0, NaN winning).
				var wmax, wmin T
				first := true
				for r := range c.Size() {
					blo, bhi := arr.Layout().Range(r)
					if blo == bhi {
						continue
					}
					lmax, lmin := global[blo], global[blo]
					for _, x := range global[blo+1 : bhi] {
						if x > lmax || nan(x) {
							lmax = x
						}
						if x < lmin || nan(x) {
							lmin = x
						}
					}
					if first {
						wmax, wmin, first = lmax, lmin, false
					} else {
						wmax, wmin = max(wmax, lmax), min(wmin, lmin)
					}
				}
				gmax, gmin := backend.ValueOf[T](res.Scalar("max")), backend.ValueOf[T](res.Scalar("min"))
				same := func(g, w T) bool {
					if nan(w) {
						return nan(g)
					}
					return backend.ScalarOf(g).Bits() == backend.ScalarOf(w).Bits()
				}
				if err != nil || !same(gmax, wmax) || !same(gmin, wmin) {
					bad = append(bad, fmt.Sprintf("%v at %d among %v: max %v, min %v; want %v, %v (%v)", special, at, fill, gmax, gmin, wmax, wmin, err))
				}
			}
		}
	}
	mpitest.Check(t, c, len(bad) == 0, "%d wrong: %v", len(bad), bad)
}

// TestRunFusedCombination checks, with values whose sums round, that the
// ranks' partial results are combined as Dot combines its own: by an
// allreduce of the float64 partial sums, so that a RunFused dot equals the
// allreduce of Kernel.Run's dot of each rank's block bit for bit; and that
// it is close to Dot's (whose per-rank order of additions differs) and
// the same on a second run.
func TestRunFusedCombination(t *testing.T) {
	c := mpitest.World(t)
	x, y := fuse.Var[float64]("x"), fuse.Var[float64]("y")
	k := fuse.MustCompile(fuse.Dot("d", x, y), fuse.Sum("s", x))
	for _, n := range []int{0, 1, 7, 1000, 5000} {
		xs, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return ref(idx[0]) / 3 })
		if err != nil {
			t.Fatal(err)
		}
		ys, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return math.Sqrt(float64(idx[0]) + 0.5) })
		if err != nil {
			t.Fatal(err)
		}
		res, err := dist.RunFused(k, fuse.Args{"x": xs, "y": ys})
		if err != nil {
			t.Fatal(err)
		}
		again, err := dist.RunFused(k, fuse.Args{"x": xs, "y": ys})
		if err != nil {
			t.Fatal(err)
		}
		lr, err := k.Run(fuse.Args{"x": xs.Local(), "y": ys.Local()})
		if err != nil {
			t.Fatal(err)
		}
		wd, err1 := mpi.AllreduceValue(c, lr.Float64("d"), mpi.Sum)
		ws, err2 := mpi.AllreduceValue(c, lr.Float64("s"), mpi.Sum)
		dd, err3 := dist.Dot(xs, ys)
		gd, gs := res.Float64("d"), res.Float64("s")
		close := math.Abs(gd-dd) <= 1e-13*math.Max(1, math.Abs(dd))
		mpitest.Check(t, c, err1 == nil && err2 == nil && err3 == nil && gd == wd && gs == ws && close &&
			again.Float64("d") == gd && again.Float64("s") == gs,
			"n=%d: dot %v, sum %v (again %v, %v); allreduce of the blocks' %v, %v; Dot %v", n, gd, gs, again.Float64("d"), again.Float64("s"), wd, ws, dd)
		xs.Free()
		ys.Free()
	}
}

// TestRunFusedReplicated checks that a replicated array's reductions are
// its own, not added over the ranks.
func TestRunFusedReplicated(t *testing.T) {
	c := mpitest.World(t)
	x, err := dist.FromFunc(c, []int{7}, func(idx []int) float64 { return float64(idx[0]) }, dist.SplitAxis(dist.Replicated))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	v := fuse.Var[float64]("x")
	k := fuse.MustCompile(fuse.Out("x", fuse.Mul(v, v)), fuse.Sum("s", v), fuse.ReduceMax("m", v))
	res, err := dist.RunFused(k, fuse.Args{"x": x})
	got := x.LocalData()
	mpitest.Check(t, c, err == nil && res.Float64("s") == 21 && res.Float64("m") == 6 && slices.Equal(got, []float64{0, 1, 4, 9, 16, 25, 36}),
		"sum %v, max %v, x %v (%v)", res.Float64("s"), res.Float64("m"), got, err)
}

// TestRunFusedFailure checks that a failure of Kernel.Run on rank 0 only
// (a mistyped Param there) is returned on every rank as the same
// *mpi.RankError naming rank 0, whichever reductions carry the ranks'
// outcomes, and with no reduction on rank 0 alone.
func TestRunFusedFailure(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	f, i, u := fuse.Var[float64]("f"), fuse.Var[int32]("i"), fuse.Var[uint32]("u")
	a := fuse.Param[float64]("a")
	out := fuse.Out("f", fuse.Mul(a, f))
	for _, tc := range []struct {
		name string
		k    *fuse.Kernel
	}{
		{"float sum", fuse.MustCompile(out, fuse.Sum("s", out), fuse.Sum("i", i), fuse.ReduceMax("m", u))},
		{"int sum", fuse.MustCompile(out, fuse.Sum("i", i), fuse.ReduceMax("m", u))},
		{"extremes", fuse.MustCompile(out, fuse.ReduceMin("m", u))},
		{"none", fuse.MustCompile(out)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := dist.Full(c, []int{5}, 2.0)
			is, _ := dist.Full(c, []int{5}, int32(3))
			us, _ := dist.Full(c, []int{5}, uint32(4))
			defer func() { fs.Free(); is.Free(); us.Free() }()
			args := fuse.Args{"f": fs, "i": is, "u": us, "a": 1.5}
			if me == 0 {
				args["a"] = "1.5" // not a float64
			}
			_, err := dist.RunFused(tc.k, args)
			var re *mpi.RankError
			if tc.name == "none" {
				want := me == 0
				mpitest.Check(t, c, (err != nil) == want && (err == nil || strings.Contains(err.Error(), `"a"`)),
					"rank %d: error %v", me, err)
				return
			}
			mpitest.Check(t, c, errors.As(err, &re) && slices.Equal(re.Ranks, []int{0}) && strings.Contains(err.Error(), `"a"`),
				"error %v, want a RankError naming rank 0 and the argument", err)
			// The ranks are still in step: a good call works.
			args["a"] = 1.5
			res, err := dist.RunFused(tc.k, args)
			mpitest.Check(t, c, err == nil && len(tc.k.Reductions()) > 0 && res.Scalar(tc.k.Reductions()[0]).Float64() != 0,
				"a good call after a failed one: %v", err)
		})
	}
}

// TestRunFusedArgs checks the panics on arguments the caller could have
// checked, each naming the argument, and the error of an array of the
// wrong element type.
func TestRunFusedArgs(t *testing.T) {
	c := mpitest.World(t)
	x, y := fuse.Var[float64]("x"), fuse.Var[float64]("y")
	k := fuse.MustCompile(fuse.Out("y", fuse.Add(x, y)), fuse.Sum("s", y))
	mk := func(shape []int, opts ...dist.Option) *dist.Array[float64] {
		a, err := dist.Zeros[float64](c, shape, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Free)
		return a
	}
	xa, ya := mk([]int{6, 4}), mk([]int{6, 4})
	byCols, other, onFake := mk([]int{6, 4}, dist.SplitAxis(1)), mk([]int{6, 5}), mk([]int{6, 4}, dist.OnBackend(fakedev.Default))
	sub, err := c.Split(0, c.Rank())
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Free()
	onSub, err := dist.Zeros[float64](sub, []int{6, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer onSub.Free()
	for _, tc := range []struct {
		name string
		args fuse.Args
		want []string
	}{
		{"missing", fuse.Args{"x": xa}, []string{`missing argument "y"`}},
		{"backend array", fuse.Args{"x": xa, "y": ya.Local()}, []string{`"y"`, "*backend.Array[float64]"}},
		{"nil", fuse.Args{"x": xa, "y": (*dist.Array[float64])(nil)}, []string{`"y"`, "nil"}},
		{"layout axis", fuse.Args{"x": xa, "y": byCols}, []string{`"y"`, `"x"`, "layout", "axis 1"}},
		{"layout shape", fuse.Args{"x": xa, "y": other}, []string{`"y"`, `"x"`, "layout", "[6 5]"}},
		{"device", fuse.Args{"x": xa, "y": onFake}, []string{`"y"`, `"x"`, "fake"}},
		{"communicator", fuse.Args{"x": xa, "y": onSub}, []string{`"y"`, `"x"`, "communicator"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				dist.RunFused(k, tc.args)
				return "no panic"
			}()
			ok := strings.HasPrefix(msg, "dist: RunFused: ")
			for _, w := range tc.want {
				ok = ok && strings.Contains(msg, w)
			}
			if !ok {
				t.Errorf("panic %q, want one naming %q", msg, tc.want)
			}
		})
	}
	f32, err := dist.Zeros[float32](c, []int{6, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer f32.Free()
	_, err = dist.RunFused(k, fuse.Args{"x": f32, "y": ya})
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), `"x"`) && strings.Contains(err.Error(), "float32"),
		"an array of float32 for a Var of float64: error %v", err)
}
