package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// fval is gen.py's f: element k (row-major) of the test matrix with salt.
func fval(k, salt int) float64 {
	return float64((k*7+5+salt*5)%13-6) + 0.25*float64((k*3+salt)%5)
}

func flatIdx(idx, shape []int) int {
	f := 0
	for a, i := range idx {
		f = f*shape[a] + i
	}
	return f
}

// mk returns the array of shape with gen.py's values (salt; for a complex
// T, salt2 the imaginary part's).
func mk[T backend.Numeric](t *testing.T, c mpi.Comm, shape []int, salt, salt2 int, opts ...dist.Option) *dist.Array[T] {
	t.Helper()
	x, err := dist.FromFunc(c, shape, func(idx []int) T {
		k := flatIdx(idx, shape)
		return cast[T](complex(fval(k, salt), fval(k, salt2)))
	}, opts...)
	if err != nil {
		t.Fatalf("FromFunc %v: %v", shape, err)
	}
	return x
}

// mkData returns the array of shape with the given values.
func mkData[T backend.Numeric](t *testing.T, c mpi.Comm, shape []int, data []T, opts ...dist.Option) *dist.Array[T] {
	t.Helper()
	x, err := dist.FromFunc(c, shape, func(idx []int) T { return data[flatIdx(idx, shape)] }, opts...)
	if err != nil {
		t.Fatalf("FromFunc %v: %v", shape, err)
	}
	return x
}

// cast converts v to T: the real part for a real T.
func cast[T backend.Numeric](v complex128) T {
	var z T
	switch any(z).(type) {
	case float64:
		return any(real(v)).(T)
	case float32:
		return any(float32(real(v))).(T)
	case complex128:
		return any(v).(T)
	case complex64:
		return any(complex64(v)).(T)
	case int64:
		return any(int64(real(v))).(T)
	case int32:
		return any(int32(real(v))).(T)
	}
	panic("cast")
}

func c128[T backend.Numeric](v T) complex128 {
	switch x := any(v).(type) {
	case float64:
		return complex(x, 0)
	case float32:
		return complex(float64(x), 0)
	case complex128:
		return x
	case complex64:
		return complex128(x)
	case int64:
		return complex(float64(x), 0)
	case int32:
		return complex(float64(x), 0)
	}
	panic("c128")
}

// relErr is max|got-want| / max(1, max|want|).
func relErr[T backend.Numeric, W float64 | complex128](got []T, want []W) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	num, den := 0.0, 1.0
	for i := range got {
		w := complex128(complex(0, 0))
		switch v := any(want[i]).(type) {
		case float64:
			w = complex(v, 0)
		case complex128:
			w = v
		}
		num = math.Max(num, cmplx.Abs(c128(got[i])-w))
		den = math.Max(den, cmplx.Abs(w))
	}
	return num / den
}

func all[T backend.Numeric](t *testing.T, x *dist.Array[T]) []T {
	t.Helper()
	g, err := dist.Allgather(x)
	if err != nil {
		t.Fatalf("Allgather: %v", err)
	}
	return g
}

// unevenCounts leaves rank 1 empty (as disttest's uneven layout).
func unevenCounts(n, p int) []int {
	c := make([]int, p)
	rem := n
	for r := 0; r < p; r++ {
		if r == 1 && p > 1 {
			continue
		}
		last := r == p-1 || (r == p-2 && p == 2)
		if last {
			c[r] = rem
			break
		}
		take := (rem + 1) / 2
		c[r], rem = take, rem-take
	}
	return c
}

type lay struct {
	name string
	opts func(shape []int, p int) []dist.Option
}

// matLayouts are the layouts of a 2-D array; vecLayouts of a 1-D one.
var matLayouts = []lay{
	{"rows", func([]int, int) []dist.Option { return nil }},
	{"uneven", func(s []int, p int) []dist.Option { return []dist.Option{dist.BlockSizes(unevenCounts(s[0], p))} }},
	{"axis1", func([]int, int) []dist.Option { return []dist.Option{dist.SplitAxis(1)} }},
	{"replicated", func([]int, int) []dist.Option { return []dist.Option{dist.SplitAxis(dist.Replicated)} }},
	{"grid", func([]int, int) []dist.Option { return []dist.Option{dist.ProcessGrid(0, 0)} }},
	{"gridu", func(s []int, p int) []dist.Option {
		d0, d1 := p, 1
		if p == 4 {
			d0, d1 = 2, 2
		}
		return []dist.Option{dist.GridBlockSizes(unevenCounts(s[0], d0), unevenCounts(s[1], d1))}
	}},
	{"ghost", func([]int, int) []dist.Option { return []dist.Option{dist.Ghosts(1)} }},
	{"ghostgrid", func([]int, int) []dist.Option { return []dist.Option{dist.ProcessGrid(0, 0), dist.Ghosts(1)} }},
}

var vecLayouts = []lay{matLayouts[0], matLayouts[1], matLayouts[3], matLayouts[6]}

func TestUnevenCounts(t *testing.T) {
	for p := 1; p <= 4; p++ {
		for n := 0; n < 9; n++ {
			c := unevenCounts(n, p)
			s := 0
			for _, v := range c {
				s += v
			}
			if s != n || (p > 1 && c[1] != 0) {
				t.Fatalf("unevenCounts(%d, %d) = %v", n, p, c)
			}
		}
	}
}

// withPanel runs f with Solve's panel width w.
func withPanel(w int, f func()) {
	old := panelWidth
	panelWidth = w
	defer func() { panelWidth = old }()
	f()
}

func TestSolve(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	want := map[string][]float64{"1_7": solveX1_7, "2_7": solveX2_7, "1_2": solveX1_2, "2_2": solveX2_2, "1_1": solveX1_1, "2_1": solveX2_1}
	for _, w := range []int{64, 3, 1} {
		withPanel(w, func() {
			for _, n := range []int{7, 2, 1} {
				for _, la := range matLayouts {
					a := mk[float64](t, c, []int{n, n}, 0, 0, la.opts([]int{n, n}, p)...)
					for _, bshape := range [][]int{{n}, {n, 3}} {
						lays := vecLayouts
						if len(bshape) == 2 {
							lays = matLayouts
						}
						for _, lb := range lays {
							salt := 1
							if len(bshape) == 2 {
								salt = 2
							}
							b := mk[float64](t, c, bshape, salt, 0, lb.opts(bshape, p)...)
							what := fmt.Sprintf("panel %d, a %v %s, b %v %s", w, a.Shape(), la.name, bshape, lb.name)
							x, err := Solve(a, b)
							mpitest.Check(t, c, err == nil, "%s: %v", what, err)
							if err != nil {
								continue
							}
							e := relErr(all(t, x), want[fmt.Sprintf("%d_%d", len(bshape), n)])
							mpitest.Check(t, c, e < 1e-13, "%s: relative error %.3g against NumPy", what, e)
							mpitest.Check(t, c, x.Layout().Equal(b.Layout()), "%s: x has %v, b %v", what, x.Layout(), b.Layout())
							x.Free()
							b.Free()
						}
					}
					a.Free()
				}
			}
		})
	}
}

// TestSolveTypes: float32 against NumPy's float64 values, complex128 and
// complex64, on the fake device too.
func TestSolveTypes(t *testing.T) {
	c := mpitest.World(t)
	for _, w := range []int{64, 2} {
		withPanel(w, func() {
			a := mk[float32](t, c, []int{7, 7}, 0, 0, dist.OnBackend(fakedev.Default))
			b := mk[float32](t, c, []int{7, 3}, 2, 0)
			x, err := Solve(a, b)
			mpitest.Check(t, c, err == nil, "float32: %v", err)
			if err == nil {
				e := relErr(all(t, x), solveX2_7)
				mpitest.Check(t, c, e < 1e-4, "float32: relative error %.3g", e)
				x.Free()
			}
			a.Free()
			b.Free()
			ac := mk[complex128](t, c, []int{5, 5}, 0, 3, dist.BlockSizes(unevenCounts(5, c.Size())))
			bc := mk[complex128](t, c, []int{5, 2}, 1, 4, dist.OnBackend(fakedev.Default))
			// b's imaginary part is -f(salt 4).
			dist.Map(bc, func(v complex128) complex128 { return complex(real(v), -imag(v)) })
			xc, err := Solve(ac, bc)
			mpitest.Check(t, c, err == nil, "complex128: %v", err)
			if err == nil {
				e := relErr(all(t, xc), solveXC)
				mpitest.Check(t, c, e < 1e-13, "complex128: relative error %.3g", e)
				mpitest.Check(t, c, xc.Device() == bc.Device(), "complex128: x on %v, b on %v", xc.Device(), bc.Device())
				xc.Free()
			}
			a64, err := dist.Astype[complex64](ac)
			if err != nil {
				t.Fatal(err)
			}
			b64, err := dist.Astype[complex64](bc)
			if err != nil {
				t.Fatal(err)
			}
			x64, err := Solve(a64, b64)
			mpitest.Check(t, c, err == nil, "complex64: %v", err)
			if err == nil {
				e := relErr(all(t, x64), solveXC)
				mpitest.Check(t, c, e < 1e-4, "complex64: relative error %.3g", e)
				x64.Free()
			}
			for _, x := range []*dist.Array[complex64]{a64, b64} {
				x.Free()
			}
			ac.Free()
			bc.Free()
		})
	}
}

// TestSolveResidual: a larger random system, many panels, against the
// residual bound of LU with partial pivoting.
func TestSolveResidual(t *testing.T) {
	c := mpitest.World(t)
	const n = 37
	withPanel(5, func() {
		for _, la := range matLayouts[:5] {
			a, err := dist.Normal[float64](c, []int{n, n}, 7, 0, la.opts([]int{n, n}, c.Size())...)
			if err != nil {
				t.Fatal(err)
			}
			b, err := dist.Normal[float64](c, []int{n, 2}, 7, 1)
			if err != nil {
				t.Fatal(err)
			}
			x, err := Solve(a, b)
			mpitest.Check(t, c, err == nil, "%s: %v", la.name, err)
			if err != nil {
				continue
			}
			ga, gb, gx := all(t, a), all(t, b), all(t, x)
			res, scale := 0.0, 0.0
			for i := 0; i < n; i++ {
				for k := 0; k < 2; k++ {
					s, m := gb[i*2+k], 0.0
					for j := 0; j < n; j++ {
						s -= ga[i*n+j] * gx[j*2+k]
						m += math.Abs(ga[i*n+j] * gx[j*2+k])
					}
					res, scale = math.Max(res, math.Abs(s)), math.Max(scale, m)
				}
			}
			mpitest.Check(t, c, res <= 4*n*0x1p-53*scale, "%s: residual %.3g, bound %.3g", la.name, res, 4*n*0x1p-53*scale)
			for _, y := range []*dist.Array[float64]{a, b, x} {
				y.Free()
			}
		}
	})
}

func TestSolveSingular(t *testing.T) {
	c := mpitest.World(t)
	for _, w := range []int{64, 2} {
		withPanel(w, func() {
			for _, la := range matLayouts {
				a := mkData(t, c, []int{7, 7}, singularA, la.opts([]int{7, 7}, c.Size())...)
				b := mk[float64](t, c, []int{7}, 1, 0)
				x, err := Solve(a, b)
				var se *SingularError
				ok := x == nil && errors.As(err, &se) && se.Column == singularInfo-1 && errors.Is(err, ErrSingular)
				mpitest.Check(t, c, ok, "%s: Solve of a singular matrix: %v, want the zero pivot of column %d", la.name, err, singularInfo-1)
				a.Free()
				b.Free()
			}
			z, _ := dist.Zeros[float64](c, []int{3, 3})
			b, _ := dist.Zeros[float64](c, []int{3})
			_, err := Solve(z, b)
			var se *SingularError
			mpitest.Check(t, c, errors.As(err, &se) && se.Column == 0, "zero matrix: %v", err)
			z.Free()
			b.Free()
		})
	}
}

// TestSolveNaN: NaN as NumPy's solve takes it (LAPACK's i?amax): a NaN
// at the pivot's position gives NaN results, NaNs below a zero pivot are
// passed over and the matrix is singular; NumPy computed the outcomes.
func TestSolveNaN(t *testing.T) {
	c := mpitest.World(t)
	for _, tc := range []struct {
		name     string
		nan      func(i int) bool
		zero     bool
		singular bool
	}{
		{"NaN at [0, 0]", func(i int) bool { return i == 0 }, false, false},
		{"NaN at [2, 0]", func(i int) bool { return i == 2 }, false, false},
		{"zero at [0, 0], NaN below", func(i int) bool { return i > 0 }, true, true},
	} {
		for _, la := range matLayouts[:4] {
			a := mk[float64](t, c, []int{4, 4}, 0, 0, la.opts([]int{4, 4}, c.Size())...)
			dist.MapIndex(a, func(idx []int, v float64) float64 {
				switch {
				case idx[1] == 0 && tc.nan(idx[0]):
					return math.NaN()
				case idx[1] == 0 && idx[0] == 0 && tc.zero:
					return 0
				}
				return v
			})
			b := mk[float64](t, c, []int{4}, 1, 0)
			x, err := Solve(a, b)
			if tc.singular {
				var se *SingularError
				mpitest.Check(t, c, errors.As(err, &se) && se.Column == 0, "%s, %s: %v, want a singular matrix", tc.name, la.name, err)
			} else {
				mpitest.Check(t, c, err == nil, "%s, %s: %v", tc.name, la.name, err)
				if err == nil {
					g := all(t, x)
					mpitest.Check(t, c, math.IsNaN(g[0]) && math.IsNaN(g[3]), "%s, %s: x = %v, want NaN", tc.name, la.name, g)
					x.Free()
				}
			}
			a.Free()
			b.Free()
		}
	}
}

func TestSolveBadInput(t *testing.T) {
	c := mpitest.World(t)
	a := mk[float64](t, c, []int{3, 4}, 0, 0)
	sq := mk[float64](t, c, []int{3, 3}, 0, 0)
	b := mk[float64](t, c, []int{3}, 1, 0)
	b4 := mk[float64](t, c, []int{4}, 1, 0)
	b3 := mk[float64](t, c, []int{3, 1, 1}, 1, 0)
	for _, tc := range []struct {
		name string
		a, b *dist.Array[float64]
		says string
	}{
		{"not square", a, b, "square"},
		{"b too long", sq, b4, "b of shape [4]"},
		{"b 3-D", sq, b3, "b of shape [3 1 1]"},
	} {
		x, err := Solve(tc.a, tc.b)
		mpitest.Check(t, c, x == nil && err != nil && contains(err.Error(), tc.says), "%s: %v", tc.name, err)
	}
	// n = 0.
	e, _ := dist.Zeros[float64](c, []int{0, 0})
	eb, _ := dist.Zeros[float64](c, []int{0, 2})
	x, err := Solve(e, eb)
	mpitest.Check(t, c, err == nil && slices.Equal(x.Shape(), []int{0, 2}), "empty: %v", err)
	for _, y := range []*dist.Array[float64]{a, sq, b, b4, b3, e, eb, x} {
		if y != nil {
			y.Free()
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// normCase is one norm NumPy computed: of the array name (gen.py's "v",
// "x", "xt", "x3", "xc"), with ord along axes, of the result's shape.
type normCase struct {
	name  string
	ord   Ord
	axes  []int
	shape []int
	want  []float64
}
