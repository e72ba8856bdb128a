//go:build cgo

package dist_test

// The device tests that run on a GPU (TestDeviceHaloCUDA, through
// scripts/gpu-check.sh) need the CUDA backend registered; dist itself
// registers only the CPU backend.
import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	_ "github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// TestDeviceStatsCUDA checks that the statistics and axis reductions of
// CUDA arrays run on the device (the CUDA backend's backend.StatsReducer
// and backend.AxisReducer): with a CUDA-aware MPI they record no copy
// between host and device (scalar results come back as Sum's do), and
// their results are the CPU's bit for bit. It skips where any rank has no
// CUDA device; the fake CUDA driver of backend/cuda's tests counts as one:
//
//	g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -ffp-contract=off -fno-strict-aliasing \
//	    -I backend/cuda -o /tmp/libcuda.so.1 backend/cuda/testdata/fakecuda/fakecuda.cpp
//	XPMPI_LIBCUDA=/tmp/libcuda.so.1 XPMPI_NVRTC=/tmp/libcuda.so.1 go test ./dist -run TestDeviceStatsCUDA
//
// (the fake driver's memory is host memory, so that a "CUDA-aware" MPI
// reads it).
func TestDeviceStatsCUDA(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	b, err := backend.Lookup("cuda")
	all, aerr := mpi.AllTrue(c, err == nil)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if !all {
		t.Skipf("no CUDA device on every rank (here: %v)", err)
	}
	setAware(t, aware)
	forEachLayout(t, func(t *testing.T, shape []int, split int) {
		var e errs
		mk := func(f func([]int) float64, on dist.Option) *dist.Array[float64] {
			x, err := dist.FromFunc(c, shape, f, dist.SplitAxis(split), on)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		f := func(idx []int) float64 { return ref(flat(idx, shape)) }
		g := func(idx []int) float64 { return statFacs[float64](flat(idx, shape)) }
		x, h := mk(f, dist.OnBackend(b)), mk(f, dist.OnBackend(cpu.Default))
		xf, hf := mk(g, dist.OnBackend(b)), mk(g, dist.OnBackend(cpu.Default))
		defer func() {
			for _, a := range []*dist.Array[float64]{x, h, xf, hf} {
				a.Free()
			}
		}()
		// onDevice runs f and reports the copies between host and device
		// it recorded.
		onDevice := func(what string, f func()) {
			if w := got(profiling.Counting(f)); w.toHost != 0 || w.toDevice != 0 {
				e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
			}
		}
		scalar := func(what string, dev, host func() (any, error)) {
			var gv any
			var gerr error
			onDevice(what, func() { gv, gerr = dev() })
			hv, herr := host()
			if fmt.Sprint(gv) != fmt.Sprint(hv) || (gerr == nil) != (herr == nil) {
				e.add("%s: %v, %v on the device, %v, %v on the host", what, gv, gerr, hv, herr)
			}
		}
		bits := func(v float64, err error) (any, error) { return math.Float64bits(v), err }
		scalar("Mean", func() (any, error) { return bits(dist.Mean(x)) }, func() (any, error) { return bits(dist.Mean(h)) })
		scalar("Var", func() (any, error) { return bits(dist.Var(x, 1)) }, func() (any, error) { return bits(dist.Var(h, 1)) })
		scalar("Std", func() (any, error) { return bits(dist.Std(x, 0)) }, func() (any, error) { return bits(dist.Std(h, 0)) })
		scalar("Prod", func() (any, error) { return bits(dist.Prod(xf)) }, func() (any, error) { return bits(dist.Prod(hf)) })
		scalar("Any", func() (any, error) { return dist.Any(x) }, func() (any, error) { return dist.Any(h) })
		scalar("All", func() (any, error) { return dist.All(x) }, func() (any, error) { return dist.All(h) })
		hist := func(x *dist.Array[float64]) func() (any, error) {
			return func() (any, error) {
				n, edges, err := dist.Histogram(x, 7, -40, 60)
				return fmt.Sprint(n, edges), err
			}
		}
		scalar("Histogram", hist(x), hist(h))

		// Masks, selection, compaction and conversion (the CUDA backend's
		// backend.Converter).
		for _, op := range []struct {
			name string
			f    func(x, y *dist.Array[float64]) (*dist.Array[uint8], error)
		}{
			{"Less", func(x, y *dist.Array[float64]) (*dist.Array[uint8], error) { return dist.Less(x, y) }},
			{"Equal", func(x, y *dist.Array[float64]) (*dist.Array[uint8], error) { return dist.Equal(x, y) }},
			{"GreaterScalar", func(x, _ *dist.Array[float64]) (*dist.Array[uint8], error) { return dist.GreaterScalar(x, 0) }},
		} {
			var r *dist.Array[uint8]
			var err error
			onDevice(op.name, func() { r, err = op.f(x, xf) })
			hr, herr := op.f(h, hf)
			sameArrays(&e, op.name, r, err, hr, herr, x.Device())
		}
		mask, err1 := dist.GreaterScalar(x, 0)
		hmask, err2 := dist.GreaterScalar(h, 0)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		defer mask.Free()
		defer hmask.Free()
		dw, hw := mk(f, dist.OnBackend(b)), mk(f, dist.OnBackend(cpu.Default))
		var werr error
		onDevice("Where", func() { werr = dist.Where(dw, mask, xf, x) })
		sameArrays(&e, "Where", dw, werr, hw, dist.Where(hw, hmask, hf, h), x.Device())
		if split == 0 || (split == dist.Replicated && c.Size() == 1) { // no redistribution first
			var r *dist.Array[float64]
			var err error
			onDevice("Compact", func() { r, err = dist.Compact(x, mask) })
			hr, herr := dist.Compact(h, hmask)
			sameArrays(&e, "Compact", r, err, hr, herr, x.Device())
		}
		{
			var r *dist.Array[int16]
			var err error
			onDevice("Astype[int16]", func() { r, err = dist.Astype[int16](x) })
			hr, herr := dist.Astype[int16](h)
			sameArrays(&e, "Astype[int16]", r, err, hr, herr, x.Device())
		}

		for axis := range shape {
			floats := []struct {
				name string
				f    func(x *dist.Array[float64]) (*dist.Array[float64], error)
				fac  bool
			}{
				{"Cumsum", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Cumsum(x, axis) }, false},
				{"Cumprod", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Cumprod(x, axis) }, true},
				{"SumAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.SumAxis(x, axis) }, false},
				{"NormAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.NormAxis(x, axis) }, false},
				{"MinAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.MinAxis(x, axis) }, false},
				{"MaxAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.MaxAxis(x, axis) }, false},
				{"MeanAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.MeanAxis(x, axis) }, false},
				{"VarAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.VarAxis(x, axis, 1) }, false},
				{"StdAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.StdAxis(x, axis, 0) }, false},
			}
			for _, op := range floats {
				if shape[axis] == 0 && (op.name == "MinAxis" || op.name == "MaxAxis") {
					continue // a panic: an empty axis has no extremes
				}
				dx, hx := x, h
				if op.fac {
					dx, hx = xf, hf
				}
				what := fmt.Sprintf("%s(%d)", op.name, axis)
				var r *dist.Array[float64]
				var err error
				onDevice(what, func() { r, err = op.f(dx) })
				hr, herr := op.f(hx)
				sameArrays(&e, what, r, err, hr, herr, dx.Device())
			}
			ints := []struct {
				name string
				f    func(x *dist.Array[float64]) (*dist.Array[int64], error)
			}{
				{"ArgminAxis", func(x *dist.Array[float64]) (*dist.Array[int64], error) { return dist.ArgminAxis(x, axis) }},
				{"ArgmaxAxis", func(x *dist.Array[float64]) (*dist.Array[int64], error) { return dist.ArgmaxAxis(x, axis) }},
			}
			for _, op := range ints {
				if shape[axis] == 0 {
					continue
				}
				what := fmt.Sprintf("%s(%d)", op.name, axis)
				var r *dist.Array[int64]
				var err error
				onDevice(what, func() { r, err = op.f(x) })
				hr, herr := op.f(h)
				sameArrays(&e, what, r, err, hr, herr, x.Device())
			}
		}
		e.check(t, c, fmt.Sprintf("rank %d: %v split %d", me, shape, split))
	})
}

// sameArrays adds to e unless r (with error err, expected on device dev)
// and hr (with herr) hold the same elements bit for bit; it frees both.
func sameArrays[T backend.Element](e *errs, what string, r *dist.Array[T], err error, hr *dist.Array[T], herr error, dev backend.Device) {
	if err != nil || herr != nil {
		e.add("%s: %v on the device, %v on the host", what, err, herr)
		return
	}
	defer r.Free()
	defer hr.Free()
	gv, err1 := dist.Allgather(r)
	hv, err2 := dist.Allgather(hr)
	same := len(gv) == len(hv)
	for i := 0; same && i < len(gv); i++ {
		same = backend.ScalarOf(gv[i]).Bits() == backend.ScalarOf(hv[i]).Bits()
	}
	if err1 != nil || err2 != nil || !same || r.Device() != dev {
		e.add("%s: %v on %v (%v, %v), want %v", what, gv, r.Device(), err1, err2, hv)
	}
}

// cudaOrSkip returns the CUDA backend, skipping the test (on every rank)
// unless every rank has one.
func cudaOrSkip(t *testing.T, c mpi.Comm) backend.Backend {
	t.Helper()
	b, err := backend.Lookup("cuda")
	all, aerr := mpi.AllTrue(c, err == nil)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if !all {
		t.Skipf("no CUDA device on every rank (here: %v)", err)
	}
	return b
}

// TestDeviceMatMulCUDA checks that MatMul and MatVec of CUDA arrays
// multiply the blocks on the device (the CUDA backend's backend.GEMM):
// with a CUDA-aware MPI they record no copy between host and device, and
// their results are those of the same product of CPU arrays, exactly for
// integers (which wrap) and, for floats, both within MatMul's documented
// bound 2k·ε·(|a||b|)ij of a serial product: sizes that do not divide
// evenly, fewer rows than ranks, empty matrices, every pair of layouts
// with the ring and the allgather, and a process grid (SUMMA), for
// float64; two of those sizes with the ring for float32, int64 and int32,
// which share the code. It skips
// where any rank has no CUDA device; the fake CUDA driver of backend/cuda's
// tests counts as one (see TestDeviceStatsCUDA).
func TestDeviceMatMulCUDA(t *testing.T) {
	c := mpitest.World(t)
	b := cudaOrSkip(t, c)
	setAware(t, aware)
	deviceMatMulCUDA[float64](t, c, b)
	deviceMatMulCUDA[float32](t, c, b)
	deviceMatMulCUDA[int64](t, c, b)
	deviceMatMulCUDA[int32](t, c, b)
}

func deviceMatMulCUDA[T backend.Element](t *testing.T, c mpi.Comm, b backend.Backend) {
	dt := backend.DTypeOf[T]()
	var e errs // checked once per size: few collectives
	// onDevice runs f and checks that it recorded no copy between host
	// and device.
	onDevice := func(what string, f func() error) {
		t.Helper()
		var err error
		w := got(profiling.Counting(func() { err = f() }))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if w.toHost != 0 || w.toDevice != 0 {
			e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
		}
	}
	// compare checks the CUDA result z against the CPU result h of the
	// product of xs (m x k) and ys (k x n).
	compare := func(what string, z, h *dist.Array[T], xs, ys []T, m, k, n int) {
		t.Helper()
		if z.Device() != b.Device() {
			e.add("%s: result on %v, want %v", what, z.Device(), b.Device())
		}
		zs, err1 := dist.Allgather(z)
		hs, err2 := dist.Allgather(h)
		if err1 != nil || err2 != nil {
			t.Fatal(what, err1, err2)
		}
		want, bound := serialProduct(xs, ys, m, k, n)
		if i := within(zs, want, bound); i >= 0 {
			e.add("%s: element %d: %v on CUDA, want %v", what, i, at(zs, i), at(want, i))
		}
		if i := within(hs, want, bound); i >= 0 {
			e.add("%s: element %d: %v on the CPU, want %v", what, i, at(hs, i), at(want, i))
		}
		if !dt.IsFloat() && !slices.Equal(zs, hs) {
			e.add("%s: %v on CUDA, %v on the CPU", what, zs, hs)
		}
	}
	// Every size with float64; the other types share the code: the sizes
	// with fewer rows than ranks and uneven blocks, the ring only.
	sizes := [][3]int{{0, 3, 2}, {3, 0, 2}, {2, 5, 3}, {7, 5, 3}, {5, 7, 9}, {70, 9, 67}}
	methods := []dist.MatMulMethod{dist.MatMulRing, dist.MatMulAllgather}
	if dt != backend.Float64 {
		sizes, methods = sizes[2:4], methods[:1]
	}
	for _, sz := range sizes {
		m, k, n := sz[0], sz[1], sz[2]
		for _, ls := range mmLayouts {
			for _, method := range methods {
				name := fmt.Sprintf("%v %dx%dx%d/a=%v/b=%v/%v", dt, m, k, n, ls[0], ls[1], method)
				x, y := mmMatrix[T](t, c, 1, []int{m, k}, ls[0], b), mmMatrix[T](t, c, 2, []int{k, n}, ls[1], b)
				hx, hy := mmMatrix[T](t, c, 1, []int{m, k}, ls[0], cpu.Default), mmMatrix[T](t, c, 2, []int{k, n}, ls[1], cpu.Default)
				var z *dist.Array[T]
				onDevice(name, func() (err error) {
					z, err = dist.MatMulWithOptions(x, y, dist.MatMulOptions{Method: method})
					return err
				})
				h, err := dist.MatMulWithOptions(hx, hy, dist.MatMulOptions{Method: method})
				if err != nil {
					t.Fatal(name, err)
				}
				xs, err1 := dist.Allgather(hx)
				ys, err2 := dist.Allgather(hy)
				if err1 != nil || err2 != nil {
					t.Fatal(name, err1, err2)
				}
				compare(name, z, h, xs, ys, m, k, n)
				for _, a := range []*dist.Array[T]{x, y, hx, hy, z, h} {
					a.Free()
				}
			}
		}
		// SUMMA, on a process grid.
		{
			name := fmt.Sprintf("%v %dx%dx%d/grid", dt, m, k, n)
			mk := func(seed int, shape []int, on backend.Backend) *dist.Array[T] {
				a, err := dist.FromFunc(c, shape, func(idx []int) T { return mmValue[T](seed, idx[0], idx[1]) },
					dist.ProcessGrid(0, 0), dist.OnBackend(on))
				if err != nil {
					t.Fatal(err)
				}
				return a
			}
			x, y, hx, hy := mk(1, []int{m, k}, b), mk(2, []int{k, n}, b), mk(1, []int{m, k}, cpu.Default), mk(2, []int{k, n}, cpu.Default)
			var z *dist.Array[T]
			onDevice(name, func() (err error) {
				z, err = dist.MatMul(x, y)
				return err
			})
			h, err := dist.MatMul(hx, hy)
			if err != nil {
				t.Fatal(name, err)
			}
			xs, err1 := dist.Allgather(hx)
			ys, err2 := dist.Allgather(hy)
			if err1 != nil || err2 != nil {
				t.Fatal(name, err1, err2)
			}
			compare(name, z, h, xs, ys, m, k, n)
			for _, a := range []*dist.Array[T]{x, y, hx, hy, z, h} {
				a.Free()
			}
		}
		// MatVec of a split a by a split vector, and of a replicated a.
		for _, al := range []mmLayout{{0, false}, {0, true}, {dist.Replicated, false}} {
			name := fmt.Sprintf("%v MatVec %dx%d/a=%v", dt, m, k, al)
			vec := func(on backend.Backend) *dist.Array[T] {
				v, err := dist.FromFunc(c, []int{k}, func(idx []int) T { return mmValue[T](5, idx[0], 0) }, dist.OnBackend(on))
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			a, ha := mmMatrix[T](t, c, 3, []int{m, k}, al, b), mmMatrix[T](t, c, 3, []int{m, k}, al, cpu.Default)
			v, hv := vec(b), vec(cpu.Default)
			var y *dist.Array[T]
			onDevice(name, func() (err error) {
				y, err = dist.MatVec(a, v)
				return err
			})
			hy, err := dist.MatVec(ha, hv)
			if err != nil {
				t.Fatal(name, err)
			}
			as, err1 := dist.Allgather(ha)
			vs, err2 := dist.Allgather(hv)
			if err1 != nil || err2 != nil {
				t.Fatal(name, err1, err2)
			}
			compare(name, y, hy, as, vs, m, k, 1)
			for _, x := range []*dist.Array[T]{a, ha, v, hv, y, hy} {
				x.Free()
			}
		}
		e.check(t, c, fmt.Sprintf("rank %d: %v %dx%dx%d", c.Rank(), dt, m, k, n))
		e = nil
	}
}

// TestDeviceStencilsCUDA checks that Jacobi5, Laplace5, Stencil9, Stencil7
// and Laplace5Dot of CUDA arrays run on the device (the CUDA backend's
// stencils, backend.WeightedStencils and backend.StencilDots): with a
// CUDA-aware MPI they record no copy between host and device, and dst's
// block (its boundary too) and Laplace5Dot's local sum are those of the
// same arrays on the CPU, bit for bit. Shapes whose rows do not divide
// evenly, fewer rows than ranks, and grids too small to have an interior.
// It skips as TestDeviceMatMulCUDA does.
func TestDeviceStencilsCUDA(t *testing.T) {
	c := mpitest.World(t)
	b := cudaOrSkip(t, c)
	setAware(t, aware)
	w9 := [3][3]float64{{0.1, -2, 3}, {0.5, -4, 1.0 / 3}, {-1, 6, 0.25}}
	w7 := [7]float64{-6.1, 1, 2, 0.5, -1.0 / 7, 3, 0.25}
	val := func(idx []int) float64 {
		s := 0.0
		for d, i := range idx {
			s += math.Sin(float64((d+3)*i + 1))
		}
		return s * 1.7
	}
	local := func(a *dist.Array[float64]) []uint64 {
		v := make([]float64, a.Local().Len())
		if err := backend.CopyToHostSlice(v, a.Local()); err != nil {
			t.Fatal(err)
		}
		u := make([]uint64, len(v))
		for i, x := range v {
			u[i] = math.Float64bits(x)
		}
		return u
	}
	type op struct {
		name string
		dims int
		f    func(d, s *dist.Array[float64]) (float64, error)
	}
	ops := []op{
		{"Jacobi5", 2, func(d, s *dist.Array[float64]) (float64, error) { dist.Jacobi5(d, s); return 0, nil }},
		{"Laplace5", 2, func(d, s *dist.Array[float64]) (float64, error) { dist.Laplace5(d, s); return 0, nil }},
		{"Stencil9", 2, func(d, s *dist.Array[float64]) (float64, error) { return 0, dist.Stencil9(d, s, w9) }},
		{"Laplace5Dot", 2, func(d, s *dist.Array[float64]) (float64, error) { return dist.Laplace5Dot(d, s), nil }},
		{"Stencil7", 3, func(d, s *dist.Array[float64]) (float64, error) { return 0, dist.Stencil7(d, s, w7) }},
	}
	shapes := map[int][][]int{
		2: {{0, 4}, {1, 3}, {2, 4}, {3, 1}, {3, 2}, {5, 3}, {7, 4}, {13, 21}, {9, 40}, {37, 53}},
		3: {{0, 3, 3}, {2, 3, 4}, {3, 2, 5}, {5, 4, 6}, {7, 5, 3}, {9, 6, 19}},
	}
	for _, o := range ops {
		var e errs // checked once per operation: few collectives
		for _, shape := range shapes[o.dims] {
			what := fmt.Sprintf("%s %v", o.name, shape)
			var res [2][]uint64
			var sums [2]float64
			for k, on := range []backend.Backend{cpu.Default, b} {
				opts := []dist.Option{dist.OnBackend(on), dist.Ghosts(1)}
				src, err := dist.FromFunc(c, shape, val, opts...)
				if err != nil {
					t.Fatal(err)
				}
				dst, err := dist.Full(c, shape, -0.5, opts...)
				if err != nil {
					t.Fatal(err)
				}
				dist.FillBoundary(src, 1.25, -2)
				if err := src.Exchange(); err != nil {
					t.Fatal(err)
				}
				var ferr error
				w := got(profiling.Counting(func() { sums[k], ferr = o.f(dst, src) }))
				if ferr != nil {
					t.Fatal(what, ferr)
				}
				if k == 1 && (w.toHost != 0 || w.toDevice != 0) {
					e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
				}
				res[k] = local(dst)
				src.Free()
				dst.Free()
			}
			if !slices.Equal(res[0], res[1]) {
				e.add("%s: block %x on CUDA, %x on the CPU", what, res[1], res[0])
			}
			if math.Float64bits(sums[0]) != math.Float64bits(sums[1]) {
				e.add("%s: local sum %v on CUDA, %v on the CPU", what, sums[1], sums[0])
			}
		}
		e.check(t, c, fmt.Sprintf("rank %d: %s", c.Rank(), o.name))
	}
}
