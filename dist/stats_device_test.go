package dist_test

import (
	"fmt"
	"math"
	"testing"

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
