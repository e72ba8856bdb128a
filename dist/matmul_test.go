package dist_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// matmulSizes are (m, k, n): empty matrices, fewer rows, inner indices or
// columns than ranks, and sizes that 2, 3 and 4 do not divide.
var matmulSizes = [][3]int{
	{0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {2, 5, 3}, {3, 2, 1},
	{7, 5, 3}, {5, 7, 9}, {13, 11, 6},
}

// mmLayout is a layout of an operand: a split axis (or Replicated), and
// whether the blocks are skewed (all on the last rank, the others empty).
type mmLayout struct {
	axis   int
	skewed bool
}

func (l mmLayout) String() string {
	s := "replicated"
	if l.axis != dist.Replicated {
		s = fmt.Sprintf("axis%d", l.axis)
	}
	if l.skewed {
		s += "-skewed"
	}
	return s
}

func (l mmLayout) options(shape []int, p int, b backend.Backend) []dist.Option {
	o := []dist.Option{dist.SplitAxis(l.axis)}
	if l.skewed {
		counts := make([]int, p)
		counts[p-1] = shape[l.axis]
		o = append(o, dist.BlockSizes(counts))
	}
	if b != nil {
		o = append(o, dist.OnBackend(b))
	}
	return o
}

// mmLayouts are the (a, b) layouts MatMul takes.
var mmLayouts = [][2]mmLayout{
	{{0, false}, {dist.Replicated, false}},
	{{0, false}, {0, false}},
	{{0, false}, {1, false}},
	{{0, true}, {0, false}},
	{{0, false}, {1, true}},
	{{0, false}, {0, true}},
	{{dist.Replicated, false}, {dist.Replicated, false}},
	{{dist.Replicated, false}, {1, false}},
}

var mmMethods = []dist.MatMulMethod{dist.MatMulAuto, dist.MatMulRing, dist.MatMulAllgather}

// mmValue is element ij of a test matrix: small integers for integer types,
// whose products are exact, and fractions in [-1, 1) for floats.
func mmValue[T backend.Element](seed, i, j int) T {
	h := (i*131 + j*71 + seed*29) % 23
	if backend.DTypeOf[T]().IsFloat() {
		return T(math.Sin(float64(i*37+j*11+seed*7+1)) * 0.999)
	}
	if dt := backend.DTypeOf[T](); dt == backend.Uint32 || dt == backend.Uint64 {
		return T(h % 7)
	}
	return T(h%7 - 3)
}

func mmMatrix[T backend.Element](t *testing.T, c mpi.Comm, seed int, shape []int, l mmLayout, b backend.Backend) *dist.Array[T] {
	t.Helper()
	x, err := dist.FromFunc(c, shape, func(idx []int) T { return mmValue[T](seed, idx[0], idx[1]) }, l.options(shape, c.Size(), b)...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// serialProduct returns a*b (m x k by k x n, row-major) computed serially:
// gonum's Dgemm or Sgemm for floats, an int64 loop for integers. bound[ij]
// is the tolerance of element ij: 2k·ε·(|a||b|)ij for floats (the error
// bounds of the two products added), 0 for integers.
func serialProduct[T backend.Element](a, b []T, m, k, n int) (c []T, bound []float64) {
	c, bound = make([]T, m*n), make([]float64, m*n)
	var eps float64
	switch x := any(a).(type) {
	case []float64:
		if m > 0 && n > 0 && k > 0 {
			gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, x, k, any(b).([]float64), n, 0, any(c).([]float64), n)
		}
		eps = 0x1p-53
	case []float32:
		if m > 0 && n > 0 && k > 0 {
			gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, x, k, any(b).([]float32), n, 0, any(c).([]float32), n)
		}
		eps = 0x1p-24
	default:
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s T
				for l := 0; l < k; l++ {
					s += a[i*k+l] * b[l*n+j]
				}
				c[i*n+j] = s
			}
		}
		return c, bound
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for l := 0; l < k; l++ {
				s += math.Abs(float64(a[i*k+l])) * math.Abs(float64(b[l*n+j]))
			}
			bound[i*n+j] = 2 * float64(k) * eps * s
		}
	}
	return c, bound
}

// within reports the first element of got that is not within bound of
// want, or -1.
func within[T backend.Element](got, want []T, bound []float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if math.Abs(float64(got[i])-float64(want[i])) > bound[i] {
			return i
		}
	}
	return -1
}

// TestMatMul checks MatMul at every size, pair of layouts and method,
// for every element type, against a serial product.
func TestMatMul(t *testing.T) {
	c := mpitest.World(t)
	testMatMul[float64](t, c, mmMethods)
	testMatMul[int64](t, c, mmMethods)
	// The other types share the code above: one method each.
	testMatMul[float32](t, c, mmMethods[:1])
	testMatMul[int32](t, c, mmMethods[:1])
	testMatMul[uint32](t, c, mmMethods[:1])
	testMatMul[uint64](t, c, mmMethods[:1])
}

func testMatMul[T backend.Element](t *testing.T, c mpi.Comm, methods []dist.MatMulMethod) {
	t.Helper()
	p := c.Size()
	for _, sz := range matmulSizes {
		m, k, n := sz[0], sz[1], sz[2]
		for _, ls := range mmLayouts {
			for _, method := range methods {
				name := fmt.Sprintf("%v/%dx%dx%d/a=%v/b=%v/%v", backend.DTypeOf[T](), m, k, n, ls[0], ls[1], method)
				x := mmMatrix[T](t, c, 1, []int{m, k}, ls[0], nil)
				y := mmMatrix[T](t, c, 2, []int{k, n}, ls[1], nil)
				z, err := dist.MatMulWithOptions(x, y, dist.MatMulOptions{Method: method})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				wl := wantMatMulLayout(x.Layout(), y.Layout(), m, n, p)
				if !z.Layout().Equal(wl) {
					t.Fatalf("%s: result %v, want %v", name, z.Layout(), wl)
				}
				xs, err1 := dist.Allgather(x)
				ys, err2 := dist.Allgather(y)
				zs, err3 := dist.Allgather(z)
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatal(name, err1, err2, err3)
				}
				want, bound := serialProduct(xs, ys, m, k, n)
				i := within(zs, want, bound)
				mpitest.Check(t, c, i < 0, "%s: element %d: got %v, want %v", name, i, at(zs, i), at(want, i))
				x.Free()
				y.Free()
				z.Free()
			}
		}
	}
}

func wantMatMulLayout(a, b dist.Layout, m, n, p int) dist.Layout {
	switch {
	case a.Axis() == 0:
		return dist.NewLayoutCounts([]int{m, n}, 0, a.Counts())
	case b.Axis() == 1:
		return dist.NewLayoutCounts([]int{m, n}, 1, b.Counts())
	}
	return dist.NewLayout([]int{m, n}, dist.Replicated, p)
}

// TestMatVec checks MatVec for a split and a replicated a and x against a
// serial product.
func TestMatVec(t *testing.T) {
	c := mpitest.World(t)
	testMatVec[float64](t, c)
	testMatVec[float32](t, c)
	testMatVec[int64](t, c)
}

func testMatVec[T backend.Element](t *testing.T, c mpi.Comm) {
	t.Helper()
	p := c.Size()
	for _, sz := range matmulSizes {
		m, k := sz[0], sz[1]
		for _, la := range []mmLayout{{0, false}, {0, true}, {dist.Replicated, false}} {
			for _, lx := range []mmLayout{{0, false}, {0, true}, {dist.Replicated, false}} {
				name := fmt.Sprintf("%v/%dx%d/a=%v/x=%v", backend.DTypeOf[T](), m, k, la, lx)
				a := mmMatrix[T](t, c, 3, []int{m, k}, la, nil)
				x, err := dist.FromFunc(c, []int{k}, func(idx []int) T { return mmValue[T](4, idx[0], 0) }, lx.options([]int{k}, p, nil)...)
				if err != nil {
					t.Fatal(err)
				}
				y, err := dist.MatVec(a, x)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				wl := dist.NewLayout([]int{m}, dist.Replicated, p)
				if la.axis == 0 {
					wl = dist.NewLayoutCounts([]int{m}, 0, a.Layout().Counts())
				}
				if !y.Layout().Equal(wl) {
					t.Fatalf("%s: result %v, want %v", name, y.Layout(), wl)
				}
				as, err1 := dist.Allgather(a)
				xs, err2 := dist.Allgather(x)
				ys, err3 := dist.Allgather(y)
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatal(name, err1, err2, err3)
				}
				want, bound := serialProduct(as, xs, m, k, 1)
				i := within(ys, want, bound)
				mpitest.Check(t, c, i < 0, "%s: element %d: got %v, want %v", name, i, at(ys, i), at(want, i))
				a.Free()
				x.Free()
				y.Free()
			}
		}
	}
}

// TestMatMulKnown checks one product against values computed by hand:
// [[1 2 3] [4 5 6]] times [[1 0] [0 1] [1 1]].
func TestMatMulKnown(t *testing.T) {
	c := mpitest.World(t)
	for _, ls := range mmLayouts {
		for _, method := range mmMethods {
			a, err := dist.FromFunc(c, []int{2, 3}, func(idx []int) float64 { return float64(3*idx[0] + idx[1] + 1) }, ls[0].options([]int{2, 3}, c.Size(), nil)...)
			if err != nil {
				t.Fatal(err)
			}
			bv := []float64{1, 0, 0, 1, 1, 1}
			b, err := dist.FromFunc(c, []int{3, 2}, func(idx []int) float64 { return bv[2*idx[0]+idx[1]] }, ls[1].options([]int{3, 2}, c.Size(), nil)...)
			if err != nil {
				t.Fatal(err)
			}
			z, err := dist.MatMulWithOptions(a, b, dist.MatMulOptions{Method: method})
			if err != nil {
				t.Fatal(err)
			}
			got, err := dist.Allgather(z)
			ok := err == nil && fmt.Sprint(got) == "[4 5 10 11]"
			mpitest.Check(t, c, ok, "a=%v b=%v %v: got %v (%v), want [4 5 10 11]", ls[0], ls[1], method, got, err)
			a.Free()
			b.Free()
			z.Free()
		}
	}
}

// TestMatMulPanics checks that operands MatMul and MatVec cannot take
// panic with dist's prefix, on every rank alike.
func TestMatMulPanics(t *testing.T) {
	c := mpitest.World(t)
	mk := func(shape []int, axis int) *dist.Array[float64] {
		x, err := dist.Zeros[float64](c, shape, dist.SplitAxis(axis))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"inner", func() { dist.MatMul(mk([]int{2, 3}, 0), mk([]int{2, 3}, dist.Replicated)) }},
		{"1-D", func() { dist.MatMul(mk([]int{3}, 0), mk([]int{3, 3}, dist.Replicated)) }},
		{"a on axis 1", func() { dist.MatMul(mk([]int{2, 3}, 1), mk([]int{3, 3}, dist.Replicated)) }},
		{"replicated a, b on axis 0", func() { dist.MatMul(mk([]int{2, 3}, dist.Replicated), mk([]int{3, 3}, 0)) }},
		{"method", func() {
			dist.MatMulWithOptions(mk([]int{2, 3}, 0), mk([]int{3, 3}, 0), dist.MatMulOptions{Method: 7})
		}},
		{"vector length", func() { dist.MatVec(mk([]int{2, 3}, 0), mk([]int{2}, 0)) }},
		{"vector 2-D", func() { dist.MatVec(mk([]int{2, 3}, 0), mk([]int{3, 1}, 0)) }},
		{"MatVec a on axis 1", func() { dist.MatVec(mk([]int{2, 3}, 1), mk([]int{3}, 0)) }},
	} {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			tc.f()
			return ""
		}()
		if len(msg) < 6 || msg[:6] != "dist: " {
			t.Errorf("%s: panic %q, want one starting with \"dist: \"", tc.name, msg)
		}
	}
}

// TestMatMulDevice checks MatMul and MatVec of fake-device arrays: the
// serial product's values, results on the device, and, between host and
// device, nothing when MPI is CUDA-aware (the blocks are multiplied on the
// device and MPI is handed device memory); exactly the staging copies of
// the ring's messages or of the allgather when it is not; and, on a
// backend that cannot multiply (the fake device without its GEMM), one
// copy of each operand's block to the host and one of the result's block
// back.
func TestMatMulDevice(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	slowDevice(t)
	for _, mode := range []string{"staged", "aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			for _, sz := range [][3]int{{0, 3, 2}, {3, 0, 2}, {2, 5, 3}, {7, 5, 3}, {5, 7, 9}} {
				m, k, n := sz[0], sz[1], sz[2]
				for _, ls := range mmLayouts {
					for _, method := range []dist.MatMulMethod{dist.MatMulRing, dist.MatMulAllgather} {
						name := fmt.Sprintf("%dx%dx%d/a=%v/b=%v/%v", m, k, n, ls[0], ls[1], method)
						x := mmMatrix[float64](t, c, 1, []int{m, k}, ls[0], b)
						y := mmMatrix[float64](t, c, 2, []int{k, n}, ls[1], b)
						xl, yl := x.Layout(), y.Layout()
						var w transfers
						switch {
						case mode == "plain":
							w = toHost(int64(8 * xl.LocalLen(me))).plus(toHost(int64(8 * yl.LocalLen(me))))
							w = w.plus(toDevice(int64(8 * wantMatMulLayout(xl, yl, m, n, p).LocalLen(me))))
						case mode == "staged" && xl.Axis() == 0 && yl.Axis() != dist.Replicated && p > 1:
							if method == dist.MatMulAllgather {
								w = toHost(int64(8 * yl.LocalLen(me))).plus(toDevice(int64(8 * k * n)))
								break
							}
							for s := 0; s < p-1; s++ {
								w = w.plus(toHost(int64(8 * yl.LocalLen((me+s)%p))))
								w = w.plus(toDevice(int64(8 * yl.LocalLen((me+s+1)%p))))
							}
						}
						var z *dist.Array[float64]
						expectCopies(t, name, w, func() (err error) {
							z, err = dist.MatMulWithOptions(x, y, dist.MatMulOptions{Method: method})
							return err
						})
						if z.Device() != b.Device() {
							t.Fatalf("%s: result on %v", name, z.Device())
						}
						xs, err1 := dist.Allgather(x)
						ys, err2 := dist.Allgather(y)
						zs, err3 := dist.Allgather(z)
						if err1 != nil || err2 != nil || err3 != nil {
							t.Fatal(name, err1, err2, err3)
						}
						want, bound := serialProduct(xs, ys, m, k, n)
						i := within(zs, want, bound)
						mpitest.Check(t, c, i < 0, "%s: element %d: got %v, want %v", name, i, at(zs, i), at(want, i))
						x.Free()
						y.Free()
						z.Free()
					}
				}
				// MatVec of a split a by a split vector.
				name := fmt.Sprintf("MatVec %dx%d", m, k)
				a := mmMatrix[float64](t, c, 3, []int{m, k}, mmLayout{0, false}, b)
				v, err := dist.FromFunc(c, []int{k}, func(idx []int) float64 { return float64(idx[0] + 1) }, dist.OnBackend(b))
				if err != nil {
					t.Fatal(err)
				}
				var w transfers
				switch {
				case mode == "plain":
					w = toHost(int64(8 * a.Layout().LocalLen(me))).plus(toHost(int64(8 * v.Layout().LocalLen(me))))
					w = w.plus(toDevice(int64(8 * a.Layout().LocalShape(me)[0])))
				case mode == "staged" && p > 1:
					w = toHost(int64(8 * v.Layout().LocalLen(me))).plus(toDevice(int64(8 * k)))
				}
				var y *dist.Array[float64]
				expectCopies(t, name, w, func() (err error) {
					y, err = dist.MatVec(a, v)
					return err
				})
				if y.Device() != b.Device() {
					t.Fatalf("%s: result on %v", name, y.Device())
				}
				as, err1 := dist.Allgather(a)
				vs, err2 := dist.Allgather(v)
				ys, err3 := dist.Allgather(y)
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatal(name, err1, err2, err3)
				}
				want, bound := serialProduct(as, vs, m, k, 1)
				i := within(ys, want, bound)
				mpitest.Check(t, c, i < 0, "%s: element %d: got %v, want %v", name, i, at(ys, i), at(want, i))
				a.Free()
				v.Free()
				y.Free()
			}
		})
	}
}
