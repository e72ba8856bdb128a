package fft

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// rfixtures are NumPy's real transforms, frequencies and shifts from
// testdata/gen_rfft_fixtures.py.
type rfixtures struct {
	NumPy string `json:"numpy"`
	Axis  []struct {
		Shape   []int        `json:"shape"`
		Axis    int          `json:"axis"`
		X       []float64    `json:"x"`
		RFFT    [][2]float64 `json:"rfft"`
		Y       [][2]float64 `json:"y"`
		Default []float64    `json:"irfft_default"`
		IRFFT   []struct {
			N     int       `json:"n"`
			IRFFT []float64 `json:"irfft"`
		} `json:"irfft"`
	} `json:"axis"`
	ND []struct {
		Shape  []int        `json:"shape"`
		Axes   []int        `json:"axes"`
		X      []float64    `json:"x"`
		RFFTN  [][2]float64 `json:"rfftn"`
		Y      [][2]float64 `json:"y"`
		IRFFTN []struct {
			N      int       `json:"n"`
			IRFFTN []float64 `json:"irfftn"`
		} `json:"irfftn"`
		RFFT2     [][2]float64 `json:"rfft2"`
		Y2        [][2]float64 `json:"y2"`
		IRFFT2    []float64    `json:"irfft2"`
		IRFFT2Odd []float64    `json:"irfft2_odd"`
	} `json:"nd"`
	Freq []struct {
		N        int       `json:"n"`
		D        float64   `json:"d"`
		FFTFreq  []float64 `json:"fftfreq"`
		RFFTFreq []float64 `json:"rfftfreq"`
	} `json:"freq"`
	Shift []struct {
		Shape     []int     `json:"shape"`
		Axes      []int     `json:"axes"`
		FFTShift  []float64 `json:"fftshift"`
		IFFTShift []float64 `json:"ifftshift"`
	} `json:"shift"`
}

var (
	rfixOnce sync.Once
	rfix     rfixtures
	rfixErr  error
)

func loadRFixtures(t testing.TB) *rfixtures {
	t.Helper()
	rfixOnce.Do(func() {
		b, err := os.ReadFile("testdata/rfft_fixtures.json")
		if err != nil {
			rfixErr = err
			return
		}
		rfixErr = json.Unmarshal(b, &rfix)
	})
	if rfixErr != nil {
		t.Fatalf("fixtures: %v", rfixErr)
	}
	return &rfix
}

// relErrReal is relErr of real slices.
func relErrReal(got, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var d, m float64
	for i := range want {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		m = math.Max(m, math.Abs(want[i]))
	}
	if m == 0 {
		return d
	}
	return d / m
}

func withLen(shape []int, axis, n int) []int {
	s := slices.Clone(shape)
	s[axis] = n
	return s
}

// rlayout is one way to lay out the arrays of the real transforms' tests:
// the options for an array of shape.
type rlayout struct {
	name string
	opts func(shape []int) []dist.Option
}

// realLayoutCases are layoutCases and, at 2 ranks or more, uneven blocks
// along axis 0 with rank 1 empty, and ghost layers along axis 0.
func realLayoutCases(nd, p int) []rlayout {
	var cs []rlayout
	for _, lc := range layoutCases(nd, p) {
		cs = append(cs, rlayout{lc.name, func([]int) []dist.Option { return lc.opts }})
	}
	if p > 1 {
		cs = append(cs, rlayout{"uneven", func(shape []int) []dist.Option {
			return []dist.Option{dist.BlockSizes(unevenCounts(shape[0], p))}
		}}, rlayout{"ghost", func([]int) []dist.Option { return []dist.Option{dist.Ghosts(1)} }})
	}
	return cs
}

// unevenCounts are uneven block sizes of n over p ranks, rank 1 empty:
// every other rank half of what is left, the last the rest.
func unevenCounts(n, p int) []int {
	counts := make([]int, p)
	last := p - 1
	if last == 1 {
		last = 0
	}
	rem := n
	for r := 0; r < p; r++ {
		switch {
		case r == 1 && p > 1:
		case r == last:
			counts[r] = rem
		default:
			take := (rem + 1) / 2
			counts[r] = take
			rem -= take
		}
	}
	return counts
}

func realFromFlat(t *testing.T, c mpi.Comm, shape []int, data []float64, opts []dist.Option) *dist.Array[float64] {
	t.Helper()
	a, err := dist.FromFunc(c, shape, func(idx []int) float64 { return data[flatIndex(idx, shape)] }, opts...)
	if err != nil {
		t.Fatalf("FromFunc %v: %v", shape, err)
	}
	return a
}

func gatherReal(t *testing.T, a *dist.Array[float64]) []float64 {
	t.Helper()
	g, err := dist.Allgather(a)
	if err != nil {
		t.Fatalf("Allgather: %v", err)
	}
	return g
}

func gatherCplx(t *testing.T, a *dist.Array[complex128]) []complex128 {
	t.Helper()
	g, err := dist.Allgather(a)
	if err != nil {
		t.Fatalf("Allgather: %v", err)
	}
	return g
}

// TestLocalRealNumPy checks LocalRFFT and LocalIRFFT against NumPy.
func TestLocalRealNumPy(t *testing.T) {
	f := loadRFixtures(t)
	for _, fc := range f.Axis {
		ax := fc.Axis
		if ax < 0 {
			ax += len(fc.Shape)
		}
		got := LocalRFFT(fc.X, fc.Shape, ax)
		if e := relErr(got, cplx(fc.RFFT)); e > tol {
			t.Errorf("LocalRFFT %v axis %d: relative error %.3g", fc.Shape, ax, e)
		}
		yshape := withLen(fc.Shape, ax, fc.Shape[ax]/2+1)
		for _, inv := range fc.IRFFT {
			got := LocalIRFFT(cplx(fc.Y), yshape, ax, inv.N)
			if e := relErrReal(got, inv.IRFFT); e > tol {
				t.Errorf("LocalIRFFT %v axis %d n=%d: relative error %.3g", yshape, ax, inv.N, e)
			}
		}
		if fc.Default != nil {
			got := LocalIRFFT(cplx(fc.Y), yshape, ax, 0)
			if e := relErrReal(got, fc.Default); e > tol {
				t.Errorf("LocalIRFFT %v axis %d default n: relative error %.3g", yshape, ax, e)
			}
		}
		// The round trip.
		back := LocalIRFFT(got, yshape, ax, fc.Shape[ax])
		if e := relErrReal(back, fc.X); e > tol {
			t.Errorf("round trip %v axis %d: relative error %.3g", fc.Shape, ax, e)
		}
	}
}

// TestLocalRealLengths checks LocalRFFT against the complex FFT of the
// same lines, and the round trip, for every length to 130 (even, odd,
// primes, the lengths that gonum takes) and lines along every axis.
func TestLocalRealLengths(t *testing.T) {
	for n := 1; n <= 130; n++ {
		for _, shape := range [][]int{{n}, {3, n}, {n, 5}, {2, n, 3}} {
			for ax := range shape {
				if shape[ax] != n {
					continue
				}
				x := make([]float64, prodInts(shape))
				for i := range x {
					x[i] = math.Sin(float64(i*i%97)) + float64(i%5)
				}
				got := LocalRFFT(x, shape, ax)
				cx := make([]complex128, len(x))
				for i, v := range x {
					cx[i] = complex(v, 0)
				}
				LocalFFT(cx, shape, ax)
				pre, _, post := splitShape(shape, ax)
				h := n/2 + 1
				want := make([]complex128, 0, len(got))
				for o := 0; o < pre; o++ {
					want = append(want, cx[o*n*post:o*n*post+h*post]...)
				}
				if e := relErr(got, want); e > tol {
					t.Fatalf("LocalRFFT %v axis %d: relative error %.3g against LocalFFT", shape, ax, e)
				}
				back := LocalIRFFT(got, withLen(shape, ax, h), ax, n)
				if e := relErrReal(back, x); e > tol {
					t.Fatalf("round trip %v axis %d: relative error %.3g", shape, ax, e)
				}
			}
		}
	}
}

// TestRFFTAxisNumPy transforms along one axis with RFFT and IRFFT (every
// n of the fixtures), on every layout, against NumPy: a tested refusal
// where the axis is split, and RFFTN and IRFFTN with that one axis there.
func TestRFFTAxisNumPy(t *testing.T) {
	c := mpitest.World(t)
	f := loadRFixtures(t)
	for _, fc := range f.Axis {
		ax := fc.Axis
		if ax < 0 {
			ax += len(fc.Shape)
		}
		yshape := withLen(fc.Shape, ax, fc.Shape[ax]/2+1)
		for _, lc := range realLayoutCases(len(fc.Shape), c.Size()) {
			a := realFromFlat(t, c, fc.Shape, fc.X, lc.opts(fc.Shape))
			ya := fromFlat(t, c, yshape, cplx(fc.Y), lc.opts(yshape))
			cut := dimsOf(a.Layout())[ax] > 1
			what := fmt.Sprintf("%v axis %d %s", fc.Shape, fc.Axis, lc.name)
			X, err := RFFT(a, fc.Axis)
			if cut {
				want := fmt.Sprintf("fft: RFFT along axis %d: the axis is split", ax)
				mpitest.Check(t, c, err != nil && strings.HasPrefix(err.Error(), want) && strings.Contains(err.Error(), "RFFTN"), "RFFT %s: error %v, want one starting %q", what, err, want)
				_, err = IRFFT(ya, fc.Shape[ax], fc.Axis)
				want = fmt.Sprintf("fft: IRFFT along axis %d: the axis is split", ax)
				mpitest.Check(t, c, err != nil && strings.HasPrefix(err.Error(), want), "IRFFT %s: error %v, want one starting %q", what, err, want)
			} else {
				if err != nil {
					t.Fatalf("RFFT %s: %v", what, err)
				}
				e := relErr(gatherCplx(t, X), cplx(fc.RFFT))
				mpitest.Check(t, c, e <= tol, "RFFT %s: relative error %.3g against NumPy", what, e)
				mpitest.Check(t, c, X.Layout().Equal(resized(a.Layout(), ax, fc.Shape[ax]/2+1)), "RFFT %s: layout %v", what, X.Layout())
				back, err := IRFFT(X, fc.Shape[ax], fc.Axis)
				if err != nil {
					t.Fatalf("IRFFT %s: %v", what, err)
				}
				e = relErrReal(gatherReal(t, back), fc.X)
				mpitest.Check(t, c, e <= tol, "IRFFT(RFFT) %s: round trip relative error %.3g", what, e)
				mpitest.Check(t, c, back.Layout().Equal(a.Layout()), "IRFFT(RFFT) %s: layout %v, want %v", what, back.Layout(), a.Layout())
				back.Free()
				X.Free()
				for _, inv := range fc.IRFFT {
					x, err := IRFFT(ya, inv.N, fc.Axis)
					if err != nil {
						t.Fatalf("IRFFT %s n=%d: %v", what, inv.N, err)
					}
					e := relErrReal(gatherReal(t, x), inv.IRFFT)
					mpitest.Check(t, c, e <= tol, "IRFFT %s n=%d: relative error %.3g against NumPy", what, inv.N, e)
					x.Free()
				}
			}
			// RFFTN and IRFFTN with that one axis, on every layout.
			X, err = RFFTN(a, []int{fc.Axis})
			if err != nil {
				t.Fatalf("RFFTN %s: %v", what, err)
			}
			e := relErr(gatherCplx(t, X), cplx(fc.RFFT))
			mpitest.Check(t, c, e <= tol, "RFFTN %s: relative error %.3g against NumPy", what, e)
			mpitest.Check(t, c, X.Layout().Equal(resized(a.Layout(), ax, fc.Shape[ax]/2+1)), "RFFTN %s: layout %v", what, X.Layout())
			X.Free()
			for _, inv := range fc.IRFFT {
				x, err := IRFFTN(ya, inv.N, []int{fc.Axis})
				if err != nil {
					t.Fatalf("IRFFTN %s n=%d: %v", what, inv.N, err)
				}
				e := relErrReal(gatherReal(t, x), inv.IRFFT)
				mpitest.Check(t, c, e <= tol, "IRFFTN %s n=%d: relative error %.3g against NumPy", what, inv.N, e)
				mpitest.Check(t, c, x.Layout().Equal(resized(ya.Layout(), ax, inv.N)), "IRFFTN %s n=%d: layout %v", what, inv.N, x.Layout())
				x.Free()
			}
			if fc.Default != nil {
				x, err := IRFFTN(ya, 0, []int{fc.Axis})
				if err != nil {
					t.Fatalf("IRFFTN %s default n: %v", what, err)
				}
				e := relErrReal(gatherReal(t, x), fc.Default)
				mpitest.Check(t, c, e <= tol, "IRFFTN %s default n: relative error %.3g against NumPy", what, e)
				x.Free()
			}
			// The inputs are not changed.
			mpitest.Check(t, c, relErrReal(gatherReal(t, a), fc.X) == 0, "%s: the input changed", what)
			mpitest.Check(t, c, relErr(gatherCplx(t, ya), cplx(fc.Y)) == 0, "%s: the spectrum changed", what)
			a.Free()
			ya.Free()
		}
	}
}

// TestRFFTNNumPy transforms with RFFTN, IRFFTN, RFFT2 and IRFFT2 on every
// layout, with and without TransposedOut (and Overwrite for the inverse),
// against NumPy, and checks the round trip from wherever the forward
// transform left its result.
func TestRFFTNNumPy(t *testing.T) {
	c := mpitest.World(t)
	f := loadRFixtures(t)
	for _, fc := range f.ND {
		nd := len(fc.Shape)
		axes := fc.Axes
		ax := checkAxes("test", nd, axes)
		r := ax[len(ax)-1]
		yshape := withLen(fc.Shape, r, fc.Shape[r]/2+1)
		for _, lc := range realLayoutCases(len(fc.Shape), c.Size()) {
			a := realFromFlat(t, c, fc.Shape, fc.X, lc.opts(fc.Shape))
			ya := fromFlat(t, c, yshape, cplx(fc.Y), lc.opts(yshape))
			for _, transposed := range []bool{false, true} {
				var opts []Option
				if transposed {
					opts = append(opts, TransposedOut())
				}
				what := fmt.Sprintf("%v axes %v %s transposed=%v", fc.Shape, axes, lc.name, transposed)
				X, err := RFFTN(a, axes, opts...)
				if err != nil {
					t.Fatalf("RFFTN %s: %v", what, err)
				}
				e := relErr(gatherCplx(t, X), cplx(fc.RFFTN))
				mpitest.Check(t, c, e <= tol, "RFFTN %s: relative error %.3g against NumPy", what, e)
				if !transposed {
					want := resized(a.Layout(), r, fc.Shape[r]/2+1)
					mpitest.Check(t, c, X.Layout().Equal(want), "RFFTN %s: layout %v, want %v", what, X.Layout(), want)
				}
				back, err := IRFFTN(X, fc.Shape[r], axes, opts...)
				if err != nil {
					t.Fatalf("IRFFTN(RFFTN) %s: %v", what, err)
				}
				e = relErrReal(gatherReal(t, back), fc.X)
				mpitest.Check(t, c, e <= tol, "IRFFTN(RFFTN) %s: round trip relative error %.3g", what, e)
				back.Free()
				X.Free()
				for _, inv := range fc.IRFFTN {
					for _, overwrite := range []bool{false, true} {
						o := opts
						in := ya
						if overwrite {
							o = append(slices.Clone(opts), Overwrite())
							if in, err = ya.Copy(); err != nil {
								t.Fatal(err)
							}
						}
						x, err := IRFFTN(in, inv.N, axes, o...)
						if err != nil {
							t.Fatalf("IRFFTN %s n=%d overwrite=%v: %v", what, inv.N, overwrite, err)
						}
						e := relErrReal(gatherReal(t, x), inv.IRFFTN)
						mpitest.Check(t, c, e <= tol, "IRFFTN %s n=%d overwrite=%v: relative error %.3g against NumPy", what, inv.N, overwrite, e)
						if !transposed {
							want := resized(ya.Layout(), r, inv.N)
							mpitest.Check(t, c, x.Layout().Equal(want), "IRFFTN %s n=%d: layout %v, want %v", what, inv.N, x.Layout(), want)
						}
						x.Free()
						if overwrite {
							in.Free()
						}
					}
				}
				if nd >= 2 {
					X, err := RFFT2(a, opts...)
					if err != nil {
						t.Fatalf("RFFT2 %s: %v", what, err)
					}
					e := relErr(gatherCplx(t, X), cplx(fc.RFFT2))
					mpitest.Check(t, c, e <= tol, "RFFT2 %s: relative error %.3g against NumPy", what, e)
					X.Free()
					y2shape := withLen(fc.Shape, nd-1, fc.Shape[nd-1]/2+1)
					y2 := fromFlat(t, c, y2shape, cplx(fc.Y2), lc.opts(y2shape))
					if fc.IRFFT2 != nil {
						x, err := IRFFT2(y2, 0, opts...)
						if err != nil {
							t.Fatalf("IRFFT2 %s: %v", what, err)
						}
						e := relErrReal(gatherReal(t, x), fc.IRFFT2)
						mpitest.Check(t, c, e <= tol, "IRFFT2 %s: relative error %.3g against NumPy", what, e)
						x.Free()
					}
					x, err := IRFFT2(y2, 2*y2shape[nd-1]-1, opts...)
					if err != nil {
						t.Fatalf("IRFFT2 odd %s: %v", what, err)
					}
					e = relErrReal(gatherReal(t, x), fc.IRFFT2Odd)
					mpitest.Check(t, c, e <= tol, "IRFFT2 odd %s: relative error %.3g against NumPy", what, e)
					x.Free()
					y2.Free()
				}
			}
			mpitest.Check(t, c, relErrReal(gatherReal(t, a), fc.X) == 0, "%v %s: the input changed", fc.Shape, lc.name)
			mpitest.Check(t, c, relErr(gatherCplx(t, ya), cplx(fc.Y)) == 0, "%v %s: the spectrum changed", fc.Shape, lc.name)
			a.Free()
			ya.Free()
		}
	}
}

// TestRealTransposedPair checks the communication of an RFFT2 and IRFFT2
// pair of a 2-D array split by rows with TransposedOut: the forward
// result is split by columns (one redistribution), and the inverse given
// it ends split by rows (one more), and the round trip holds.
func TestRealTransposedPair(t *testing.T) {
	c := mpitest.World(t)
	shape := []int{6, 10}
	x := make([]float64, 60)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	a := realFromFlat(t, c, shape, x, nil)
	defer a.Free()
	X, err := RFFT2(a, TransposedOut())
	if err != nil {
		t.Fatal(err)
	}
	defer X.Free()
	wantAxis := 0
	if c.Size() > 1 {
		wantAxis = 1
	}
	mpitest.Check(t, c, X.Layout().Axis() == wantAxis && slices.Equal(X.Shape(), []int{6, 6}), "RFFT2 TransposedOut: layout %v", X.Layout())
	back, err := IRFFT2(X, 10, TransposedOut())
	if err != nil {
		t.Fatal(err)
	}
	defer back.Free()
	mpitest.Check(t, c, back.Layout().Axis() == 0, "IRFFT2 TransposedOut: layout %v, want split by rows", back.Layout())
	e := relErrReal(gatherReal(t, back), x)
	mpitest.Check(t, c, e <= tol, "round trip relative error %.3g", e)
}

// TestRealErrors checks the refusals of the real transforms: a length 0
// to transform, an inverse length under 1 (the default of one term, a
// negative n), every one an error on every rank; and the panics of axes.
func TestRealErrors(t *testing.T) {
	c := mpitest.World(t)
	z, err := dist.Zeros[float64](c, []int{3, 0})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Free()
	one, err := dist.Zeros[complex128](c, []int{4, 1})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Free()
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"RFFT of length 0", func() error { _, err := RFFT(z, 1); return err }, "fft: RFFT: invalid number of data points (0) along axis 1"},
		{"RFFTN of length 0", func() error { _, err := RFFTN(z, nil); return err }, "fft: RFFTN: invalid number of data points (0) along axis 1"},
		{"IRFFT default of 1 term", func() error { _, err := IRFFT(one, 0, 1); return err }, "fft: IRFFT: invalid number of data points (0) along axis 1"},
		{"IRFFT2 default of 1 term", func() error { _, err := IRFFT2(one, 0); return err }, "fft: IRFFT2: invalid number of data points (0) along axis 1"},
		{"IRFFTN negative n", func() error { _, err := IRFFTN(one, -2, []int{0}); return err }, "fft: IRFFTN: invalid number of data points (-2) along axis 0"},
	} {
		err := tc.f()
		mpitest.Check(t, c, err != nil && strings.HasPrefix(err.Error(), tc.want), "%s: error %v, want one starting %q", tc.name, err, tc.want)
	}
	// A length 0 along another axis is an empty result, as NumPy's.
	X, err := RFFTN(z, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	mpitest.Check(t, c, slices.Equal(X.Shape(), []int{2, 0}), "RFFTN of [3 0] along 0: shape %v, want [2 0]", X.Shape())
	X.Free()
	// An empty spectrum with n given is zeros, as NumPy's irfft.
	e, err := dist.Zeros[complex128](c, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	x, err := IRFFTN(e, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := gatherReal(t, x)
	mpitest.Check(t, c, slices.Equal(g, []float64{0, 0, 0, 0}), "IRFFT of no terms, n=4: %v", g)
	x.Free()
	e.Free()
	v, err := dist.Zeros[float64](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	for _, tc := range []struct {
		name string
		f    func()
		msg  string
	}{
		{"RFFT axis", func() { RFFT(z, 2) }, "fft: RFFT: axis 2 out of range for a 2-D array"},
		{"IRFFT axis", func() { IRFFT(one, 0, -3) }, "fft: IRFFT: axis -3 out of range for a 2-D array"},
		{"RFFTN twice", func() { RFFTN(z, []int{1, -1}) }, "fft: RFFTN: axis 1 given twice in [1 -1]"},
		{"RFFTN no axes", func() { RFFTN(z, []int{}) }, "fft: RFFTN: no axes to transform (axes is empty): the last one is the halved one"},
		{"RFFT2 1-D", func() { RFFT2(v) }, "fft: RFFT2 of a 1-D array: it needs two axes"},
		{"FFTShift axis", func() { FFTShift(v, []int{1}) }, "fft: FFTShift: axis 1 out of range for a 1-D array"},
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

// TestRealFreed checks that every real transform and shift of a freed
// array returns at once an error wrapping dist.ErrFreed that names it.
func TestRealFreed(t *testing.T) {
	c := mpitest.World(t)
	for _, opts := range [][]dist.Option{nil, {dist.SplitAxis(1)}, {dist.ProcessGrid(0, 0)}} {
		a, err := dist.Zeros[float64](c, []int{4, 6}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		y, err := dist.Zeros[complex128](c, []int{4, 4}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		a.Free()
		y.Free()
		for _, op := range []struct {
			name string
			f    func() (any, error)
		}{
			{"RFFT", func() (any, error) { return RFFT(a, 1) }},
			{"IRFFT", func() (any, error) { return IRFFT(y, 0, 1) }},
			{"RFFT2", func() (any, error) { return RFFT2(a) }},
			{"IRFFT2", func() (any, error) { return IRFFT2(y, 5, TransposedOut()) }},
			{"RFFTN", func() (any, error) { return RFFTN(a, nil) }},
			{"IRFFTN", func() (any, error) { return IRFFTN(y, 0, []int{-1}) }},
			{"FFTShift", func() (any, error) { return FFTShift(a, nil) }},
			{"IFFTShift", func() (any, error) { return IFFTShift(y, []int{0}) }},
		} {
			_, err := op.f()
			ok := errors.Is(err, dist.ErrFreed) && err.Error() == fmt.Sprintf("fft: %s of a freed array: array used after Free", op.name)
			mpitest.Check(t, c, ok, "%s of a freed array (%v): %v", op.name, a.Layout(), err)
		}
	}
}

// TestFreqNumPy checks FFTFreq and RFFTFreq against NumPy's values bit for
// bit, and their refusals.
func TestFreqNumPy(t *testing.T) {
	f := loadRFixtures(t)
	for _, fc := range f.Freq {
		got, err := FFTFreq(fc.N, fc.D)
		if err != nil || !slices.Equal(got, fc.FFTFreq) {
			t.Errorf("FFTFreq(%d, %g) = %v, %v; NumPy %v", fc.N, fc.D, got, err, fc.FFTFreq)
		}
		got, err = RFFTFreq(fc.N, fc.D)
		if err != nil || !slices.Equal(got, fc.RFFTFreq) {
			t.Errorf("RFFTFreq(%d, %g) = %v, %v; NumPy %v", fc.N, fc.D, got, err, fc.RFFTFreq)
		}
	}
	for _, tc := range []struct {
		n    int
		d    float64
		want string
	}{{0, 1, "length 0"}, {-3, 1, "length -3"}, {4, 0, "sample spacing 0"}} {
		for _, fn := range []func(int, float64) ([]float64, error){FFTFreq, RFFTFreq} {
			v, err := fn(tc.n, tc.d)
			if v != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("(%d, %g): %v, %v; want an error saying %q", tc.n, tc.d, v, err, tc.want)
			}
		}
	}
}

// TestShiftNumPy checks FFTShift and IFFTShift on every layout against
// NumPy's, exactly, for float64, complex128 and int32, and that they are
// each other's inverse.
func TestShiftNumPy(t *testing.T) {
	c := mpitest.World(t)
	f := loadRFixtures(t)
	for _, fc := range f.Shift {
		n := prodInts(fc.Shape)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i)
		}
		for _, lc := range realLayoutCases(len(fc.Shape), c.Size()) {
			what := fmt.Sprintf("%v axes %v %s", fc.Shape, fc.Axes, lc.name)
			a := realFromFlat(t, c, fc.Shape, x, lc.opts(fc.Shape))
			for _, tc := range []struct {
				name string
				f    func(*dist.Array[float64], []int) (*dist.Array[float64], error)
				want []float64
				inv  func(*dist.Array[float64], []int) (*dist.Array[float64], error)
			}{{"FFTShift", FFTShift[float64], fc.FFTShift, IFFTShift[float64]}, {"IFFTShift", IFFTShift[float64], fc.IFFTShift, FFTShift[float64]}} {
				y, err := tc.f(a, fc.Axes)
				if err != nil {
					t.Fatalf("%s %s: %v", tc.name, what, err)
				}
				g := gatherReal(t, y)
				mpitest.Check(t, c, slices.Equal(g, tc.want), "%s %s: %v, NumPy %v", tc.name, what, g, tc.want)
				mpitest.Check(t, c, y.Layout().Equal(a.Layout()) && y.Ghosts() == a.Ghosts(), "%s %s: layout %v ghosts %d, want %v %d", tc.name, what, y.Layout(), y.Ghosts(), a.Layout(), a.Ghosts())
				z, err := tc.inv(y, fc.Axes)
				if err != nil {
					t.Fatalf("%s %s: inverse: %v", tc.name, what, err)
				}
				g = gatherReal(t, z)
				mpitest.Check(t, c, slices.Equal(g, x), "%s %s: inverse gives %v", tc.name, what, g)
				y.Free()
				z.Free()
			}
			a.Free()
			// Other element types move the same way.
			cx := make([]complex128, n)
			for i := range cx {
				cx[i] = complex(float64(i), -float64(i))
			}
			ca := fromFlat(t, c, fc.Shape, cx, lc.opts(fc.Shape))
			cy, err := FFTShift(ca, fc.Axes)
			if err != nil {
				t.Fatal(err)
			}
			g := gatherCplx(t, cy)
			ok := len(g) == len(fc.FFTShift)
			for i := range g {
				ok = ok && g[i] == complex(fc.FFTShift[i], -fc.FFTShift[i])
			}
			mpitest.Check(t, c, ok, "FFTShift complex128 %s: %v", what, g)
			ca.Free()
			cy.Free()
			ia, err := dist.FromFunc(c, fc.Shape, func(idx []int) int32 { return int32(flatIndex(idx, fc.Shape)) }, lc.opts(fc.Shape)...)
			if err != nil {
				t.Fatal(err)
			}
			iy, err := IFFTShift(ia, fc.Axes)
			if err != nil {
				t.Fatal(err)
			}
			gi, err := dist.Allgather(iy)
			if err != nil {
				t.Fatal(err)
			}
			ok = len(gi) == len(fc.IFFTShift)
			for i := range gi {
				ok = ok && float64(gi[i]) == fc.IFFTShift[i]
			}
			mpitest.Check(t, c, ok, "IFFTShift int32 %s: %v", what, gi)
			ia.Free()
			iy.Free()
		}
	}
}

// TestDeviceReal runs the real transforms and shifts on the fake device
// with MPI told it is CUDA-aware: the results equal the CPU's bit for bit
// and stay on the device; each real transform stage copies its block to
// the host and its result back (one copy each way, recorded), and nothing
// else is copied; a shift copies nothing where no rolled axis is split,
// and one block each way where one is.
func TestDeviceReal(t *testing.T) {
	c := mpitest.World(t)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.SetCUDAAware(true)
	t.Cleanup(staging.ClearCUDAAware)
	testDeviceReal(t, c, fakedev.Default, 0)
	testDeviceReal(t, c, noFFTer{fakedev.Default}, 0)
}

// testDeviceReal runs RFFTN, IRFFTN and FFTShift of the deviceCases on
// backend b and checks the copies between host and device (after a first
// run that makes the plans) and that the results equal the CPU backend's
// within tol relative (bit for bit if tol is 0).
func testDeviceReal(t *testing.T, c mpi.Comm, b backend.Backend, tol float64) {
	for _, tc := range deviceCases {
		f := func(idx []int) float64 { return float64(idx[0]*7-idx[len(idx)-1]) + 0.5 }
		h, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(cpu.Default))...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dist.FromFunc(c, tc.shape, f, append(tc.opts, dist.OnBackend(b))...)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%s %v %v", b.Name(), tc.shape, h.Layout())
		want, err := RFFTN(h, nil)
		if err != nil {
			t.Fatal(err)
		}
		warm, err := RFFTN(d, nil) // makes the plans
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		warm.Free()
		var got *dist.Array[complex128]
		cnt := profiling.Counting(func() { got, err = RFFTN(d, nil) })
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		mpitest.Check(t, c, got.Device() == b.Device(), "%s: result on %v", what, got.Device())
		// The real stage's copies: the real block there, the half
		// spectrum's block back; a backend without an FFT copies each
		// complex stage's block both ways as well.
		nd := len(tc.shape)
		r := nd - 1
		lr := localFor(h.Layout(), r, checkAxes("", nd, nil))
		hl := resized(lr, r, tc.shape[r]/2+1)
		toHost := int64(lr.LocalLen(c.Rank()) * 8)
		toDev := int64(hl.LocalLen(c.Rank()) * 16)
		copies := 1
		if _, ok := b.(backend.FFTer); !ok {
			for _, s := range planStages(hl, checkAxes("", nd, nil)[:r]) {
				toHost += int64(s.layout.LocalLen(c.Rank()) * 16)
				toDev += int64(s.layout.LocalLen(c.Rank()) * 16)
				copies++
			}
		}
		mpitest.Check(t, c, cnt.Count(profiling.ToHost) == copies && cnt.Count(profiling.ToDevice) == copies &&
			cnt.Bytes(profiling.ToHost) == toHost && cnt.Bytes(profiling.ToDevice) == toDev,
			"RFFTN %s: copies to host %d (%d B), to device %d (%d B); want %d (%d B) and %d (%d B)", what,
			cnt.Count(profiling.ToHost), cnt.Bytes(profiling.ToHost), cnt.Count(profiling.ToDevice), cnt.Bytes(profiling.ToDevice), copies, toHost, copies, toDev)
		e := relErr(gatherCplx(t, got), gatherCplx(t, want))
		mpitest.Check(t, c, e <= tol, "RFFTN %s: differs from the CPU's by %.3g (tolerance %.3g)", what, e, tol)
		hb, err := IRFFTN(want, tc.shape[r], nil)
		if err != nil {
			t.Fatal(err)
		}
		db, err := IRFFTN(got, tc.shape[r], nil)
		if err != nil {
			t.Fatalf("IRFFTN %s: %v", what, err)
		}
		mpitest.Check(t, c, db.Device() == b.Device(), "IRFFTN %s: result on %v", what, db.Device())
		gh, gd := gatherReal(t, hb), gatherReal(t, db)
		e = relErrReal(gd, gh)
		mpitest.Check(t, c, e <= tol, "IRFFTN %s: differs from the CPU's by %.3g (tolerance %.3g)", what, e, tol)
		// Shifts: along the axes local to the blocks, no copy.
		var local []int
		for k, dk := range dimsOf(h.Layout()) {
			if dk == 1 {
				local = append(local, k)
			}
		}
		for _, axes := range [][]int{local, nil} {
			if axes == nil && len(local) == nd {
				continue
			}
			ws, err := FFTShift(h, axes)
			if err != nil {
				t.Fatal(err)
			}
			var gs *dist.Array[float64]
			cnt := profiling.Counting(func() { gs, err = FFTShift(d, axes) })
			if err != nil {
				t.Fatalf("FFTShift %s axes %v: %v", what, axes, err)
			}
			want := 0
			if axes == nil {
				want = 1
			}
			bytes := int64(want * h.Layout().LocalLen(c.Rank()) * 8)
			mpitest.Check(t, c, cnt.Count(profiling.ToHost) == want && cnt.Count(profiling.ToDevice) == want &&
				cnt.Bytes(profiling.ToHost) == bytes && cnt.Bytes(profiling.ToDevice) == bytes,
				"FFTShift %s axes %v: copies to host %d, to device %d; want %d each", what, axes, cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice), want)
			mpitest.Check(t, c, gs.Device() == b.Device() && slices.Equal(gatherReal(t, gs), gatherReal(t, ws)), "FFTShift %s axes %v: differs from the CPU's", what, axes)
			ws.Free()
			gs.Free()
		}
		for _, x := range []interface{ Free() }{h, d, want, got, hb, db} {
			x.Free()
		}
	}
}
