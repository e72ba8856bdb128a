package backendtest

import (
	"fmt"
	"maps"
	"math"
	"math/cmplx"
	"slices"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	xrng "github.com/xpmpi/xpmpi/rng"
)

func testRandomFiller(t *testing.T, b driver.Backend) {
	f := b.(driver.RandomFiller)
	const seed, draw = 12345, 7
	// runs x n elements, starting at first, a run every stride: a block of
	// a larger array.
	layouts := [][4]uint64{{1, 0, 0, 0}, {1, 1000, 0, 0}, {3, 17, 5, 40}, {4, 33, math.MaxUint64 - 50, 100}}
	for _, l := range layouts {
		runs, n, first, stride := int(l[0]), int(l[1]), l[2], l[3]
		name := fmt.Sprintf("runs=%d n=%d first=%d stride=%d", runs, n, first, stride)
		t.Run("Uniform/float64/"+name, func(t *testing.T) {
			randomCheck(t, b, f, driver.RandomFill{Kind: driver.RandomUniform, Seed: seed, Draw: draw}, runs, n, first, stride,
				func(d []float64, at uint64) { xrng.FillUniform(d, seed, at, draw) }, 0)
		})
		t.Run("Uniform/float32/"+name, func(t *testing.T) {
			randomCheck(t, b, f, driver.RandomFill{Kind: driver.RandomUniform, Seed: seed, Draw: draw}, runs, n, first, stride,
				func(d []float32, at uint64) { xrng.FillUniform(d, seed, at, draw) }, 0)
		})
		t.Run("Normal/float64/"+name, func(t *testing.T) {
			// The device's log, sqrt and cos may differ from Go's in the
			// last bits (rng documents about 1e-14).
			randomCheck(t, b, f, driver.RandomFill{Kind: driver.RandomNormal, Seed: seed, Draw: draw}, runs, n, first, stride,
				func(d []float64, at uint64) { xrng.FillNormal(d, seed, at, draw) }, 1e-13)
		})
		t.Run("Ints/int32/"+name, func(t *testing.T) {
			lo, hi := int32(-5), int32(1000)
			randomCheck(t, b, f, driver.RandomFill{Kind: driver.RandomInts, Seed: seed, Draw: draw, Lo: uint64(int64(lo)), Span: uint64(int64(hi) - int64(lo))}, runs, n, first, stride,
				func(d []int32, at uint64) { xrng.FillUniformInts(d, seed, at, draw, lo, hi) }, 0)
		})
		t.Run("Ints/uint8/"+name, func(t *testing.T) {
			lo, hi := uint8(3), uint8(200)
			randomCheck(t, b, f, driver.RandomFill{Kind: driver.RandomInts, Seed: seed, Draw: draw, Lo: uint64(lo), Span: uint64(hi - lo)}, runs, n, first, stride,
				func(d []uint8, at uint64) { xrng.FillUniformInts(d, seed, at, draw, lo, hi) }, 0)
		})
	}
}

// randomCheck fills runs*n elements with FillRandom and compares them with
// package rng's fill of each run, bit for bit (tol 0) or within tol
// relative.
func randomCheck[T backend.Element](t *testing.T, b driver.Backend, f driver.RandomFiller, fill driver.RandomFill, runs, n int, first, stride uint64, ref func(d []T, at uint64), tol float64) {
	want := make([]T, runs*n)
	for r := 0; r < runs; r++ {
		ref(want[r*n:(r+1)*n], first+uint64(r)*stride)
	}
	bd := zeros[T](t, b, runs*n)
	f.FillRandom(bd, fill, runs, n, first, stride)
	got := down[T](t, b, bd)
	freeAll(b, bd)
	if tol == 0 {
		checkSame(t, "FillRandom", got, want)
		return
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - float64(want[i])); !(d <= tol*math.Max(1, math.Abs(float64(want[i])))) {
			t.Errorf("FillRandom: element %d = %v, want %v within %g", i, got[i], want[i], tol)
			return
		}
	}
}

func testStencils(t *testing.T, b driver.Backend) {
	for _, s := range []typed{&suite[float64]{b: b, quick: true}, &suite[float32]{b: b, quick: true}} {
		t.Run(s.dtype().String(), func(t *testing.T) {
			t.Run("Jacobi5", s.jacobi5)
			t.Run("Laplace5", s.laplace5)
		})
	}
}

func testWeightedStencils(t *testing.T, b driver.Backend) {
	w := b.(driver.WeightedStencils)
	t.Run("float64", func(t *testing.T) { weighted[float64](t, b, w) })
	t.Run("float32", func(t *testing.T) { weighted[float32](t, b, w) })
}

func weighted[T backend.Float](t *testing.T, b driver.Backend, ws driver.WeightedStencils) {
	w9 := [9]float64{0.5, -1, 0.25, 2, -3.5, 1, 0.125, 1.5, -0.75}
	for _, sh := range [][2]int{{0, 0}, {1, 5}, {2, 2}, {3, 3}, {5, 8}, {40, 33}} {
		rows, cols := sh[0], sh[1]
		r := rng(t, rows*cols)
		src, dst := randFloats[T](r, rows*cols), randFloats[T](r, rows*cols)
		want := append([]T(nil), dst...)
		mag := make([]float64, len(dst))
		for i := 1; i < rows-1; i++ {
			for j := 1; j < cols-1; j++ {
				var s T
				for a := 0; a < 3; a++ {
					for c := 0; c < 3; c++ {
						v := T(w9[3*a+c]) * src[(i+a-1)*cols+j+c-1]
						s += v
						mag[i*cols+j] += math.Abs(float64(v))
					}
				}
				want[i*cols+j] = s
			}
		}
		bs, bd := up(t, b, src), up(t, b, dst)
		ws.Stencil9(bd, bs, rows, cols, w9)
		stencilCheck(t, fmt.Sprintf("Stencil9 %dx%d", rows, cols), down[T](t, b, bd), want, mag)
		freeAll(b, bs, bd)
	}
	w7 := [7]float64{-6, 1, 1.5, 0.5, 2, -1, 0.25}
	for _, sh := range [][3]int{{0, 0, 0}, {1, 3, 3}, {3, 3, 3}, {4, 5, 6}, {9, 7, 20}} {
		n0, n1, n2 := sh[0], sh[1], sh[2]
		r := rng(t, n0*n1*n2)
		src, dst := randFloats[T](r, n0*n1*n2), randFloats[T](r, n0*n1*n2)
		want := append([]T(nil), dst...)
		mag := make([]float64, len(dst))
		at := func(i, j, k int) int { return (i*n1+j)*n2 + k }
		for i := 1; i < n0-1; i++ {
			for j := 1; j < n1-1; j++ {
				for k := 1; k < n2-1; k++ {
					terms := []T{src[at(i, j, k)], src[at(i-1, j, k)], src[at(i+1, j, k)], src[at(i, j-1, k)], src[at(i, j+1, k)], src[at(i, j, k-1)], src[at(i, j, k+1)]}
					var s T
					for q, v := range terms {
						p := T(w7[q]) * v
						s += p
						mag[at(i, j, k)] += math.Abs(float64(p))
					}
					want[at(i, j, k)] = s
				}
			}
		}
		bs, bd := up(t, b, src), up(t, b, dst)
		ws.Stencil7(bd, bs, n0, n1, n2, w7)
		stencilCheck(t, fmt.Sprintf("Stencil7 %dx%dx%d", n0, n1, n2), down[T](t, b, bd), want, mag)
		freeAll(b, bs, bd)
	}
}

// stencilCheck compares a stencil's result with want within 4 eps times
// the magnitude of each point's terms (0 outside the interior: untouched).
func stencilCheck[T backend.Float](t *testing.T, what string, got, want []T, mag []float64) {
	t.Helper()
	for i := range got {
		if !(math.Abs(float64(got[i])-float64(want[i])) <= 4*eps[T]()*mag[i]) {
			t.Errorf("%s: element %d = %v, want %v (elements outside the interior must be untouched)", what, i, got[i], want[i])
			return
		}
	}
}

func testStencilDots(t *testing.T, b driver.Backend) {
	sd := b.(driver.StencilDots)
	for _, sh := range [][2]int{{0, 0}, {2, 5}, {3, 3}, {5, 20}, {17, 40}, {64, 33}} {
		rows, cols := sh[0], sh[1]
		r := rng(t, rows*cols)
		src, dst := randFloats[float64](r, rows*cols), randFloats[float64](r, rows*cols)
		want := append([]float64(nil), dst...)
		for i := 1; i < rows-1; i++ {
			for j := 1; j < cols-1; j++ {
				c := i*cols + j
				want[c] = 4*src[c] - src[c-cols] - src[c+cols] - src[c-1] - src[c+1]
			}
		}
		var dot, mag float64
		for i := 1; i < rows-1; i++ {
			for j := 0; j < cols; j++ {
				dot += src[i*cols+j] * want[i*cols+j]
				mag += math.Abs(src[i*cols+j] * want[i*cols+j])
			}
		}
		bs, bd := up(t, b, src), up(t, b, dst)
		got := sd.Laplace5Dot(bd, bs, rows, cols)
		what := fmt.Sprintf("Laplace5Dot %dx%d", rows, cols)
		mags := make([]float64, len(want))
		for i := range mags {
			if i/max(cols, 1) > 0 && i/max(cols, 1) < rows-1 && i%max(cols, 1) > 0 && i%max(cols, 1) < cols-1 {
				mags[i] = 12 * math.Abs(src[i]) // 4|c| and four neighbours of about |c|'s size
			}
		}
		stencilCheck(t, what, down[float64](t, b, bd), want, mags)
		if !(math.Abs(got-dot) <= 1e-12*mag) {
			t.Errorf("%s = %v, want %v", what, got, dot)
		}
		freeAll(b, bs, bd)
	}
}

func testComplexMath(t *testing.T, b driver.Backend) {
	m := b.(driver.ComplexMath)
	t.Run("complex128", func(t *testing.T) { complexMath[complex128, float64](t, b, m, 1e-14) })
	t.Run("complex64", func(t *testing.T) { complexMath[complex64, float32](t, b, m, 1e-6) })
}

var complexRef = map[driver.ComplexOp]func(complex128) complex128{
	driver.CExp: cmplx.Exp, driver.CLog: cmplx.Log, driver.CSqrt: cmplx.Sqrt, driver.CConj: cmplx.Conj,
	driver.CAbs:   func(z complex128) complex128 { return complex(cmplx.Abs(z), 0) },
	driver.CAngle: func(z complex128) complex128 { return complex(cmplx.Phase(z), 0) },
	driver.CReal:  func(z complex128) complex128 { return complex(real(z), 0) },
	driver.CImag:  func(z complex128) complex128 { return complex(imag(z), 0) },
}

func complexInputs[C backend.Complex](t *testing.T, n int) []C {
	r := rng(t, n)
	x := []C{1, -1, 1i, -1i, complex(0.5, -2), complex(-3, 0.25)}
	for i := 0; i < n; i++ {
		x = append(x, C(complex(4*r.Float64()-2, 4*r.Float64()-2)))
	}
	return x
}

func complexMath[C backend.Complex, R backend.Float](t *testing.T, b driver.Backend, m driver.ComplexMath, tol float64) {
	for _, n := range capSizes[:4] {
		x := complexInputs[C](t, n)
		bx := up(t, b, x)
		for op := driver.CExp; op <= driver.CImag; op++ {
			ref := complexRef[op]
			want := make([]complex128, len(x))
			scale := 0.0
			for i, v := range x {
				want[i] = ref(complex128(v))
				scale = math.Max(scale, cmplx.Abs(want[i]))
			}
			what := fmt.Sprintf("ComplexUnary(%v) of %d", op, len(x))
			if op.RealResult() {
				bd := zeros[R](t, b, len(x))
				m.ComplexUnary(op, bd, bx)
				got := down[R](t, b, bd)
				gc := make([]complex128, len(got))
				for i, v := range got {
					gc[i] = complex(float64(v), 0)
				}
				checkClose(t, what, gc, want, tol, scale)
				freeAll(b, bd)
				continue
			}
			bd := zeros[C](t, b, len(x))
			m.ComplexUnary(op, bd, bx)
			checkClose(t, what, down[C](t, b, bd), want, tol, scale)
			freeAll(b, bd)
		}
		// Pow of two arrays and of a scalar (x**0 = 1).
		y := complexInputs[C](t, n+1)[1:]
		by, bd := up(t, b, y), zeros[C](t, b, len(x))
		want := make([]complex128, len(x))
		scale := 0.0
		for i := range x {
			want[i] = cmplx.Pow(complex128(x[i]), complex128(y[i]))
			scale = math.Max(scale, cmplx.Abs(want[i]))
		}
		m.ComplexPow(bd, bx, by)
		checkClose(t, fmt.Sprintf("ComplexPow of %d", len(x)), down[C](t, b, bd), want, 8*tol, scale)
		for _, s := range []C{0, 2, complex(0.5, -1)} {
			scale = 0
			for i := range x {
				want[i] = 1
				if s != 0 {
					want[i] = cmplx.Pow(complex128(x[i]), complex128(s))
				}
				scale = math.Max(scale, cmplx.Abs(want[i]))
			}
			m.ComplexPowScalar(bd, bx, driver.ScalarOf(s))
			checkClose(t, fmt.Sprintf("ComplexPowScalar(%v) of %d", s, len(x)), down[C](t, b, bd), want, 8*tol, scale)
		}
		// Vdot, and Prod (in order, in complex128) of values on the unit
		// circle.
		var vd complex128
		var vmag float64
		for i, v := range x {
			vd += cmplx.Conj(complex128(v)) * complex128(y[i])
			vmag += cmplx.Abs(complex128(v)) * cmplx.Abs(complex128(y[i]))
		}
		unit := make([]C, len(x))
		for i, v := range x {
			unit[i] = C(complex128(v) / complex(cmplx.Abs(complex128(v)), 0))
		}
		bu := up(t, b, unit)
		pu := complex128(1)
		for _, v := range unit {
			pu *= complex128(v)
		}
		if got := m.ComplexProd(bu); got.DType() != backend.Complex128 || cmplx.Abs(got.Complex128()-pu) > 1e-12*float64(len(x)) {
			t.Errorf("ComplexProd of %d = %v (%v), want %v", len(x), got, got.DType(), pu)
		}
		if got := m.ComplexVdot(bx, by); got.DType() != backend.Complex128 || cmplx.Abs(got.Complex128()-vd) > 4*tol*vmag {
			t.Errorf("ComplexVdot of %d = %v (%v), want %v", len(x), got, got.DType(), vd)
		}
		freeAll(b, bx, by, bd, bu)
	}
}

func testComplexKernels(t *testing.T, b driver.Backend) {
	t.Run("complex128", func(t *testing.T) { complexKernels[complex128](t, b, 1e-15) })
	t.Run("complex64", func(t *testing.T) { complexKernels[complex64](t, b, 1e-6) })
}

// complexKernels checks the complex cases of the Backend methods and the
// capabilities that a ComplexKernels takes complex buffers in.
func complexKernels[C backend.Complex](t *testing.T, b driver.Backend, tol float64) {
	for _, n := range capSizesOf[C]() {
		x := complexInputs[C](t, n)
		y := complexInputs[C](t, n+1)[1:]
		bx, by, bd := up(t, b, x), up(t, b, y), zeros[C](t, b, len(x))
		ops := map[driver.BinaryOp]func(a, b complex128) complex128{
			driver.Add: func(a, b complex128) complex128 { return a + b },
			driver.Sub: func(a, b complex128) complex128 { return a - b },
			driver.Mul: func(a, b complex128) complex128 { return a * b },
			driver.Div: func(a, b complex128) complex128 { return a / b },
		}
		for _, op := range slices.Sorted(maps.Keys(ops)) { // the same order on every run
			f := ops[op]
			want := make([]complex128, len(x))
			scale := 0.0
			for i := range x {
				want[i] = f(complex128(x[i]), complex128(y[i]))
				scale = math.Max(scale, cmplx.Abs(want[i]))
			}
			b.Binary(op, bd, bx, by)
			checkClose(t, fmt.Sprintf("Binary(%v) of %d", op, len(x)), down[C](t, b, bd), want, 4*tol, scale)
		}
		if a, ok := b.(driver.AxisReducer); ok && len(x) > 0 {
			pre, k, post := 1, len(x), 1
			if len(x)%2 == 0 {
				k, post = len(x)/2, 2
			}
			acc := zeros[complex128](t, b, pre*post)
			a.SumAxis(acc, bx, pre, k, post, false)
			got := down[complex128](t, b, acc)
			for j := 0; j < post; j++ {
				var s complex128
				var mag float64
				for q := 0; q < k; q++ {
					s += complex128(x[q*post+j])
					mag += cmplx.Abs(complex128(x[q*post+j]))
				}
				if cmplx.Abs(got[j]-s) > 1e-15*mag {
					t.Errorf("SumAxis of complex %d (%d x %d): column %d = %v, want %v", len(x), k, post, j, got[j], s)
				}
			}
			freeAll(b, acc)
		}
		if c, ok := b.(driver.Converter); ok {
			mask := make([]uint8, len(x))
			for i := range mask {
				mask[i] = uint8(i % 2)
			}
			bm := up(t, b, mask)
			want := make([]complex128, len(x))
			for i := range x {
				want[i] = complex128(y[i])
				if mask[i] != 0 {
					want[i] = complex128(x[i])
				}
			}
			c.Where(bd, bm, bx, by)
			checkClose(t, fmt.Sprintf("Where of complex %d", len(x)), down[C](t, b, bd), want, 0, 1)
			freeAll(b, bm)
		}
		if s, ok := b.(driver.StatsReducer); ok {
			want := make([]complex128, len(x))
			var run C
			for i, v := range x {
				run += v
				want[i] = complex128(run)
			}
			s.ScanAxis(bd, nil, bx, nil, 1, len(x), 1, false)
			checkClose(t, fmt.Sprintf("ScanAxis of complex %d", len(x)), down[C](t, b, bd), want, 0, 1)
		}
		freeAll(b, bx, by, bd)
	}
}

func testAsync(t *testing.T, b driver.Backend) {
	a := b.(driver.Async)
	for _, n := range capSizesOf[float64]() {
		x := randFloats[float64](rng(t, n), n)
		// Pinned host memory round trip through two device buffers on a
		// stream of its own, ordered by an event on the default stream.
		// The source and destination are two pinned buffers: host memory
		// under an asynchronous copy is not touched until it completes.
		var in, out unsafe.Pointer
		if n > 0 {
			var err error
			if in, err = a.AllocPinned(8 * n); err != nil {
				t.Fatalf("AllocPinned(%d): %v", 8*n, err)
			}
			if out, err = a.AllocPinned(8 * n); err != nil {
				t.Fatalf("AllocPinned(%d): %v", 8*n, err)
			}
			copy(unsafe.Slice((*float64)(in), n), x)
			clear(unsafe.Slice((*float64)(out), n))
		}
		s, err := a.NewStream()
		if err != nil {
			t.Fatalf("NewStream: %v", err)
		}
		b1, b2 := zeros[float64](t, b, n), zeros[float64](t, b, n)
		if n > 0 {
			if err := a.CopyFromHostAsync(b1, in, s); err != nil {
				t.Fatalf("CopyFromHostAsync: %v", err)
			}
			ev, err := s.Record()
			if err != nil {
				t.Fatalf("Record: %v", err)
			}
			def := a.DefaultStream()
			if err := def.Wait(ev); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if err := a.CopyAsync(b2, b1, def); err != nil {
				t.Fatalf("CopyAsync: %v", err)
			}
			if err := a.CopyToHostAsync(out, b2, def); err != nil {
				t.Fatalf("CopyToHostAsync: %v", err)
			}
			if err := def.Synchronize(); err != nil {
				t.Fatalf("Synchronize: %v", err)
			}
			if done, err := ev.Done(); !done || err != nil {
				t.Errorf("event of a synchronized stream: Done() = %v, %v", done, err)
			}
			if err := ev.Destroy(); err != nil {
				t.Errorf("Event.Destroy: %v", err)
			}
			checkSame(t, fmt.Sprintf("async round trip of %d", n), unsafe.Slice((*float64)(out), n), x)
			a.FreePinned(in)
			a.FreePinned(out)
		}
		if err := s.Destroy(); err != nil {
			t.Errorf("Stream.Destroy: %v", err)
		}
		freeAll(b, b1, b2)
	}
}
