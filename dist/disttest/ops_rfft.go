package disttest

import (
	"fmt"
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/fft"
)

// The real transforms of package fft (RFFT, IRFFT and their 2-D and N-D
// forms: float64 in, complex128 out and back) and its shifts (FFTShift,
// IFFTShift: every element type). The real transforms take float64 and
// complex128 alone (a float32 array goes through dist.Astype first), so
// the other types' suites have no cells of them.

// rfftNumericOps are the shifts. They move elements without looking at
// them: their cells are in the suites of float64, float32, int8 and
// complex128 alone (one of each size of element but 2 and 4 bytes), to
// keep the matrix's time; package fft's tests run them on more types.
func rfftNumericOps[T backend.Numeric]() []op[T] {
	switch backend.DTypeOf[T]() {
	case backend.Float64, backend.Float32, backend.Int8, backend.Complex128:
	default:
		return nil
	}
	var ops []op[T]
	for _, v := range []struct {
		inv  bool
		name string
		axes []int
	}{{false, "all axes", nil}, {false, "axes=[-1]", []int{-1}}, {false, "axes=[0 0]", []int{0, 0}}, {true, "all axes", nil}} {
		name, f := "fft.FFTShift", fft.FFTShift[T]
		if v.inv {
			name, f = "fft.IFFTShift", fft.IFFTShift[T]
		}
		ops = append(ops, op[T]{fn: name, variant: v.name, family: "fft", run: func(in *input[T]) error {
			d, err := f(in.x, v.axes)
			return result(in, d, err, in.shape, refShift(in.gx, in.shape, v.axes, v.inv), 0)
		}})
	}
	return ops
}

func rfftElementOps[T backend.Element]() []op[T] { return nil }

// rfftFloatOps are the forward real transforms, in the float64 suite.
func rfftFloatOps[T backend.Float]() []op[T] {
	if backend.DTypeOf[T]() != backend.Float64 {
		return nil
	}
	var ops []op[T]
	as := func(in *input[T]) (*dist.Array[float64], []float64) {
		return any(in.x).(*dist.Array[float64]), any(in.gx).([]float64)
	}
	for _, ax := range []int{0, 1, 2} {
		ops = append(ops, op[T]{fn: "fft.RFFT", variant: fmt.Sprintf("axis=%d", ax), family: "fft", applies: realAxis(ax, 1), refuse: fftRefuse(ax), run: func(in *input[T]) error {
			x, g := as(in)
			d, err := fft.RFFT(x, ax)
			want, sh := refRDFT(g, in.shape, ax)
			return result(in, d, err, sh, want, 1e-11)
		}})
	}
	rn := func(in *input[T], axes []int) ([]complex128, []int) {
		_, g := as(in)
		last := axes[len(axes)-1]
		want, sh := refRDFT(g, in.shape, last)
		for _, a := range axes[:len(axes)-1] {
			want = refDFT(want, sh, a, false)
		}
		return want, sh
	}
	ops = append(ops, op[T]{fn: "fft.RFFT2", family: "fft", applies: func(s []int) bool { return len(s) >= 2 && s[len(s)-1] >= 1 }, run: func(in *input[T]) error {
		x, _ := as(in)
		d, err := fft.RFFT2(x)
		n := len(in.shape)
		want, sh := rn(in, []int{n - 2, n - 1})
		return result(in, d, err, sh, want, 1e-11)
	}}, op[T]{fn: "fft.RFFTN", family: "fft", applies: func(s []int) bool { return s[len(s)-1] >= 1 }, run: func(in *input[T]) error {
		x, _ := as(in)
		d, err := fft.RFFTN(x, nil)
		want, sh := rn(in, all(len(in.shape)))
		return result(in, d, err, sh, want, 1e-11)
	}}, op[T]{fn: "fft.RFFTN", variant: "axes=[-1 0]", family: "fft", applies: func(s []int) bool { return len(s) >= 2 && s[0] >= 1 }, run: func(in *input[T]) error {
		x, _ := as(in)
		d, err := fft.RFFTN(x, []int{-1, 0})
		want, sh := rn(in, []int{len(in.shape) - 1, 0})
		return result(in, d, err, sh, want, 1e-11)
	}})
	return ops
}

// rfftComplexOps are the inverse real transforms, in the complex128
// suite: the input is a half spectrum of any values (the imaginary parts
// that NumPy ignores included).
func rfftComplexOps[T backend.Complex]() []op[T] {
	if backend.DTypeOf[T]() != backend.Complex128 {
		return nil
	}
	var ops []op[T]
	as := func(in *input[T]) (*dist.Array[complex128], []complex128) {
		return any(in.x).(*dist.Array[complex128]), any(in.gx).([]complex128)
	}
	// The output lengths: NumPy's default 2(m-1) (m >= 2), and the odd
	// 2m-1 (for IRFFTN alone, to keep the matrix's time; package fft's
	// tests run every form with odd lengths).
	type nv struct {
		name string
		n    func(m int) int
		min  int
	}
	nvs := []nv{{"", func(int) int { return 0 }, 2}, {"n=2m-1", func(m int) int { return 2*m - 1 }, 1}}
	outLen := func(v nv, m int) int {
		if n := v.n(m); n > 0 {
			return n
		}
		return 2 * (m - 1)
	}
	join := func(a, b string) string {
		if b == "" {
			return a
		}
		if a == "" {
			return b
		}
		return a + " " + b
	}
	for _, ax := range []int{0, 1, 2} {
		for _, v := range nvs[:1] {
			ops = append(ops, op[T]{fn: "fft.IRFFT", variant: join(fmt.Sprintf("axis=%d", ax), v.name), family: "fft", applies: realAxis(ax, v.min), refuse: fftRefuse(ax), run: func(in *input[T]) error {
				x, g := as(in)
				n := outLen(v, in.shape[ax])
				d, err := fft.IRFFT(x, v.n(in.shape[ax]), ax)
				want, sh := refIRDFT(g, in.shape, ax, n)
				return result(in, d, err, sh, want, 1e-11)
			}})
		}
	}
	irn := func(g []complex128, shape []int, axes []int, n int) ([]float64, []int) {
		for _, a := range axes[:len(axes)-1] {
			g = refDFT(g, shape, a, true)
		}
		return refIRDFT(g, shape, axes[len(axes)-1], n)
	}
	ops = append(ops, op[T]{fn: "fft.IRFFT2", family: "fft", applies: func(s []int) bool { return len(s) >= 2 && s[len(s)-1] >= 2 }, run: func(in *input[T]) error {
		x, g := as(in)
		nd := len(in.shape)
		d, err := fft.IRFFT2(x, 0)
		want, sh := irn(g, in.shape, []int{nd - 2, nd - 1}, 2*(in.shape[nd-1]-1))
		return result(in, d, err, sh, want, 1e-11)
	}})
	for _, v := range nvs {
		ops = append(ops, op[T]{fn: "fft.IRFFTN", variant: v.name, family: "fft", applies: func(s []int) bool { return s[len(s)-1] >= v.min }, run: func(in *input[T]) error {
			x, g := as(in)
			nd := len(in.shape)
			m := in.shape[nd-1]
			d, err := fft.IRFFTN(x, v.n(m), nil)
			want, sh := irn(g, in.shape, all(nd), outLen(v, m))
			return result(in, d, err, sh, want, 1e-11)
		}})
	}
	return ops
}

// realAxis: the shape has axis, at least min long (a real transform of no
// points, or an inverse of NumPy's default length from one term, is an
// error; package fft's tests check it).
func realAxis(axis, min int) func([]int) bool {
	return func(s []int) bool { return axis < len(s) && s[axis] >= min }
}

// refRDFT is the half spectrum of the real g along axis: the plain DFT's
// first n/2+1 terms, and the shape with n/2+1 along axis.
func refRDFT(g []float64, shape []int, axis int) ([]complex128, []int) {
	outer, n, inner := geom(shape, axis)
	h := n/2 + 1
	sh := slices.Clone(shape)
	sh[axis] = h
	out := make([]complex128, outer*h*inner)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			for k := 0; k < h; k++ {
				var s complex128
				for j := 0; j < n; j++ {
					ang := -2 * math.Pi * float64(j*k%n) / float64(n)
					s += complex(g[(o*n+j)*inner+i], 0) * complex(math.Cos(ang), math.Sin(ang))
				}
				out[(o*h+k)*inner+i] = s
			}
		}
	}
	return out, sh
}

// refIRDFT is the real signal of length n of the half spectrum g along
// axis, as NumPy's irfft defines it: g cropped or padded with zeros to
// n/2+1 terms, the Hermitian spectrum they make summed, the imaginary
// parts of the zero-frequency and (n even) Nyquist terms ignored.
func refIRDFT(g []complex128, shape []int, axis, n int) ([]float64, []int) {
	outer, m, inner := geom(shape, axis)
	sh := slices.Clone(shape)
	sh[axis] = n
	out := make([]float64, outer*n*inner)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			X := func(k int) complex128 {
				if k >= m {
					return 0
				}
				return g[(o*m+k)*inner+i]
			}
			for j := 0; j < n; j++ {
				s := real(X(0))
				for k := 1; 2*k < n; k++ {
					ang := 2 * math.Pi * float64(j*k%n) / float64(n)
					s += 2 * real(X(k)*complex(math.Cos(ang), math.Sin(ang)))
				}
				if n%2 == 0 {
					sign := 1.0
					if j%2 == 1 {
						sign = -1
					}
					s += sign * real(X(n/2))
				}
				out[(o*n+j)*inner+i] = s / float64(n)
			}
		}
	}
	return out, sh
}

// refShift is NumPy's fftshift (ifftshift where inverse) of g along axes
// (every axis for nil): out[i + shift] = g[i] modulo each axis's length,
// the shift n/2 (-(n/2)), summed over repeats of an axis.
func refShift[T any](g []T, shape []int, axes []int, inverse bool) []T {
	nd := len(shape)
	if axes == nil {
		axes = all(nd)
	}
	shift := make([]int, nd)
	for _, a := range axes {
		a = normAxis(a, nd)
		s := shape[a] / 2
		if inverse {
			s = -s
		}
		shift[a] += s
	}
	out := make([]T, len(g))
	idx := make([]int, nd)
	dst := make([]int, nd)
	for f := range g {
		r := f
		for a := nd - 1; a >= 0; a-- {
			idx[a] = r % shape[a]
			r /= shape[a]
		}
		for a := range dst {
			n := shape[a]
			dst[a] = ((idx[a]+shift[a])%n + n) % n
		}
		out[flat(dst, shape)] = g[f]
	}
	return out
}
