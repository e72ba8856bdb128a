package dist_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// shapes covers 1-D, 2-D and 3-D, with zero dimensions, dimensions smaller
// than the rank count, and sizes that do not divide by 2, 3 or 4.
var shapes = [][]int{
	{0}, {1}, {2}, {3}, {5}, {7}, {17},
	{0, 3}, {3, 0}, {1, 4}, {5, 3}, {7, 2}, {2, 9},
	{3, 4, 5}, {1, 2, 3}, {4, 0, 2}, {2, 5, 3},
}

// axes returns every split axis of shape, and Replicated.
func axes(shape []int) []int {
	a := []int{dist.Replicated}
	for i := range shape {
		a = append(a, i)
	}
	return a
}

func prod(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// ref is the reference value of the element at flat index i.
func ref(i int) float64 { return float64(i%97) - 40.5 + float64(i)/1024 }

func flat(idx, shape []int) int {
	off := 0
	for a := range shape {
		off = off*shape[a] + idx[a]
	}
	return off
}

func refArray(t *testing.T, c mpi.Comm, shape []int, axis int) *dist.Array[float64] {
	t.Helper()
	a, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, dist.SplitAxis(axis))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func forEachLayout(t *testing.T, f func(t *testing.T, shape []int, axis int)) {
	for _, shape := range shapes {
		for _, axis := range axes(shape) {
			t.Run(fmt.Sprintf("%v/axis%d", shape, axis), func(t *testing.T) { f(t, shape, axis) })
		}
	}
}

func TestLayout(t *testing.T) {
	for p := 1; p <= 5; p++ {
		for _, shape := range shapes {
			for axis := range shape {
				l := dist.NewLayout(shape, axis, p)
				n := shape[axis]
				next := 0
				for r := 0; r < p; r++ {
					lo, hi := l.Range(r)
					want := n / p
					if r < n%p {
						want++
					}
					if lo != next || hi-lo != want {
						t.Fatalf("%v: rank %d range [%d,%d), want start %d size %d", l, r, lo, hi, next, want)
					}
					for i := lo; i < hi; i++ {
						if o := l.Owner(i); o != r {
							t.Fatalf("%v: Owner(%d) = %d, want %d", l, i, o, r)
						}
					}
					next = hi
				}
				if next != n {
					t.Fatalf("%v: blocks cover %d of %d", l, next, n)
				}
			}
		}
	}
	l := dist.NewLayoutCounts([]int{6, 2}, 0, []int{0, 4, 0, 2})
	if r := l.Owner(0); r != 1 {
		t.Fatalf("Owner(0) with an empty first block = %d", r)
	}
	if r := l.Owner(5); r != 3 {
		t.Fatalf("Owner(5) = %d", r)
	}
	if r := l.OwnerOf([]int{4, 1}); r != 3 {
		t.Fatalf("OwnerOf = %d", r)
	}
}

func TestGatherScatter(t *testing.T) {
	c := mpitest.World(t)
	forEachLayout(t, func(t *testing.T, shape []int, axis int) {
		want := make([]float64, prod(shape))
		for i := range want {
			want[i] = ref(i)
		}
		a := refArray(t, c, shape, axis)
		all, err := dist.Allgather(a)
		if err != nil {
			t.Fatal(err)
		}
		mpitest.Check(t, c, slices.Equal(all, want), "Allgather = %v, want %v", all, want)
		for root := 0; root < c.Size(); root++ {
			g, err := dist.Gather(a, root)
			if err != nil {
				t.Fatal(err)
			}
			if c.Rank() == root && !slices.Equal(g, want) {
				t.Fatalf("Gather at %d = %v", root, g)
			}
			var data []float64
			if c.Rank() == root {
				data = want
			}
			s, err := dist.Scatter(c, root, data, shape, dist.SplitAxis(axis))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := dist.Allgather(s)
			mpitest.Check(t, c, slices.Equal(got, want), "Scatter from %d then Allgather = %v", root, got)
		}
		if len(want) > 0 {
			idx := make([]int, len(shape))
			for i := range idx {
				idx[i] = shape[i] - 1
			}
			v, err := dist.Get(a, idx...)
			if err != nil || v != want[len(want)-1] {
				t.Fatalf("Get(%v) = %v, %v", idx, v, err)
			}
		}
	})
}

func TestCreation(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{0, 1, 3, 10} {
		a, err := dist.Arange(c, 2, 2+float64(n)*0.5, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := dist.Allgather(a)
		for i, v := range got {
			if v != 2+float64(i)*0.5 {
				t.Fatalf("Arange n=%d: %v", n, got)
			}
		}
		if len(got) != n {
			t.Fatalf("Arange: %d elements, want %d", len(got), n)
		}
		l, _ := dist.Linspace(c, -1.0, 1.0, n)
		got, _ = dist.Allgather(l)
		if n > 1 && (got[0] != -1 || got[n-1] != 1 || math.Abs(got[1]-got[0]-2/float64(n-1)) > 1e-15) {
			t.Fatalf("Linspace n=%d: %v", n, got)
		}
		f, _ := dist.Full(c, []int{n, 2}, int32(7), dist.SplitAxis(1))
		gi, _ := dist.Allgather(f)
		for _, v := range gi {
			if v != 7 {
				t.Fatalf("Full: %v", gi)
			}
		}
	}
	down, _ := dist.Arange(c, int64(5), 0, -2)
	if got, _ := dist.Allgather(down); !slices.Equal(got, []int64{5, 3, 1}) {
		t.Fatalf("Arange(5, 0, -2) = %v", got)
	}
}

func TestElementwise(t *testing.T) {
	c := mpitest.World(t)
	forEachLayout(t, func(t *testing.T, shape []int, axis int) {
		x := refArray(t, c, shape, axis)
		y, _ := dist.FromFunc(c, shape, func(idx []int) float64 { return 1 + float64(flat(idx, shape)%5) }, dist.SplitAxis(axis))
		z, _ := dist.ZerosLike(x)
		dist.Add(z, x, y)
		dist.Mul(z, z, y)
		dist.Sub(z, z, x)
		dist.Div(z, z, y)
		dist.AddScalar(z, z, 3)
		dist.Scale(2, z)
		dist.Axpy(-1, y, z)
		if err := dist.Map(z, func(v float64) float64 { return v * v }); err != nil {
			t.Fatal(err)
		}
		if err := dist.MapIndex(z, func(idx []int, v float64) float64 { return v + float64(idx[len(idx)-1]) }); err != nil {
			t.Fatal(err)
		}
		got, _ := dist.Allgather(z)
		for i := range got {
			idx := dist.Unravel(i, shape)
			xv, yv := ref(i), 1+float64(i%5)
			w := ((xv+yv)*yv - xv) / yv
			w = 2*(w+3) - yv
			w = w*w + float64(idx[len(idx)-1])
			if got[i] != w {
				t.Fatalf("element %d: %v, want %v", i, got[i], w)
			}
		}
	})
}

func TestLayoutMismatchPanics(t *testing.T) {
	c := mpitest.World(t)
	a, _ := dist.Zeros[float64](c, []int{4, 6})
	b, _ := dist.Zeros[float64](c, []int{4, 6}, dist.SplitAxis(1))
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.HasPrefix(msg, "dist: add: layouts differ") || !strings.Contains(msg, "axis 0") || !strings.Contains(msg, "axis 1") {
			t.Fatalf("panic %q", msg)
		}
	}()
	dist.Add(a, a, b)
}

func TestReductions(t *testing.T) {
	c := mpitest.World(t)
	forEachLayout(t, func(t *testing.T, shape []int, axis int) {
		n := prod(shape)
		x := refArray(t, c, shape, axis)
		var sum, dot, sq float64
		mn, mx, amin, amax := math.Inf(1), math.Inf(-1), -1, -1
		for i := 0; i < n; i++ {
			v := ref(i)
			sum += v
			dot += v * (v + 1)
			sq += v * v
			if v < mn {
				mn, amin = v, i
			}
			if v > mx {
				mx, amax = v, i
			}
		}
		y, _ := x.Copy()
		dist.AddScalar(y, y, 1)
		s, err := dist.Sum(x)
		if err != nil || math.Abs(s-sum) > 1e-12*(1+math.Abs(sum)) {
			t.Fatalf("Sum = %v, want %v (%v)", s, sum, err)
		}
		d, _ := dist.Dot(x, y)
		if math.Abs(d-dot) > 1e-12*(1+math.Abs(dot)) {
			t.Fatalf("Dot = %v, want %v", d, dot)
		}
		nrm, _ := dist.Norm(x)
		if math.Abs(nrm-math.Sqrt(sq)) > 1e-12*(1+nrm) {
			t.Fatalf("Norm = %v, want %v", nrm, math.Sqrt(sq))
		}
		i, _ := dist.Argmin(x)
		j, _ := dist.Argmax(x)
		if i != amin || j != amax {
			t.Fatalf("Argmin, Argmax = %d, %d, want %d, %d", i, j, amin, amax)
		}
		if n > 0 {
			m1, _ := dist.Min(x)
			m2, _ := dist.Max(x)
			if m1 != mn || m2 != mx {
				t.Fatalf("Min, Max = %v, %v", m1, m2)
			}
		}
		for ax := range shape {
			testAxisReductions(t, x, shape, ax)
		}
	})
}

func testAxisReductions(t *testing.T, x *dist.Array[float64], shape []int, ax int) {
	t.Helper()
	oshape := slices.Delete(slices.Clone(shape), ax, ax+1)
	if len(oshape) == 0 {
		oshape = []int{1}
	}
	m := prod(oshape)
	sums, _ := dist.SumAxis(x, ax)
	if !slices.Equal(sums.Shape(), oshape) {
		t.Fatalf("SumAxis(%d) shape %v, want %v", ax, sums.Shape(), oshape)
	}
	got, _ := dist.Allgather(sums)
	want := make([]float64, m)
	mins, argmins := make([]float64, m), make([]int64, m)
	for i := range mins {
		mins[i], argmins[i] = math.Inf(1), -1
	}
	for i := 0; i < prod(shape); i++ {
		idx := dist.Unravel(i, shape)
		k := idx[ax]
		o := 0
		if len(shape) > 1 {
			o = flat(slices.Delete(slices.Clone(idx), ax, ax+1), oshape)
		}
		want[o] += ref(i)
		if ref(i) < mins[o] {
			mins[o], argmins[o] = ref(i), int64(k)
		}
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("SumAxis(%d)[%d] = %v, want %v", ax, i, got[i], want[i])
		}
	}
	if shape[ax] == 0 {
		return
	}
	mn, _ := dist.MinAxis(x, ax)
	gm, _ := dist.Allgather(mn)
	am, _ := dist.ArgminAxis(x, ax)
	ga, _ := dist.Allgather(am)
	if !slices.Equal(gm, mins) || !slices.Equal(ga, argmins) {
		t.Fatalf("MinAxis(%d) = %v %v, want %v %v", ax, gm, ga, mins, argmins)
	}
}

func TestArgTiesAndNaN(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{1, 2, 5, 11} {
		for _, axis := range []int{0, dist.Replicated} {
			// Ties: the minimum 0 at n/2 and at the end; first occurrence wins.
			x, _ := dist.FromFunc(c, []int{n}, func(idx []int) float64 {
				if idx[0] == n/2 || idx[0] == n-1 {
					return 0
				}
				return 1
			}, dist.SplitAxis(axis))
			if i, _ := dist.Argmin(x); i != n/2 && n > 1 {
				t.Fatalf("n=%d: Argmin with ties = %d, want %d", n, i, n/2)
			}
			// NaN at the last index wins both.
			dist.MapIndex(x, func(idx []int, v float64) float64 {
				if idx[0] == n-1 {
					return math.NaN()
				}
				return v
			})
			i, _ := dist.Argmin(x)
			j, _ := dist.Argmax(x)
			if i != n-1 || j != n-1 {
				t.Fatalf("n=%d: with a NaN, Argmin, Argmax = %d, %d", n, i, j)
			}
			if v, _ := dist.Max(x); !math.IsNaN(v) {
				t.Fatalf("Max with a NaN = %v", v)
			}
		}
	}
	e, _ := dist.Zeros[int32](c, []int{0, 3})
	for name, f := range map[string]func() (int, error){
		"Argmax": func() (int, error) { return dist.Argmax(e) },
		"Argmin": func() (int, error) { return dist.Argmin(e) },
		"Max":    func() (int, error) { v, err := dist.Max(e); return int(v), err },
		"Min":    func() (int, error) { v, err := dist.Min(e); return int(v), err },
	} {
		i, err := f()
		if !errors.Is(err, dist.ErrEmpty) || (name[0] == 'A' && i != -1) {
			t.Fatalf("%s of an empty array = %d, %v; want an ErrEmpty error (and -1 for the index)", name, i, err)
		}
	}
}

func TestIntegerReductions(t *testing.T) {
	c := mpitest.World(t)
	x, _ := dist.Arange(c, int64(1), 101, 1)
	if s, _ := dist.Sum(x); s != 5050 {
		t.Fatalf("Sum 1..100 = %d", s)
	}
	u, _ := dist.Full(c, []int{7, 3}, uint32(3), dist.SplitAxis(1))
	if d, _ := dist.Dot(u, u); d != 189 {
		t.Fatalf("Dot = %d", d)
	}
}

func TestHalo(t *testing.T) {
	c := mpitest.World(t)
	cases := [][]int{{0}, {1}, {2}, {3}, {7}, {13}, {5, 3}, {2, 4}, {3, 4, 2}, {4, 0, 3}}
	for _, shape := range cases {
		for axis := range shape {
			for _, w := range []int{0, 1, 2, 3} {
				t.Run(fmt.Sprintf("%v/axis%d/w%d", shape, axis, w), func(t *testing.T) {
					testHalo(t, c, shape, axis, w)
				})
			}
		}
	}
	// Uneven blocks with empty ranks inside.
	if c.Size() >= 3 {
		counts := make([]int, c.Size())
		counts[0], counts[2] = 4, 1
		counts[c.Size()-1] += 3
		l := dist.NewLayoutCounts([]int{8}, 0, counts)
		x, _ := dist.New[float64](c, l)
		checkHalo(t, c, x, []int{8}, 0, 2)
	}
}

func testHalo(t *testing.T, c mpi.Comm, shape []int, axis, w int) {
	x := refArray(t, c, shape, axis)
	checkHalo(t, c, x, shape, axis, w)
}

func checkHalo(t *testing.T, c mpi.Comm, x *dist.Array[float64], shape []int, axis, w int) {
	t.Helper()
	dist.MapIndex(x, func(idx []int, _ float64) float64 { return ref(flat(idx, shape)) })
	h, err := dist.HaloOf(x, w)
	if err != nil {
		t.Fatal(err)
	}
	local := h.Local().Data()
	lshape := h.LocalShape()
	lo, hi := x.Range()
	// Mark every ghost, then exchange.
	for i := range local {
		idx := dist.Unravel(i, lshape)
		if k := idx[axis] - w; k < 0 || k >= hi-lo {
			local[i] = -1e300
		}
	}
	if err := h.Exchange(); err != nil {
		t.Fatal(err)
	}
	ok, msg := true, ""
	for i, v := range local {
		idx := dist.Unravel(i, lshape)
		g := lo + idx[axis] - w
		want := -1e300
		inGhostOrBlock := hi > lo
		if g >= 0 && g < shape[axis] && (inGhostOrBlock || (g >= lo && g < hi)) {
			gidx := slices.Clone(idx)
			gidx[axis] = g
			want = ref(flat(gidx, shape))
		}
		if v != want {
			ok, msg = false, fmt.Sprintf("storage %v (global %d along axis %d) = %v, want %v", idx, g, axis, v, want)
			break
		}
	}
	mpitest.Check(t, c, ok, "%s", msg)
	// The block round-trips through CopyTo.
	y, _ := dist.ZerosLike(x)
	h.CopyTo(y)
	if !slices.Equal(y.LocalData(), x.LocalData()) {
		t.Fatalf("CopyTo: %v, want %v", y.LocalData(), x.LocalData())
	}
}

// redistributeTargets returns the layouts that the redistribution tests
// move a shape to: every split axis and replicated, and uneven custom
// blocks (everything on the last rank) along each axis.
func redistributeTargets(shape []int, p int) []dist.Layout {
	var targets []dist.Layout
	for _, a := range axes(shape) {
		targets = append(targets, dist.NewLayout(shape, a, p))
	}
	for a := range shape {
		counts := make([]int, p)
		counts[p-1] = shape[a]
		targets = append(targets, dist.NewLayoutCounts(shape, a, counts))
	}
	return targets
}

func TestRedistribute(t *testing.T) {
	c := mpitest.World(t)
	forEachLayout(t, func(t *testing.T, shape []int, axis int) {
		x := refArray(t, c, shape, axis)
		want, _ := dist.Allgather(x)
		for _, l := range redistributeTargets(shape, c.Size()) {
			y, err := dist.Redistribute(x, l)
			if err != nil {
				t.Fatal(err)
			}
			if !y.Layout().Equal(l) {
				t.Fatalf("layout %v, want %v", y.Layout(), l)
			}
			got, _ := dist.Allgather(y)
			mpitest.Check(t, c, slices.Equal(got, want), "to %v: %v, want %v", l, got, want)
		}
	})
}
