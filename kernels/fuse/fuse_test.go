package fuse_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/profiling"
)

var sizes = []int{0, 1, 7, 1000, 100003}

// data returns n values with NaN, infinities, zeros of both signs and
// numbers of all magnitudes sprinkled in.
func data[T backend.Float](n int, seed uint64) []T {
	r := rand.New(rand.NewPCG(seed, 7))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e300, -1e-300, 3}
	out := make([]T, n)
	for i := range out {
		if r.IntN(50) == 0 {
			out[i] = T(special[r.IntN(len(special))])
		} else {
			out[i] = T(r.NormFloat64() * math.Exp(r.Float64()*4-2))
		}
	}
	return out
}

// sameBits reports whether a and b are the same float, NaNs counting as
// equal.
func sameBits[T backend.Element](a, b T) bool {
	if a != a && b != b {
		return true
	}
	return backend.ScalarOf(a).Bits() == backend.ScalarOf(b).Bits()
}

func checkSlice[T backend.Element](t *testing.T, what string, got, want []T) {
	t.Helper()
	bad := 0
	for i := range want {
		if !sameBits(got[i], want[i]) {
			if bad < 3 {
				t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements differ", what, bad, len(want))
	}
}

// refSum adds v as the package documentation says: per chunk of
// fuse.ChunkLen elements, 16 lanes combined as the documentation says,
// then the last len%16 elements of the chunk in order, and the chunks'
// sums added pairwise.
func refSum(v []float64) float64 {
	var parts []float64
	for lo := 0; lo < len(v); lo += fuse.ChunkLen {
		// The documented order: 16 lanes (lane j%16 while whole groups
		// of 16 are left), the vector c[i] = (l[i]+l[8+i]) + (l[4+i]+l[12+i]),
		// then (c0+c2)+(c1+c3), then the tail in order.
		var l [16]float64
		c := v[lo:min(lo+fuse.ChunkLen, len(v))]
		whole := len(c) / 16 * 16
		for j, x := range c[:whole] {
			l[j%16] += x
		}
		var cv [4]float64
		for i := range cv {
			cv[i] = (l[i] + l[8+i]) + (l[4+i] + l[12+i])
		}
		p := (cv[0] + cv[2]) + (cv[1] + cv[3])
		for _, x := range c[whole:] {
			p += x
		}
		parts = append(parts, p)
	}
	var pair func(p []float64) float64
	pair = func(p []float64) float64 {
		if len(p) <= 4 {
			s := 0.0
			for _, x := range p {
				s += x
			}
			return s
		}
		m := len(p) / 2
		return pair(p[:m]) + pair(p[m:])
	}
	return pair(parts)
}

func refMax[T backend.Element](v []T, lo T) T {
	m := lo
	for _, x := range v {
		if x > m || x != x {
			m = x
		}
		if m != m {
			return m
		}
	}
	return m
}

func refMin[T backend.Element](v []T, hi T) T {
	m := hi
	for _, x := range v {
		if x < m || x != x {
			m = x
		}
		if m != m {
			return m
		}
	}
	return m
}

// place makes arrays of the slices on the host or the fake device, and
// returns a function that copies them back.
func place[T backend.Element](t *testing.T, dev string, s []T) (*backend.Array[T], func() []T) {
	t.Helper()
	if dev == "cpu" {
		a := backend.Wrap(s)
		return a, func() []T { return s }
	}
	a, err := backend.NewOn[T](fakedev.Default, len(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.CopyFromHostSlice(a, s); err != nil {
		t.Fatal(err)
	}
	return a, func() []T {
		out := make([]T, len(s))
		if err := backend.CopyToHostSlice(out, a); err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// floatCase is a kernel over float arrays x, y, z and float params a, b,
// with a reference that applies the operators one at a time in plain Go.
type floatCase[T backend.Float] struct {
	name  string
	roots func(x, y, z, a, b *fuse.Expr) []*fuse.Expr
	// ref updates the slices it is given as the kernel's outputs do and
	// returns the values that each reduction reduces (Dot: the products).
	ref  func(x, y, z []T, a, b T) (sums map[string][]float64, maxes, mins map[string][]T)
	outs []string
}

func floatCases[T backend.Float]() []floatCase[T] {
	type C = floatCase[T]
	c2 := func(v float64) *fuse.Expr { return fuse.Const(T(v)) }
	f64 := func(v []T) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	prod := func(p, q []T) []float64 {
		out := make([]float64, len(p))
		for i := range p {
			out[i] = float64(p[i]) * float64(q[i])
		}
		return out
	}
	return []C{
		{name: "axpy+norm", outs: []string{"y"},
			roots: func(x, y, z, a, b *fuse.Expr) []*fuse.Expr {
				yn := fuse.Out("y", fuse.Add(fuse.Mul(a, x), y))
				return []*fuse.Expr{yn, fuse.Sum("yy", fuse.Mul(yn, yn))}
			},
			ref: func(x, y, z []T, a, b T) (map[string][]float64, map[string][]T, map[string][]T) {
				sq := make([]float64, len(x))
				for i := range x {
					y[i] = T(a*x[i]) + y[i]
					sq[i] = float64(y[i] * y[i])
				}
				return map[string][]float64{"yy": sq}, nil, nil
			}},
		{name: "cg-update", outs: []string{"x", "y"},
			roots: func(x, y, z, a, b *fuse.Expr) []*fuse.Expr {
				xn := fuse.Out("x", fuse.Add(x, fuse.Mul(a, z)))
				yn := fuse.Out("y", fuse.Sub(y, fuse.Mul(a, x)))
				return []*fuse.Expr{xn, yn, fuse.Dot("rr", yn, yn)}
			},
			ref: func(x, y, z []T, a, b T) (map[string][]float64, map[string][]T, map[string][]T) {
				for i := range x {
					x0 := x[i]
					x[i] = x0 + T(a*z[i])
					y[i] = y[i] - T(a*x0)
				}
				return map[string][]float64{"rr": prod(y, y)}, nil, nil
			}},
		{name: "pair-dot-first", outs: []string{"y", "z"},
			roots: func(x, y, z, a, b *fuse.Expr) []*fuse.Expr {
				yn := fuse.Out("y", fuse.Sub(y, fuse.Mul(a, x)))
				zn := fuse.Out("z", fuse.Add(fuse.Mul(x, b), z))
				return []*fuse.Expr{yn, zn, fuse.Dot("yy", yn, yn), fuse.Dot("yz", yn, zn)}
			},
			ref: func(x, y, z []T, a, b T) (map[string][]float64, map[string][]T, map[string][]T) {
				for i := range x {
					y[i] = y[i] - T(a*x[i])
					z[i] = T(x[i]*b) + z[i]
				}
				return map[string][]float64{"yy": prod(y, y), "yz": prod(y, z)}, nil, nil
			}},
		{name: "arith", outs: []string{"z"},
			roots: func(x, y, z, a, b *fuse.Expr) []*fuse.Expr {
				e := fuse.Div(fuse.Sub(fuse.Mul(x, y), fuse.Div(a, x)), fuse.Add(fuse.Sub(b, y), fuse.Div(z, b)))
				return []*fuse.Expr{fuse.Out("z", fuse.Sub(e, a)), fuse.Sum("s", x), fuse.ReduceMax("mx", y), fuse.ReduceMin("mn", z)}
			},
			ref: func(x, y, z []T, a, b T) (map[string][]float64, map[string][]T, map[string][]T) {
				z0 := append([]T(nil), z...)
				for i := range x {
					e := (T(x[i]*y[i]) - T(a/x[i])) / ((b - y[i]) + T(z[i]/b)) // T(): no fused multiply-add
					z[i] = e - a
				}
				return map[string][]float64{"s": f64(x)}, map[string][]T{"mx": y}, map[string][]T{"mn": z0}
			}},
		{name: "math", outs: []string{"z", "y"},
			roots: func(x, y, z, a, b *fuse.Expr) []*fuse.Expr {
				e := fuse.Add(fuse.Sqrt(fuse.Abs(x)), fuse.Exp(fuse.Neg(fuse.Abs(y))))
				e = fuse.Add(e, fuse.Log(fuse.Abs(z)))
				e = fuse.Add(e, fuse.Pow(fuse.Abs(x), fuse.Mul(b, c2(0.5))))
				return []*fuse.Expr{fuse.Out("z", e), fuse.Out("y", fuse.Max(fuse.Min(x, y), z))}
			},
			ref: func(x, y, z []T, a, b T) (map[string][]float64, map[string][]T, map[string][]T) {
				for i := range x {
					ax := T(math.Abs(float64(x[i])))
					e := T(math.Sqrt(float64(ax))) + T(math.Exp(float64(-T(math.Abs(float64(y[i]))))))
					e = e + T(math.Log(math.Abs(float64(z[i]))))
					e = e + T(math.Pow(float64(ax), float64(b*0.5)))
					z0 := z[i]
					z[i] = e
					y[i] = max(min(x[i], y[i]), z0)
				}
				return nil, nil, nil
			}},
		{name: "where", outs: []string{"z"},
			roots: func(x, y, z, a, b *fuse.Expr) []*fuse.Expr {
				c := fuse.Or(fuse.And(fuse.Lt(x, y), fuse.Not(fuse.Eq(z, c2(0)))), fuse.Ge(x, a))
				e := fuse.Where(c, x, fuse.Mul(y, c2(2)))
				e = fuse.Add(e, fuse.Cast[T](fuse.Ne(x, x)))
				e = fuse.Add(e, fuse.Cast[T](fuse.Le(y, b)))
				return []*fuse.Expr{fuse.Out("z", e), fuse.Sum("gt", fuse.Cast[T](fuse.Gt(x, y)))}
			},
			ref: func(x, y, z []T, a, b T) (map[string][]float64, map[string][]T, map[string][]T) {
				gt := make([]float64, len(x))
				for i := range x {
					c := (x[i] < y[i] && !(z[i] == 0)) || x[i] >= a
					e := y[i] * 2
					if c {
						e = x[i]
					}
					if x[i] != x[i] {
						e++
					} else {
						e += 0
					}
					if y[i] <= b {
						e++
					} else {
						e += 0
					}
					z[i] = e
					if x[i] > y[i] {
						gt[i] = 1
					}
				}
				return map[string][]float64{"gt": gt}, nil, nil
			}},
		{name: "uniform", outs: []string{"x", "y", "z"},
			roots: func(x, y, z, a, b *fuse.Expr) []*fuse.Expr {
				s := fuse.Sqrt(fuse.Add(fuse.Mul(a, a), c2(1)))
				return []*fuse.Expr{fuse.Out("z", fuse.Max(x, s)), fuse.Out("y", x), fuse.Out("x", fuse.Mul(b, c2(3))),
					fuse.Sum("n", c2(1)), fuse.Dot("d", x, s)}
			},
			ref: func(x, y, z []T, a, b T) (map[string][]float64, map[string][]T, map[string][]T) {
				s := T(math.Sqrt(float64(T(a*a) + 1)))
				ones, d := make([]float64, len(x)), make([]float64, len(x))
				for i := range x {
					z[i] = max(x[i], s)
					y[i] = x[i]
					ones[i] = 1
					d[i] = float64(x[i]) * float64(s)
					x[i] = b * 3
				}
				return map[string][]float64{"n": ones, "d": d}, nil, nil
			}},
	}
}

func testFloatCases[T backend.Float](t *testing.T) {
	for _, c := range floatCases[T]() {
		x, y, z := fuse.Var[T]("x"), fuse.Var[T]("y"), fuse.Var[T]("z")
		a, b := fuse.Param[T]("a"), fuse.Param[T]("b")
		k, err := fuse.Compile(c.roots(x, y, z, a, b)...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, dev := range []string{"cpu", "fake"} {
			for _, n := range sizes {
				t.Run(fmt.Sprintf("%s/%s/%d", c.name, dev, n), func(t *testing.T) {
					xs, ys, zs := data[T](n, 1), data[T](n, 2), data[T](n, 3)
					av, bv := T(0.75), T(-1.5)
					wx, wy, wz := append([]T(nil), xs...), append([]T(nil), ys...), append([]T(nil), zs...)
					sums, maxes, mins := c.ref(wx, wy, wz, av, bv)
					xa, xb := place(t, dev, xs)
					ya, yb := place(t, dev, ys)
					za, zb := place(t, dev, zs)
					res, err := k.Run(fuse.Args{"x": xa, "y": ya, "z": za, "a": av, "b": &bv})
					if err != nil {
						t.Fatal(err)
					}
					checkSlice(t, "x", xb(), wx)
					checkSlice(t, "y", yb(), wy)
					checkSlice(t, "z", zb(), wz)
					for name, v := range sums {
						if got, want := res.Float64(name), refSum(v); !sameBits(got, want) {
							t.Errorf("%s = %v, want %v", name, got, want)
						}
					}
					inf := T(math.Inf(1))
					for name, v := range maxes {
						if got, want := backend.ValueOf[T](res.Scalar(name)), refMax(v, -inf); !sameBits(got, want) {
							t.Errorf("%s = %v, want %v", name, got, want)
						}
					}
					for name, v := range mins {
						if got, want := backend.ValueOf[T](res.Scalar(name)), refMin(v, inf); !sameBits(got, want) {
							t.Errorf("%s = %v, want %v", name, got, want)
						}
					}
				})
			}
		}
	}
}

// TestFloat64 checks fused kernels against the operators applied one at a
// time, bitwise, on odd sizes with NaN and infinities, on the host and on
// the fake device.
func TestFloat64(t *testing.T) { testFloatCases[float64](t) }

// TestFloat32 is TestFloat64 for float32.
func TestFloat32(t *testing.T) { testFloatCases[float32](t) }

// TestIntegers checks integer arithmetic (wrapping), comparisons, casts
// between types and integer reductions.
func TestIntegers(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(n), 1))
			is := make([]int32, n)
			js := make([]int64, n)
			for i := range is {
				is[i] = int32(r.Uint32())
				js[i] = int64(r.Uint64())
			}
			if n > 0 {
				is[0] = math.MinInt32
			}
			us := make([]uint32, n)
			fs := make([]float64, n)
			ks := make([]int64, n)
			i, j := fuse.Var[int32]("i"), fuse.Var[int64]("j")
			c := fuse.Param[int32]("c")
			e := fuse.Add(fuse.Mul(i, c), fuse.Neg(fuse.Abs(i)))
			k := fuse.MustCompile(
				fuse.Out("u", fuse.Cast[uint32](fuse.Max(fuse.Min(e, c), fuse.Sub(i, c)))),
				fuse.Out("f", fuse.Add(fuse.Cast[float64](i), fuse.Cast[float64](j))),
				fuse.Out("k", fuse.Where(fuse.Gt(fuse.Cast[int64](i), j), j, fuse.Mul(j, fuse.Const[int64](3)))),
				fuse.Sum("si", i), fuse.Dot("dj", j, j), fuse.ReduceMax("mx", i), fuse.ReduceMin("mn", fuse.Cast[uint32](i)),
				fuse.Sum("su", fuse.Cast[uint32](i)),
			)
			cv := int32(-7)
			res, err := k.Run(fuse.Args{"i": backend.Wrap(is), "j": backend.Wrap(js), "c": cv,
				"u": backend.Wrap(us), "f": backend.Wrap(fs), "k": backend.Wrap(ks)})
			if err != nil {
				t.Fatal(err)
			}
			var si, dj, su uint64
			mx, mn := int32(math.MinInt32), uint32(math.MaxUint32)
			for x := range is {
				iv, jv := is[x], js[x]
				ab := iv
				if ab < 0 {
					ab = -ab
				}
				ev := iv*cv + -ab
				if want := uint32(max(min(ev, cv), iv-cv)); us[x] != want {
					t.Fatalf("u[%d] = %d, want %d", x, us[x], want)
				}
				if want := float64(iv) + float64(jv); fs[x] != want {
					t.Fatalf("f[%d] = %v, want %v", x, fs[x], want)
				}
				want := jv * 3
				if int64(iv) > jv {
					want = jv
				}
				if ks[x] != want {
					t.Fatalf("k[%d] = %d, want %d", x, ks[x], want)
				}
				si += uint64(iv)
				dj += uint64(jv) * uint64(jv)
				su += uint64(uint32(iv))
				mx = max(mx, iv)
				mn = min(mn, uint32(iv))
			}
			if got := res.Scalar("si"); got.Int64() != int64(si) || got.DType() != backend.Int64 {
				t.Errorf("si = %v (%v), want %d", got, got.DType(), int64(si))
			}
			if got := res.Scalar("dj").Int64(); got != int64(dj) {
				t.Errorf("dj = %d, want %d", got, int64(dj))
			}
			if got := res.Scalar("su"); got.Uint64() != su || got.DType() != backend.Uint64 {
				t.Errorf("su = %v, want %d", got, su)
			}
			if got := backend.ValueOf[int32](res.Scalar("mx")); got != mx {
				t.Errorf("mx = %d, want %d", got, mx)
			}
			if got := backend.ValueOf[uint32](res.Scalar("mn")); got != mn {
				t.Errorf("mn = %d, want %d", got, mn)
			}
		})
	}
}

// TestIntegerAxpys checks the fused loops of axpys on integers: two
// independent ones in one loop, wrapping.
func TestIntegerAxpys(t *testing.T) {
	x, y, z := fuse.Var[int32]("x"), fuse.Var[int32]("y"), fuse.Var[int32]("z")
	a := fuse.Param[int32]("a")
	k := fuse.MustCompile(fuse.Out("y", fuse.Sub(y, fuse.Mul(a, x))), fuse.Out("x", fuse.Add(x, fuse.Mul(z, a))))
	for _, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(n), 3))
		xs, ys, zs := make([]int32, n), make([]int32, n), make([]int32, n)
		for i := range xs {
			xs[i], ys[i], zs[i] = int32(r.Uint32()), int32(r.Uint32()), int32(r.Uint32())
		}
		wx, wy := append([]int32(nil), xs...), append([]int32(nil), ys...)
		av := int32(-123457)
		for i := range wx {
			wy[i] = ys[i] - av*xs[i]
			wx[i] = xs[i] + zs[i]*av
		}
		if _, err := k.Run(fuse.Args{"x": backend.Wrap(xs), "y": backend.Wrap(ys), "z": backend.Wrap(zs), "a": av}); err != nil {
			t.Fatal(err)
		}
		checkSlice(t, "x", xs, wx)
		checkSlice(t, "y", ys, wy)
	}
}

// TestIntegerChains checks chains of additions and subtractions on
// wrapping integers, unsigned included (a subtraction is an addition of
// the operand times -1, which wraps).
func TestIntegerChains(t *testing.T) {
	x, y, z := fuse.Var[uint32]("x"), fuse.Var[uint32]("y"), fuse.Var[uint32]("z")
	a := fuse.Param[uint32]("a")
	k := fuse.MustCompile(
		fuse.Out("u", fuse.Sub(fuse.Add(fuse.Sub(fuse.Mul(a, x), y), z), x)),
		fuse.Out("v", fuse.Sub(fuse.Sub(x, y), z)),
		fuse.Sum("s", fuse.Add(fuse.Sub(fuse.Add(x, y), z), fuse.Sub(y, x))))
	for _, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(n), 5))
		xs, ys, zs, us, vs := make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n)
		for i := range xs {
			xs[i], ys[i], zs[i] = r.Uint32(), r.Uint32(), r.Uint32()
		}
		av := uint32(0x9e3779b9)
		res, err := k.Run(fuse.Args{"x": backend.Wrap(xs), "y": backend.Wrap(ys), "z": backend.Wrap(zs), "u": backend.Wrap(us), "v": backend.Wrap(vs), "a": av})
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for i := range xs {
			if want := av*xs[i] - ys[i] + zs[i] - xs[i]; us[i] != want {
				t.Fatalf("n=%d: u[%d] = %d, want %d", n, i, us[i], want)
			}
			if want := xs[i] - ys[i] - zs[i]; vs[i] != want {
				t.Fatalf("n=%d: v[%d] = %d, want %d", n, i, vs[i], want)
			}
			sum += uint64(xs[i] + ys[i] - zs[i] + (ys[i] - xs[i]))
		}
		if got := res.Scalar("s").Uint64(); got != sum {
			t.Errorf("n=%d: s = %d, want %d", n, got, sum)
		}
	}
}

// TestThreads checks that results, reductions included, are bitwise the
// same for every thread budget.
func TestThreads(t *testing.T) {
	n := 3*fuse.ParallelMin + 12345
	if testing.Short() {
		n = fuse.ParallelMin + 7
	}
	xs, ys := data[float64](n, 5), data[float64](n, 6)
	for i := range xs { // no NaN: a NaN sum would hide a difference
		if math.IsNaN(xs[i]) || math.IsInf(xs[i], 0) || math.Abs(xs[i]) > 1e10 {
			xs[i] = 1
		}
		if math.IsNaN(ys[i]) || math.IsInf(ys[i], 0) || math.Abs(ys[i]) > 1e10 {
			ys[i] = -1
		}
	}
	x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
	yn := fuse.Out("z", fuse.Add(fuse.Mul(a, x), y))
	k := fuse.MustCompile(yn, fuse.Sum("s", fuse.Mul(yn, yn)), fuse.Sum("t", fuse.Exp(fuse.Mul(x, fuse.Const(1e-3)))),
		fuse.ReduceMax("m", x), fuse.Dot("d", x, y))
	var first fuse.Result
	var firstZ []float64
	defer backend.SetThreads(backend.SetThreads(1))
	for _, threads := range []int{1, 2, 3, 8} {
		backend.SetThreads(threads)
		z := make([]float64, n)
		res, err := k.Run(fuse.Args{"x": backend.Wrap(xs), "y": backend.Wrap(ys), "z": backend.Wrap(z), "a": 1.25})
		if err != nil {
			t.Fatal(err)
		}
		if threads == 1 {
			first, firstZ = res, z
			sq := make([]float64, n)
			for i := range z {
				sq[i] = z[i] * z[i]
			}
			if got, want := res.Float64("s"), refSum(sq); got != want {
				t.Errorf("s = %v, want %v", got, want)
			}
			if got, want := res.Float64("d"), backend.Dot(backend.Wrap(xs), backend.Wrap(ys)); math.Abs(got-want) > 1e-12*math.Abs(want)+1e-9 {
				t.Errorf("d = %v, backend.Dot %v", got, want)
			}
			continue
		}
		for _, name := range k.Reductions() {
			if got, want := res.Float64(name), first.Float64(name); !sameBits(got, want) {
				t.Errorf("%d threads: %s = %v, with 1 thread %v", threads, name, got, want)
			}
		}
		checkSlice(t, fmt.Sprintf("z with %d threads", threads), z, firstZ)
	}
}

// TestAliasing checks that every Var reads the values from before the
// call where an output is the same array, and that reductions of an Out
// see the new values.
func TestAliasing(t *testing.T) {
	x := fuse.Var[float64]("x")
	y := fuse.Out("y", fuse.Mul(x, fuse.Const(2.0)))
	k := fuse.MustCompile(y, fuse.Sum("old", x), fuse.Sum("new", y))
	for _, n := range sizes {
		xs := data[float64](n, 9)
		for i := range xs {
			if math.IsNaN(xs[i]) || math.IsInf(xs[i], 0) {
				xs[i] = 0.5
			}
		}
		old := append([]float64(nil), xs...)
		arr := backend.Wrap(xs)
		res, err := k.Run(fuse.Args{"x": arr, "y": arr}) // y is x: in place
		if err != nil {
			t.Fatal(err)
		}
		dbl := make([]float64, n)
		for i := range old {
			dbl[i] = old[i] * 2
		}
		checkSlice(t, "y", xs, dbl)
		if got, want := res.Float64("old"), refSum(old); !sameBits(got, want) {
			t.Errorf("n=%d: old = %v, want %v", n, got, want)
		}
		if got, want := res.Float64("new"), refSum(dbl); !sameBits(got, want) {
			t.Errorf("n=%d: new = %v, want %v", n, got, want)
		}
	}
}

// TestSwap checks that outputs that are other outputs' Vars read the
// values from before the call: a swap.
func TestSwap(t *testing.T) {
	x, y := fuse.Var[int64]("x"), fuse.Var[int64]("y")
	k := fuse.MustCompile(fuse.Out("x", y), fuse.Out("y", x), fuse.Out("z", fuse.Sub(x, y)))
	for _, n := range sizes {
		xs, ys, zs := make([]int64, n), make([]int64, n), make([]int64, n)
		for i := range xs {
			xs[i], ys[i] = int64(i), int64(-2*i)
		}
		if _, err := k.Run(fuse.Args{"x": backend.Wrap(xs), "y": backend.Wrap(ys), "z": backend.Wrap(zs)}); err != nil {
			t.Fatal(err)
		}
		for i := range xs {
			if xs[i] != int64(-2*i) || ys[i] != int64(i) || zs[i] != int64(3*i) {
				t.Fatalf("n=%d: element %d: x %d y %d z %d", n, i, xs[i], ys[i], zs[i])
			}
		}
	}
}

// TestNoTransfers checks that a kernel on the fake device moves nothing
// between host and device.
func TestNoTransfers(t *testing.T) {
	n := 1000
	xa, _ := place(t, "fake", data[float64](n, 1))
	ya, get := place(t, "fake", data[float64](n, 2))
	x, y := fuse.Var[float64]("x"), fuse.Var[float64]("y")
	yn := fuse.Out("y", fuse.Add(x, y))
	k := fuse.MustCompile(yn, fuse.ReduceMin("m", yn))
	before := fakedev.Stats()
	err := profiling.AssertNoTransfers(func() error {
		_, err := k.Run(fuse.Args{"x": xa, "y": ya})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	after := fakedev.Stats()
	if after.ToHost != before.ToHost || after.ToDevice != before.ToDevice {
		t.Errorf("copies during Run: to host %d, to device %d", after.ToHost-before.ToHost, after.ToDevice-before.ToDevice)
	}
	_ = get()
}

// TestErrors checks the errors of Compile and Run: each names what is
// wrong.
func TestErrors(t *testing.T) {
	x, y := fuse.Var[float64]("x"), fuse.Var[float64]("y")
	x32 := fuse.Var[float32]("x32")
	a := fuse.Param[float64]("a")
	compileCases := []struct {
		name  string
		roots []*fuse.Expr
		want  string
	}{
		{"nothing", nil, "Compile of nothing"},
		{"types", []*fuse.Expr{fuse.Out("z", fuse.Add(x, x32))}, "Add of float64 and float32"},
		{"float only", []*fuse.Expr{fuse.Out("i", fuse.Sqrt(fuse.Var[int32]("i")))}, "Sqrt of int32"},
		{"reduction operand", []*fuse.Expr{fuse.Out("z", fuse.Add(x, fuse.Sum("s", x)))}, `reduction "s"`},
		{"not a root", []*fuse.Expr{fuse.Add(x, y)}, "Compile of an operation (Add)"},
		{"two outs", []*fuse.Expr{fuse.Out("z", x), fuse.Out("z", y)}, `two outputs called "z"`},
		{"var and param", []*fuse.Expr{fuse.Out("z", fuse.Add(x, fuse.Param[float64]("x")))}, `"x" is both a Var and a Param`},
		{"var types", []*fuse.Expr{fuse.Out("z", fuse.Add(fuse.Cast[float64](fuse.Var[float32]("x")), x))}, `Var "x" used as`},
		{"out type", []*fuse.Expr{fuse.Out("x", fuse.Cast[float32](x))}, `Out "x" of float32, but Var "x" is float64`},
		{"where", []*fuse.Expr{fuse.Out("z", fuse.Where(x, x, y))}, "Where with a condition of float64"},
		{"bool out", []*fuse.Expr{fuse.Out("z", fuse.Lt(x, y))}, `Out "z" of bools`},
		{"no array", []*fuse.Expr{fuse.Sum("n", fuse.Const(1.0))}, "needs an array"},
	}
	for _, c := range compileCases {
		_, err := fuse.Compile(c.roots...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "fuse: ") {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}

	k := fuse.MustCompile(fuse.Out("y", fuse.Add(fuse.Mul(a, x), y)))
	xs, ys := backend.Wrap(make([]float64, 5)), backend.Wrap(make([]float64, 5))
	fk, _ := place(t, "fake", make([]float64, 5))
	whole := make([]float64, 10)
	runCases := []struct {
		name string
		args fuse.Args
		want string
	}{
		{"missing var", fuse.Args{"y": ys, "a": 1.0}, `missing argument "x"`},
		{"missing param", fuse.Args{"x": xs, "y": ys}, `missing argument "a"`},
		{"wrong array type", fuse.Args{"x": backend.Wrap(make([]float32, 5)), "y": ys, "a": 1.0}, `argument "x" is an array of float32, want float64`},
		{"not an array", fuse.Args{"x": 3.0, "y": ys, "a": 1.0}, `argument "x" is a float64, want an array`},
		{"nil array", fuse.Args{"x": (*backend.Array[float64])(nil), "y": ys, "a": 1.0}, `argument "x" is a *backend.Array[float64], want an array`},
		{"wrong param type", fuse.Args{"x": xs, "y": ys, "a": float32(1)}, `argument "a" is a float32, want a float64`},
		{"nil param", fuse.Args{"x": xs, "y": ys, "a": (*float64)(nil)}, `argument "a" is a *float64, want a float64`},
		{"length", fuse.Args{"x": xs, "y": backend.Wrap(make([]float64, 6)), "a": 1.0}, `argument "y" has 6 elements, "x" has 5`},
		{"devices", fuse.Args{"x": xs, "y": fk, "a": 1.0}, `argument "y" is on fake:0, "x" on cpu`},
		{"overlap", fuse.Args{"x": backend.Wrap(whole[:5]), "y": backend.Wrap(whole[2:7]), "a": 1.0}, `output "y" overlaps argument "x"`},
	}
	for _, c := range runCases {
		_, err := k.Run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "fuse: ") {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
	k2 := fuse.MustCompile(fuse.Out("u", x), fuse.Out("v", y))
	if _, err := k2.Run(fuse.Args{"x": xs, "y": ys, "u": backend.Wrap(whole[:5]), "v": backend.Wrap(whole[4:9])}); err == nil || !strings.Contains(err.Error(), `outputs "u" and "v" overlap`) {
		t.Errorf("overlapping outputs: error %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "fuse: ") {
				t.Errorf("Result of an unknown name: panic %v", r)
			}
		}()
		res, _ := k.Run(fuse.Args{"x": xs, "y": ys, "a": 1.0})
		res.Float64("nope")
	}()
}

// TestNoAllocs checks that Run allocates nothing in steady state below
// the parallel threshold, with Args built once and a parameter given by
// pointer.
func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	n := 10007
	x, r, p, ap := fuse.Var[float64]("x"), fuse.Var[float64]("r"), fuse.Var[float64]("p"), fuse.Var[float64]("ap")
	alpha := fuse.Param[float64]("alpha")
	rn := fuse.Out("r", fuse.Sub(r, fuse.Mul(alpha, ap)))
	k := fuse.MustCompile(fuse.Out("x", fuse.Add(x, fuse.Mul(alpha, p))), rn, fuse.Dot("rr", rn, rn))
	av := 0.5
	args := fuse.Args{"x": backend.Wrap(make([]float64, n)), "r": backend.Wrap(data[float64](n, 1)),
		"p": backend.Wrap(data[float64](n, 2)), "ap": backend.Wrap(data[float64](n, 3)), "alpha": &av}
	if _, err := k.Run(args); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		av *= 0.5
		if _, err := k.Run(args); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Run allocates %v times per call", allocs)
	}
}

// TestString checks that the compiler fuses a*x + y and Sum(x*x).
func TestString(t *testing.T) {
	x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
	yn := fuse.Out("y", fuse.Add(y, fuse.Mul(x, a)))
	k := fuse.MustCompile(yn, fuse.Sum("yy", fuse.Mul(yn, yn)))
	s := k.String()
	for _, want := range []string{"axpy(a, x, y)", "yy = Dot(", "y <- "} {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %q", s, want)
		}
	}
	if got := strings.Join(k.Vars(), ","); got != "y,x" {
		t.Errorf("Vars = %s", got)
	}
	if got := strings.Join(k.Params(), ","); got != "a" {
		t.Errorf("Params = %s", got)
	}
}

// TestUniformOps checks operations of parameters and constants only,
// computed once per Run: comparisons, Where, casts, math.
func TestUniformOps(t *testing.T) {
	x := fuse.Var[float64]("x")
	a, b := fuse.Param[float64]("a"), fuse.Param[float64]("b")
	i := fuse.Param[int32]("i")
	s := fuse.Where(fuse.Lt(a, b), fuse.Cast[float64](fuse.Mul(i, fuse.Const[int32](3))), fuse.Neg(fuse.Abs(b)))
	s = fuse.Add(s, fuse.Cast[float64](fuse.Cast[float32](fuse.Exp(a))))
	s = fuse.Max(s, fuse.Pow(b, fuse.Const(2.0)))
	k := fuse.MustCompile(fuse.Out("z", fuse.Add(x, s)), fuse.Sum("s", fuse.Cast[float64](fuse.Ge(x, s))))
	for _, c := range []struct{ a, b float64 }{{1, 2}, {2, 1}, {math.NaN(), 1}, {-1, math.Inf(-1)}} {
		xs := data[float64](1001, 4)
		zs := make([]float64, len(xs))
		if _, err := k.Run(fuse.Args{"x": backend.Wrap(xs), "z": backend.Wrap(zs), "a": c.a, "b": c.b, "i": int32(-5)}); err != nil {
			t.Fatal(err)
		}
		var sv float64
		if c.a < c.b {
			sv = float64(int32(-5) * 3)
		} else {
			sv = -math.Abs(c.b)
		}
		sv += float64(float32(math.Exp(c.a)))
		sv = max(sv, math.Pow(c.b, 2))
		want := make([]float64, len(xs))
		for j := range xs {
			want[j] = xs[j] + sv
		}
		checkSlice(t, fmt.Sprintf("z (a=%v b=%v)", c.a, c.b), zs, want)
	}
}
