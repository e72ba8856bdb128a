package disttest

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
)

// The elementwise functions of issue 32 (Maximum, Mod, FloorDivide, Log10, inverse trigonometric, Isnan, Isclose, ...) and the NaN-ignoring reductions.
//
// Each function returns the operations of its set of element types; the
// suites in ops.go concatenate them with the others. The references are
// plain Go loops over the global input. The matrix's data have no NaN:
// the operations named "(with NaN)" first make a copy of x with NaN where
// x < 0 (Where of LessScalar), and their references read the same NaNs.

func ewNumericOps[T backend.Numeric]() []op[T] { return nil }

// isCloseRef is NumPy's isclose of two real values with its default
// tolerances, computed in float64.
func isCloseRef(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) || a != a || b != b {
		return a == b
	}
	return math.Abs(a-b) <= 1e-8+1e-5*math.Abs(b)
}

func mask01(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func ewElementOps[T backend.Element]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	f64 := func(v T) float64 { return real(toC(v)) }
	bin := func(name string, f func(d, x, y *dist.Array[T]) error, r func(a, b float64) float64) op[T] {
		return op[T]{fn: name, family: "elementwise", run: func(in *input[T]) error {
			return into(in, func(d *dist.Array[T]) error { return f(d, in.x, in.y) },
				refMap2(in.gx, in.gy, func(a, b T) T { return T(r(f64(a), f64(b))) }), 0)
		}}
	}
	add(bin("Maximum", dist.Maximum[T], math.Max), bin("Minimum", dist.Minimum[T], math.Min),
		bin("Mod", dist.Mod[T], func(a, b float64) float64 { return a - math.Floor(a/b)*b }),
		bin("FloorDivide", dist.FloorDivide[T], func(a, b float64) float64 { return math.Floor(a / b) }))
	add(op[T]{fn: "Sign", family: "math", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.Sign(d, in.x) }, refMap(in.gx, func(a T) T {
			switch v := f64(a); {
			case v > 0:
				return 1
			case v < 0:
				var one T = 1
				return 0 - one
			}
			return 0
		}), 0)
	}})
	pred := func(name string, f func(*dist.Array[T]) (*dist.Array[uint8], error), r func(float64) bool) op[T] {
		return op[T]{fn: name, family: "mask", run: func(in *input[T]) error {
			d, err := f(in.x)
			return result(in, d, err, in.shape, refMap(in.gx, func(a T) uint8 { return mask01(r(f64(a))) }), 0)
		}}
	}
	add(pred("Isnan", dist.Isnan[T], math.IsNaN), pred("Isinf", dist.Isinf[T], func(v float64) bool { return math.IsInf(v, 0) }),
		pred("Isfinite", dist.Isfinite[T], func(v float64) bool { return !math.IsInf(v, 0) && v == v }))
	add(op[T]{fn: "Isclose", family: "mask", run: func(in *input[T]) error {
		d, err := dist.Isclose(in.x, in.y)
		return result(in, d, err, in.shape, refMap2(in.gx, in.gy, func(a, b T) uint8 { return mask01(isCloseRef(f64(a), f64(b))) }), 0)
	}}, op[T]{fn: "Allclose", family: "reduction", run: func(in *input[T]) error {
		want := true
		for i := range in.gx {
			want = want && isCloseRef(f64(in.gx[i]), f64(in.gy[i]))
		}
		v, err := dist.Allclose(in.x, in.y)
		return boolVal(v, err, want)
	}}, op[T]{fn: "Allclose", variant: "x, x", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.Allclose(in.x, in.x)
		return boolVal(v, err, true)
	}})
	add(nanOps(func(in *input[T]) (*dist.Array[T], []T, error) { return in.x, in.gx, nil }, "")...)
	return ops
}

// nanOps are the NaN-ignoring reductions of the array that src makes (and
// its global contents), whose variant is v.
// withSource runs f on the array that src makes from in and on its global
// contents; the array is freed after, unless it is in.x.
func withSource[T backend.Numeric](in *input[T], src func(in *input[T]) (*dist.Array[T], []T, error), f func(x *dist.Array[T], g []T) error) error {
	x, g, err := src(in)
	if err != nil {
		return opErr(err)
	}
	if x != in.x {
		defer x.Free()
	}
	return f(x, g)
}

func nanOps[T backend.Element](src func(in *input[T]) (*dist.Array[T], []T, error), v string) []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	with := func(in *input[T], f func(x *dist.Array[T], g []T) error) error { return withSource(in, src, f) }
	noNaN := func(g []T) []T {
		var out []T
		for _, v := range g {
			if v == v {
				out = append(out, v)
			}
		}
		return out
	}
	full := func(name string, f func(*dist.Array[T]) (T, error), r func([]T) (T, bool), tol float64) op[T] {
		return op[T]{fn: name, variant: v, family: "reduction", run: func(in *input[T]) error {
			return with(in, func(x *dist.Array[T], g []T) error {
				got, err := f(x)
				want, ok := r(noNaN(g))
				if !ok {
					if len(g) == 0 {
						return emptyErr(err)
					}
					want = T(math.NaN()) // all NaN (float T only)
				}
				return scalar(got, err, want, tol)
			})
		}}
	}
	ext := func(r func([]T) (T, int)) func([]T) (T, bool) {
		return func(g []T) (T, bool) {
			if len(g) == 0 {
				return 0, false
			}
			m, _ := r(g)
			return m, true
		}
	}
	add(full("Nansum", dist.Nansum[T], func(g []T) (T, bool) { return refSum(g), true }, 0),
		full("Nanprod", dist.Nanprod[T], func(g []T) (T, bool) { return refProd(g), true }, Tolerance(backend.DTypeOf[T]())),
		full("Nanmax", dist.Nanmax[T], ext(refMax[T]), 0), full("Nanmin", dist.Nanmin[T], ext(refMin[T]), 0))
	arg := func(name string, f func(*dist.Array[T]) (int, error), r func([]T) (T, int), max bool) op[T] {
		return op[T]{fn: name, variant: v, family: "reduction", run: func(in *input[T]) error {
			return with(in, func(x *dist.Array[T], g []T) error {
				got, err := f(x)
				if len(g) == 0 {
					return emptyErr(err)
				}
				at, best := -1, T(0)
				for i, e := range g {
					if e == e && (at < 0 || (max && e > best) || (!max && e < best)) {
						at, best = i, e
					}
				}
				if at < 0 {
					if err == nil {
						return fmt.Errorf("returned %d for an all-NaN array; want an error wrapping dist.ErrAllNaN", got)
					}
					return opErrUnless(err, dist.ErrAllNaN)
				}
				return scalar(int64(got), err, int64(at), 0)
			})
		}}
	}
	add(arg("Nanargmax", dist.Nanargmax[T], refMax[T], true), arg("Nanargmin", dist.Nanargmin[T], refMin[T], false))
	stat := func(name string, f func(*dist.Array[T]) (float64, error), r func([]T) float64, least int) op[T] {
		return op[T]{fn: name, variant: v, family: "reduction", run: func(in *input[T]) error {
			return with(in, func(x *dist.Array[T], g []T) error {
				got, err := f(x)
				if len(g) == 0 {
					return emptyErr(err)
				}
				want := math.NaN()
				if n := noNaN(g); len(n) >= least {
					want = r(n)
				}
				return scalar(got, err, want, 1e-12)
			})
		}}
	}
	add(stat("Nanmean", dist.Nanmean[T], refMean[T], 1),
		stat("Nanvar", func(x *dist.Array[T]) (float64, error) { return dist.Nanvar(x, 1) }, func(g []T) float64 { return refVar(g, 1) }, 2),
		stat("Nanstd", func(x *dist.Array[T]) (float64, error) { return dist.Nanstd(x, 0) }, func(g []T) float64 { return math.Sqrt(refVar(g, 0)) }, 1))
	for _, ax := range []int{0, -1} { // the first and last axes: cheap cells
		av := fmt.Sprintf("axis=%d", ax)
		if v != "" {
			av = v + ", " + av
		}
		lineApplies := func(s []int) bool { return ax < len(s) && s[normAxis(ax, len(s))] > 0 }
		red := func(name string, f func(*dist.Array[T], int) (*dist.Array[T], error), r func([]T) T, tol float64) op[T] {
			return op[T]{fn: name, variant: av, family: "axis", applies: lineApplies, run: func(in *input[T]) error {
				return with(in, func(x *dist.Array[T], g []T) error {
					d, err := f(x, ax)
					want, sh := refAxis(g, in.shape, normAxis(ax, len(in.shape)), func(l []T) T { return r(noNaN(l)) })
					return result(in, d, err, sh, want, tol)
				})
			}}
		}
		extr := func(r func([]T) (T, int)) func([]T) T {
			return func(l []T) T {
				if len(l) == 0 {
					return T(math.NaN())
				}
				m, _ := r(l)
				return m
			}
		}
		add(red("NansumAxis", dist.NansumAxis[T], refSum[T], 0),
			red("NanprodAxis", dist.NanprodAxis[T], refProd[T], Tolerance(backend.DTypeOf[T]())),
			red("NanmaxAxis", dist.NanmaxAxis[T], extr(refMax[T]), 0),
			red("NanminAxis", dist.NanminAxis[T], extr(refMin[T]), 0))
		argr := func(name string, f func(*dist.Array[T], int) (*dist.Array[int64], error), max bool) op[T] {
			return op[T]{fn: name, variant: av, family: "axis", applies: lineApplies, run: func(in *input[T]) error {
				return with(in, func(x *dist.Array[T], g []T) error {
					d, err := f(x, ax)
					allNaN := false
					want, sh := refAxis(g, in.shape, normAxis(ax, len(in.shape)), func(l []T) int64 {
						at, best := -1, T(0)
						for i, e := range l {
							if e == e && (at < 0 || (max && e > best) || (!max && e < best)) {
								at, best = i, e
							}
						}
						allNaN = allNaN || at < 0
						return int64(at)
					})
					if allNaN {
						if err == nil {
							d.Free()
							return fmt.Errorf("returned an array for an array with an all-NaN line; want an error wrapping dist.ErrAllNaN")
						}
						return opErrUnless(err, dist.ErrAllNaN)
					}
					return result(in, d, err, sh, want, 0)
				})
			}}
		}
		add(argr("NanargmaxAxis", dist.NanargmaxAxis[T], true), argr("NanargminAxis", dist.NanargminAxis[T], false))
		add(op[T]{fn: "NanmeanAxis", variant: av, family: "axis", applies: hasAxis(ax), run: func(in *input[T]) error {
			return with(in, func(x *dist.Array[T], g []T) error {
				d, err := dist.NanmeanAxis(x, ax)
				want, sh := refAxis(g, in.shape, normAxis(ax, len(in.shape)), func(l []T) float64 {
					if n := noNaN(l); len(n) > 0 {
						return refMean(n)
					}
					return math.NaN()
				})
				return result(in, d, err, sh, want, 1e-12)
			})
		}})
		// NaN where a line has at most ddof elements that are not NaN (of
		// an integer array NanvarAxis and NanstdAxis are VarAxis and
		// StdAxis, which give 0/0 there, as the lines are not empty).
		vr := func(name string, f func(*dist.Array[T], int, int) (*dist.Array[float64], error), ddof int, sqrt bool) op[T] {
			return op[T]{fn: name, variant: av, family: "axis", applies: lineApplies, run: func(in *input[T]) error {
				return with(in, func(x *dist.Array[T], g []T) error {
					d, err := f(x, ax, ddof)
					want, sh := refAxis(g, in.shape, normAxis(ax, len(in.shape)), func(l []T) float64 {
						n := noNaN(l)
						if len(n) <= ddof {
							return math.NaN()
						}
						if sqrt {
							return math.Sqrt(refVar(n, ddof))
						}
						return refVar(n, ddof)
					})
					return result(in, d, err, sh, want, 1e-12)
				})
			}}
		}
		add(vr("NanvarAxis", dist.NanvarAxis[T], 1, false), vr("NanstdAxis", dist.NanstdAxis[T], 0, true))
	}
	return ops
}

// opErrUnless returns nil where err wraps want (the expected error of the
// cell), and otherwise the operation's error.
func opErrUnless(err, want error) error {
	if errors.Is(err, want) {
		return nil
	}
	return opErr(err)
}

func ewFloatOps[T backend.Float]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	tol := Tolerance(backend.DTypeOf[T]())
	// scale: the functions of [-1, 1] (Arcsin, Arccos, Arctanh) take x/8.
	math1 := func(name string, f func(d, x *dist.Array[T]) error, r func(float64) float64, scale float64) op[T] {
		variant := ""
		if scale != 1 {
			variant = "x/8"
		}
		return op[T]{fn: name, variant: variant, family: "math", run: func(in *input[T]) error {
			return into(in, func(d *dist.Array[T]) error {
				if scale == 1 {
					return f(d, in.x)
				}
				dist.MulScalar(d, in.x, T(scale))
				return f(d, d)
			}, refMap(in.gx, func(a T) T { return T(r(float64(T(float64(a) * scale)))) }), tol)
		}}
	}
	add(math1("Log10", dist.Log10[T], math.Log10, 1), math1("Log2", dist.Log2[T], math.Log2, 1),
		math1("Tan", dist.Tan[T], math.Tan, 1), math1("Arcsin", dist.Arcsin[T], math.Asin, 0.125),
		math1("Arccos", dist.Arccos[T], math.Acos, 0.125), math1("Arctan", dist.Arctan[T], math.Atan, 1),
		math1("Sinh", dist.Sinh[T], math.Sinh, 1), math1("Cosh", dist.Cosh[T], math.Cosh, 1),
		math1("Arcsinh", dist.Arcsinh[T], math.Asinh, 1), math1("Arccosh", dist.Arccosh[T], math.Acosh, 1),
		math1("Arctanh", dist.Arctanh[T], math.Atanh, 0.125))
	add(op[T]{fn: "Arctan2", family: "math", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.Arctan2(d, in.x, in.y) },
			refMap2(in.gx, in.gy, func(a, b T) T { return T(math.Atan2(float64(a), float64(b))) }), tol)
	}})
	// With NaN (and infinities for the predicates).
	special := func(v float64) func(in *input[T]) (*dist.Array[T], []T, error) {
		return func(in *input[T]) (*dist.Array[T], []T, error) {
			return withSpecial(in, T(v))
		}
	}
	pred := func(name string, f func(*dist.Array[T]) (*dist.Array[uint8], error), v float64, r func(float64) bool) op[T] {
		return op[T]{fn: name, variant: fmt.Sprintf("with %v", v), family: "mask", run: func(in *input[T]) error {
			x, g, err := special(v)(in)
			if err != nil {
				return opErr(err)
			}
			defer x.Free()
			d, err := f(x)
			return result(in, d, err, in.shape, refMap(g, func(a T) uint8 { return mask01(r(float64(a))) }), 0)
		}}
	}
	for _, v := range []float64{math.NaN(), math.Inf(-1)} {
		add(pred("Isnan", dist.Isnan[T], v, math.IsNaN), pred("Isinf", dist.Isinf[T], v, func(v float64) bool { return math.IsInf(v, 0) }),
			pred("Isfinite", dist.Isfinite[T], v, func(v float64) bool { return !math.IsInf(v, 0) && v == v }))
	}
	add(op[T]{fn: "Isclose", variant: "with NaN, equal_nan", family: "mask", run: func(in *input[T]) error {
		x, g, err := special(math.NaN())(in)
		if err != nil {
			return opErr(err)
		}
		defer x.Free()
		d, err := dist.Isclose(x, x, dist.EqualNaN())
		return result(in, d, err, in.shape, refMap(g, func(T) uint8 { return 1 }), 0)
	}})
	add(nanOps(special(math.NaN()), "with NaN")...)
	return ops
}

// withSpecial returns a new array of x's layout holding x with v where
// x < 0, and its global contents.
func withSpecial[T backend.Float](in *input[T], v T) (*dist.Array[T], []T, error) {
	m, err := dist.LessScalar(in.x, 0)
	if err != nil {
		return nil, nil, err
	}
	defer m.Free()
	s, err := newLike(in)
	if err != nil {
		return nil, nil, err
	}
	defer s.Free()
	dist.Fill(s, v)
	d, err := newLike(in)
	if err != nil {
		return nil, nil, err
	}
	if err := dist.Where(d, m, s, in.x); err != nil {
		d.Free()
		return nil, nil, err
	}
	return d, refMap(in.gx, func(a T) T {
		if a < 0 {
			return v
		}
		return a
	}), nil
}

func ewComplexOps[T backend.Complex]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	pred := func(name string, f func(*dist.Array[T]) (*dist.Array[uint8], error), want uint8) op[T] {
		return op[T]{fn: name, family: "mask", run: func(in *input[T]) error {
			d, err := f(in.x)
			return result(in, d, err, in.shape, refMap(in.gx, func(T) uint8 { return want }), 0)
		}}
	}
	add(pred("Isnan", dist.Isnan[T], 0), pred("Isinf", dist.Isinf[T], 0), pred("Isfinite", dist.Isfinite[T], 1))
	add(nanComplexOps(func(in *input[T]) (*dist.Array[T], []T, error) { return in.x, in.gx, nil }, "")...)
	add(nanComplexOps(withNaNImag[T], "with NaN")...)
	closeRef := func(a, b T) bool {
		x, y := toC(a), toC(b)
		return cmplx.Abs(x-y) <= 1e-8+1e-5*cmplx.Abs(y)
	}
	add(op[T]{fn: "Isclose", family: "mask", run: func(in *input[T]) error {
		d, err := dist.Isclose(in.x, in.y)
		return result(in, d, err, in.shape, refMap2(in.gx, in.gy, func(a, b T) uint8 { return mask01(closeRef(a, b)) }), 0)
	}}, op[T]{fn: "Allclose", variant: "x, x", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.Allclose(in.x, in.x)
		return boolVal(v, err, true)
	}})
	return ops
}

// withNaNImag returns a new array of x's layout holding x with NaN
// imaginary parts where the real part is < 0 (elements that NumPy's isnan
// counts as NaN though their real part is not), and its global contents.
func withNaNImag[T backend.Complex](in *input[T]) (*dist.Array[T], []T, error) {
	re, err := dist.Astype[float64](in.x, dist.DiscardImag())
	if err != nil {
		return nil, nil, err
	}
	defer re.Free()
	m, err := dist.LessScalar(re, 0)
	if err != nil {
		return nil, nil, err
	}
	defer m.Free()
	d, err := copyOf(in, in.x)
	if err != nil {
		return nil, nil, err
	}
	if err := dist.FillWhere(d, m, fromC[T](complex(-1, math.NaN()))); err != nil {
		d.Free()
		return nil, nil, err
	}
	return d, refMap(in.gx, func(a T) T {
		if real(toC(a)) < 0 {
			return fromC[T](complex(-1, math.NaN()))
		}
		return a
	}), nil
}

// nanComplexOps are the NaN-ignoring reductions of complex arrays, of the
// array that src makes (and its global contents), whose variant is v. The
// references: plain loops over the elements with neither part NaN.
func nanComplexOps[T backend.Complex](src func(in *input[T]) (*dist.Array[T], []T, error), v string) []op[T] {
	tol := Tolerance(backend.DTypeOf[T]())
	with := func(in *input[T], f func(x *dist.Array[T], g []T) error) error { return withSource(in, src, f) }
	noNaN := func(g []T) []complex128 {
		var out []complex128
		for _, e := range g {
			if z := toC(e); !cmplx.IsNaN(z) {
				out = append(out, z)
			}
		}
		return out
	}
	mean := func(n []complex128) complex128 {
		if len(n) == 0 {
			return complex(math.NaN(), math.NaN())
		}
		s := refSum(n)
		return complex(real(s)/float64(len(n)), imag(s)/float64(len(n)))
	}
	variance := func(n []complex128, ddof int) float64 {
		if len(n) <= ddof {
			return math.NaN()
		}
		m, s := mean(n), 0.0
		for _, z := range n {
			d := z - m
			s += real(d)*real(d) + imag(d)*imag(d)
		}
		return s / float64(len(n)-ddof)
	}
	full := func(name string, f func(*dist.Array[T]) (T, error), r func([]complex128) complex128, empty bool) op[T] {
		return op[T]{fn: name, variant: v, family: "reduction", run: func(in *input[T]) error {
			return with(in, func(x *dist.Array[T], g []T) error {
				got, err := f(x)
				if empty && len(g) == 0 {
					return emptyErr(err)
				}
				return scalar(got, err, fromC[T](r(noNaN(g))), tol)
			})
		}}
	}
	stat := func(name string, f func(*dist.Array[T], int) (float64, error), ddof int, sqrt bool) op[T] {
		return op[T]{fn: name, variant: v, family: "reduction", run: func(in *input[T]) error {
			return with(in, func(x *dist.Array[T], g []T) error {
				got, err := f(x, ddof)
				if len(g) == 0 {
					return emptyErr(err)
				}
				want := variance(noNaN(g), ddof)
				if sqrt {
					want = math.Sqrt(want)
				}
				return scalar(got, err, want, 1e-12)
			})
		}}
	}
	return []op[T]{
		full("NansumComplex", dist.NansumComplex[T], refSum[complex128], false),
		full("NanprodComplex", dist.NanprodComplex[T], refProd[complex128], false),
		full("NanmeanComplex", dist.NanmeanComplex[T], mean, true),
		stat("NanvarComplex", dist.NanvarComplex[T], 1, false),
		stat("NanstdComplex", dist.NanstdComplex[T], 0, true),
	}
}
