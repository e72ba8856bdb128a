//go:build cgo

package dist_test

// The device tests that run on a GPU (TestDeviceHaloCUDA, through
// scripts/gpu-check.sh) need the CUDA backend registered; dist itself
// registers only the CPU backend.
import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	_ "github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// TestDeviceStatsCUDA checks that the statistics and axis reductions of
// CUDA arrays run on the device (the CUDA backend's backend.StatsReducer
// and backend.AxisReducer): with a CUDA-aware MPI they record no copy
// between host and device (scalar results come back as Sum's do), and
// their results are the CPU's bit for bit. It skips where any rank has no
// CUDA device; the fake CUDA driver of backend/cuda's tests counts as one:
//
//	g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -ffp-contract=off -fno-strict-aliasing \
//	    -I backend/cuda -o /tmp/libcuda.so.1 backend/cuda/testdata/fakecuda/fakecuda.cpp
//	XPMPI_LIBCUDA=/tmp/libcuda.so.1 XPMPI_NVRTC=/tmp/libcuda.so.1 go test ./dist -run TestDeviceStatsCUDA
//
// (the fake driver's memory is host memory, so that a "CUDA-aware" MPI
// reads it).
func TestDeviceStatsCUDA(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	b, err := backend.Lookup("cuda")
	all, aerr := mpi.AllTrue(c, err == nil)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if !all {
		t.Skipf("no CUDA device on every rank (here: %v)", err)
	}
	setAware(t, aware)
	forEachLayout(t, func(t *testing.T, shape []int, split int) {
		var e errs
		mk := func(f func([]int) float64, on dist.Option) *dist.Array[float64] {
			x, err := dist.FromFunc(c, shape, f, dist.SplitAxis(split), on)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		f := func(idx []int) float64 { return ref(flat(idx, shape)) }
		g := func(idx []int) float64 { return statFacs[float64](flat(idx, shape)) }
		x, h := mk(f, dist.OnBackend(b)), mk(f, dist.OnBackend(cpu.Default))
		xf, hf := mk(g, dist.OnBackend(b)), mk(g, dist.OnBackend(cpu.Default))
		defer func() {
			for _, a := range []*dist.Array[float64]{x, h, xf, hf} {
				a.Free()
			}
		}()
		// onDevice runs f and reports the copies between host and device
		// it recorded.
		onDevice := func(what string, f func()) {
			if w := got(profiling.Counting(f)); w.toHost != 0 || w.toDevice != 0 {
				e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
			}
		}
		scalar := func(what string, dev, host func() (any, error)) {
			var gv any
			var gerr error
			onDevice(what, func() { gv, gerr = dev() })
			hv, herr := host()
			if fmt.Sprint(gv) != fmt.Sprint(hv) || (gerr == nil) != (herr == nil) {
				e.add("%s: %v, %v on the device, %v, %v on the host", what, gv, gerr, hv, herr)
			}
		}
		bits := func(v float64, err error) (any, error) { return math.Float64bits(v), err }
		scalar("Mean", func() (any, error) { return bits(dist.Mean(x)) }, func() (any, error) { return bits(dist.Mean(h)) })
		scalar("Var", func() (any, error) { return bits(dist.Var(x, 1)) }, func() (any, error) { return bits(dist.Var(h, 1)) })
		scalar("Std", func() (any, error) { return bits(dist.Std(x, 0)) }, func() (any, error) { return bits(dist.Std(h, 0)) })
		scalar("Prod", func() (any, error) { return bits(dist.Prod(xf)) }, func() (any, error) { return bits(dist.Prod(hf)) })
		scalar("Any", func() (any, error) { return dist.Any(x) }, func() (any, error) { return dist.Any(h) })
		scalar("All", func() (any, error) { return dist.All(x) }, func() (any, error) { return dist.All(h) })
		hist := func(x *dist.Array[float64]) func() (any, error) {
			return func() (any, error) {
				n, edges, err := dist.Histogram(x, 7, -40, 60)
				return fmt.Sprint(n, edges), err
			}
		}
		scalar("Histogram", hist(x), hist(h))

		// Masks, selection, compaction and conversion (the CUDA backend's
		// backend.Converter).
		for _, op := range []struct {
			name string
			f    func(x, y *dist.Array[float64]) (*dist.Array[uint8], error)
		}{
			{"Less", func(x, y *dist.Array[float64]) (*dist.Array[uint8], error) { return dist.Less(x, y) }},
			{"Equal", func(x, y *dist.Array[float64]) (*dist.Array[uint8], error) { return dist.Equal(x, y) }},
			{"GreaterScalar", func(x, _ *dist.Array[float64]) (*dist.Array[uint8], error) { return dist.GreaterScalar(x, 0) }},
		} {
			var r *dist.Array[uint8]
			var err error
			onDevice(op.name, func() { r, err = op.f(x, xf) })
			hr, herr := op.f(h, hf)
			sameArrays(&e, op.name, r, err, hr, herr, x.Device())
		}
		mask, err1 := dist.GreaterScalar(x, 0)
		hmask, err2 := dist.GreaterScalar(h, 0)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		defer mask.Free()
		defer hmask.Free()
		dw, hw := mk(f, dist.OnBackend(b)), mk(f, dist.OnBackend(cpu.Default))
		var werr error
		onDevice("Where", func() { werr = dist.Where(dw, mask, xf, x) })
		sameArrays(&e, "Where", dw, werr, hw, dist.Where(hw, hmask, hf, h), x.Device())
		if split == 0 || (split == dist.Replicated && c.Size() == 1) { // no redistribution first
			var r *dist.Array[float64]
			var err error
			onDevice("Compact", func() { r, err = dist.Compact(x, mask) })
			hr, herr := dist.Compact(h, hmask)
			sameArrays(&e, "Compact", r, err, hr, herr, x.Device())
		}
		{
			var r *dist.Array[int16]
			var err error
			onDevice("Astype[int16]", func() { r, err = dist.Astype[int16](x) })
			hr, herr := dist.Astype[int16](h)
			sameArrays(&e, "Astype[int16]", r, err, hr, herr, x.Device())
		}

		for axis := range shape {
			floats := []struct {
				name string
				f    func(x *dist.Array[float64]) (*dist.Array[float64], error)
				fac  bool
			}{
				{"Cumsum", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Cumsum(x, axis) }, false},
				{"Cumprod", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Cumprod(x, axis) }, true},
				{"SumAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.SumAxis(x, axis) }, false},
				{"NormAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.NormAxis(x, axis) }, false},
				{"MinAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.MinAxis(x, axis) }, false},
				{"MaxAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.MaxAxis(x, axis) }, false},
				{"MeanAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.MeanAxis(x, axis) }, false},
				{"VarAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.VarAxis(x, axis, 1) }, false},
				{"StdAxis", func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.StdAxis(x, axis, 0) }, false},
			}
			for _, op := range floats {
				if shape[axis] == 0 && (op.name == "MinAxis" || op.name == "MaxAxis") {
					continue // a panic: an empty axis has no extremes
				}
				dx, hx := x, h
				if op.fac {
					dx, hx = xf, hf
				}
				what := fmt.Sprintf("%s(%d)", op.name, axis)
				var r *dist.Array[float64]
				var err error
				onDevice(what, func() { r, err = op.f(dx) })
				hr, herr := op.f(hx)
				sameArrays(&e, what, r, err, hr, herr, dx.Device())
			}
			ints := []struct {
				name string
				f    func(x *dist.Array[float64]) (*dist.Array[int64], error)
			}{
				{"ArgminAxis", func(x *dist.Array[float64]) (*dist.Array[int64], error) { return dist.ArgminAxis(x, axis) }},
				{"ArgmaxAxis", func(x *dist.Array[float64]) (*dist.Array[int64], error) { return dist.ArgmaxAxis(x, axis) }},
			}
			for _, op := range ints {
				if shape[axis] == 0 {
					continue
				}
				what := fmt.Sprintf("%s(%d)", op.name, axis)
				var r *dist.Array[int64]
				var err error
				onDevice(what, func() { r, err = op.f(x) })
				hr, herr := op.f(h)
				sameArrays(&e, what, r, err, hr, herr, x.Device())
			}
		}
		e.check(t, c, fmt.Sprintf("rank %d: %v split %d", me, shape, split))
	})
}

// sameArrays adds to e unless r (with error err, expected on device dev)
// and hr (with herr) hold the same elements bit for bit; it frees both.
func sameArrays[T backend.Element](e *errs, what string, r *dist.Array[T], err error, hr *dist.Array[T], herr error, dev backend.Device) {
	if err != nil || herr != nil {
		e.add("%s: %v on the device, %v on the host", what, err, herr)
		return
	}
	defer r.Free()
	defer hr.Free()
	gv, err1 := dist.Allgather(r)
	hv, err2 := dist.Allgather(hr)
	same := len(gv) == len(hv)
	for i := 0; same && i < len(gv); i++ {
		same = backend.ScalarOf(gv[i]).Bits() == backend.ScalarOf(hv[i]).Bits()
	}
	if err1 != nil || err2 != nil || !same || r.Device() != dev {
		e.add("%s: %v on %v (%v, %v), want %v", what, gv, r.Device(), err1, err2, hv)
	}
}
