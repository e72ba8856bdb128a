package dist_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// normCase is a case of testdata/normaxis_complex.json (written by
// testdata/normaxis_complex_gen.py): NumPy's norms along Axis of the
// array of Shape and DType whose elements normElem gives.
type normCase struct {
	Shape   []int
	Special bool
	DType   string
	Axis    int
	Norm    []cxNum
}

// normElem is the element of flat index i of the fixture's arrays.
func normElem(i int, special bool) complex128 {
	if special && i == 4 {
		return complex(math.Inf(1), -2)
	}
	if special && i == 9 {
		return complex(math.NaN(), 1)
	}
	fi := float64(i)
	return complex(float64(i%5)-2.25+fi/8, float64((i*7)%11)/4-1.3)
}

// normLayouts returns the layouts of an array of shape: replicated, split
// along each axis, every element on the last rank along axis 0, and a
// process grid for 2-D and 3-D shapes.
func normLayouts(shape []int, p int) [][]dist.Option {
	ls := [][]dist.Option{{dist.SplitAxis(dist.Replicated)}}
	for a := range shape {
		ls = append(ls, []dist.Option{dist.SplitAxis(a)})
	}
	last := make([]int, p)
	last[p-1] = shape[0]
	ls = append(ls, []dist.Option{dist.SplitAxis(0), dist.BlockSizes(last)})
	switch len(shape) {
	case 2:
		ls = append(ls, []dist.Option{dist.ProcessGrid(0, 0)})
	case 3:
		ls = append(ls, []dist.Option{dist.ProcessGrid(0, 0, 1)})
	}
	return ls
}

// TestNormAxisComplex checks NormAxisComplex against NumPy's
// numpy.linalg.norm(x, axis) on complex64 and complex128 arrays: 1-D,
// 2-D and 3-D shapes, empty axes, one element, infinite and NaN parts,
// every layout (replicated, split on each axis, every element on the last
// rank, a process grid), on the CPU, the fake device (where no copy
// between host and device may be recorded) and realKernels (real
// axis kernels only). Results must be NumPy's to 4 ulps of the result's
// type (NumPy adds re²+im² per element, pairwise; we sum the parts'
// squares in float64 in order).
func TestNormAxisComplex(t *testing.T) {
	c := mpitest.World(t)
	setAware(t, aware) // device blocks go to MPI as they are: the sums' Allreduce copies nothing
	data, err := os.ReadFile(npyTestdata("normaxis_complex.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []normCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	var e errs
	for _, bk := range cxBackends() {
		for _, nc := range cases {
			want := make([]float64, len(nc.Norm))
			for i, v := range nc.Norm {
				want[i] = cxFloat(t, v)
			}
			for li, opts := range normLayouts(nc.Shape, c.Size()) {
				name := fmt.Sprintf("%s %s %v special %v axis %d layout %d", bk.Name(), nc.DType, nc.Shape, nc.Special, nc.Axis, li)
				opts = append(opts, dist.OnBackend(bk))
				if nc.DType == "complex64" {
					normAxisCase[float32, complex64](t, &e, c, name, nc, want, opts, bk == fakedev.Default)
				} else {
					normAxisCase[float64, complex128](t, &e, c, name, nc, want, opts, bk == fakedev.Default)
				}
			}
		}
	}
	e.check(t, c, "NormAxisComplex")
	mpitest.Check(t, c, panics(func() { dist.NormAxisComplex[float32](zerosC128(t, c), 0) }), "NormAxisComplex[float32] of complex128 did not panic")
}

func zerosC128(t *testing.T, c mpi.Comm) *dist.Array[complex128] {
	x, err := dist.Zeros[complex128](c, []int{3})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// panics reports whether f panics with a message that starts "dist: ".
func panics(f func()) (ok bool) {
	defer func() {
		s, isStr := recover().(string)
		ok = isStr && len(s) > 6 && s[:6] == "dist: "
	}()
	f()
	return false
}

func normAxisCase[R backend.Float, T backend.Complex](t *testing.T, e *errs, c mpi.Comm, name string, nc normCase, want []float64, opts []dist.Option, noCopies bool) {
	t.Helper()
	x, err := dist.FromFunc(c, nc.Shape, func(idx []int) T {
		f := 0
		for a, i := range idx {
			f = f*nc.Shape[a] + i
		}
		return T(normElem(f, nc.Special))
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	var r *dist.Array[R]
	cnt := profiling.Counting(func() { r, err = dist.NormAxisComplex[R](x, nc.Axis) })
	if err != nil {
		e.add("%s: %v", name, err)
		return
	}
	defer r.Free()
	if w := got(cnt); noCopies && (w.toHost != 0 || w.toDevice != 0) {
		e.add("%s: recorded %d copies to the host and %d to the device on %v, want none", name, w.toHost, w.toDevice, x.Device())
	}
	if r.Device() != x.Device() {
		e.add("%s: result on %v, want %v", name, r.Device(), x.Device())
	}
	gv, err := dist.Allgather(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(gv) != len(want) {
		e.add("%s: %d norms, want %d", name, len(gv), len(want))
		return
	}
	eps := 0x1p-52
	if backend.DTypeOf[R]() == backend.Float32 {
		eps = 0x1p-23
	}
	for i, w := range want {
		g := float64(gv[i])
		if math.IsNaN(w) || math.IsInf(w, 0) {
			if !(math.IsNaN(w) && math.IsNaN(g)) && g != w {
				e.add("%s: norm %d is %v, NumPy's %v", name, i, g, w)
				return
			}
			continue
		}
		if math.Abs(g-w) > 4*eps*math.Abs(w) {
			e.add("%s: norm %d is %v, NumPy's %v", name, i, g, w)
			return
		}
	}
}
