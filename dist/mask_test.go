package dist_test

// Tests of masks (comparisons, Where, Compact) and Astype against NumPy's
// results in testdata/types.json (written by testdata/gen_types.py), at
// every rank count, on the CPU and on the fake device, with the copies
// between host and device that each makes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

type typesFixture struct {
	Compare []struct {
		DType  string
		X, Y   []string
		Array  map[string][]uint8
		Scalar []struct {
			S   string
			Ops map[string][]uint8
		}
	}
	Compact []struct {
		Shape    []int
		MaskName string `json:"mask_name"`
		X        []string
		Mask     []uint8
		Want     []string
	}
	Astype []struct {
		From string
		X    []string
		To   map[string][]string
	}
	Convert []struct {
		File  string
		Shape []int
		To    map[string][]string
	}
}

var typesOnce = sync.OnceValues(func() (*typesFixture, error) {
	b, err := os.ReadFile(npyTestdata("types.json"))
	if err != nil {
		return nil, err
	}
	f := new(typesFixture)
	return f, json.Unmarshal(b, f)
})

func typesData(t *testing.T) *typesFixture {
	t.Helper()
	f, err := typesOnce()
	if err != nil {
		t.Fatalf("testdata/types.json: %v", err)
	}
	return f
}

// tyParse returns the number s (as the fixture writes it) as a T.
func tyParse[T backend.Element](t *testing.T, s string) T {
	t.Helper()
	switch dt := backend.DTypeOf[T](); {
	case dt.IsFloat():
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return T(f)
	case dt.IsSigned():
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return T(v)
	default:
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return T(v)
	}
}

func tyParseAll[T backend.Element](t *testing.T, s []string) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = tyParse[T](t, v)
	}
	return out
}

// tySame reports whether two elements are equal, NaNs equal to NaNs
// and -0 distinct from +0.
func tySame[T backend.Element](a, b T) bool {
	if backend.DTypeOf[T]().IsFloat() {
		fa, fb := float64(a), float64(b)
		if fa != fa || fb != fb {
			return fa != fa && fb != fb
		}
		return fa == fb && math.Signbit(fa) == math.Signbit(fb)
	}
	return a == b
}

func tySameAll[T backend.Element](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !tySame(a[i], b[i]) {
			return false
		}
	}
	return true
}

// tyLayouts returns layouts of n elements: an even split, every element
// on the last rank (the others empty), and replicated; for 2-D shapes
// splits along each axis.
func tyLayouts(shape []int, p int) (names []string, opts [][]dist.Option) {
	names = append(names, "even")
	opts = append(opts, []dist.Option{dist.SplitAxis(0)})
	counts := make([]int, p)
	counts[p-1] = shape[0]
	names = append(names, "last")
	opts = append(opts, []dist.Option{dist.BlockSizes(counts)})
	for a := 1; a < len(shape); a++ {
		names = append(names, fmt.Sprintf("axis%d", a))
		opts = append(opts, []dist.Option{dist.SplitAxis(a)})
	}
	names = append(names, "replicated")
	opts = append(opts, []dist.Option{dist.SplitAxis(dist.Replicated)})
	return names, opts
}

func tyFrom[T backend.Element](t *testing.T, c mpi.Comm, shape []int, v []T, opts []dist.Option) *dist.Array[T] {
	t.Helper()
	a, err := dist.FromFunc(c, shape, func(idx []int) T { return v[flat(idx, shape)] }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tyModes are the backends of the tests: the CPU, and the fake device
// staged, CUDA-aware, and without its Converter ("plain": every operation
// on host copies).
var tyModes = []string{"cpu", "staged", "aware", "plain"}

func tyBackend(t *testing.T, mode string) backend.Backend {
	if mode == "cpu" {
		return cpu.Default
	}
	return modeBackend(t, mode)
}

// tyCopies returns the copies an elementwise mask or conversion
// operation records on this rank: none but on the plain device, where
// every nonempty input block goes to the host and the output back.
func tyCopies(mode string, inputs []int64, output int64) transfers {
	var w transfers
	if mode != "plain" {
		return w
	}
	for _, b := range inputs {
		if b > 0 {
			w = w.plus(toHost(b))
		}
	}
	if output > 0 {
		w = w.plus(toDevice(output))
	}
	return w
}

func tyCheckCopies(t *testing.T, c mpi.Comm, what string, w transfers, f func() error) {
	t.Helper()
	var err error
	cnt := profiling.Counting(func() { err = f() })
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	g := got(cnt)
	mpitest.Check(t, c, g.toHost == w.toHost && g.toDevice == w.toDevice && g.toHostBytes == w.toHostBytes && g.toDeviceBytes == w.toDeviceBytes,
		"%s: recorded %+v, want %+v", what, g, w)
}

// TestCompare checks the six comparisons, array-array and array-scalar,
// against NumPy (NaN compares false except in not_equal), on every
// layout and backend.
func TestCompare(t *testing.T) {
	c := mpitest.World(t)
	for _, mode := range tyModes {
		t.Run(mode, func(t *testing.T) {
			b := tyBackend(t, mode)
			for _, cs := range typesData(t).Compare {
				t.Run(cs.DType, func(t *testing.T) {
					switch cs.DType {
					case "float64":
						testCompare[float64](t, c, b, mode, cs.X, cs.Y, cs.Array, cs.Scalar)
					case "float32":
						testCompare[float32](t, c, b, mode, cs.X, cs.Y, cs.Array, cs.Scalar)
					case "int16":
						testCompare[int16](t, c, b, mode, cs.X, cs.Y, cs.Array, cs.Scalar)
					case "uint8":
						testCompare[uint8](t, c, b, mode, cs.X, cs.Y, cs.Array, cs.Scalar)
					case "uint64":
						testCompare[uint64](t, c, b, mode, cs.X, cs.Y, cs.Array, cs.Scalar)
					default:
						t.Fatalf("no case for %s", cs.DType)
					}
				})
			}
		})
	}
}

func testCompare[T backend.Element](t *testing.T, c mpi.Comm, b backend.Backend, mode string, xs, ys []string, array map[string][]uint8, scalar []struct {
	S   string
	Ops map[string][]uint8
}) {
	xv, yv := tyParseAll[T](t, xs), tyParseAll[T](t, ys)
	shape := []int{len(xv)}
	arrayOps := map[string]func(x, y *dist.Array[T]) (*dist.Array[uint8], error){
		"less": dist.Less[T], "less_equal": dist.LessEqual[T], "greater": dist.Greater[T],
		"greater_equal": dist.GreaterEqual[T], "equal": dist.Equal[T], "not_equal": dist.NotEqual[T],
	}
	scalarOps := map[string]func(x *dist.Array[T], s T) (*dist.Array[uint8], error){
		"less": dist.LessScalar[T], "less_equal": dist.LessEqualScalar[T], "greater": dist.GreaterScalar[T],
		"greater_equal": dist.GreaterEqualScalar[T], "equal": dist.EqualScalar[T], "not_equal": dist.NotEqualScalar[T],
	}
	size := int64(backend.DTypeOf[T]().Size())
	names, opts := tyLayouts(shape, c.Size())
	for l := range names {
		o := append(opts[l], dist.OnBackend(b))
		x, y := tyFrom(t, c, shape, xv, o), tyFrom(t, c, shape, yv, o)
		n := int64(x.Local().Len())
		for _, name := range []string{"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"} {
			what := fmt.Sprintf("%s/%s", names[l], name)
			var m *dist.Array[uint8]
			tyCheckCopies(t, c, what, tyCopies(mode, []int64{n * size, n * size}, n), func() (err error) {
				m, err = arrayOps[name](x, y)
				return err
			})
			g, err := dist.Allgather(m)
			mpitest.Check(t, c, err == nil && tySameAll(g, array[name]) && m.Device() == x.Device() && m.Layout().Equal(x.Layout()),
				"%s: %v (%v) on %v, want %v", what, g, err, m.Device(), array[name])
			m.Free()
			for _, sc := range scalar {
				s := tyParse[T](t, sc.S)
				what := fmt.Sprintf("%s/%s scalar %v", names[l], name, s)
				tyCheckCopies(t, c, what, tyCopies(mode, []int64{n * size}, n), func() (err error) {
					m, err = scalarOps[name](x, s)
					return err
				})
				g, err := dist.Allgather(m)
				mpitest.Check(t, c, err == nil && tySameAll(g, sc.Ops[name]), "%s: %v (%v), want %v", what, g, err, sc.Ops[name])
				m.Free()
			}
		}
		// Where(x < y, x, y) is the elementwise minimum that NumPy's
		// where gives, NaN where y is NaN; written into y itself.
		m, err := dist.Less(x, y)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]T, len(xv))
		for i := range want {
			if array["less"][i] != 0 {
				want[i] = xv[i]
			} else {
				want[i] = yv[i]
			}
		}
		tyCheckCopies(t, c, names[l]+"/Where", tyCopies(mode, []int64{n, n * size, n * size}, n*size), func() error {
			return dist.Where(y, m, x, y)
		})
		g, err := dist.Allgather(y)
		mpitest.Check(t, c, err == nil && tySameAll(g, want), "%s: Where: %v (%v), want %v", names[l], g, err, want)
		m.Free()
		x.Free()
		y.Free()
	}
}

// TestCompact checks x[mask] against NumPy for masks that select nothing,
// everything, the first third, the last element and a random part, of
// 1-D and 2-D arrays on every layout (empty blocks among them) and
// backend: the elements in row-major order, split evenly, on x's device.
func TestCompact(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	for _, mode := range tyModes {
		t.Run(mode, func(t *testing.T) {
			b := tyBackend(t, mode)
			for _, cs := range typesData(t).Compact {
				xv, want := tyParseAll[float64](t, cs.X), tyParseAll[float64](t, cs.Want)
				names, opts := tyLayouts(cs.Shape, p)
				for l := range names {
					what := fmt.Sprintf("%v/%s/%s", cs.Shape, cs.MaskName, names[l])
					o := append(opts[l], dist.OnBackend(b))
					x := tyFrom(t, c, cs.Shape, xv, o)
					m := tyFrom(t, c, cs.Shape, cs.Mask, o)
					// The block compacted on this rank: x's, or its share
					// of a split along axis 0.
					rows := x.Layout()
					if ax := rows.Axis(); ax != 0 && p > 1 {
						rows = dist.NewLayout(cs.Shape, 0, p)
					}
					n := int64(rows.LocalLen(me))
					w := transfers{}
					if mode == "plain" && n > 0 {
						w = toHost(8 * n).plus(toHost(n)).plus(toDevice(8 * n))
					}
					if mode == "staged" {
						w = transfers{toHost: -1} // the staging copies of MPI calls: not checked here
					}
					var out *dist.Array[float64]
					var err error
					cnt := profiling.Counting(func() { out, err = dist.Compact(x, m) })
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if g := got(cnt); w.toHost >= 0 {
						mpitest.Check(t, c, g.toHost == w.toHost && g.toDevice == w.toDevice && g.toHostBytes == w.toHostBytes && g.toDeviceBytes == w.toDeviceBytes,
							"%s: recorded %+v, want %+v", what, g, w)
					}
					g, err := dist.Allgather(out)
					even := dist.NewLayout([]int{len(want)}, 0, p)
					mpitest.Check(t, c, err == nil && tySameAll(g, want) && out.Layout().Equal(even) && out.Device() == x.Device(),
						"%s: %v (%v) as %v on %v, want %v as %v", what, g, err, out.Layout(), out.Device(), want, even)
					out.Free()
					x.Free()
					m.Free()
				}
			}
		})
	}
}

// TestAstype checks every conversion between the element types against
// NumPy: NaN, infinities, out-of-range floats (by the documented rule
// where NumPy's own result depends on the CPU), wrapping integers and
// rounding to floats, on uneven layouts and every backend.
func TestAstype(t *testing.T) {
	c := mpitest.World(t)
	for _, mode := range tyModes {
		t.Run(mode, func(t *testing.T) {
			b := tyBackend(t, mode)
			for _, cs := range typesData(t).Astype {
				t.Run(cs.From, func(t *testing.T) {
					switch cs.From {
					case "float64":
						astypeFrom[float64](t, c, b, mode, cs.X, cs.To)
					case "float32":
						astypeFrom[float32](t, c, b, mode, cs.X, cs.To)
					case "int64":
						astypeFrom[int64](t, c, b, mode, cs.X, cs.To)
					case "uint64":
						astypeFrom[uint64](t, c, b, mode, cs.X, cs.To)
					case "int32":
						astypeFrom[int32](t, c, b, mode, cs.X, cs.To)
					case "uint32":
						astypeFrom[uint32](t, c, b, mode, cs.X, cs.To)
					case "int16":
						astypeFrom[int16](t, c, b, mode, cs.X, cs.To)
					case "uint16":
						astypeFrom[uint16](t, c, b, mode, cs.X, cs.To)
					case "int8":
						astypeFrom[int8](t, c, b, mode, cs.X, cs.To)
					case "uint8":
						astypeFrom[uint8](t, c, b, mode, cs.X, cs.To)
					default:
						t.Fatalf("no case for %s", cs.From)
					}
				})
			}
		})
	}
}

func astypeFrom[S backend.Element](t *testing.T, c mpi.Comm, b backend.Backend, mode string, xs []string, to map[string][]string) {
	xv := tyParseAll[S](t, xs)
	shape := []int{len(xv)}
	names, opts := tyLayouts(shape, c.Size())
	for l := range names[:2] { // even and all on the last rank
		x := tyFrom(t, c, shape, xv, append(opts[l], dist.OnBackend(b)))
		astypeTo[S, float32](t, c, x, mode, to["float32"])
		astypeTo[S, float64](t, c, x, mode, to["float64"])
		astypeTo[S, int8](t, c, x, mode, to["int8"])
		astypeTo[S, int16](t, c, x, mode, to["int16"])
		astypeTo[S, int32](t, c, x, mode, to["int32"])
		astypeTo[S, int64](t, c, x, mode, to["int64"])
		astypeTo[S, uint8](t, c, x, mode, to["uint8"])
		astypeTo[S, uint16](t, c, x, mode, to["uint16"])
		astypeTo[S, uint32](t, c, x, mode, to["uint32"])
		astypeTo[S, uint64](t, c, x, mode, to["uint64"])
		x.Free()
	}
}

func astypeTo[S, D backend.Element](t *testing.T, c mpi.Comm, x *dist.Array[S], mode string, wantS []string) {
	t.Helper()
	want := tyParseAll[D](t, wantS)
	n := int64(x.Local().Len())
	what := fmt.Sprintf("%v to %v", backend.DTypeOf[S](), backend.DTypeOf[D]())
	var y *dist.Array[D]
	tyCheckCopies(t, c, what, tyCopies(mode, []int64{n * int64(backend.DTypeOf[S]().Size())}, n*int64(backend.DTypeOf[D]().Size())), func() (err error) {
		y, err = dist.Astype[D](x)
		return err
	})
	g, err := dist.Allgather(y)
	mpitest.Check(t, c, err == nil && tySameAll(g, want) && y.Device() == x.Device() && y.Layout().Equal(x.Layout()),
		"%s: %v (%v), want %v", what, g, err, want)
	y.Free()
}

// TestNPYSmallInts loads the .npy files NumPy wrote of int8, int16, uint8
// and uint16 arrays on every split axis, and checks that Save writes them
// back byte for byte.
func TestNPYSmallInts(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	npySmall(t, c, dir, "int8", []int8{-128, -1, 0, 1, 127, 5})
	npySmall(t, c, dir, "int16", []int16{-32768, -1, 0, 1, 32767, 300})
	npySmall(t, c, dir, "uint8", []uint8{0, 1, 127, 128, 255, 7})
	npySmall(t, c, dir, "uint16", []uint16{0, 1, 32767, 32768, 65535, 300})
}

func npySmall[T backend.Element](t *testing.T, c mpi.Comm, dir, name string, want []T) {
	file := npyTestdata("types_" + name + ".npy")
	for _, axis := range []int{dist.Replicated, 0, 1} {
		x, err := dist.Load[T](c, file, dist.SplitAxis(axis))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		npyCheck(t, x, []int{2, 3}, axis, want, file)
		out := filepath.Join(dir, name+".npy")
		if err := dist.Save(x, out); err != nil {
			t.Fatal(err)
		}
		x.Free()
		same := true
		if c.Rank() == 0 {
			a, err1 := os.ReadFile(file)
			b, err2 := os.ReadFile(out)
			same = err1 == nil && err2 == nil && bytes.Equal(a, b)
		}
		mpitest.Check(t, c, same, "%s split on %d: Save wrote other bytes than NumPy", name, axis)
	}
}

// TestNPYConvert loads files of one element type as every other with
// Convert, against NumPy's astype, and checks that without it the load
// is refused with both types named.
func TestNPYConvert(t *testing.T) {
	c := mpitest.World(t)
	for _, cs := range typesData(t).Convert {
		file := npyTestdata(cs.File)
		for _, axis := range []int{0, 1, dist.Replicated} {
			what := fmt.Sprintf("%s on axis %d", cs.File, axis)
			npyConvert[float32](t, c, file, axis, cs.Shape, cs.To["float32"], what)
			npyConvert[float64](t, c, file, axis, cs.Shape, cs.To["float64"], what)
			npyConvert[int8](t, c, file, axis, cs.Shape, cs.To["int8"], what)
			npyConvert[int16](t, c, file, axis, cs.Shape, cs.To["int16"], what)
			npyConvert[int32](t, c, file, axis, cs.Shape, cs.To["int32"], what)
			npyConvert[int64](t, c, file, axis, cs.Shape, cs.To["int64"], what)
			npyConvert[uint8](t, c, file, axis, cs.Shape, cs.To["uint8"], what)
			npyConvert[uint16](t, c, file, axis, cs.Shape, cs.To["uint16"], what)
			npyConvert[uint32](t, c, file, axis, cs.Shape, cs.To["uint32"], what)
			npyConvert[uint64](t, c, file, axis, cs.Shape, cs.To["uint64"], what)
		}
	}
	_, err := dist.Load[uint8](c, npyTestdata("types_int16.npy"))
	npyErrorEverywhere(t, c, err, "holds int16 (<i2), not uint8 (|u1); pass dist.Convert()")
}

func npyConvert[T backend.Element](t *testing.T, c mpi.Comm, file string, axis int, shape []int, wantS []string, what string) {
	t.Helper()
	want := tyParseAll[T](t, wantS)
	x, err := dist.Load[T](c, file, dist.SplitAxis(axis), dist.Convert())
	if err != nil {
		t.Fatalf("%s as %T: %v", what, want, err)
	}
	defer x.Free()
	g, err := dist.Allgather(x)
	l := dist.NewLayout(shape, axis, c.Size())
	mpitest.Check(t, c, err == nil && tySameAll(g, want) && x.Layout().Equal(l), "%s as %T: %v (%v) as %v, want %v as %v", what, want, g, err, x.Layout(), want, l)
}
