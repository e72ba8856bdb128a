package dist_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// copiesOf runs f and returns the host/device copies it recorded, after
// checking that they are the copies the fake device made.
func copiesOf(e *errs, what string, f func()) transfers {
	before := fakedev.Stats()
	cnt := profiling.Counting(f)
	d := fakedev.Stats().Sub(before)
	g := got(cnt)
	g.deviceCopies, g.deviceCopyBytes, g.syncs = 0, 0, 0
	if d.ToHost != g.toHost || d.ToHostBytes != g.toHostBytes || d.ToDevice != g.toDevice || d.ToDeviceBytes != g.toDeviceBytes {
		e.add("%s: the device made %v, recorded %+v", what, d, g)
	}
	return g
}

// TestDeviceStats checks the statistics of fake-device arrays against the
// CPU's results, bit for bit, with the copies between host and device:
// none with a CUDA-aware MPI (the partial results are computed, gathered
// and combined on the device; scalar results come back as Sum's do),
// the staging copies of the one gathering call when MPI is not CUDA-aware,
// and, on a backend without backend.StatsReducer, one copy of the block to
// the host and one of an array result back.
func TestDeviceStats(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	slowDevice(t)
	for _, mode := range []string{"staged", "aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			forEachLayout(t, func(t *testing.T, shape []int, split int) {
				var e errs
				// Values whose sums are exact in any order (multiples of
				// 1/1024), and factors whose products are.
				f := func(idx []int) float64 { return ref(flat(idx, shape)) }
				g := func(idx []int) float64 { return statFacs[float64](flat(idx, shape)) }
				mk := func(f func([]int) float64, on dist.Option) *dist.Array[float64] {
					x, err := dist.FromFunc(c, shape, f, dist.SplitAxis(split), on)
					if err != nil {
						t.Fatal(err)
					}
					return x
				}
				x, h := mk(f, dist.OnBackend(b)), mk(f, dist.OnBackend(cpu.Default))
				xf, hf := mk(g, dist.OnBackend(b)), mk(g, dist.OnBackend(cpu.Default))
				defer func() {
					for _, a := range []*dist.Array[float64]{x, h, xf, hf} {
						a.Free()
					}
				}()
				block := int64(8 * x.Layout().LocalLen(me))
				// A scalar result: the block to the host on a backend that
				// cannot compute it on its device, and nothing otherwise.
				scalar := func(what string, dev, host func() (any, error)) {
					var gv any
					var gerr error
					w := transfers{}
					if mode == "plain" {
						w = toHost(block)
					}
					if c := copiesOf(&e, what, func() { gv, gerr = dev() }); c != w {
						e.add("%s: recorded %+v, want %+v", what, c, w)
					}
					hv, herr := host()
					if fmt.Sprint(gv) != fmt.Sprint(hv) || (gerr == nil) != (herr == nil) {
						e.add("%s: %v, %v on the device, %v, %v on the host", what, gv, gerr, hv, herr)
					}
				}
				bits := func(v float64, err error) (any, error) { return math.Float64bits(v), err }
				scalar("Mean", func() (any, error) { return bits(dist.Mean(x)) }, func() (any, error) { return bits(dist.Mean(h)) })
				scalar("Var", func() (any, error) { return bits(dist.Var(x, 1)) }, func() (any, error) { return bits(dist.Var(h, 1)) })
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

				for axis := range shape {
					combined := split == axis && p > 1
					outLen := func() int { // elements of the result's block on this rank
						s, _ := dist.MeanAxis(h, axis)
						defer s.Free()
						return s.Layout().LocalLen(me)
					}()
					m := 1 // the block's shape without axis
					for a, d := range x.Layout().LocalShape(me) {
						if a != axis {
							m *= d
						}
					}
					// want returns the copies of an array result of out
					// elements whose gathering call sends send elements
					// and receives p times that.
					want := func(out, send int) transfers {
						switch {
						case mode == "plain":
							return toHost(block).plus(toDevice(int64(8 * out)))
						case mode == "staged" && combined:
							return toHost(int64(8 * send)).plus(toDevice(int64(8 * send * p)))
						}
						return transfers{}
					}
					array := func(what string, w transfers, dev, host func() (*dist.Array[float64], error)) {
						var r *dist.Array[float64]
						var err error
						if c := copiesOf(&e, what, func() { r, err = dev() }); c != w {
							e.add("%s: recorded %+v, want %+v", what, c, w)
						}
						if err != nil {
							t.Fatal(err)
						}
						defer r.Free()
						hr, err := host()
						if err != nil {
							t.Fatal(err)
						}
						defer hr.Free()
						gv, err1 := dist.Allgather(r)
						hv, err2 := dist.Allgather(hr)
						same := len(gv) == len(hv)
						for i := 0; same && i < len(gv); i++ {
							same = math.Float64bits(gv[i]) == math.Float64bits(hv[i])
						}
						if err1 != nil || err2 != nil || !same || r.Device() != x.Device() {
							e.add("%s: %v on %v, want %v", what, gv, r.Device(), hv)
						}
					}
					block := x.Layout().LocalLen(me)
					array(fmt.Sprintf("Cumsum(%d)", axis), want(block, m),
						func() (*dist.Array[float64], error) { return dist.Cumsum(x, axis) },
						func() (*dist.Array[float64], error) { return dist.Cumsum(h, axis) })
					array(fmt.Sprintf("Cumprod(%d)", axis), want(block, m),
						func() (*dist.Array[float64], error) { return dist.Cumprod(xf, axis) },
						func() (*dist.Array[float64], error) { return dist.Cumprod(hf, axis) })
					array(fmt.Sprintf("MeanAxis(%d)", axis), want(outLen, 3*m),
						func() (*dist.Array[float64], error) { return dist.MeanAxis(x, axis) },
						func() (*dist.Array[float64], error) { return dist.MeanAxis(h, axis) })
					array(fmt.Sprintf("VarAxis(%d)", axis), want(outLen, 3*m),
						func() (*dist.Array[float64], error) { return dist.VarAxis(x, axis, 1) },
						func() (*dist.Array[float64], error) { return dist.VarAxis(h, axis, 1) })
					array(fmt.Sprintf("StdAxis(%d)", axis), want(outLen, 3*m),
						func() (*dist.Array[float64], error) { return dist.StdAxis(x, axis, 0) },
						func() (*dist.Array[float64], error) { return dist.StdAxis(h, axis, 0) })
				}
				e.check(t, c, fmt.Sprintf("%s %v split %d", mode, shape, split))
			})
		})
	}
}

// TestDeviceStatsTypes checks the statistics of fake-device arrays of
// every element type against the CPU's results, bit for bit, with a
// CUDA-aware MPI and without (the staged gathers of integer moments and
// carries), along and across the split axis.
func TestDeviceStatsTypes(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testDeviceStatsType[float32](t) })
	t.Run("float64", func(t *testing.T) { testDeviceStatsType[float64](t) })
	t.Run("int32", func(t *testing.T) { testDeviceStatsType[int32](t) })
	t.Run("int64", func(t *testing.T) { testDeviceStatsType[int64](t) })
	t.Run("uint32", func(t *testing.T) { testDeviceStatsType[uint32](t) })
	t.Run("uint64", func(t *testing.T) { testDeviceStatsType[uint64](t) })
}

func testDeviceStatsType[T backend.Element](t *testing.T) {
	c := mpitest.World(t)
	shape := []int{5, 3}
	for _, mode := range []string{"staged", "aware"} {
		b := modeBackend(t, mode)
		for _, split := range []int{0, 1} {
			var e errs
			mk := func(f func(int) T, on backend.Backend) *dist.Array[T] {
				x, err := dist.FromFunc(c, shape, func(idx []int) T { return f(flat(idx, shape)) }, dist.SplitAxis(split), dist.OnBackend(on))
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
			x, h := mk(statVals[T], b), mk(statVals[T], cpu.Default)
			xf, hf := mk(statFacs[T], b), mk(statFacs[T], cpu.Default)
			scalar := func(what string, dev, host any) {
				if fmt.Sprint(dev) != fmt.Sprint(host) {
					e.add("%s: %v on the device, %v on the host", what, dev, host)
				}
			}
			mx, _ := dist.Mean(x)
			mh, _ := dist.Mean(h)
			scalar("Mean", math.Float64bits(mx), math.Float64bits(mh))
			vx, _ := dist.Var(x, 1)
			vh, _ := dist.Var(h, 1)
			scalar("Var", math.Float64bits(vx), math.Float64bits(vh))
			px, _ := dist.Prod(xf)
			ph, _ := dist.Prod(hf)
			scalar("Prod", px, ph)
			cx, ex, _ := dist.HistogramAuto(x, 4)
			ch, eh, _ := dist.HistogramAuto(h, 4)
			scalar("HistogramAuto", fmt.Sprint(cx, ex), fmt.Sprint(ch, eh))
			for axis := range shape {
				for _, k := range []struct {
					name string
					f    func(*dist.Array[T], *dist.Array[T]) (*dist.Array[T], error)
				}{
					{"Cumsum", func(x, _ *dist.Array[T]) (*dist.Array[T], error) { return dist.Cumsum(x, axis) }},
					{"Cumprod", func(_, f *dist.Array[T]) (*dist.Array[T], error) { return dist.Cumprod(f, axis) }},
				} {
					rx, err1 := k.f(x, xf)
					rh, err2 := k.f(h, hf)
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					gx, _ := dist.Allgather(rx)
					gh, _ := dist.Allgather(rh)
					scalar(fmt.Sprintf("%s(%d)", k.name, axis), gx, gh)
					if rx.Device() != b.Device() {
						e.add("%s(%d) on %v", k.name, axis, rx.Device())
					}
					rx.Free()
					rh.Free()
				}
				vx, err1 := dist.VarAxis(x, axis, 0)
				vh, err2 := dist.VarAxis(h, axis, 0)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				gx, _ := dist.Allgather(vx)
				gh, _ := dist.Allgather(vh)
				scalar(fmt.Sprintf("VarAxis(%d)", axis), fmt.Sprintf("%x", gx), fmt.Sprintf("%x", gh))
				vx.Free()
				vh.Free()
			}
			for _, a := range []*dist.Array[T]{x, h, xf, hf} {
				a.Free()
			}
			e.check(t, c, fmt.Sprintf("%s split %d", mode, split))
		}
	}
}
