package fft

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// flatIndex is the row-major index of idx in shape.
func flatIndex(idx, shape []int) int {
	f := 0
	for k, i := range idx {
		f = f*shape[k] + i
	}
	return f
}

// layoutCase is one way to lay an array out over the ranks.
type layoutCase struct {
	name string
	opts []dist.Option
}

// layoutCases are the layouts the distributed tests cover for an nd-D
// array on p ranks: split on each axis, replicated, and the process grids
// that cut two axes (p = 4: 2 x 2; a 3-D array: pencils).
func layoutCases(nd, p int) []layoutCase {
	var cs []layoutCase
	for k := 0; k < nd; k++ {
		cs = append(cs, layoutCase{fmt.Sprintf("split %d", k), []dist.Option{dist.SplitAxis(k)}})
	}
	cs = append(cs, layoutCase{"replicated", []dist.Option{dist.SplitAxis(dist.Replicated)}})
	if nd >= 2 && p == 4 {
		dims := make([]int, nd)
		for k := range dims {
			dims[k] = 1
		}
		dims[0], dims[1] = 2, 2
		cs = append(cs, layoutCase{fmt.Sprintf("grid %v", dims), []dist.Option{dist.ProcessGrid(dims...)}})
		if nd == 3 {
			cs = append(cs, layoutCase{"grid [1 2 2]", []dist.Option{dist.ProcessGrid(1, 2, 2)}})
			cs = append(cs, layoutCase{"grid [2 1 2]", []dist.Option{dist.ProcessGrid(2, 1, 2)}})
		}
	}
	if nd == 3 && p > 1 {
		cs = append(cs, layoutCase{"grid [0 0 1]", []dist.Option{dist.ProcessGrid(0, 0, 1)}})
	}
	return cs
}

func fromFlat(t *testing.T, c mpi.Comm, shape []int, data []complex128, opts []dist.Option) *dist.Array[complex128] {
	t.Helper()
	a, err := dist.FromFunc(c, shape, func(idx []int) complex128 { return data[flatIndex(idx, shape)] }, opts...)
	if err != nil {
		t.Fatalf("FromFunc %v: %v", shape, err)
	}
	return a
}

// checkResult gathers y and compares it with want, and its layout with
// the input's (unless TransposedOut was given).
func checkResult(t *testing.T, c mpi.Comm, what string, in, y *dist.Array[complex128], transposed bool, want []complex128) {
	t.Helper()
	got, err := dist.Allgather(y)
	if err != nil {
		t.Fatalf("%s: Allgather: %v", what, err)
	}
	e := relErr(got, want)
	mpitest.Check(t, c, e <= tol, "%s: relative error %.3g against NumPy", what, e)
	if !transposed {
		mpitest.Check(t, c, y.Layout().Equal(in.Layout()), "%s: result layout %v, want the input's %v", what, y.Layout(), in.Layout())
	}
}

// TestFFTNNumPy transforms the fixtures' arrays on every layout of
// layoutCases with FFTN, IFFTN, FFT2 and IFFT2, with and without
// TransposedOut, against NumPy, and checks the round trip.
func TestFFTNNumPy(t *testing.T) {
	c := mpitest.World(t)
	f := loadFixtures(t)
	type fn func(*dist.Array[complex128], ...Option) (*dist.Array[complex128], error)
	fftn := func(a *dist.Array[complex128], o ...Option) (*dist.Array[complex128], error) {
		return FFTN(a, nil, o...)
	}
	ifftn := func(a *dist.Array[complex128], o ...Option) (*dist.Array[complex128], error) {
		return IFFTN(a, nil, o...)
	}
	for _, fc := range f.ND {
		x := cplx(fc.X)
		for _, lc := range layoutCases(len(fc.Shape), c.Size()) {
			a := fromFlat(t, c, fc.Shape, x, lc.opts)
			for _, tc := range []struct {
				name    string
				fwd     fn
				want    [][2]float64
				inverse fn
			}{
				{"FFTN", fftn, fc.FFTN, ifftn},
				{"IFFTN", ifftn, fc.IFFTN, fftn},
				{"FFT2", FFT2, fc.FFT2, IFFT2},
				{"IFFT2", IFFT2, fc.IFFT2, FFT2},
			} {
				for _, transposed := range []bool{false, true} {
					var opts []Option
					if transposed {
						opts = append(opts, TransposedOut())
					}
					what := fmt.Sprintf("%s %v %s transposed=%v", tc.name, fc.Shape, lc.name, transposed)
					y, err := tc.fwd(a, opts...)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					checkResult(t, c, what, a, y, transposed, cplx(tc.want))
					// The round trip, from wherever y was left.
					z, err := tc.inverse(y, opts...)
					if err != nil {
						t.Fatalf("%s: inverse: %v", what, err)
					}
					back, err := dist.Allgather(z)
					if err != nil {
						t.Fatal(err)
					}
					e := relErr(back, x)
					mpitest.Check(t, c, e <= tol, "%s: round trip relative error %.3g", what, e)
					y.Free()
					z.Free()
				}
			}
			// The input is not changed.
			got, err := dist.Allgather(a)
			if err != nil {
				t.Fatal(err)
			}
			mpitest.Check(t, c, relErr(got, x) == 0, "%v %s: the input changed", fc.Shape, lc.name)
			a.Free()
		}
	}
}

// TestFFTAxisNumPy transforms along one local axis with FFT and IFFT,
// the array split along another axis or replicated, against NumPy.
func TestFFTAxisNumPy(t *testing.T) {
	c := mpitest.World(t)
	f := loadFixtures(t)
	for _, fc := range f.Local {
		x := cplx(fc.X)
		for _, lc := range layoutCases(len(fc.Shape), c.Size()) {
			a := fromFlat(t, c, fc.Shape, x, lc.opts)
			cut := dimsOf(a.Layout())[fc.Axis] > 1
			for _, tc := range []struct {
				name string
				f    func(*dist.Array[complex128], int) (*dist.Array[complex128], error)
				want [][2]float64
			}{{"FFT", FFT, fc.FFT}, {"IFFT", IFFT, fc.IFFT}} {
				what := fmt.Sprintf("%s %v axis %d %s", tc.name, fc.Shape, fc.Axis, lc.name)
				y, err := tc.f(a, fc.Axis)
				if cut {
					want := fmt.Sprintf("fft: %s along axis %d: the axis is split", tc.name, fc.Axis)
					mpitest.Check(t, c, err != nil && strings.HasPrefix(err.Error(), want), "%s: error %v, want one starting %q", what, err, want)
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkResult(t, c, what, a, y, false, cplx(tc.want))
				y.Free()
			}
			// FFTN along that one axis works on every layout.
			y, err := FFTN(a, []int{fc.Axis})
			if err != nil {
				t.Fatalf("FFTN %v axes [%d] %s: %v", fc.Shape, fc.Axis, lc.name, err)
			}
			checkResult(t, c, fmt.Sprintf("FFTN %v axes [%d] %s", fc.Shape, fc.Axis, lc.name), a, y, false, cplx(fc.FFT))
			y.Free()
			a.Free()
		}
	}
}

// TestFFTNAxesSubset transforms over some axes of a 3-D array split along
// one of them, against the local engine on the whole array (itself
// checked against NumPy in TestLocalNumPy).
func TestFFTNAxesSubset(t *testing.T) {
	c := mpitest.World(t)
	shape := []int{5, 3, 7}
	n := 5 * 3 * 7
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(float64(i%11)-5, float64(i%7)/3)
	}
	for _, axes := range [][]int{{0}, {1}, {2}, {0, 2}, {2, 0}, {1, 2}, {0, 1}} {
		want := append([]complex128(nil), x...)
		for _, ax := range axes {
			LocalFFT(want, shape, ax)
		}
		for _, lc := range layoutCases(3, c.Size()) {
			a := fromFlat(t, c, shape, x, lc.opts)
			for _, transposed := range []bool{false, true} {
				var opts []Option
				if transposed {
					opts = append(opts, TransposedOut())
				}
				what := fmt.Sprintf("FFTN axes %v %s transposed=%v", axes, lc.name, transposed)
				y, err := FFTN(a, axes, opts...)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkResult(t, c, what, a, y, transposed, want)
				y.Free()
			}
			a.Free()
		}
	}
}

func TestFFTPanics(t *testing.T) {
	c := mpitest.World(t)
	a, err := dist.Zeros[complex128](c, []int{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	v, err := dist.Zeros[complex128](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	for _, tc := range []struct {
		name string
		f    func()
		msg  string
	}{
		{"FFT axis", func() { FFT(a, 2) }, "fft: FFT: axis 2 out of range for a 2-D array"},
		{"FFTN axis", func() { FFTN(a, []int{0, -3}) }, "fft: FFTN: axis -3 out of range for a 2-D array"},
		{"FFT axis -3", func() { FFT(a, -3) }, "fft: FFT: axis -3 out of range for a 2-D array"},
		{"FFTN twice, negative", func() { FFTN(a, []int{1, -1}) }, "fft: FFTN: axis 1 given twice in [1 -1]"},
		{"FFTN twice", func() { FFTN(a, []int{1, 1}) }, "fft: FFTN: axis 1 given twice in [1 1]"},
		{"FFT2 1-D", func() { FFT2(v) }, "fft: FFT2 of a 1-D array: it needs two axes"},
	} {
		func() {
			defer func() {
				r := recover()
				mpitest.Check(t, c, r == tc.msg, "%s: panic %v, want %q", tc.name, r, tc.msg)
			}()
			tc.f()
		}()
	}
}

// TestOverwrite transforms with Overwrite, against NumPy: the result is
// the input itself exactly where the plan needs no redistribution.
func TestOverwrite(t *testing.T) {
	c := mpitest.World(t)
	f := loadFixtures(t)
	for _, fc := range f.ND {
		x := cplx(fc.X)
		for _, lc := range layoutCases(len(fc.Shape), c.Size()) {
			for _, transposed := range []bool{false, true} {
				opts := []Option{Overwrite()}
				if transposed {
					opts = append(opts, TransposedOut())
				}
				a := fromFlat(t, c, fc.Shape, x, lc.opts)
				in := a.Layout()
				what := fmt.Sprintf("FFTN Overwrite %v %s transposed=%v", fc.Shape, lc.name, transposed)
				y, err := FFTN(a, nil, opts...)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got, err := dist.Allgather(y)
				if err != nil {
					t.Fatal(err)
				}
				e := relErr(got, cplx(fc.FFTN))
				mpitest.Check(t, c, e <= tol, "%s: relative error %.3g against NumPy", what, e)
				st := planStages(in, checkAxes("FFTN", len(fc.Shape), nil))
				inPlace := len(st) == 1 && st[0].layout.Equal(in)
				mpitest.Check(t, c, (y == a) == inPlace, "%s: result is the input: %v, want %v", what, y == a, inPlace)
				mpitest.Check(t, c, y == a || a.Freed(), "%s: the input was redistributed in place but is not freed", what)
				if !transposed {
					mpitest.Check(t, c, y.Layout().Equal(in), "%s: layout %v, want %v", what, y.Layout(), in)
				}
				if y != a {
					y.Free()
				}
				a.Free()
			}
		}
	}
}

// TestOverwriteReusesMemory: a forward and inverse 2-D transform with
// Overwrite and TransposedOut (W8's pair) of an n x n array whose blocks
// keep their length from rows to columns (every rank count of 1-4 divides
// 12) moves in place: each result is the input's memory, the inputs are
// freed (at one rank each result is its input), and the round trip gives
// the input back.
func TestOverwriteReusesMemory(t *testing.T) {
	c := mpitest.World(t)
	const n = 12
	if n%c.Size() != 0 {
		t.Skipf("%d ranks do not divide %d", c.Size(), n)
	}
	val := func(idx []int) complex128 { return complex(float64(idx[0]*n+idx[1]%7), float64(idx[1]-idx[0])) }
	a, err := dist.FromFunc(c, []int{n, n}, val)
	if err != nil {
		t.Fatal(err)
	}
	mem := &a.LocalData()[0]
	y, err := FFT2(a, TransposedOut(), Overwrite())
	if err != nil {
		t.Fatal(err)
	}
	// At one rank no redistribution is needed: the result is the input.
	mpitest.Check(t, c, (y == a || a.Freed()) && &y.LocalData()[0] == mem, "FFT2: result the input %v, input freed %v, result in its memory %v", y == a, a.Freed(), &y.LocalData()[0] == mem)
	z, err := IFFT2(y, TransposedOut(), Overwrite())
	if err != nil {
		t.Fatal(err)
	}
	defer z.Free()
	mpitest.Check(t, c, (z == y || y.Freed()) && &z.LocalData()[0] == mem, "IFFT2: result the input %v, input freed %v, result in its memory %v", z == y, y.Freed(), &z.LocalData()[0] == mem)
	start, shape := z.Layout().Block(c.Rank())
	worst := 0.0
	for k, v := range z.LocalData() {
		worst = math.Max(worst, cmplx.Abs(v-val([]int{start[0] + k/shape[1], start[1] + k%shape[1]})))
	}
	mpitest.Check(t, c, worst < 1e-12, "round trip: error %.3g", worst)
}
