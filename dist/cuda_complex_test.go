//go:build cgo

package dist_test

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// TestDeviceComplexCUDA checks that the complex arithmetic, math and
// reductions of CUDA arrays run on the device (the CUDA backend's
// backend.ComplexArith and backend.ComplexMath, complex.cu): with a
// CUDA-aware MPI they record no copy between host and device, and their
// results are those of the same operations on CPU arrays, bit for bit but
// for Exp, Log and Pow (within the bound backend/cuda's complex.go states:
// the device's exp, log, sin, cos and pow are not Go's), for complex64
// and complex128, on every layout (replicated, split on each axis, every
// element on the last rank, fewer elements than ranks, empty arrays) and
// NormAxisComplex along every axis. So do the operations that use the
// CUDA backend's optional kernels of complex buffers
// (backend.ComplexKernels): Where, Compact, Cumsum, Cumprod, SumAxis,
// DotAxis, MeanAxisComplex, ProdAxis and Astype to and from complex (the
// fake device's bits: see deviceComplexKernelsCUDA), and MatMul (ring,
// allgather, SUMMA) and MatVec (within the bound backend/cuda's
// Backend.Gemm states of the CPU's BLAS). It skips where any rank has no
// CUDA device; the fake CUDA driver of backend/cuda's tests counts as one
// (see TestDeviceStatsCUDA).
func TestDeviceComplexCUDA(t *testing.T) {
	c := mpitest.World(t)
	b := cudaOrSkip(t, c)
	setAware(t, aware)
	deviceComplexCUDA[complex64, float32](t, c, b)
	deviceComplexCUDA[complex128, float64](t, c, b)
	deviceComplexKernelsCUDA[complex64, float32](t, c, b)
	deviceComplexKernelsCUDA[complex128, float64](t, c, b)
	deviceComplexMatMulCUDA[complex64](t, c, b)
	deviceComplexMatMulCUDA[complex128](t, c, b)
}

// cudaCplxElem is the element of flat index i of the test's arrays: x's
// (which==0) finite, y's (which==1) with a zero at 3 and an infinite part
// at 5.
func cudaCplxElem(i, which int) complex128 {
	fi := float64(i)
	if which == 0 {
		return complex(float64(i%5)-2.25+fi/8, float64((i*7)%11)/4-1.3)
	}
	switch i {
	case 3:
		return 0
	case 5:
		return complex(math.Inf(1), -1)
	}
	return complex(float64((i*3)%7)-2.5, 1.75-float64(i%4)/2)
}

func deviceComplexCUDA[T backend.Complex, R backend.Float](t *testing.T, c mpi.Comm, b backend.Backend) {
	dt := backend.DTypeOf[T]()
	eps := 0x1p-52
	if dt == backend.Complex64 {
		eps = 0x1p-23
	}
	p := c.Size()
	for _, shape := range [][]int{{0}, {3}, {13}, {5, 3}, {2, 9}} {
		layouts := normLayouts(shape, p)
		if len(shape) == 2 {
			layouts = layouts[:len(layouts)-1] // the grid is NormAxisComplex's alone, below
		}
		for li, opts := range layouts {
			var e errs
			name := fmt.Sprintf("%v %v layout %d", dt, shape, li)
			mk := func(which int, on backend.Backend) *dist.Array[T] {
				x, err := dist.FromFunc(c, shape, func(idx []int) T {
					f := 0
					for a, i := range idx {
						f = f*shape[a] + i
					}
					return T(cudaCplxElem(f, which))
				}, append(opts, dist.OnBackend(on))...)
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
			x, y, hx, hy := mk(0, b), mk(1, b), mk(0, cpu.Default), mk(1, cpu.Default)
			onDevice := func(what string, f func() error) {
				t.Helper()
				var err error
				if w := got(profiling.Counting(func() { err = f() })); w.toHost != 0 || w.toDevice != 0 {
					e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
				}
				if err != nil {
					e.add("%s: %v", what, err)
				}
			}
			// Elementwise, into a new array on each side: f on the
			// device's arrays and on the CPU's.
			elem := func(what string, tol float64, f func(d, x, y *dist.Array[T]) error) {
				t.Helper()
				d, err1 := dist.ZerosLike(x)
				hd, err2 := dist.ZerosLike(hx)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				defer d.Free()
				defer hd.Free()
				onDevice(what, func() error { return f(d, x, y) })
				if err := f(hd, hx, hy); err != nil {
					t.Fatal(err)
				}
				cxSameArrays(&e, name+" "+what, d, hd, tol, b.Device())
			}
			s, s2 := T(complex(0.75, -1.5)), T(complex(-0.5, 2))
			elem("Add", 0, func(d, x, y *dist.Array[T]) error { dist.Add(d, x, y); return nil })
			elem("Sub", 0, func(d, x, y *dist.Array[T]) error { dist.Sub(d, x, y); return nil })
			elem("Mul", 0, func(d, x, y *dist.Array[T]) error { dist.Mul(d, x, y); return nil })
			elem("Div", 0, func(d, x, y *dist.Array[T]) error { dist.Div(d, x, y); return nil })
			elem("AddScalar", 0, func(d, x, _ *dist.Array[T]) error { dist.AddScalar(d, x, s); return nil })
			elem("MulScalar", 0, func(d, x, _ *dist.Array[T]) error { dist.MulScalar(d, x, s); return nil })
			elem("DivScalar", 0, func(d, _, y *dist.Array[T]) error { dist.DivScalar(d, y, s); return nil })
			elem("Fill", 0, func(d, _, _ *dist.Array[T]) error { dist.Fill(d, s); return nil })
			elem("Scale", 0, func(d, x, _ *dist.Array[T]) error { dist.Copy(d, x); dist.Scale(s, d); return nil })
			elem("Axpy", 0, func(d, x, y *dist.Array[T]) error { dist.Copy(d, y); dist.Axpy(s, x, d); return nil })
			elem("Axpby", 0, func(d, x, y *dist.Array[T]) error { dist.Copy(d, y); dist.Axpby(s, x, s2, d); return nil })
			elem("Conj", 0, func(d, x, _ *dist.Array[T]) error { return dist.Conj(d, x) })
			elem("Sqrt", 0, func(d, _, y *dist.Array[T]) error { return dist.Sqrt(d, y) })
			elem("Exp", 8*eps, func(d, x, _ *dist.Array[T]) error { return dist.Exp(d, x) })
			elem("Log", 4*eps, func(d, _, y *dist.Array[T]) error { return dist.Log(d, y) })
			elem("Pow", 64*eps, func(d, x, y *dist.Array[T]) error { return dist.Pow(d, x, y) })
			elem("PowScalar", 64*eps, func(d, x, _ *dist.Array[T]) error { return dist.PowScalar(d, x, s) })
			// Real results.
			for _, op := range []struct {
				name string
				f    func(x *dist.Array[T]) (*dist.Array[R], error)
			}{
				{"Real", func(x *dist.Array[T]) (*dist.Array[R], error) { return dist.Real[R](x) }},
				{"Imag", func(x *dist.Array[T]) (*dist.Array[R], error) { return dist.Imag[R](x) }},
				{"AbsComplex", func(x *dist.Array[T]) (*dist.Array[R], error) { return dist.AbsComplex[R](x) }},
				{"Angle", func(x *dist.Array[T]) (*dist.Array[R], error) { return dist.Angle[R](x) }},
			} {
				var r *dist.Array[R]
				var err error
				onDevice(op.name, func() error { r, err = op.f(y); return err })
				hr, herr := op.f(hy)
				sameArrays(&e, name+" "+op.name, r, err, hr, herr, b.Device())
			}
			// Reductions: scalars, the CPU's bits.
			scalar := func(what string, dev, host func() (complex128, error)) {
				var g complex128
				var gerr error
				onDevice(what, func() error { g, gerr = dev(); return nil })
				h, herr := host()
				if (gerr == nil) != (herr == nil) || !cxSame(g, h) {
					e.add("%s %s: %v (%v) on the device, %v (%v) on the host", name, what, g, gerr, h, herr)
				}
			}
			c128 := func(v T, err error) (complex128, error) { return complex128(v), err }
			scalar("Sum", func() (complex128, error) { return c128(dist.Sum(x)) }, func() (complex128, error) { return c128(dist.Sum(hx)) })
			scalar("Dot", func() (complex128, error) { return c128(dist.Dot(x, y)) }, func() (complex128, error) { return c128(dist.Dot(hx, hy)) })
			scalar("Vdot", func() (complex128, error) { return c128(dist.Vdot(x, x)) }, func() (complex128, error) { return c128(dist.Vdot(hx, hx)) })
			scalar("Prod", func() (complex128, error) { return c128(dist.ProdComplex(x)) }, func() (complex128, error) { return c128(dist.ProdComplex(hx)) })
			scalar("Mean", func() (complex128, error) { return c128(dist.MeanComplex(x)) }, func() (complex128, error) { return c128(dist.MeanComplex(hx)) })
			scalar("Norm", func() (complex128, error) { v, err := dist.Norm(x); return complex(v, 0), err },
				func() (complex128, error) { v, err := dist.Norm(hx); return complex(v, 0), err })
			for _, a := range []*dist.Array[T]{x, y, hx, hy} {
				a.Free()
			}
			e.check(t, c, name)
		}
		// NormAxisComplex along every axis on every layout, the grid too.
		for li, opts := range normLayouts(shape, p) {
			var e errs
			for axis := range shape {
				name := fmt.Sprintf("%v %v layout %d NormAxisComplex(%d)", dt, shape, li, axis)
				mk := func(on backend.Backend) *dist.Array[T] {
					x, err := dist.FromFunc(c, shape, func(idx []int) T {
						f := 0
						for a, i := range idx {
							f = f*shape[a] + i
						}
						return T(cudaCplxElem(f, 1))
					}, append(opts, dist.OnBackend(on))...)
					if err != nil {
						t.Fatal(err)
					}
					return x
				}
				x, hx := mk(b), mk(cpu.Default)
				var r *dist.Array[R]
				var err error
				cnt := profiling.Counting(func() { r, err = dist.NormAxisComplex[R](x, axis) })
				if w := got(cnt); w.toHost != 0 || w.toDevice != 0 {
					e.add("%s: recorded %d copies to the host and %d to the device, want none", name, w.toHost, w.toDevice)
				}
				hr, herr := dist.NormAxisComplex[R](hx, axis)
				sameArrays(&e, name, r, err, hr, herr, b.Device())
				x.Free()
				hx.Free()
			}
			e.check(t, c, fmt.Sprintf("%v %v layout %d NormAxisComplex", dt, shape, li))
		}
	}
}

// cxSame reports whether the parts of a and b have the same bits or are
// both NaN.
func cxSame(a, b complex128) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) || (x != x && y != y) }
	return same(real(a), real(b)) && same(imag(a), imag(b))
}

// cxSameArrays adds to e unless r (expected on device dev) and hr hold the
// same elements: bit for bit if tol is 0, else to within tol times each
// element's modulus (NaN and infinite parts exactly).
func cxSameArrays[T backend.Complex](e *errs, what string, r, hr *dist.Array[T], tol float64, dev backend.Device) {
	gv, err1 := dist.Allgather(r)
	hv, err2 := dist.Allgather(hr)
	if err1 != nil || err2 != nil || len(gv) != len(hv) || r.Device() != dev {
		e.add("%s: %v on %v (%v, %v), want %v", what, gv, r.Device(), err1, err2, hv)
		return
	}
	for i := range gv {
		g, h := complex128(gv[i]), complex128(hv[i])
		ok := cxSame(g, h)
		if !ok && tol > 0 {
			m := cmplx.Abs(h)
			ok = !math.IsInf(m, 0) && !math.IsNaN(m) && math.Abs(real(g)-real(h)) <= tol*m && math.Abs(imag(g)-imag(h)) <= tol*m
		}
		if !ok {
			e.add("%s: element %d is %v, %v on the host", what, i, g, h)
			return
		}
	}
}

// deviceComplexKernelsCUDA checks Where, Compact, Cumsum, Cumprod,
// SumAxis, DotAxis, MeanAxisComplex, ProdAxis and Astype of complex CUDA
// arrays against the same operations on arrays of the fake device, bit for
// bit, with no copy between host and device recorded, on every layout of
// normLayouts (the process grid for the axis reductions only), empty
// arrays and axes, fewer elements than ranks, and NaN and infinite parts.
// The fake device is a backend.ComplexKernels whose kernels are the CPU
// backend's, so dist takes the same path for its arrays as for CUDA's.
// Cumprod of CPU arrays is checked against the fake device's too: their
// ranks' carries are gathered and multiplied by ScanAxis, as a device's
// are, not by MPI's Exscan, whose complex product is the MPI library's
// (C's, differing in the last bit at 3 ranks and more).
func deviceComplexKernelsCUDA[T backend.Complex, R backend.Float](t *testing.T, c mpi.Comm, b backend.Backend) {
	dt := backend.DTypeOf[T]()
	p := c.Size()
	for _, shape := range [][]int{{0}, {3}, {13}, {5, 3}, {2, 9}, {0, 4}, {7, 5}} {
		for li, opts := range normLayouts(shape, p) {
			var e errs
			name := fmt.Sprintf("%v %v layout %d", dt, shape, li)
			grid := len(shape) == 2 && li == len(normLayouts(shape, p))-1
			flatOf := func(idx []int) int {
				f := 0
				for a, i := range idx {
					f = f*shape[a] + i
				}
				return f
			}
			mk := func(which int, on backend.Backend) *dist.Array[T] {
				x, err := dist.FromFunc(c, shape, func(idx []int) T { return T(cudaCplxElem(flatOf(idx), which)) }, append(opts, dist.OnBackend(on))...)
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
			ref := backend.Backend(fakedev.Default)
			x, y, hx, hy := mk(0, b), mk(1, b), mk(0, ref), mk(1, ref)
			onDevice := func(what string, f func() error) {
				t.Helper()
				var err error
				if w := got(profiling.Counting(func() { err = f() })); w.toHost != 0 || w.toDevice != 0 {
					e.add("%s %s: recorded %d copies to the host and %d to the device, want none", name, what, w.toHost, w.toDevice)
				}
				if err != nil {
					e.add("%s %s: %v", name, what, err)
				}
			}
			// same compares a device result with the host's, bit for bit,
			// and frees both.
			same := func(what string, r, hr *dist.Array[T], herr error) {
				t.Helper()
				if r == nil || hr == nil || herr != nil {
					e.add("%s %s: results %v and %v (%v)", name, what, r != nil, hr != nil, herr)
				} else {
					cxSameArrays(&e, name+" "+what, r, hr, 0, b.Device())
				}
				for _, a := range []*dist.Array[T]{r, hr} {
					if a != nil {
						a.Free()
					}
				}
			}
			if !grid {
				maskOf := func(on backend.Backend) *dist.Array[uint8] {
					m, err := dist.FromFunc(c, shape, func(idx []int) uint8 { return uint8(flatOf(idx) % 3 % 2) }, append(opts, dist.OnBackend(on))...)
					if err != nil {
						t.Fatal(err)
					}
					return m
				}
				mask, hmask := maskOf(b), maskOf(ref)
				d, err1 := dist.ZerosLike(x)
				hd, err2 := dist.ZerosLike(hx)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				onDevice("Where", func() error { return dist.Where(d, mask, x, y) })
				same("Where", d, hd, dist.Where(hd, hmask, hx, hy))
				var r *dist.Array[T]
				onDevice("Compact", func() (err error) { r, err = dist.Compact(y, mask); return err })
				hr, herr := dist.Compact(hy, hmask)
				same("Compact", r, hr, herr)
				mask.Free()
				hmask.Free()
				for axis := range shape {
					onDevice(fmt.Sprintf("Cumsum(%d)", axis), func() (err error) { r, err = dist.Cumsum(y, axis); return err })
					hr, herr := dist.Cumsum(hy, axis)
					same(fmt.Sprintf("Cumsum(%d)", axis), r, hr, herr)
					onDevice(fmt.Sprintf("Cumprod(%d)", axis), func() (err error) { r, err = dist.Cumprod(x, axis); return err })
					hr, herr = dist.Cumprod(hx, axis)
					same(fmt.Sprintf("Cumprod(%d)", axis), r, hr, herr)
					// The CPU's arrays multiply their ranks' carries as a
					// device's are (Go's complex product, not MPI's): the
					// same bits.
					cx := mk(0, cpu.Default)
					cr, cerr := dist.Cumprod(cx, axis)
					hr, herr = dist.Cumprod(hx, axis)
					if cerr != nil || herr != nil {
						e.add("%s CPU Cumprod(%d): %v, %v", name, axis, cerr, herr)
					} else {
						cxSameArrays(&e, fmt.Sprintf("%s CPU Cumprod(%d)", name, axis), hr, cr, 0, ref.Device())
						cr.Free()
						hr.Free()
					}
					cx.Free()
				}
				// Astype to and from complex.
				var rr *dist.Array[R]
				var err error
				onDevice("Astype real", func() error { rr, err = dist.Astype[R](y, dist.DiscardImag()); return err })
				hrr, herr := dist.Astype[R](hy, dist.DiscardImag())
				sameArrays(&e, name+" Astype real", rr, err, hrr, herr, b.Device())
				var ri *dist.Array[int16]
				onDevice("Astype int16", func() error { ri, err = dist.Astype[int16](x, dist.DiscardImag()); return err })
				hri, herr := dist.Astype[int16](hx, dist.DiscardImag())
				sameArrays(&e, name+" Astype int16", ri, err, hri, herr, b.Device())
				var r64 *dist.Array[complex64]
				onDevice("Astype complex64", func() error { r64, err = dist.Astype[complex64](y); return err })
				hr64, herr := dist.Astype[complex64](hy)
				cxSameFree(&e, name+" Astype complex64", r64, err, hr64, herr, b.Device())
				var r128 *dist.Array[complex128]
				onDevice("Astype complex128", func() error { r128, err = dist.Astype[complex128](y); return err })
				hr128, herr := dist.Astype[complex128](hy)
				cxSameFree(&e, name+" Astype complex128", r128, err, hr128, herr, b.Device())
				// From real arrays: y's real parts, and int32s.
				rs, err1 := dist.Astype[R](y, dist.DiscardImag())
				hrs, err2 := dist.Astype[R](hy, dist.DiscardImag())
				ints, err3 := dist.FromFunc(c, shape, func(idx []int) int32 { return int32(flatOf(idx)*7919 - 40000) }, append(opts, dist.OnBackend(b))...)
				hints, err4 := dist.FromFunc(c, shape, func(idx []int) int32 { return int32(flatOf(idx)*7919 - 40000) }, append(opts, dist.OnBackend(ref))...)
				if err := errors.Join(err1, err2, err3, err4); err != nil {
					t.Fatal(err)
				}
				onDevice("Astype from real", func() (err error) { r, err = dist.Astype[T](rs); return err })
				hr, herr = dist.Astype[T](hrs)
				same("Astype from real", r, hr, herr)
				onDevice("Astype from int32", func() (err error) { r, err = dist.Astype[T](ints); return err })
				hr, herr = dist.Astype[T](hints)
				same("Astype from int32", r, hr, herr)
				rs.Free()
				hrs.Free()
				ints.Free()
				hints.Free()
			}
			for axis := range shape {
				var r *dist.Array[T]
				for _, op := range []struct {
					name string
					f    func(x, y *dist.Array[T]) (*dist.Array[T], error)
				}{
					{"SumAxis", func(x, _ *dist.Array[T]) (*dist.Array[T], error) { return dist.SumAxis(x, axis) }},
					{"DotAxis", func(x, y *dist.Array[T]) (*dist.Array[T], error) { return dist.DotAxis(x, y, axis) }},
					{"MeanAxisComplex", func(_, y *dist.Array[T]) (*dist.Array[T], error) { return dist.MeanAxisComplex(y, axis) }},
					{"ProdAxis", func(x, _ *dist.Array[T]) (*dist.Array[T], error) { return dist.ProdAxis(x, axis) }},
				} {
					what := fmt.Sprintf("%s(%d)", op.name, axis)
					onDevice(what, func() (err error) { r, err = op.f(x, y); return err })
					hr, herr := op.f(hx, hy)
					same(what, r, hr, herr)
				}
			}
			for _, a := range []*dist.Array[T]{x, y, hx, hy} {
				a.Free()
			}
			e.check(t, c, name)
		}
	}
}

// deviceComplexMatMulCUDA checks MatMul (the ring and the allgather on
// row and column splits, a replicated operand, every row on the last rank,
// SUMMA on a process grid) and MatVec of complex CUDA arrays: no copy
// between host and device recorded, and each part of each element within
// 8(k+1)·u·(|A|·|B|)ij of the same product of CPU arrays, u the unit
// roundoff of the part type (each is within half of that of the exact
// product: backend/cuda's Backend.Gemm states the kernel's bound, and any
// order's; the ranks' partial sums are more of the same terms).
func deviceComplexMatMulCUDA[T backend.Complex](t *testing.T, c mpi.Comm, b backend.Backend) {
	dt := backend.DTypeOf[T]()
	u := 0x1p-53
	if dt == backend.Complex64 {
		u = 0x1p-24
	}
	p := c.Size()
	val := func(seed, i, j int) T { return T(cudaCplxElem(i*31+j*7+seed, 0)) }
	for _, sz := range [][3]int{{0, 3, 2}, {3, 0, 2}, {2, 5, 3}, {7, 5, 6}, {9, 17, 5}} {
		m, k, n := sz[0], sz[1], sz[2]
		var e errs
		last := make([]int, p)
		last[p-1] = m
		type pairOpts struct {
			name   string
			ao, bo []dist.Option
			meths  []dist.MatMulMethod
		}
		both := []dist.MatMulMethod{dist.MatMulRing, dist.MatMulAllgather}
		pairs := []pairOpts{
			{"rows-rows", []dist.Option{dist.SplitAxis(0)}, []dist.Option{dist.SplitAxis(0)}, both},
			{"rows-cols", []dist.Option{dist.SplitAxis(0)}, []dist.Option{dist.SplitAxis(1)}, both},
			{"last-replicated", []dist.Option{dist.SplitAxis(0), dist.BlockSizes(last)}, []dist.Option{dist.SplitAxis(dist.Replicated)}, nil},
			{"replicated-cols", []dist.Option{dist.SplitAxis(dist.Replicated)}, []dist.Option{dist.SplitAxis(1)}, nil},
			{"grid", []dist.Option{dist.ProcessGrid(0, 0)}, []dist.Option{dist.ProcessGrid(0, 0)}, nil},
		}
		mat := func(seed, rows, cols int, on backend.Backend, opts []dist.Option) *dist.Array[T] {
			a, err := dist.FromFunc(c, []int{rows, cols}, func(idx []int) T { return val(seed, idx[0], idx[1]) }, append(slices.Clone(opts), dist.OnBackend(on))...)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		// compare checks z (CUDA) against h (CPU), products of an m x k
		// matrix of seed 1 and a k x cols one of seed 2.
		compare := func(what string, z, h *dist.Array[T], cols int) {
			zs, err1 := dist.Allgather(z)
			hs, err2 := dist.Allgather(h)
			if err1 != nil || err2 != nil || len(zs) != m*cols || len(hs) != m*cols || z.Device() != b.Device() {
				e.add("%s: %d and %d elements on %v (%v, %v), want %d on %v", what, len(zs), len(hs), z.Device(), err1, err2, m*cols, b.Device())
				return
			}
			for i := 0; i < m; i++ {
				for j := 0; j < cols; j++ {
					bound := 0.0
					for l := 0; l < k; l++ {
						bound += cmplx.Abs(complex128(val(1, i, l))) * cmplx.Abs(complex128(val(2, l, j)))
					}
					bound *= 8 * float64(k+1) * u
					d := complex128(zs[i*cols+j]) - complex128(hs[i*cols+j])
					if !(math.Abs(real(d)) <= bound && math.Abs(imag(d)) <= bound) {
						e.add("%s: [%d][%d] = %v on CUDA, %v on the CPU, bound %g", what, i, j, zs[i*cols+j], hs[i*cols+j], bound)
						return
					}
				}
			}
		}
		for _, pr := range pairs {
			for _, meth := range append([]dist.MatMulMethod{dist.MatMulAuto}, pr.meths...) {
				what := fmt.Sprintf("%v %dx%dx%d %s %v", dt, m, k, n, pr.name, meth)
				x, y := mat(1, m, k, b, pr.ao), mat(2, k, n, b, pr.bo)
				hx, hy := mat(1, m, k, cpu.Default, pr.ao), mat(2, k, n, cpu.Default, pr.bo)
				var z *dist.Array[T]
				var err error
				if w := got(profiling.Counting(func() { z, err = dist.MatMulWithOptions(x, y, dist.MatMulOptions{Method: meth}) })); w.toHost != 0 || w.toDevice != 0 {
					e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
				}
				h, herr := dist.MatMulWithOptions(hx, hy, dist.MatMulOptions{Method: meth})
				if err != nil || herr != nil {
					e.add("%s: %v, %v", what, err, herr)
				} else {
					compare(what, z, h, n)
					z.Free()
					h.Free()
				}
				for _, a := range []*dist.Array[T]{x, y, hx, hy} {
					a.Free()
				}
			}
		}
		for _, ao := range [][]dist.Option{{dist.SplitAxis(0)}, {dist.SplitAxis(0), dist.BlockSizes(last)}, {dist.SplitAxis(dist.Replicated)}} {
			what := fmt.Sprintf("%v MatVec %dx%d %v", dt, m, k, ao)
			a, ha := mat(1, m, k, b, ao), mat(1, m, k, cpu.Default, ao)
			vec := func(on backend.Backend) *dist.Array[T] {
				v, err := dist.FromFunc(c, []int{k}, func(idx []int) T { return val(2, idx[0], 0) }, dist.OnBackend(on))
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			v, hv := vec(b), vec(cpu.Default)
			var z *dist.Array[T]
			var err error
			if w := got(profiling.Counting(func() { z, err = dist.MatVec(a, v) })); w.toHost != 0 || w.toDevice != 0 {
				e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
			}
			h, herr := dist.MatVec(ha, hv)
			if err != nil || herr != nil {
				e.add("%s: %v, %v", what, err, herr)
			} else {
				compare(what, z, h, 1)
				z.Free()
				h.Free()
			}
			for _, x := range []*dist.Array[T]{a, ha, v, hv} {
				x.Free()
			}
		}
		e.check(t, c, fmt.Sprintf("%v %dx%dx%d", dt, m, k, n))
	}
}

// cxSameFree adds to e unless r (with error err, expected on device dev)
// and hr (with herr) hold the same complex elements, bit for bit (two NaN
// parts match); it frees both.
func cxSameFree[U backend.Complex](e *errs, what string, r *dist.Array[U], err error, hr *dist.Array[U], herr error, dev backend.Device) {
	if err != nil || herr != nil || r == nil || hr == nil {
		e.add("%s: %v on the device, %v on the host", what, err, herr)
	} else {
		cxSameArrays(e, what, r, hr, 0, dev)
	}
	for _, a := range []*dist.Array[U]{r, hr} {
		if a != nil {
			a.Free()
		}
	}
}
