package dist_test

// Tests of Where, Compact, Cumsum, Cumprod, the axis reductions and the
// matrix products of complex arrays against NumPy's results in the "ops"
// part of testdata/complex.json (testdata/complex_gen.py), at every rank
// count, for layouts with uneven and empty blocks, on the CPU, on the fake
// device (where no element leaves the device), and on a backend whose
// optional kernels are real-only (realKernels: the fake device's kernels
// refusing complex buffers, not a backend.ComplexKernels), where complex
// blocks go through host copies, recorded.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// cxOpsCase is one 2-D input of the fixture with NumPy's results.
type cxOpsCase struct {
	Shape      []int
	X, Y, F    [][2]cxNum
	Mask       []uint8
	Complex64  map[string]json.RawMessage
	Complex128 map[string]json.RawMessage
}

type cxMatMul struct {
	Complex64  map[string]json.RawMessage
	Complex128 map[string]json.RawMessage
}

type cxOpsFixture struct {
	Ops struct {
		M, S   cxOpsCase
		Matmul cxMatMul
	}
}

var cxOpsOnce = sync.OnceValues(func() (*cxOpsFixture, error) {
	b, err := os.ReadFile(npyTestdata("complex.json"))
	if err != nil {
		return nil, err
	}
	f := new(cxOpsFixture)
	return f, json.Unmarshal(b, f)
})

func cxOpsData(t *testing.T) *cxOpsFixture {
	t.Helper()
	f, err := cxOpsOnce()
	if err != nil {
		t.Fatalf("testdata/complex.json: %v", err)
	}
	return f
}

func cxOf[T complex64 | complex128](m64, m128 map[string]json.RawMessage) map[string]json.RawMessage {
	if backend.DTypeOf[T]() == backend.Complex64 {
		return m64
	}
	return m128
}

// realKernels is a backend whose optional kernels are real-only, as a
// backend a user registers may be (and as CUDA's were before complex.cu
// had them): the fake device with the optional interfaces (Converter,
// StatsReducer, AxisReducer, GEMM) for the real types only, and no
// ComplexArith or ComplexKernels, so that dist must copy complex blocks to
// the host. Its kernels panic on a complex buffer. The CUDA backend's own
// complex kernels are checked by TestDeviceComplexCUDA.
type realKernels struct{ backend.Backend }

var realDev = realKernels{fakedev.Default}

func realOnly(op string, bufs ...backend.Buffer) {
	for _, b := range bufs {
		if b != nil && b.DType().IsComplex() {
			panic(fmt.Sprintf("realKernels: %s of a %v buffer: the real-only kernels were given a complex one", op, b.DType()))
		}
	}
}

func (c realKernels) fd() *fakedev.Backend { return c.Backend.(*fakedev.Backend) }

func (realKernels) Name() string { return "realkernels" }

func (c realKernels) Compare(op backend.CompareOp, mask, x, y backend.Buffer) {
	realOnly("Compare", x, y)
	c.fd().Compare(op, mask, x, y)
}
func (c realKernels) CompareScalar(op backend.CompareOp, mask, x backend.Buffer, s backend.Scalar) {
	realOnly("CompareScalar", x)
	c.fd().CompareScalar(op, mask, x, s)
}
func (c realKernels) Where(dst, mask, a, b backend.Buffer) {
	realOnly("Where", dst, a, b)
	c.fd().Where(dst, mask, a, b)
}
func (c realKernels) Compress(dst, x, mask backend.Buffer) int {
	realOnly("Compress", dst, x)
	return c.fd().Compress(dst, x, mask)
}
func (c realKernels) Convert(dst, src backend.Buffer) {
	realOnly("Convert", dst, src)
	c.fd().Convert(dst, src)
}
func (c realKernels) Moments(x backend.Buffer) (float64, float64, float64) {
	realOnly("Moments", x)
	return c.fd().Moments(x)
}
func (c realKernels) MomentsAxis(mom, src backend.Buffer, pre, n, post int) {
	realOnly("MomentsAxis", src)
	c.fd().MomentsAxis(mom, src, pre, n, post)
}
func (c realKernels) CombineMoments(mom, all backend.Buffer, counts []int) {
	c.fd().CombineMoments(mom, all, counts)
}
func (c realKernels) Prod(x backend.Buffer) backend.Scalar {
	realOnly("Prod", x)
	return c.fd().Prod(x)
}
func (c realKernels) CountNonzero(x backend.Buffer) int {
	realOnly("CountNonzero", x)
	return c.fd().CountNonzero(x)
}
func (c realKernels) Histogram(counts []int64, x backend.Buffer, lo, hi float64) {
	realOnly("Histogram", x)
	c.fd().Histogram(counts, x, lo, hi)
}
func (c realKernels) ScanAxis(dst, last, src, carry backend.Buffer, pre, n, post int, prod bool) {
	realOnly("ScanAxis", dst, last, src, carry)
	c.fd().ScanAxis(dst, last, src, carry, pre, n, post, prod)
}
func (c realKernels) Ratio(dst, num backend.Buffer, den float64, sqrt bool) {
	c.fd().Ratio(dst, num, den, sqrt)
}
func (c realKernels) SumAxis(dst, src backend.Buffer, pre, n, post int, squares bool) {
	realOnly("SumAxis", dst, src)
	c.fd().SumAxis(dst, src, pre, n, post, squares)
}
func (c realKernels) CastSums(dst, acc backend.Buffer, sqrt bool) {
	realOnly("CastSums", dst, acc)
	c.fd().CastSums(dst, acc, sqrt)
}
func (c realKernels) ExtremeAxis(vals, idx, src backend.Buffer, pre, n, post int, offset int64, max bool) {
	realOnly("ExtremeAxis", src)
	c.fd().ExtremeAxis(vals, idx, src, pre, n, post, offset, max)
}
func (c realKernels) CombineExtremes(vals, idx, allVals, allIdx backend.Buffer, p int, max bool) {
	realOnly("CombineExtremes", vals)
	c.fd().CombineExtremes(vals, idx, allVals, allIdx, p, max)
}
func (c realKernels) Gemm(cb, a, b backend.Buffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	realOnly("Gemm", cb, a, b)
	c.fd().Gemm(cb, a, b, m, n, k, lda, ldb, ldc, accumulate)
}

var (
	_ backend.Converter    = realDev
	_ backend.StatsReducer = realDev
	_ backend.AxisReducer  = realDev
	_ backend.GEMM         = realDev
)

// cxBackends are the backends of the complex operations' tests.
func cxBackends() []backend.Backend {
	return []backend.Backend{backend.Current(), fakedev.Default, realDev}
}

// cx2Layouts are the layouts of an r x c fixture array at p ranks: split
// evenly on either axis, replicated, every row on the last rank (the
// other blocks empty) and, for the reductions, on a process grid.
func cx2Layouts(r, p int, grid bool) []cxLayout {
	last := make([]int, p)
	last[p-1] = r
	ls := []cxLayout{
		{"axis0", []dist.Option{dist.SplitAxis(0)}},
		{"axis1", []dist.Option{dist.SplitAxis(1)}},
		{"replicated", []dist.Option{dist.SplitAxis(dist.Replicated)}},
		{"last", []dist.Option{dist.SplitAxis(0), dist.BlockSizes(last)}},
	}
	if grid {
		ls = append(ls, cxLayout{"grid", []dist.Option{dist.ProcessGrid(0, 0)}})
	}
	return ls
}

// cx2From returns the fixture values vs as an array of shape.
func cx2From[T complex64 | complex128](t *testing.T, c mpi.Comm, shape []int, vs []complex128, opts ...dist.Option) *dist.Array[T] {
	t.Helper()
	a, err := dist.FromFunc(c, shape, func(idx []int) T { return T(vs[idx[0]*shape[1]+idx[len(idx)-1]]) }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// cxCompare adds to e where got (gathered from a) differs from want by
// more than tol (relative, as cxClose; 0: exactly), and where a is not on
// device dev.
func cxCompare[T complex64 | complex128](e *errs, what string, a *dist.Array[T], err error, want []complex128, tol float64, dev backend.Device) {
	if err != nil {
		e.add("%s: %v", what, err)
		return
	}
	defer a.Free()
	if a.Device() != dev {
		e.add("%s: result on %v, want %v", what, a.Device(), dev)
	}
	got, err := dist.Allgather(a)
	if err != nil {
		e.add("%s: Allgather: %v", what, err)
		return
	}
	if len(got) != len(want) {
		e.add("%s: %d elements, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		g, w := complex128(got[i]), complex128(T(want[i]))
		if tol == 0 && g != w || tol > 0 && !cxClose(g, w, tol) {
			e.add("%s: [%d] = %v, want %v", what, i, got[i], w)
			return
		}
	}
}

// TestComplexMaskScanAxis checks Where, Compact, Cumsum, Cumprod,
// SumAxis, DotAxis, MeanAxisComplex and ProdAxis of complex arrays
// against NumPy's: Where, Compact, the sums and the cumulative sums
// exactly (the fixture's values are multiples of 1/8, so every order of
// summation is exact), the means to cxTol, the products to 2n·cxTol for n
// factors. On the fake device with a CUDA-aware MPI nothing moves between
// host and device; on realKernels the copies are those recorded.
func TestComplexMaskScanAxis(t *testing.T) {
	t.Run("complex64", func(t *testing.T) { testComplexMaskScanAxis[complex64](t) })
	t.Run("complex128", func(t *testing.T) { testComplexMaskScanAxis[complex128](t) })
}

func testComplexMaskScanAxis[T complex64 | complex128](t *testing.T) {
	c := mpitest.World(t)
	setAware(t, aware)
	f := cxOpsData(t)
	tol := cxTol[T]()
	for _, fc := range []struct {
		name string
		cs   *cxOpsCase
	}{{"7x5", &f.Ops.M}, {"2x3", &f.Ops.S}} {
		cs := fc.cs
		want := cxOf[T](cs.Complex64, cs.Complex128)
		xs, ys, fs := cxPairs(t, cs.X), cxPairs(t, cs.Y), cxPairs(t, cs.F)
		for _, bk := range cxBackends() {
			for _, lo := range cx2Layouts(cs.Shape[0], c.Size(), true) {
				t.Run(fmt.Sprintf("%s/%s/%s", fc.name, bk.Name(), lo.name), func(t *testing.T) {
					var e errs
					opts := append(slices.Clone(lo.opts), dist.OnBackend(bk))
					x := cx2From[T](t, c, cs.Shape, xs, opts...)
					y := cx2From[T](t, c, cs.Shape, ys, opts...)
					fa := cx2From[T](t, c, cs.Shape, fs, opts...)
					mask, err := dist.FromFunc(c, cs.Shape, func(idx []int) uint8 { return cs.Mask[idx[0]*cs.Shape[1]+idx[1]] }, opts...)
					if err != nil {
						t.Fatal(err)
					}
					defer func() {
						x.Free()
						y.Free()
						fa.Free()
						mask.Free()
					}()
					dev := bk.Device()
					// run runs op, checking the copies it makes: none on
					// the fake device, those recorded (copiesOf) on
					// realKernels.
					run := func(what string, op func()) {
						tr := copiesOf(&e, what, op)
						if bk == backend.Backend(fakedev.Default) && tr != (transfers{}) {
							e.add("%s on the fake device: copies %+v, want none", what, tr)
						}
					}
					grid := lo.name == "grid"
					if !grid {
						dst, err := dist.ZerosLike(x)
						if err != nil {
							t.Fatal(err)
						}
						run("Where", func() { err = dist.Where(dst, mask, x, y) })
						cxCompare(&e, "Where", dst, err, cxComplex(t, want, "where"), 0, dev)
						var a *dist.Array[T]
						run("Compact", func() { a, err = dist.Compact(x, mask) })
						cxCompare(&e, "Compact", a, err, cxComplex(t, want, "compact"), 0, dev)
						for axis := 0; axis < 2; axis++ {
							n := cs.Shape[axis]
							run("Cumsum", func() { a, err = dist.Cumsum(x, axis) })
							cxCompare(&e, fmt.Sprintf("Cumsum(%d)", axis), a, err, cxComplex(t, want, fmt.Sprintf("cumsum%d", axis)), 0, dev)
							run("Cumprod", func() { a, err = dist.Cumprod(fa, axis) })
							cxCompare(&e, fmt.Sprintf("Cumprod(%d)", axis), a, err, cxComplex(t, want, fmt.Sprintf("cumprod%d", axis)), 2*float64(n)*tol, dev)
						}
					}
					for axis := 0; axis < 2; axis++ {
						n := cs.Shape[axis]
						var a *dist.Array[T]
						run("SumAxis", func() { a, err = dist.SumAxis(x, axis) })
						cxCompare(&e, fmt.Sprintf("SumAxis(%d)", axis), a, err, cxComplex(t, want, fmt.Sprintf("sum%d", axis)), 0, dev)
						run("DotAxis", func() { a, err = dist.DotAxis(x, y, axis) })
						cxCompare(&e, fmt.Sprintf("DotAxis(%d)", axis), a, err, cxComplex(t, want, fmt.Sprintf("dot%d", axis)), 0, dev)
						run("MeanAxisComplex", func() { a, err = dist.MeanAxisComplex(x, axis) })
						cxCompare(&e, fmt.Sprintf("MeanAxisComplex(%d)", axis), a, err, cxComplex(t, want, fmt.Sprintf("mean%d", axis)), tol, dev)
						run("ProdAxis", func() { a, err = dist.ProdAxis(fa, axis) })
						cxCompare(&e, fmt.Sprintf("ProdAxis(%d)", axis), a, err, cxComplex(t, want, fmt.Sprintf("prod%d", axis)), 2*float64(n)*tol, dev)
					}
					e.check(t, c, "complex ops")
				})
			}
		}
	}
}

// TestComplexWhereCopies checks the copies of Where of complex arrays on
// realKernels, whose Converter is real-only: the mask and both operands go to
// the host and the result comes back, each recorded, and none on the fake
// device.
func TestComplexWhereCopies(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	for _, bk := range []backend.Backend{fakedev.Default, realDev} {
		x, err := dist.FromFunc(c, []int{9}, func(idx []int) complex128 { return complex(float64(idx[0]), 1) }, dist.OnBackend(bk))
		if err != nil {
			t.Fatal(err)
		}
		mask, err := dist.FromFunc(c, []int{9}, func(idx []int) uint8 { return uint8(idx[0] % 2) }, dist.OnBackend(bk))
		if err != nil {
			t.Fatal(err)
		}
		dst, _ := dist.ZerosLike(x)
		n := int64(x.Layout().LocalLen(me))
		want := toHost(n).plus(toHost(16 * n)).plus(toHost(16 * n)).plus(toDevice(16 * n))
		if bk == backend.Backend(fakedev.Default) || n == 0 {
			want = transfers{}
		}
		expectCopies(t, bk.Name()+" Where", want, func() error { return dist.Where(dst, mask, x, x) })
		x.Free()
		mask.Free()
		dst.Free()
	}
}

// TestComplexMatMul checks MatMul (every method and layout), MatMulInto
// and MatVec of complex matrices against NumPy's a @ b: each part of each
// element within 4k·ε·(|a||b|)ij, ε the unit roundoff of the part type,
// on the CPU, the fake device (no copies with a CUDA-aware MPI) and
// realKernels (recorded host copies).
func TestComplexMatMul(t *testing.T) {
	t.Run("complex64", func(t *testing.T) { testComplexMatMul[complex64](t) })
	t.Run("complex128", func(t *testing.T) { testComplexMatMul[complex128](t) })
}

func testComplexMatMul[T complex64 | complex128](t *testing.T) {
	c := mpitest.World(t)
	setAware(t, aware)
	f := cxOpsData(t)
	m := cxOf[T](f.Ops.Matmul.Complex64, f.Ops.Matmul.Complex128)
	as, bs, vs := cxComplex(t, m, "a"), cxComplex(t, m, "b"), cxComplex(t, m, "v")
	ab, av := cxComplex(t, m, "ab"), cxComplex(t, m, "av")
	const M, K, N = 7, 5, 6
	eps := 0x1p-53
	if backend.DTypeOf[T]() == backend.Complex64 {
		eps = 0x1p-24
	}
	// bound[i*n+j] = 4k·ε·sum over l of |a[i][l]|·|b[l][j]|.
	bound := func(bcols int, b []complex128) []float64 {
		out := make([]float64, M*bcols)
		for i := 0; i < M; i++ {
			for j := 0; j < bcols; j++ {
				for l := 0; l < K; l++ {
					out[i*bcols+j] += cmplx.Abs(as[i*K+l]) * cmplx.Abs(b[l*bcols+j])
				}
				out[i*bcols+j] *= 4 * K * eps
			}
		}
		return out
	}
	abBound, avBound := bound(N, bs), bound(1, vs)
	within := func(e *errs, what string, a *dist.Array[T], err error, want []complex128, bnd []float64, dev backend.Device) {
		if err != nil {
			e.add("%s: %v", what, err)
			return
		}
		if a.Device() != dev {
			e.add("%s: result on %v, want %v", what, a.Device(), dev)
		}
		got, err := dist.Allgather(a)
		if err != nil || len(got) != len(want) {
			e.add("%s: %d elements (%v), want %d", what, len(got), err, len(want))
			return
		}
		for i, g := range got {
			d := complex128(g) - want[i]
			if math.Abs(real(d)) > bnd[i] || math.Abs(imag(d)) > bnd[i] || cmplx.IsNaN(d) {
				e.add("%s: [%d] = %v, want %v within %g", what, i, g, want[i], bnd[i])
				return
			}
		}
	}
	p := c.Size()
	last := make([]int, p)
	last[p-1] = M
	type pair struct {
		name   string
		ao, bo []dist.Option
	}
	pairs := []pair{
		{"rows-rows", []dist.Option{dist.SplitAxis(0)}, []dist.Option{dist.SplitAxis(0)}},
		{"rows-cols", []dist.Option{dist.SplitAxis(0)}, []dist.Option{dist.SplitAxis(1)}},
		{"last-replicated", []dist.Option{dist.SplitAxis(0), dist.BlockSizes(last)}, []dist.Option{dist.SplitAxis(dist.Replicated)}},
		{"replicated-cols", []dist.Option{dist.SplitAxis(dist.Replicated)}, []dist.Option{dist.SplitAxis(1)}},
		{"grid", []dist.Option{dist.ProcessGrid(0, 0)}, []dist.Option{dist.ProcessGrid(0, 0)}},
	}
	for _, bk := range cxBackends() {
		for _, pr := range pairs {
			t.Run(fmt.Sprintf("%s/%s", bk.Name(), pr.name), func(t *testing.T) {
				var e errs
				dev := bk.Device()
				on := dist.OnBackend(bk)
				a := cx2From[T](t, c, []int{M, K}, as, append(slices.Clone(pr.ao), on)...)
				b := cx2From[T](t, c, []int{K, N}, bs, append(slices.Clone(pr.bo), on)...)
				defer a.Free()
				defer b.Free()
				methods := []dist.MatMulMethod{dist.MatMulAuto}
				if pr.name == "rows-rows" || pr.name == "rows-cols" {
					methods = append(methods, dist.MatMulRing, dist.MatMulAllgather)
				}
				for _, meth := range methods {
					var r *dist.Array[T]
					var err error
					tr := copiesOf(&e, "MatMul", func() { r, err = dist.MatMulWithOptions(a, b, dist.MatMulOptions{Method: meth}) })
					if bk == backend.Backend(fakedev.Default) && tr != (transfers{}) {
						e.add("MatMul %v on the fake device: copies %+v", meth, tr)
					}
					within(&e, fmt.Sprintf("MatMul %v", meth), r, err, ab, abBound, dev)
					if err == nil {
						// MatMulInto into the result's layout, overwriting it.
						dist.Fill(r, T(complex(math.NaN(), 1)))
						err = dist.MatMulIntoWithOptions(r, a, b, dist.MatMulOptions{Method: meth})
						within(&e, fmt.Sprintf("MatMulInto %v", meth), r, err, ab, abBound, dev)
						r.Free()
					}
				}
				if pr.name != "grid" && pr.name != "replicated-cols" {
					for _, vo := range []dist.Option{dist.SplitAxis(0), dist.SplitAxis(dist.Replicated)} {
						v, err := dist.FromFunc(c, []int{K}, func(idx []int) T { return T(vs[idx[0]]) }, vo, on)
						if err != nil {
							t.Fatal(err)
						}
						var r *dist.Array[T]
						tr := copiesOf(&e, "MatVec", func() { r, err = dist.MatVec(a, v) })
						if bk == backend.Backend(fakedev.Default) && tr != (transfers{}) {
							e.add("MatVec on the fake device: copies %+v", tr)
						}
						within(&e, "MatVec", r, err, av, avBound, dev)
						if r != nil {
							r.Free()
						}
						v.Free()
					}
				}
				e.check(t, c, "complex MatMul")
			})
		}
	}
}
