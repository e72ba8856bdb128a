package dist_test

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/cmplx"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// refNanvar is the reference of nanvar of one line: the values that are
// not NaN, their mean, then the sum of their squared deviations divided
// by n - ddof; NaN where n <= ddof. Computed independently of dist, in
// float64, as numpy.nanvar's definition reads.
func refNanvar(line []float64, ddof int) float64 {
	var v []float64
	for _, e := range line {
		if !math.IsNaN(e) {
			v = append(v, e)
		}
	}
	if len(v) <= ddof {
		return math.NaN()
	}
	s := 0.0
	for _, e := range v {
		s += e
	}
	mean := s / float64(len(v))
	m2 := 0.0
	for _, e := range v {
		m2 += (e - mean) * (e - mean)
	}
	return m2 / float64(len(v)-ddof)
}

// refLines applies f to each line of g (row-major, of shape) along axis
// and returns the results in the row-major order of the other axes.
func refLines(g []float64, shape []int, axis int, f func([]float64) float64) []float64 {
	pre, n, post := 1, shape[axis], 1
	for a, d := range shape {
		if a < axis {
			pre *= d
		} else if a > axis {
			post *= d
		}
	}
	out := make([]float64, 0, pre*post)
	line := make([]float64, n)
	for i := range pre {
		for j := range post {
			for k := range n {
				line[k] = g[(i*n+k)*post+j]
			}
			out = append(out, f(line))
		}
	}
	return out
}

// nanAxisData returns the global contents of a test array of shape: a
// mixture of values with a large common offset, NaNs (an all-NaN line
// along the last axis where there are two rows or more), and, if inf, a
// +Inf and a -Inf.
func nanAxisData(shape []int, inf bool) []float64 {
	n := 1
	for _, d := range shape {
		n *= d
	}
	last := max(shape[len(shape)-1], 1)
	g := make([]float64, n)
	for i := range g {
		g[i] = 1e6 + float64((i*7)%11) - 3.5 + float64(i%3)*0.25
		if i%4 == 1 || i%9 == 5 {
			g[i] = math.NaN()
		}
	}
	if n/last >= 2 {
		for k := range last { // the second line along the last axis
			g[last+k] = math.NaN()
		}
	}
	if inf && n >= 4 {
		g[n-1], g[0] = math.Inf(1), math.Inf(-1)
	}
	return g
}

// nanAxisLayouts returns the layouts of an array of shape at p ranks: split
// on each axis evenly and with uneven blocks (the first rank empty, and
// the third at 4 ranks), replicated, with ghost layers, and on process
// grids where p allows.
func nanAxisLayouts(shape []int, p int) (names []string, opts [][]dist.Option) {
	add := func(n string, o ...dist.Option) { names, opts = append(names, n), append(opts, o) }
	add("replicated", dist.SplitAxis(dist.Replicated))
	for a, d := range shape {
		add(fmt.Sprintf("split %d", a), dist.SplitAxis(a))
		if p > 1 {
			counts := make([]int, p)
			counts[p-1] = d // the first rank empty
			if p > 2 && d > 1 {
				counts[p-1], counts[1] = d-1, 1
			}
			add(fmt.Sprintf("split %d blocks %v", a, counts), dist.SplitAxis(a), dist.BlockSizes(counts))
		}
	}
	add("split 0 ghosts 1", dist.SplitAxis(0), dist.Ghosts(1))
	if p > 1 && len(shape) >= 2 {
		for _, g := range [][]int{{p, 1}, {1, p}, {2, p / 2}} {
			if g[0]*g[1] != p {
				continue
			}
			dims := append(g[:2:2], make([]int, len(shape)-2)...)
			for i := 2; i < len(dims); i++ {
				dims[i] = 1
			}
			add(fmt.Sprintf("grid %v", dims), dist.ProcessGrid(dims...))
		}
	}
	return names, opts
}

// TestNanvarAxis checks NanvarAxis and NanstdAxis against refNanvar along
// every axis (given as it is and from the end), ddof 0, 1 and past the
// number of non-NaN elements, of float64, float32 and int32 arrays with
// NaNs, all-NaN lines, infinities, sizes that do not divide among the
// ranks (and fewer elements than ranks), on every layout of
// nanAxisLayouts, on the CPU, the fake device, and a device backend
// without the statistics kernels (reduced on host copies).
//
// With -short (the suite's runs at 3 and 4 ranks on two CPUs, where every
// collective waits for a descheduled rank) it checks a sample: shapes
// [5, 3] with infinities and [0, 3], every layout, the CPU and the fake
// device, axes 0, 1 and -1, ddof 0 (both functions, both types) and n.
func TestNanvarAxis(t *testing.T) {
	c := mpitest.World(t)
	bn, bs := specialBackends(t)
	shapes := [][]int{{5, 3}, {3, 7}, {2, 3, 5}, {1, 2}, {2, 1}, {7}, {0, 3}, {3, 0}}
	infs := []bool{false, true}
	if testing.Short() {
		shapes, bn, bs = [][]int{{5, 3}, {0, 3}}, bn[:2], bs[:2]
	}
	for _, shape := range shapes {
		for _, inf := range infs {
			if testing.Short() && inf != (shape[0] > 0) {
				continue
			}
			g := nanAxisData(shape, inf)
			names, opts := nanAxisLayouts(shape, c.Size())
			for bi, b := range bs {
				for li := range names {
					what := fmt.Sprintf("%v inf=%v/%s/%s", shape, inf, bn[bi], names[li])
					o := append([]dist.Option{dist.OnBackend(b)}, opts[li]...)
					checkNanvarAxis(t, c, what, shape, g, o)
				}
			}
		}
	}
}

func checkNanvarAxis(t *testing.T, c mpi.Comm, what string, shape []int, g []float64, o []dist.Option) {
	t.Helper()
	at := func(idx []int) int {
		k := 0
		for a, i := range idx {
			k = k*shape[a] + i
		}
		return k
	}
	x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return g[at(idx)] }, o...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer x.Free()
	// float32 data: the values rounded to float32, then computed in float64.
	g32 := make([]float64, len(g))
	for i, v := range g {
		g32[i] = float64(float32(v - 1e6)) // float32 cannot hold the offset's fractions
	}
	x32, err := dist.FromFunc(c, shape, func(idx []int) float32 { return float32(g32[at(idx)]) }, o...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer x32.Free()
	d := len(shape)
	for ax := -d; ax < d; ax++ {
		if testing.Short() && ax < -1 {
			continue
		}
		a := ax
		if a < 0 {
			a += d
		}
		n := shape[a]
		ddofs := []int{0, 1, n, n + 2}
		if testing.Short() {
			ddofs = []int{0, n}
		}
		for _, ddof := range ddofs {
			for _, std := range []bool{false, true} {
				if testing.Short() && std && ddof != 0 {
					continue
				}
				name, f64, f32 := "NanvarAxis", dist.NanvarAxis[float64], dist.NanvarAxis[float32]
				if std {
					name, f64, f32 = "NanstdAxis", dist.NanstdAxis[float64], dist.NanstdAxis[float32]
				}
				ref := func(v []float64) float64 {
					r := refNanvar(v, ddof)
					if std {
						r = math.Sqrt(r)
					}
					return r
				}
				r, err := f64(x, ax, ddof)
				checkAxisResult(t, c, fmt.Sprintf("%s: %s axis %d ddof %d", what, name, ax, ddof), r, err, refLines(g, shape, a, ref), 1e-9)
				r, err = f32(x32, ax, ddof)
				checkAxisResult(t, c, fmt.Sprintf("%s: float32 %s axis %d ddof %d", what, name, ax, ddof), r, err, refLines(g32, shape, a, ref), 1e-12)
			}
		}
	}
}

// checkAxisResult gathers r and compares it with want, within rel
// (relative to max(1, |want|)), NaN matching NaN and infinities equal.
func checkAxisResult(t *testing.T, c mpi.Comm, what string, r *dist.Array[float64], err error, want []float64, rel float64) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	got, err := dist.Allgather(r)
	r.Free()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		want = []float64{} // an empty result has shape [k, 0] or a 0 in it
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = near(got[i], want[i], rel)
	}
	mpitest.Check(t, c, ok, "%s = %v, want %v", what, got, want)
}

// TestNanvarAxisValues checks NanvarAxis and NanstdAxis on nanGrid (3x4,
// with an all-NaN row and column) against the values of numpy.nanvar and
// numpy.nanstd, worked by hand from their definition: axis 0's columns
// are {1, 5}, {}, {3, -1}, {2}; axis 1's rows {1, 3}, {}, {5, -1, 2}.
func TestNanvarAxisValues(t *testing.T) {
	c := mpitest.World(t)
	want := map[int][2][]float64{ // ddof: axis 0, axis 1
		0: {{4, nan, 4, 0}, {1, nan, 6}},
		1: {{8, nan, 8, nan}, {2, nan, 9}},
		2: {{nan, nan, nan, nan}, {nan, nan, 18}},
	}
	bn, bs := specialBackends(t)
	for bi, b := range bs {
		for _, split := range []int{0, 1, dist.Replicated} {
			what := fmt.Sprintf("%s/split %d", bn[bi], split)
			a, err := dist.FromFunc(c, []int{3, 4}, func(idx []int) float64 { return nanGrid[idx[0]*4+idx[1]] }, dist.SplitAxis(split), dist.OnBackend(b))
			if err != nil {
				t.Fatal(err)
			}
			for _, ddof := range slices.Sorted(maps.Keys(want)) {
				w := want[ddof]
				for ax := range 2 {
					r, err := dist.NanvarAxis(a, ax-2*ax, ddof) // axis 0, and -1 for axis 1
					checkAxisResult(t, c, fmt.Sprintf("%s: NanvarAxis axis %d ddof %d", what, ax, ddof), r, err, w[ax], 1e-15)
					sq := make([]float64, len(w[ax]))
					for i, v := range w[ax] {
						sq[i] = math.Sqrt(v)
					}
					r, err = dist.NanstdAxis(a, ax, ddof)
					checkAxisResult(t, c, fmt.Sprintf("%s: NanstdAxis axis %d ddof %d", what, ax, ddof), r, err, sq, 1e-15)
				}
			}
			a.Free()
		}
	}
	// Integer arrays: VarAxis's, whose divisor is max(N-ddof, 0).
	xi, err := dist.FromFunc(c, []int{2, 3}, func(idx []int) int32 { return int32(idx[0]*5 + idx[1]*idx[1]) })
	if err != nil {
		t.Fatal(err)
	}
	defer xi.Free()
	for _, ddof := range []int{0, 1, 3} {
		r, err := dist.NanvarAxis(xi, 1, ddof)
		v, verr := dist.VarAxis(xi, 1, ddof)
		if verr != nil {
			t.Fatal(verr)
		}
		want, _ := dist.Allgather(v)
		v.Free()
		checkAxisResult(t, c, fmt.Sprintf("int32 NanvarAxis ddof %d", ddof), r, err, want, 0)
	}
	// Freed arrays.
	x, err := dist.Zeros[float64](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	x.Free()
	for what, err := range map[string]error{
		"NanvarAxis": second(dist.NanvarAxis(x, 0, 0)), "NanstdAxis": second(dist.NanstdAxis(x, 0, 0)),
	} {
		if !errors.Is(err, dist.ErrFreed) {
			t.Errorf("%s of a freed array: %v, want ErrFreed", what, err)
		}
	}
}

// refNanComplex returns the reference NaN-ignoring sum, product, mean and
// variance (with ddof) of v: plain loops over the elements with neither
// part NaN, as numpy.nansum, nanprod, nanmean and nanvar define them
// (the variance the mean of |z - mean|^2 over n - ddof).
func refNanComplex(v []complex128, ddof int) (sum, prod, mean complex128, vr float64) {
	var k []complex128
	for _, z := range v {
		if !math.IsNaN(real(z)) && !math.IsNaN(imag(z)) {
			k = append(k, z)
		}
	}
	prod = 1
	for _, z := range k {
		sum += z
		prod *= z
	}
	if len(k) == 0 {
		mean = complex(math.NaN(), math.NaN())
	} else {
		mean = complex(real(sum)/float64(len(k)), imag(sum)/float64(len(k)))
	}
	if len(k) <= ddof {
		return sum, prod, mean, math.NaN()
	}
	for _, z := range k {
		d := z - mean
		vr += real(d)*real(d) + imag(d)*imag(d)
	}
	return sum, prod, mean, vr / float64(len(k)-ddof)
}

// TestNanComplex checks NansumComplex, NanprodComplex, NanmeanComplex,
// NanvarComplex and NanstdComplex of complex128 and complex64 arrays with
// NaN in either part against refNanComplex, and against numpy's values
// for one array worked by hand; all-NaN, empty, fewer elements than
// ranks, ddof past the count, infinities; on every layout and backend of
// eachLayout.
func TestNanComplex(t *testing.T) {
	c := mpitest.World(t)
	// numpy: z = [1+2j, nan+1j, 3-1j, 2+nanj, -1+0j]; nansum 3+1j,
	// nanprod (1+2j)(3-1j)(-1) = -5-5j, nanmean 1+(1/3)j, nanvar ddof=0:
	// |z-m|^2 = 0+25/9, 4+16/9, 4+1/9 → (8+42/9)/3 = 38/9, ddof=1 19/3.
	hand := []complex128{1 + 2i, complex(nan, 1), 3 - 1i, complex(2, nan), -1}
	eachLayout(t, c, len(hand), func(what string, o []dist.Option, b backend.Backend) {
		x := fromSlice(t, c, hand, o, b)
		defer x.Free()
		s, err := dist.NansumComplex(x)
		mpitest.Check(t, c, err == nil && s == 3+1i, "%s: NansumComplex = %v (%v), NumPy 3+1j", what, s, err)
		p, err := dist.NanprodComplex(x)
		mpitest.Check(t, c, err == nil && p == -5-5i, "%s: NanprodComplex = %v (%v), NumPy -5-5j", what, p, err)
		m, err := dist.NanmeanComplex(x)
		mpitest.Check(t, c, err == nil && cmplx.Abs(m-complex(1, 1.0/3)) < 1e-15, "%s: NanmeanComplex = %v (%v), NumPy 1+0.333j", what, m, err)
		v, err := dist.NanvarComplex(x, 0)
		mpitest.Check(t, c, err == nil && closeTo(v, 38.0/9, 1e-14), "%s: NanvarComplex ddof 0 = %v (%v), NumPy %v", what, v, err, 38.0/9)
		v, err = dist.NanvarComplex(x, 1)
		mpitest.Check(t, c, err == nil && closeTo(v, 19.0/3, 1e-14), "%s: NanvarComplex ddof 1 = %v (%v), NumPy %v", what, v, err, 19.0/3)
		v, err = dist.NanstdComplex(x, 1)
		mpitest.Check(t, c, err == nil && closeTo(v, math.Sqrt(19.0/3), 1e-14), "%s: NanstdComplex ddof 1 = %v (%v)", what, v, err)
		v, err = dist.NanvarComplex(x, 3)
		mpitest.Check(t, c, err == nil && math.IsNaN(v), "%s: NanvarComplex ddof 3 (3 elements) = %v (%v), NumPy nan", what, v, err)
	})
	gen := func(n int, inf bool) []complex128 {
		v := make([]complex128, n)
		for i := range v {
			v[i] = complex(float64((i*5)%7)-2.5, float64((i*3)%5)*0.5-1)
			switch i % 5 {
			case 1:
				v[i] = complex(math.NaN(), 1)
			case 3:
				v[i] = complex(0.5, math.NaN())
			}
		}
		if inf && n > 2 {
			v[2] = complex(math.Inf(1), 1)
		}
		return v
	}
	cases := map[string][]complex128{
		"all NaN":  {complex(nan, 0), complex(0, nan), cmplx.NaN()},
		"one":      {2 - 1i},
		"two":      {2 - 1i, complex(nan, nan)},
		"n=11":     gen(11, false),
		"n=13 inf": gen(13, true),
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		v := cases[name]
		for _, ddof := range []int{0, 1, 2} {
			ws, wp, wm, wv := refNanComplex(v, ddof)
			eachLayout(t, c, len(v), func(what string, o []dist.Option, b backend.Backend) {
				what = fmt.Sprintf("%s ddof %d/%s", name, ddof, what)
				x := fromSlice(t, c, v, o, b)
				defer x.Free()
				v32 := make([]complex64, len(v))
				for i, z := range v {
					v32[i] = complex64(z)
				}
				x32 := fromSlice(t, c, v32, o, b)
				defer x32.Free()
				eq := func(got, want complex128, rel float64) bool {
					return near(real(got), real(want), rel) && near(imag(got), imag(want), rel)
				}
				closeTo := near
				s, err := dist.NansumComplex(x)
				mpitest.Check(t, c, err == nil && eq(s, ws, 1e-15), "%s: NansumComplex = %v (%v), want %v", what, s, err, ws)
				if !strings.Contains(name, "inf") { // infinite products depend on their grouping
					p, err := dist.NanprodComplex(x)
					mpitest.Check(t, c, err == nil && eq(p, wp, 1e-14), "%s: NanprodComplex = %v (%v), want %v", what, p, err, wp)
					p32, err := dist.NanprodComplex(x32)
					mpitest.Check(t, c, err == nil && eq(complex128(p32), wp, 1e-5), "%s: complex64 NanprodComplex = %v (%v), want %v", what, p32, err, wp)
				}
				m, err := dist.NanmeanComplex(x)
				mpitest.Check(t, c, err == nil && eq(m, wm, 1e-15), "%s: NanmeanComplex = %v (%v), want %v", what, m, err, wm)
				r, err := dist.NanvarComplex(x, ddof)
				mpitest.Check(t, c, err == nil && closeTo(r, wv, 1e-13), "%s: NanvarComplex = %v (%v), want %v", what, r, err, wv)
				r, err = dist.NanstdComplex(x, ddof)
				mpitest.Check(t, c, err == nil && closeTo(r, math.Sqrt(wv), 1e-13), "%s: NanstdComplex = %v (%v), want %v", what, r, err, math.Sqrt(wv))
				s32, err := dist.NansumComplex(x32)
				mpitest.Check(t, c, err == nil && eq(complex128(s32), ws, 1e-6), "%s: complex64 NansumComplex = %v (%v), want %v", what, s32, err, ws)
				m32, err := dist.NanmeanComplex(x32)
				mpitest.Check(t, c, err == nil && eq(complex128(m32), wm, 1e-6), "%s: complex64 NanmeanComplex = %v (%v), want %v", what, m32, err, wm)
				r, err = dist.NanvarComplex(x32, ddof)
				mpitest.Check(t, c, err == nil && closeTo(r, wv, 1e-13), "%s: complex64 NanvarComplex = %v (%v), want %v", what, r, err, wv)
			})
		}
	}
	// Empty arrays: 0, 1, and ErrEmpty for the mean and the variance.
	eachLayout(t, c, 0, func(what string, o []dist.Option, b backend.Backend) {
		x := fromSlice(t, c, []complex128{}, o, b)
		defer x.Free()
		s, err := dist.NansumComplex(x)
		mpitest.Check(t, c, err == nil && s == 0, "%s: empty NansumComplex = %v (%v)", what, s, err)
		p, err := dist.NanprodComplex(x)
		mpitest.Check(t, c, err == nil && p == 1, "%s: empty NanprodComplex = %v (%v)", what, p, err)
		m, err := dist.NanmeanComplex(x)
		mpitest.Check(t, c, errors.Is(err, dist.ErrEmpty) && cmplx.IsNaN(m), "%s: empty NanmeanComplex = %v (%v), want NaN and ErrEmpty", what, m, err)
		v, err := dist.NanvarComplex(x, 0)
		mpitest.Check(t, c, errors.Is(err, dist.ErrEmpty) && math.IsNaN(v), "%s: empty NanvarComplex = %v (%v), want NaN and ErrEmpty", what, v, err)
		v, err = dist.NanstdComplex(x, 0)
		mpitest.Check(t, c, errors.Is(err, dist.ErrEmpty) && math.IsNaN(v), "%s: empty NanstdComplex = %v (%v), want NaN and ErrEmpty", what, v, err)
	})
	// Freed arrays.
	x, err := dist.Zeros[complex128](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	x.Free()
	for what, err := range map[string]error{
		"NansumComplex": second(dist.NansumComplex(x)), "NanprodComplex": second(dist.NanprodComplex(x)),
		"NanmeanComplex": second(dist.NanmeanComplex(x)), "NanvarComplex": second(dist.NanvarComplex(x, 0)),
		"NanstdComplex": second(dist.NanstdComplex(x, 0)),
	} {
		if !errors.Is(err, dist.ErrFreed) {
			t.Errorf("%s of a freed array: %v, want ErrFreed", what, err)
		}
	}
}
