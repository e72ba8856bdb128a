//go:build cgo

package fusecuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu" // the host arrays
	"github.com/xpmpi/xpmpi/internal/fakecudatest"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/kernels/fuse/fusecuda"
	"github.com/xpmpi/xpmpi/profiling"
)

// The generated CUDA programs run without a GPU: TestEmulated builds
// backend/cuda's fake CUDA driver (a libcuda.so.1 that runs kernels
// compiled as C++ on the host, with -ffp-contract=off as --fmad=false;
// see internal/fakecudatest) with the programs of emulatedKernels compiled
// in, each in a namespace of its own, and TestEmulatedChild runs in a
// child process that loads it as its driver: there fuse.Kernel.Run on
// arrays of the CUDA backend goes through fusecuda's Launcher (NVRTC,
// module, argument packing, the grid of CUDAProgram.Grid, the partial
// results and the final kernel, the results copied back) and is compared
// with Run on host arrays (the CPU evaluator):
//
//   - elementwise outputs, and the inputs they must leave alone, bit for
//     bit (NaNs as NaNs: their payload is the hardware's);
//   - float sums and dots bit for bit with cudaOrder, a Go model of the
//     order that CUDAProgram documents (each thread adds elements t,
//     t+G, ... in float64, a block's 256 values combine in a fixed tree,
//     the final kernel's threads fold the blocks b, b+256, ... and combine
//     in the same tree), and with the CPU evaluator's result to within
//     the two orders' error bounds (sumBound): the two orders are not the
//     same (the CPU adds 16 lanes per chunk of 512 and the chunks
//     pairwise), so their bits differ in general, and they are the same
//     where the sum is exact (integer-valued terms: the "exact" sums are
//     compared bit for bit with the CPU);
//   - integer sums and dots (wrapping) bit for bit with the CPU;
//   - maxima and minima bit for bit with cudaOrder and equal in value to
//     the CPU's (NaN if any element is NaN on both). Of equal values the
//     CPU keeps the first in element order, the device the one its
//     threads and tree keep, so a maximum or minimum that is zero can be
//     +0 on one and -0 on the other (the "zmax" and "zmin" cases).
//
// What this cannot check is a GPU's own arithmetic: +, -, *, /, sqrt and
// conversions are correctly rounded on both, and the kernels below use no
// Exp, Log or Pow (CUDA's functions are not glibc's).

// emuKernel is a fused kernel of the emulated test, with its arguments.
type emuKernel struct {
	name   string
	k      *fuse.Kernel
	arrays []emuArray
	params fuse.Args
	// terms returns the values that reduction r accumulates, element by
	// element, from the host arrays before (in) and after (out) the CPU
	// run: []float64 for float sums and dots (the float64 products),
	// []uint64 for integer sums and dots, the operand's type for maxima
	// and minima.
	terms func(r string, in, out map[string]any) any
	// exact lists the float sums whose terms are integers small enough
	// that every order gives the same bits.
	exact []string
}

// emuArray is an array argument: its name and its values for n elements.
type emuArray struct {
	name string
	make func(n int) any
}

func f64s(seed uint64, special bool) func(int) any {
	return func(n int) any { return floats[float64](n, seed, special) }
}

func f32s(seed uint64, special bool) func(int) any {
	return func(n int) any { return floats[float32](n, seed, special) }
}

// floats returns n pseudo-random floats of magnitudes from e^-2 to e^2,
// with, where special is set, one in 20 a NaN, an infinity, a signed zero,
// a huge or a tiny value, and a NaN at n/2.
func floats[T float32 | float64](n int, seed uint64, special bool) []T {
	r := rand.New(rand.NewPCG(seed, 11))
	sp := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e30, -1e-30, 3, -3}
	out := make([]T, n)
	for i := range out {
		if special && r.IntN(20) == 0 {
			out[i] = T(sp[r.IntN(len(sp))])
		} else {
			out[i] = T(r.NormFloat64() * math.Exp(r.Float64()*4-2))
		}
	}
	if special && n > 0 {
		out[n/2] = T(math.NaN())
	}
	return out
}

// ints returns n pseudo-random integers of T: one in 8 an extreme
// (0, -1, the smallest and largest), the others of any size where wide is
// set, small (-100 to 100) otherwise.
func ints[T int32 | int64 | uint32](seed uint64, wide bool) func(int) any {
	return func(n int) any {
		r := rand.New(rand.NewPCG(seed, 13))
		lo, hi := minOf[T](), maxOf[T]()
		out := make([]T, n)
		for i := range out {
			switch {
			case r.IntN(8) == 0:
				out[i] = []T{0, ^T(0), lo, hi}[r.IntN(4)]
			case wide:
				out[i] = T(r.Uint64())
			default:
				out[i] = T(r.IntN(201) - 100)
			}
		}
		return out
	}
}

func minOf[T int32 | int64 | uint32]() T {
	var z T
	if ^z < 0 { // signed: the sign bit alone
		return T(1) << (8*unsafe.Sizeof(z) - 1)
	}
	return 0
}

func maxOf[T int32 | int64 | uint32]() T { return ^minOf[T]() }

// zeros returns n values of +0, -0 and, one in 4, other (a nonzero
// value): maxima (other < 0) and minima (other > 0) that are zeros of
// either sign.
func zeros(seed uint64, other float64) func(int) any {
	return func(n int) any {
		r := rand.New(rand.NewPCG(seed, 17))
		out := make([]float64, n)
		for i := range out {
			switch r.IntN(4) {
			case 0:
				out[i] = math.Copysign(0, -1)
			case 1:
				out[i] = other
			}
		}
		if n > 2 {
			out[0] = other // the first zero is not element 0
		}
		return out
	}
}

// products returns the float64 products of a and b (of float32 or
// float64), element by element: a Dot's terms.
func products(a, b any) []float64 {
	switch a := a.(type) {
	case []float64:
		b := b.([]float64)
		out := make([]float64, len(a))
		for i := range a {
			out[i] = a[i] * b[i]
		}
		return out
	case []float32:
		b := b.([]float32)
		out := make([]float64, len(a))
		for i := range a {
			out[i] = float64(a[i]) * float64(b[i])
		}
		return out
	}
	panic(fmt.Sprintf("products of %T", a))
}

// widened returns the float64 values of a (float32 or float64), or the
// uint64 values of a (sign-extended integers): a Sum's terms.
func widened(a any) any {
	switch a := a.(type) {
	case []float64:
		return a
	case []float32:
		out := make([]float64, len(a))
		for i, v := range a {
			out[i] = float64(v)
		}
		return out
	case []int32:
		out := make([]uint64, len(a))
		for i, v := range a {
			out[i] = uint64(int64(v))
		}
		return out
	case []int64:
		out := make([]uint64, len(a))
		for i, v := range a {
			out[i] = uint64(v)
		}
		return out
	case []uint32:
		out := make([]uint64, len(a))
		for i, v := range a {
			out[i] = uint64(v)
		}
		return out
	}
	panic(fmt.Sprintf("widened %T", a))
}

// intProducts returns the wrapping 64-bit products of a and b: an integer
// Dot's terms.
func intProducts(a, b any) []uint64 {
	x, y := widened(a).([]uint64), widened(b).([]uint64)
	out := make([]uint64, len(x))
	for i := range x {
		out[i] = x[i] * y[i]
	}
	return out
}

// emulatedKernels returns the kernels of the test: the CG iteration's
// three passes as solvers/cg builds them, CG's stencil pass (Shift), a
// float32 and an int32 elementwise kernel of casts, Where, Min, Max and
// comparisons, and every kind of reduction.
func emulatedKernels() []emuKernel {
	var ks []emuKernel
	{ // CG, as solvers/cg's fusedKernels.
		x, r, p, ap := fuse.Var[float64]("x"), fuse.Var[float64]("r"), fuse.Var[float64]("p"), fuse.Var[float64]("ap")
		alpha, beta := fuse.Param[float64]("alpha"), fuse.Param[float64]("beta")
		rn := fuse.Out("r", fuse.Sub(r, fuse.Mul(alpha, ap)))
		cgArrays := []emuArray{{"x", f64s(1, false)}, {"r", f64s(2, false)}, {"p", f64s(3, false)}, {"ap", f64s(4, false)}}
		ks = append(ks,
			emuKernel{name: "cg/dot", k: fuse.MustCompile(fuse.Dot("pap", p, ap)), arrays: cgArrays[2:],
				terms: func(_ string, in, _ map[string]any) any { return products(in["p"], in["ap"]) }},
			emuKernel{name: "cg/update", k: fuse.MustCompile(fuse.Out("x", fuse.Add(x, fuse.Mul(alpha, p))), rn, fuse.Dot("rr", rn, rn)),
				arrays: cgArrays, params: fuse.Args{"alpha": 0.3712},
				terms: func(_ string, _, out map[string]any) any { return products(out["r"], out["r"]) }},
			emuKernel{name: "cg/direction", k: fuse.MustCompile(fuse.Out("p", fuse.Add(r, fuse.Mul(beta, p)))),
				arrays: cgArrays[1:3], params: fuse.Args{"beta": 1.29}},
		)
		// The stencil pass of kernels/fuse's cgStencilKernels: Ap = A p
		// and p.Ap in one pass, on a grid of rows of 37.
		const cols = 37
		lap := fuse.Sub(fuse.Mul(fuse.Const(4.0), p), fuse.Shift(p, -cols))
		lap = fuse.Sub(fuse.Sub(fuse.Sub(lap, fuse.Shift(p, cols)), fuse.Shift(p, -1)), fuse.Shift(p, 1))
		apOut := fuse.Out("ap", lap)
		ks = append(ks, emuKernel{name: "cg/stencil", k: fuse.MustCompile(apOut, fuse.Dot("pap", p, apOut)),
			arrays: cgArrays[2:], terms: func(_ string, _, out map[string]any) any { return products(out["p"], out["ap"]) }})
	}
	{ // float32 elementwise, with NaNs, infinities and signed zeros.
		x, y, a := fuse.Var[float32]("x"), fuse.Var[float32]("y"), fuse.Param[float32]("a")
		zero := fuse.Const[float32](0)
		z := fuse.Where(fuse.Lt(x, y), fuse.Min(x, fuse.Mul(a, y)), fuse.Max(fuse.Div(x, y), fuse.Neg(fuse.Abs(x))))
		w := fuse.Add(fuse.Sqrt(fuse.Abs(x)), fuse.Cast[float32](fuse.Mul(fuse.Cast[float64](x), fuse.Cast[float64](y))))
		e := fuse.Where(fuse.And(fuse.Ge(x, zero), fuse.Le(y, x)), fuse.Sub(x, y), fuse.Add(fuse.Max(x, y), fuse.Min(y, zero)))
		// In range before the cast to int32 (out of range is undefined in C).
		finite := fuse.Not(fuse.Or(fuse.Ne(x, x), fuse.Gt(fuse.Abs(x), fuse.Const[float32](1e9))))
		c := fuse.Cast[int32](fuse.Where(finite, fuse.Mul(x, fuse.Const[float32](1000)), fuse.Const[float32](-7)))
		ks = append(ks, emuKernel{name: "float32", k: fuse.MustCompile(fuse.Out("z", z), fuse.Out("w", w), fuse.Out("e", e), fuse.Out("c", c)),
			arrays: []emuArray{{"x", f32s(5, true)}, {"y", f32s(6, true)}, {"z", f32s(7, false)}, {"w", f32s(8, false)},
				{"e", f32s(9, false)}, {"c", ints[int32](10, true)}},
			params: fuse.Args{"a": float32(-1.7)}})
	}
	{ // int32 elementwise (wrapping), with int32 reductions.
		i, j, k := fuse.Var[int32]("i"), fuse.Var[int32]("j"), fuse.Param[int32]("k")
		s := fuse.Out("s", fuse.Add(fuse.Mul(i, k), fuse.Sub(j, i)))
		m := fuse.Where(fuse.Gt(i, j), fuse.Max(i, fuse.Neg(j)), fuse.Min(fuse.Abs(i), j))
		cond := fuse.Or(fuse.Eq(i, j), fuse.And(fuse.Ne(i, fuse.Const[int32](0)), fuse.Not(fuse.Le(j, fuse.Const[int32](0)))))
		flag := fuse.Where(cond, fuse.Const[int32](1), fuse.Const[int32](-1))
		ks = append(ks, emuKernel{name: "int32",
			k: fuse.MustCompile(s, fuse.Out("m", m), fuse.Out("flag", flag),
				fuse.Out("u", fuse.Cast[uint32](fuse.Sub(i, j))), fuse.Out("f", fuse.Cast[float32](i)),
				fuse.Out("l", fuse.Mul(fuse.Cast[int64](i), fuse.Cast[int64](j))),
				fuse.Sum("isum", i), fuse.Dot("idot", i, j), fuse.ReduceMax("imax", j), fuse.ReduceMin("smin", s),
				fuse.Sum("exact", fuse.Cast[float64](flag))),
			arrays: []emuArray{{"i", ints[int32](11, true)}, {"j", ints[int32](12, true)}, {"s", ints[int32](13, true)},
				{"m", ints[int32](14, true)}, {"flag", ints[int32](15, true)}, {"u", ints[uint32](16, true)},
				{"f", f32s(17, false)}, {"l", ints[int64](18, true)}},
			params: fuse.Args{"k": int32(-1640531535)},
			terms: func(r string, in, out map[string]any) any {
				switch r {
				case "isum":
					return widened(in["i"])
				case "idot":
					return intProducts(in["i"], in["j"])
				case "imax":
					return in["j"]
				case "smin":
					return out["s"]
				}
				return widened32(out["flag"])
			},
			exact: []string{"exact"}})
	}
	{ // float64 reductions of finite values.
		x, y, c := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Var[int32]("c")
		ks = append(ks, emuKernel{name: "float64",
			k: fuse.MustCompile(fuse.Sum("sx", x), fuse.Dot("dxy", x, y), fuse.Sum("sxy", fuse.Mul(x, y)),
				fuse.ReduceMax("mx", x), fuse.ReduceMin("mn", y), fuse.Sum("exact", fuse.Cast[float64](c))),
			arrays: []emuArray{{"x", f64s(19, false)}, {"y", f64s(20, false)}, {"c", ints[int32](21, false)}},
			terms: func(r string, in, _ map[string]any) any {
				switch r {
				case "sx", "mx":
					return in["x"]
				case "dxy", "sxy":
					return products(in["x"], in["y"])
				case "mn":
					return in["y"]
				}
				return widened32(in["c"])
			},
			exact: []string{"exact"}})
	}
	{ // float64 with NaNs and infinities, and signed zeros.
		x, zn, zp := fuse.Var[float64]("x"), fuse.Var[float64]("zn"), fuse.Var[float64]("zp")
		ks = append(ks, emuKernel{name: "nan",
			k: fuse.MustCompile(fuse.Sum("sx", x), fuse.ReduceMax("mx", x), fuse.ReduceMin("mn", x),
				fuse.ReduceMax("zmax", zn), fuse.ReduceMin("zmin", zp), fuse.Sum("zsum", zn)),
			arrays: []emuArray{{"x", f64s(22, true)}, {"zn", zeros(23, -1)}, {"zp", zeros(24, 1)}},
			terms: func(r string, in, _ map[string]any) any {
				switch r {
				case "zmax", "zsum":
					return in["zn"]
				case "zmin":
					return in["zp"]
				}
				return in["x"]
			}})
	}
	{ // float32 reductions (accumulated in float64), a NaN in y's minimum.
		x, y := fuse.Var[float32]("x"), fuse.Var[float32]("y")
		ks = append(ks, emuKernel{name: "float32red",
			k:      fuse.MustCompile(fuse.Sum("s", x), fuse.Dot("d", x, x), fuse.ReduceMax("mx", x), fuse.ReduceMin("mn", y)),
			arrays: []emuArray{{"x", f32s(24, false)}, {"y", f32s(25, true)}},
			terms: func(r string, in, _ map[string]any) any {
				switch r {
				case "s":
					return widened(in["x"])
				case "d":
					return products(in["x"], in["x"])
				case "mx":
					return in["x"]
				}
				return in["y"]
			}})
	}
	{ // the other integer types.
		u, q := fuse.Var[uint32]("u"), fuse.Var[int64]("q")
		ks = append(ks, emuKernel{name: "uint32int64",
			k: fuse.MustCompile(fuse.Sum("qs", q), fuse.ReduceMax("umax", u), fuse.ReduceMin("qmin", q), fuse.Dot("ud", u, u),
				fuse.Out("q", fuse.Sub(q, fuse.Cast[int64](u)))),
			arrays: []emuArray{{"u", ints[uint32](26, true)}, {"q", ints[int64](27, true)}},
			terms: func(r string, in, _ map[string]any) any {
				switch r {
				case "qs":
					return widened(in["q"])
				case "umax":
					return in["u"]
				case "qmin":
					return in["q"]
				}
				return intProducts(in["u"], in["u"])
			}})
	}
	return ks
}

// widened32 returns the float64 values of int32s.
func widened32(a any) []float64 {
	x := a.([]int32)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// emulatedSizes are the lengths each kernel runs at: empty, one element,
// less than a warp, around one block (CUDABlock), several blocks, and
// more than CUDAMaxGrid blocks (threads that take several elements).
var emulatedSizes = []int{0, 1, 31, fuse.CUDABlock - 1, fuse.CUDABlock, fuse.CUDABlock + 1, 5*fuse.CUDABlock + 3,
	fuse.CUDAMaxGrid*fuse.CUDABlock + 2*fuse.CUDABlock + 5}

func TestEmulated(t *testing.T) {
	var srcs []fakecudatest.Source
	seen := map[string]bool{}
	for _, ek := range append(emulatedKernels(), emuKernel{k: scratchKernel}) {
		p, err := ek.k.CUDA()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p.Main] {
			continue
		}
		seen[p.Main] = true
		src := fakecudatest.Source{Code: p.Source, Scope: "ns_" + p.Main,
			Entries: []fakecudatest.Entry{{Name: p.Main, Syncs: p.Final != ""}}}
		if p.Final != "" {
			src.Entries = append(src.Entries, fakecudatest.Entry{Name: p.Final, Syncs: true})
		}
		srcs = append(srcs, src)
	}
	fakecudatest.Build(t, srcs...).Run(t, "TestEmulatedChild")
}

// TestEmulatedChild runs in the child process of TestEmulated, on the
// fake CUDA driver.
func TestEmulatedChild(t *testing.T) {
	fakecudatest.SkipUnlessChild(t)
	dev, err := backend.Lookup("cuda")
	if err != nil {
		t.Fatal(err)
	}
	var st emuStats
	count := profiling.Counting(func() {
		for _, ek := range emulatedKernels() {
			for _, n := range emulatedSizes {
				t.Run(fmt.Sprintf("%s/%d", ek.name, n), func(t *testing.T) {
					checkEmulated(t, dev, ek, n, &st)
				})
			}
		}
	})
	if f := count.Count(profiling.Fallback); f != 0 {
		t.Errorf("%d host fallbacks", f)
	}
	t.Logf("float sums and dots (not exact): %d of %d with the CPU's bits (the others within the orders' bound, largest difference %.3g of it); "+
		"maxima and minima: %d of %d with the CPU's bits (the others a zero of the other sign)",
		st.sumSame, st.sums, st.worst, st.extSame, st.exts)
	t.Run("scratch", func(t *testing.T) { checkScratch(t, dev) })
}

// hostArgs returns the kernel's arguments as host arrays, their slices
// (which the CPU run changes) and a copy of them.
func hostArgs(ek emuKernel, n int) (args fuse.Args, vals, in map[string]any) {
	args, vals, in = fuse.Args{}, map[string]any{}, map[string]any{}
	for k, v := range ek.params {
		args[k] = v
	}
	for _, a := range ek.arrays {
		v := a.make(n)
		vals[a.name], in[a.name] = v, a.make(n)
		switch v := v.(type) {
		case []float64:
			args[a.name] = backend.Wrap(v)
		case []float32:
			args[a.name] = backend.Wrap(v)
		case []int32:
			args[a.name] = backend.Wrap(v)
		case []int64:
			args[a.name] = backend.Wrap(v)
		case []uint32:
			args[a.name] = backend.Wrap(v)
		default:
			panic(fmt.Sprintf("array of %T", v))
		}
	}
	return args, vals, in
}

// deviceArgs copies host arguments to dev.
func deviceArgs(t *testing.T, dev backend.Backend, host fuse.Args) fuse.Args {
	args := fuse.Args{}
	for k, v := range host {
		var err error
		switch v := v.(type) {
		case *backend.Array[float64]:
			args[k], err = backend.ToDevice(v, dev)
		case *backend.Array[float32]:
			args[k], err = backend.ToDevice(v, dev)
		case *backend.Array[int32]:
			args[k], err = backend.ToDevice(v, dev)
		case *backend.Array[int64]:
			args[k], err = backend.ToDevice(v, dev)
		case *backend.Array[uint32]:
			args[k], err = backend.ToDevice(v, dev)
		default:
			args[k] = v
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return args
}

// sameArray reports the first element where the host copy of dev differs
// from want (NaNs equal), or -1.
func sameArray(t *testing.T, dev, want any) int {
	switch want := want.(type) {
	case *backend.Array[float64]:
		return firstDiff(t, dev.(*backend.Array[float64]), want.Data())
	case *backend.Array[float32]:
		return firstDiff(t, dev.(*backend.Array[float32]), want.Data())
	case *backend.Array[int32]:
		return firstDiff(t, dev.(*backend.Array[int32]), want.Data())
	case *backend.Array[int64]:
		return firstDiff(t, dev.(*backend.Array[int64]), want.Data())
	case *backend.Array[uint32]:
		return firstDiff(t, dev.(*backend.Array[uint32]), want.Data())
	}
	panic(fmt.Sprintf("array %T", want))
}

func firstDiff[T backend.Numeric](t *testing.T, dev *backend.Array[T], want []T) int {
	got := make([]T, dev.Len())
	if err := backend.CopyToHostSlice(got, dev); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !(got[i] != got[i] && want[i] != want[i]) && backend.ScalarOf(got[i]).Bits() != backend.ScalarOf(want[i]).Bits() {
			return i
		}
	}
	return -1
}

func freeArgs(args fuse.Args) {
	for _, v := range args {
		if f, ok := v.(interface{ Free() }); ok {
			f.Free()
		}
	}
}

// checkEmulated runs ek over n elements on dev and on the host and
// compares them (see the comment at the top of the file).
func checkEmulated(t *testing.T, dev backend.Backend, ek emuKernel, n int, st *emuStats) {
	hargs, hvals, hin := hostArgs(ek, n)
	dargs := deviceArgs(t, dev, hargs)
	defer freeArgs(dargs)
	dres, err := ek.k.Run(dargs)
	if err != nil {
		t.Fatalf("on %v: %v", dev.Device(), err)
	}
	hres, err := ek.k.Run(hargs)
	if err != nil {
		t.Fatalf("on the host: %v", err)
	}
	for _, a := range ek.arrays {
		if i := sameArray(t, dargs[a.name], hargs[a.name]); i >= 0 {
			t.Errorf("%s[%d] differs from the CPU's", a.name, i)
		}
	}
	p, _ := ek.k.CUDA()
	for _, r := range ek.k.Reductions() {
		g, h := dres.Scalar(r), hres.Scalar(r)
		if g.DType() != h.DType() {
			t.Errorf("%s: a %v on the device, %v on the CPU", r, g.DType(), h.DType())
			continue
		}
		terms := ek.terms(r, hin, hvals)
		model := cudaOrder(terms, p.Grid(n), kindOf(ek.k, r))
		if g.Bits() != model.Bits() && !(isNaN(g) && isNaN(model)) {
			t.Errorf("%s = %v (%#x) on the device, %v (%#x) in the documented CUDA order", r, g, g.Bits(), model, model.Bits())
		}
		kind, _ := ek.k.ReductionKind(r)
		switch {
		case kind != fuse.KindSum && g.DType().IsFloat():
			if gf, hf := g.Float64(), h.Float64(); !(gf == hf || gf != gf && hf != hf) {
				t.Errorf("%s = %v on the device, %v on the CPU", r, gf, hf)
			}
			st.exts++
			if g.Bits() == h.Bits() || isNaN(g) && isNaN(h) {
				st.extSame++
			}
		case g.DType() == backend.Float64 && slicesContains(ek.exact, r):
			if g.Bits() != h.Bits() {
				t.Errorf("%s = %v on the device, %v on the CPU: an exact sum", r, g, h)
			}
		case g.DType() == backend.Float64:
			gf, hf := g.Float64(), h.Float64()
			bound := sumBound(terms.([]float64), p.Grid(n))
			if !(gf == hf || gf != gf && hf != hf || math.Abs(gf-hf) <= bound) {
				t.Errorf("%s = %v on the device, %v on the CPU: %g apart, more than the orders' bound %g", r, gf, hf, math.Abs(gf-hf), bound)
			}
			st.sums++
			if g.Bits() == h.Bits() || gf != gf && hf != hf {
				st.sumSame++
			} else if bound > 0 {
				st.worst = max(st.worst, math.Abs(gf-hf)/bound)
			}
		default: // integers
			if g.Bits() != h.Bits() {
				t.Errorf("%s = %v on the device, %v on the CPU", r, g, h)
			}
		}
	}
}

// emuStats counts how the device's reductions compare with the CPU's.
type emuStats struct {
	sums, sumSame int     // float sums and dots, not exact; with the CPU's bits
	worst         float64 // the largest difference from the CPU's, relative to the bound
	exts, extSame int     // float maxima and minima; with the CPU's bits
}

// isNaN reports whether s is a float NaN: its payload is the hardware's
// (the generated code adds in the documented order, but which operand's
// NaN an addition keeps is the compiler's choice).
func isNaN(s backend.Scalar) bool {
	return s.DType().IsFloat() && s.Float64() != s.Float64()
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// redKind is a reduction's kind as the generated code folds it: float
// sum, integer sum, maximum, minimum.
type redKind int

const (
	floatSum redKind = iota
	intSum
	maxKind
	minKind
)

func kindOf(k *fuse.Kernel, r string) redKind {
	kind, dt := k.ReductionKind(r)
	switch {
	case kind == fuse.KindMax:
		return maxKind
	case kind == fuse.KindMin:
		return minKind
	case dt.IsFloat():
		return floatSum
	}
	return intSum
}

// cudaOrder returns the reduction of terms as CUDAProgram documents the
// generated kernels' order, with grid blocks of CUDABlock threads.
func cudaOrder(terms any, grid int, kind redKind) backend.Scalar {
	switch v := terms.(type) {
	case []float64:
		if kind == floatSum {
			return backend.ScalarOf(reduceModel(v, grid, 0.0, func(a, b float64) float64 { return a + b }, func(a, b float64) float64 { return a + b }))
		}
		return extremeModel(v, grid, kind)
	case []uint64:
		if kind == intSum {
			return backend.ScalarOf(reduceModel(v, grid, 0, func(a, b uint64) uint64 { return a + b }, func(a, b uint64) uint64 { return a + b }))
		}
		return extremeModel(v, grid, kind)
	case []float32:
		return extremeModel(v, grid, kind)
	case []int32:
		return extremeModel(v, grid, kind)
	case []int64:
		return extremeModel(v, grid, kind)
	case []uint32:
		return extremeModel(v, grid, kind)
	}
	panic(fmt.Sprintf("terms %T", terms))
}

// extremeModel is cudaOrder for maxima and minima: a thread keeps a value
// that is greater (less), or a NaN (the last one); folding keeps the
// first operand if it is a NaN, else the second if it is a NaN or greater
// (less); both start from the identity (-Inf, +Inf, the type's extremes).
func extremeModel[T backend.Element](v []T, grid int, kind redKind) backend.Scalar {
	isMax := kind == maxKind
	better := func(a, r T) bool { return isMax && a > r || !isMax && a < r }
	step := func(r, a T) T {
		if better(a, r) || a != a {
			return a
		}
		return r
	}
	fold := func(a, b T) T {
		if a != a {
			return a
		}
		if b != b || better(b, a) {
			return b
		}
		return a
	}
	return backend.ScalarOf(reduceModel(v, grid, identityOf[T](isMax), step, fold))
}

func identityOf[T backend.Element](isMax bool) T {
	var z T
	switch p := any(&z).(type) {
	case *float64:
		*p = math.Inf(1)
		if isMax {
			*p = math.Inf(-1)
		}
	case *float32:
		*p = float32(math.Inf(1))
		if isMax {
			*p = float32(math.Inf(-1))
		}
	case *int32:
		*p = math.MaxInt32
		if isMax {
			*p = math.MinInt32
		}
	case *int64:
		*p = math.MaxInt64
		if isMax {
			*p = math.MinInt64
		}
	case *uint32:
		*p = math.MaxUint32
		if isMax {
			*p = 0
		}
	case *uint64:
		*p = math.MaxUint64
		if isMax {
			*p = 0
		}
	}
	return z
}

// reduceModel reduces v in the generated kernels' order: thread t of the
// G = grid*CUDABlock threads steps its accumulator (from ident) through
// elements t, t+G, ...; each block's CUDABlock values are combined by
// fold in a tree (at stride s = CUDABlock/2, ..., 1, value j takes
// fold(value j, value j+s)), giving the block's partial; then thread j of
// the final block folds partials j, j+CUDABlock, ... into ident in order,
// and the same tree combines the threads' values.
func reduceModel[T any](v []T, grid int, ident T, step, fold func(a, b T) T) T {
	const bs = fuse.CUDABlock
	g := grid * bs
	sh := make([]T, bs)
	tree := func() T {
		for s := bs / 2; s > 0; s >>= 1 {
			for j := 0; j < s; j++ {
				sh[j] = fold(sh[j], sh[j+s])
			}
		}
		return sh[0]
	}
	part := make([]T, grid)
	for b := range grid {
		for j := range bs {
			acc := ident
			for i := b*bs + j; i < len(v); i += g {
				acc = step(acc, v[i])
			}
			sh[j] = acc
		}
		part[b] = tree()
	}
	for j := range bs {
		a := ident
		for b := j; b < grid; b += bs {
			a = fold(a, part[b])
		}
		sh[j] = a
	}
	return tree()
}

// sumBound returns a bound on the difference between the CPU evaluator's
// and the generated kernels' float64 sums of terms: the sum of the two
// orders' bounds, each k*2^-53 times the sum of the terms' magnitudes,
// where k is the longest chain of roundings of a term. The CPU's k is
// 51 + log2(n/512) (kernels/fuse's package doc: 32 additions per lane, 4
// to combine the lanes, 15 for the tail, the pairwise tree); the CUDA
// order's is ceil(n/G) additions per thread, 8 levels of the block's
// tree, 4 folds of partials per thread of the final block (CUDAMaxGrid /
// CUDABlock) and 8 levels of its tree. Both are first order in 2^-53;
// the bound gets 1% more for the rest.
func sumBound(terms []float64, grid int) float64 {
	n := len(terms)
	abs := 0.0
	for _, v := range terms {
		abs += math.Abs(v)
	}
	cpu := 51 + math.Ceil(math.Log2(max(1, float64(n)/fuse.ChunkLen)))
	g := grid * fuse.CUDABlock
	cuda := float64((n+g-1)/g + 8 + 4 + 8)
	return 1.01 * (cpu + cuda) * 0x1p-53 * abs
}

// scratchKernel is the kernel of checkScratch.
var scratchKernel = func() *fuse.Kernel {
	x, y := fuse.Var[float64]("x"), fuse.Var[float64]("y")
	return fuse.MustCompile(fuse.Dot("xy", x, y), fuse.ReduceMax("m", y), fuse.Out("y", fuse.Add(y, fuse.Const(0.0))))
}()

// checkScratch checks that the launcher keeps the memory of reductions:
// no allocation for launches of a program after the first at the largest
// grid, the same bits at every launch, and concurrent launches that each
// get their own memory.
func checkScratch(t *testing.T, dev backend.Backend) {
	k := scratchKernel
	// run runs k on dev, from any goroutine (it calls no t.Fatal).
	run := func(n int, seed uint64) (backend.Scalar, backend.Scalar) {
		hx, hy := floats[float64](n, seed, false), floats[float64](n, seed+1, false)
		args := fuse.Args{}
		for name, h := range map[string][]float64{"x": hx, "y": hy} {
			d, err := backend.ToDevice(backend.Wrap(h), dev)
			if err != nil {
				t.Error(err)
				return backend.Scalar{}, backend.Scalar{}
			}
			defer d.Free()
			args[name] = d
		}
		res, err := k.Run(args)
		if err != nil {
			t.Error(err)
			return backend.Scalar{}, backend.Scalar{}
		}
		return res.Scalar("xy"), res.Scalar("m")
	}
	big := 3*fuse.CUDABlock + 1
	before := fusecuda.ScratchAllocs()
	run(fuse.CUDABlock, 1) // one block: the partials and results allocated
	run(big, 1)            // four blocks: the partials grown
	if got := fusecuda.ScratchAllocs() - before; got != 3 {
		t.Errorf("%d allocations for a first launch and a larger grid, want 3 (results, partials, larger partials)", got)
	}
	wantXY, wantM := run(big, 2)
	before = fusecuda.ScratchAllocs()
	for range 5 {
		for _, n := range []int{0, 7, big} {
			xy, m := run(n, 2)
			if n == big && (xy.Bits() != wantXY.Bits() || m.Bits() != wantM.Bits()) {
				t.Errorf("n=%d: %v, %v at a later launch, %v, %v at the first", n, xy, m, wantXY, wantM)
			}
		}
	}
	if got := fusecuda.ScratchAllocs() - before; got != 0 {
		t.Errorf("%d allocations for 15 more launches, want 0", got)
	}
	// Concurrent launches: each gets the bits of the sequential one.
	const workers = 6
	var wg sync.WaitGroup
	errs := make(chan string, workers*4)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				if xy, m := run(big, 2); xy.Bits() != wantXY.Bits() || m.Bits() != wantM.Bits() {
					errs <- fmt.Sprintf("worker %d: %v, %v, want %v, %v", w, xy, m, wantXY, wantM)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	t.Logf("%d allocations for the reductions' memory in all", fusecuda.ScratchAllocs())
}
