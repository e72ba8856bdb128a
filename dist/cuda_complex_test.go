//go:build cgo

package dist_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
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
// NormAxisComplex along every axis. It skips where any rank has no CUDA
// device; the fake CUDA driver of backend/cuda's tests counts as one (see
// TestDeviceStatsCUDA).
func TestDeviceComplexCUDA(t *testing.T) {
	c := mpitest.World(t)
	b := cudaOrSkip(t, c)
	setAware(t, aware)
	deviceComplexCUDA[complex64, float32](t, c, b)
	deviceComplexCUDA[complex128, float64](t, c, b)
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
