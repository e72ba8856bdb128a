package cuda_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/profiling"
)

// TestGPUComplex checks the CUDA backend's complex arithmetic
// (driver.ComplexArith) and math (driver.ComplexMath), the kernels of
// complex.cu, against the CPU backend's, which dist's tests check against
// NumPy: complex64 and complex128, sizes 0, 1, odd, around the block (256)
// and the CPU's summation chunk (4096), and NaN, ±Inf, ±0, huge and tiny
// parts among the inputs. The arithmetic, the reductions and Conj, Real,
// Imag, Abs, Angle and Sqrt must be the CPU's bits (two NaNs match
// whatever their payloads); Exp, Log and Pow must agree to the bound
// complex.go states.
func TestGPUComplex(t *testing.T) {
	b := gpu(t)
	t.Run("complex64", func(t *testing.T) { gpuComplex[complex64](t, b) })
	t.Run("complex128", func(t *testing.T) { gpuComplex[complex128](t, b) })
	t.Run("panics", func(t *testing.T) { gpuComplexPanics(t, b) })
}

// complexSizes are the lengths of the tests' buffers.
var complexSizes = []int{0, 1, 2, 7, 255, 256, 257, 4095, 4096, 4097, 3*4096 + 5}

// complexInputs returns n values of T: random parts of mixed magnitudes
// (2^-6 to 2^6 where moderate, else 2^-60 to 2^60), with, if special,
// parts NaN, ±Inf, ±0, huge and tiny placed among them.
func complexInputs[T backend.Complex](n int, special, moderate bool, seed uint64) []T {
	r := rand.New(rand.NewPCG(seed, uint64(backend.DTypeOf[T]())))
	span := 60
	if moderate {
		span = 6
	}
	part := func() float64 { return (2*r.Float64() - 1) * math.Ldexp(1, r.IntN(2*span+1)-span) }
	x := make([]T, n)
	for i := range x {
		x[i] = T(complex(part(), part()))
	}
	if !special || n == 0 {
		return x
	}
	big, tiny := 1e300, 5e-324
	if backend.DTypeOf[T]() == backend.Complex64 {
		big, tiny = 3e38, 1e-45
	}
	nan, inf, nz := math.NaN(), math.Inf(1), math.Copysign(0, -1)
	parts := []float64{nan, inf, -inf, 0, nz, big, -big, tiny, -tiny, 1, -1.5}
	k := 0
	for _, re := range parts {
		for _, im := range parts {
			x[(k*7919+3)%n] = T(complex(re, im))
			k++
		}
	}
	return x
}

// sameF reports whether a and b have the same bits or are two NaNs.
func sameF(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b)
}

// sameC reports whether the parts of a and b have the same bits or are
// both NaN.
func sameC(a, b complex128) bool { return sameF(real(a), real(b)) && sameF(imag(a), imag(b)) }

// closeC reports whether got is want to within tol times the modulus of
// want, part by part, NaN and infinite parts matching exactly.
func closeC(got, want complex128, tol float64) bool {
	m := cmplx.Abs(want)
	for _, p := range [][2]float64{{real(got), real(want)}, {imag(got), imag(want)}} {
		g, w := p[0], p[1]
		switch {
		case math.IsNaN(w) || math.IsInf(w, 0) || math.IsInf(m, 0) || math.IsNaN(m):
			if !sameF(g, w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				return false
			}
		case math.Abs(g-w) > tol*m:
			return false
		}
	}
	return true
}

// checkC compares a device result with the CPU's, bitwise if tol is 0.
func checkC[T backend.Complex](t *testing.T, what string, got, want []T, tol float64) {
	t.Helper()
	for i := range want {
		g, w := complex128(got[i]), complex128(want[i])
		if (tol == 0 && !sameC(g, w)) || (tol > 0 && !closeC(g, w, tol)) {
			t.Errorf("%s: element %d: %v on the GPU, %v on the CPU", what, i, g, w)
			return
		}
	}
}

func gpuComplex[T backend.Complex](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	var h backend.Backend = cpu.Default
	eps := 0x1p-52
	if dt == backend.Complex64 {
		eps = 0x1p-23
	}
	scalars := []complex128{0, 1, complex(1.5, -2.25), complex(math.NaN(), 1), complex(math.Inf(1), 0), complex(0, math.Inf(-1)), complex(-1e-3, 7e5)}
	for _, n := range complexSizes {
		for _, special := range []bool{false, true} {
			name := fmt.Sprintf("%v n=%d special=%v", dt, n, special)
			x, y := complexInputs[T](n, special, false, uint64(n)), complexInputs[T](n, special, false, uint64(n)+1000)
			// Mix the specials of x with every kind of y by shifting y.
			if n > 1 {
				y = append(y[n/3:], y[:n/3]...)
			}
			dx, dy := upload(t, b, x), upload(t, b, y)
			run := func(op string, dev func(d driver.Buffer), host func(hb driver.Buffer), start []T) {
				t.Helper()
				d := upload(t, b, start)
				defer b.Free(d)
				hs := append([]T(nil), start...)
				dev(d)
				host(driver.HostBufferOf(hs))
				checkC(t, name+" "+op, download[T](t, b, d), hs, 0)
			}
			hx, hy := driver.HostBufferOf(x), driver.HostBufferOf(y)
			for _, op := range []backend.BinaryOp{backend.Add, backend.Sub, backend.Mul, backend.Div} {
				run(op.String(), func(d driver.Buffer) { b.Binary(op, d, dx, dy) },
					func(hb driver.Buffer) { h.Binary(op, hb, hx, hy) }, make([]T, n))
				// dst is x: the kernel reads each element before writing it.
				run(op.String()+" in place", func(d driver.Buffer) { b.Binary(op, d, d, dy) },
					func(hb driver.Buffer) { h.Binary(op, hb, hb, hy) }, x)
			}
			for si, s := range scalars {
				sc := driver.ScalarOf(T(s))
				if si == len(scalars)-1 {
					sc = driver.ScalarOf(s) // a complex128 scalar for a complex64 buffer, converted
				}
				tag := fmt.Sprintf(" scalar %v", s)
				run("Fill"+tag, func(d driver.Buffer) { b.Fill(d, sc) }, func(hb driver.Buffer) { h.Fill(hb, sc) }, x)
				run("Scale"+tag, func(d driver.Buffer) { b.Scale(d, sc) }, func(hb driver.Buffer) { h.Scale(hb, sc) }, x)
				run("Axpy"+tag, func(d driver.Buffer) { b.Axpy(sc, dx, d) }, func(hb driver.Buffer) { h.Axpy(sc, hx, hb) }, y)
				sc2 := driver.ScalarOf(T(scalars[(si+2)%len(scalars)]))
				run("Axpby"+tag, func(d driver.Buffer) { b.Axpby(sc, dx, sc2, d) }, func(hb driver.Buffer) { h.Axpby(sc, hx, sc2, hb) }, y)
				for _, op := range []backend.BinaryOp{backend.Add, backend.Sub, backend.Mul, backend.Div} {
					run(op.String()+"s"+tag, func(d driver.Buffer) { b.BinaryScalar(op, d, dx, sc) },
						func(hb driver.Buffer) { h.BinaryScalar(op, hb, hx, sc) }, make([]T, n))
				}
			}
			// Reductions: the CPU's bits.
			if g, w := b.Sum(dx).Complex128(), h.Sum(hx).Complex128(); !sameC(g, w) {
				t.Errorf("%s Sum: %v on the GPU, %v on the CPU", name, g, w)
			}
			if g, w := b.Dot(dx, dy).Complex128(), h.Dot(hx, hy).Complex128(); !sameC(g, w) {
				t.Errorf("%s Dot: %v on the GPU, %v on the CPU", name, g, w)
			}
			if g, w := b.ComplexVdot(dx, dy).Complex128(), cpu.Default.ComplexVdot(hx, hy).Complex128(); !sameC(g, w) {
				t.Errorf("%s Vdot: %v on the GPU, %v on the CPU", name, g, w)
			}
			if s := b.Sum(dx); s.DType() != backend.Complex128 {
				t.Errorf("%s Sum: a %v scalar, want complex128", name, s.DType())
			}
			// Products of moduli near 1, so that long ones stay finite
			// where there are no specials.
			px := complexInputs[T](n, special, true, uint64(n)+7)
			for i, v := range px {
				if m := cmplx.Abs(complex128(v)); !special && m > 0 {
					px[i] = v / T(complex(m*(0.9+0.2*float64(i%5)/4), 0))
				}
			}
			dp := upload(t, b, px)
			if g, w := b.ComplexProd(dp).Complex128(), cpu.Default.ComplexProd(driver.HostBufferOf(px)).Complex128(); !sameC(g, w) {
				t.Errorf("%s Prod: %v on the GPU, %v on the CPU", name, g, w)
			}
			b.Free(dp)
			b.Free(dx)
			b.Free(dy)
		}
	}
	// A sum whose chunk partials do not fit the scratch memory (more than
	// 512 chunks of 4096).
	if !testing.Short() && dt == backend.Complex64 {
		n := 513*4096 + 17
		x := complexInputs[T](n, false, false, 99)
		dx := upload(t, b, x)
		if g, w := b.Sum(dx).Complex128(), h.Sum(driver.HostBufferOf(x)).Complex128(); !sameC(g, w) {
			t.Errorf("%v Sum of %d: %v on the GPU, %v on the CPU", dt, n, g, w)
		}
		if g, w := b.Dot(dx, dx).Complex128(), h.Dot(driver.HostBufferOf(x), driver.HostBufferOf(x)).Complex128(); !sameC(g, w) {
			t.Errorf("%v Dot of %d: %v on the GPU, %v on the CPU", dt, n, g, w)
		}
		b.Free(dx)
	}
	gpuComplexMath[T](t, b, eps)
}

// gpuComplexMath checks ComplexUnary, ComplexPow and ComplexPowScalar.
func gpuComplexMath[T backend.Complex](t *testing.T, b *cuda.Backend, eps float64) {
	dt := backend.DTypeOf[T]()
	m := cpu.Default
	// The bound of Exp, Log and Pow, in units of eps of the result's
	// modulus: the device's exp, log, sin, cos and pow against Go's (the
	// fake driver runs glibc's). complex64 results are complex128 ones
	// rounded, so they differ by a rounding at most.
	tols := map[driver.ComplexOp]float64{driver.CExp: 8 * eps, driver.CLog: 4 * eps}
	powTol := 64 * eps
	if dt == backend.Complex64 {
		tols = map[driver.ComplexOp]float64{driver.CExp: eps, driver.CLog: eps}
		powTol = 2 * eps
	}
	for _, n := range []int{0, 1, 7, 257, 1000} {
		for _, special := range []bool{false, true} {
			name := fmt.Sprintf("%v n=%d special=%v", dt, n, special)
			x := complexInputs[T](n, special, true, uint64(n)+5)
			if special && n > 0 {
				// Large and small moduli too, for Sqrt's and Abs's scaling.
				wide := complexInputs[T](n, false, false, uint64(n)+6)
				for i := 0; i < n; i += 3 {
					x[i] = wide[i]
				}
			}
			dx := upload(t, b, x)
			hx := driver.HostBufferOf(x)
			for op := driver.CExp; op <= driver.CImag; op++ {
				if op.RealResult() {
					dd, _ := b.Alloc(dt.Real(), n)
					var want driver.Buffer
					if dt == backend.Complex64 {
						want = driver.HostBufferOf(make([]float32, n))
					} else {
						want = driver.HostBufferOf(make([]float64, n))
					}
					b.ComplexUnary(op, dd, dx)
					m.ComplexUnary(op, want, hx)
					if dt == backend.Complex64 {
						compareBuf[float32](t, b, name+" "+op.String(), dd, want)
					} else {
						compareBuf[float64](t, b, name+" "+op.String(), dd, want)
					}
					b.Free(dd)
					continue
				}
				dd := upload(t, b, make([]T, n))
				want := make([]T, n)
				b.ComplexUnary(op, dd, dx)
				m.ComplexUnary(op, driver.HostBufferOf(want), hx)
				if op == driver.CLog {
					logSubnormal(x, want)
				}
				checkC(t, name+" "+op.String(), download[T](t, b, dd), want, tols[op])
				// In place.
				dd2 := upload(t, b, x)
				b.ComplexUnary(op, dd2, dd2)
				checkC(t, name+" "+op.String()+" in place", download[T](t, b, dd2), want, tols[op])
				b.Free(dd)
				b.Free(dd2)
			}
			// Pow: exponents with zero, integer, real and complex values,
			// and the specials where special.
			y := complexInputs[T](n, special, true, uint64(n)+9)
			// Exponents of at most about 4, so that the phase
			// y*log(x) stays below about 40 (its error grows with it).
			for i := range y {
				if i%4 == 0 {
					y[i] = T(complex(float64(i%7)-3, 0))
				} else {
					y[i] = T(complex(real(complex128(y[i]))/16, imag(complex128(y[i]))/16))
				}
			}
			if special && n > 0 {
				// No subnormal moduli among the bases: Go's math.Log is
				// wrong there on amd64 (see logSubnormal).
				for i, v := range x {
					if a := cmplx.Abs(complex128(v)); a > 0 && a < 0x1p-1022 {
						x[i] = T(complex(real(complex128(v))*0x1p60, imag(complex128(v))*0x1p60))
					}
				}
				b.Free(dx)
				dx, hx = upload(t, b, x), driver.HostBufferOf(x)
			}
			if n > 1 {
				y[1] = 0
			}
			dy := upload(t, b, y)
			dd := upload(t, b, make([]T, n))
			want := make([]T, n)
			b.ComplexPow(dd, dx, dy)
			m.ComplexPow(driver.HostBufferOf(want), hx, driver.HostBufferOf(y))
			checkC(t, name+" Pow", download[T](t, b, dd), want, powTol)
			for _, s := range []complex128{0, 2, 0.5, complex(1.5, -0.75), complex(-2, 0), complex(math.NaN(), 0)} {
				sc := driver.ScalarOf(T(s))
				b.ComplexPowScalar(dd, dx, sc)
				m.ComplexPowScalar(driver.HostBufferOf(want), hx, sc)
				checkC(t, fmt.Sprintf("%s PowScalar %v", name, s), download[T](t, b, dd), want, powTol)
			}
			b.Free(dd)
			b.Free(dy)
			b.Free(dx)
		}
	}
	// Pow's special cases: zero bases, zero exponents, NaN.
	nan, inf := math.NaN(), math.Inf(1)
	var xs, ys []T
	for _, xv := range []complex128{0, complex(math.Copysign(0, -1), 0), 1, complex(-1, 0), complex(nan, 0), complex(inf, 0), complex(0, inf), complex(2, 3)} {
		for _, yv := range []complex128{0, complex(0, 1), complex(-1, 0), complex(-1, 1), complex(2, 0), complex(nan, 0), complex(nan, nan), complex(0.5, 0), complex(inf, 0)} {
			xs, ys = append(xs, T(xv)), append(ys, T(yv))
		}
	}
	dx, dy, dd := upload(t, b, xs), upload(t, b, ys), upload(t, b, make([]T, len(xs)))
	want := make([]T, len(xs))
	b.ComplexPow(dd, dx, dy)
	m.ComplexPow(driver.HostBufferOf(want), driver.HostBufferOf(xs), driver.HostBufferOf(ys))
	got := download[T](t, b, dd)
	for i := range want {
		if !closeC(complex128(got[i]), complex128(want[i]), powTol) {
			t.Errorf("%v Pow(%v, %v): %v on the GPU, %v on the CPU", dt, xs[i], ys[i], got[i], want[i])
		}
	}
	b.Free(dx)
	b.Free(dy)
	b.Free(dd)
}

// logSubnormal corrects the real parts of want, the CPU's Log of x, where
// the modulus of x is subnormal: Go's math.Log on amd64 (its assembly)
// does not take subnormal arguments (math.Log(5e-324) is -709.09, where
// NumPy and the device give -744.44), so the device is checked there
// against log(m * 2^54) - 54 log 2, a correct value.
func logSubnormal[T backend.Complex](x, want []T) {
	for i, v := range x {
		if a := cmplx.Abs(complex128(v)); a > 0 && a < 0x1p-1022 {
			w := complex128(want[i])
			want[i] = T(complex(math.Log(a*0x1p54)-54*math.Ln2, imag(w)))
		}
	}
}

// gpuComplexPanics checks the argument checks of the complex methods, and
// that the arithmetic records no copy.
func gpuComplexPanics(t *testing.T, b *cuda.Backend) {
	x := upload(t, b, []complex128{1, 2, 3})
	y := upload(t, b, []complex128{1, 2})
	f := upload(t, b, []float32{1, 2, 3})
	defer func() {
		for _, d := range []driver.Buffer{x, y, f} {
			b.Free(d)
		}
	}()
	cases := []struct {
		name string
		f    func()
	}{
		{"Binary lengths", func() { b.Binary(backend.Add, x, x, y) }},
		{"Axpy lengths", func() { b.Axpy(driver.ScalarOf(complex128(1)), y, x) }},
		{"Dot lengths", func() { b.Dot(x, y) }},
		{"Abs into float32", func() { b.ComplexUnary(driver.CAbs, f, x) }},
		{"Exp into float64", func() { b.ComplexUnary(driver.CExp, f, x) }},
		{"unary of a real buffer", func() { b.ComplexUnary(driver.CExp, f, f) }},
		{"invalid op", func() { b.ComplexUnary(driver.ComplexOp(99), x, x) }},
		{"Pow lengths", func() { b.ComplexPow(x, x, y) }},
		{"Prod of a real buffer", func() { b.ComplexProd(f) }},
		{"Vdot of a real buffer", func() { b.ComplexVdot(f, f) }},
	}
	for _, c := range cases {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "cuda: ") {
					t.Errorf("%s: recovered %v, want a panic that starts \"cuda: \"", c.name, r)
				}
			}()
			c.f()
		}()
	}
	cnt := profiling.Counting(func() {
		b.Scale(x, driver.ScalarOf(complex128(2i)))
		b.Binary(backend.Div, x, x, x)
		b.Sum(x)
		b.ComplexUnary(driver.CSqrt, x, x)
	})
	if h, d := cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice); h != 0 || d != 0 {
		t.Errorf("complex arithmetic recorded %d copies to the host and %d to the device, want none", h, d)
	}
}
