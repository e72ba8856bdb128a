package dist_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestDeviceGridRedistribute checks Redistribute of fake-device arrays
// between grid layouts and every other kind of layout, both ways: the
// serial array's elements, the new array on the device, and between host
// and device nothing with a CUDA-aware MPI, and exactly one staging copy
// each way (the packed send to the host, the packed receive to the device)
// when not and MPI is called; from a replicated array, or where no element
// changes rank, nothing either way (the new block is cut out, or moved, on
// the device).
func TestDeviceGridRedistribute(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	slowDevice(t)
	for _, mode := range []awareMode{staged, aware} {
		t.Run(mode.String(), func(t *testing.T) {
			setAware(t, mode)
			shapes := [][]int{{7}, {5, 3}, {3, 0}, {2, 5, 3}}
			if testing.Short() {
				shapes = [][]int{{5, 3}, {2, 5, 3}}
			}
			for _, shape := range shapes {
				want := refValues(shape)
				// Every layout but the grids of gridCases other than the
				// DimsCreate grid and the uneven one (TestGridRedistribute
				// has them all, on the CPU).
				var targets []dist.Layout
				for _, l := range layoutTargets(shape, c.Size()) {
					if l.Axis() != dist.Grid {
						targets = append(targets, l)
					}
				}
				gc := gridCases(shape, c.Size())
				for _, g := range gc[len(gc)-2:] {
					targets = append(targets, dist.NewGridLayoutCounts(shape, g.counts))
				}
				for _, from := range targets {
					for _, to := range targets {
						if from.Axis() != dist.Grid && to.Axis() != dist.Grid {
							continue // TestDeviceRedistribute's
						}
						t.Run(fmt.Sprintf("%v/%v-%v", shape, from, to), func(t *testing.T) {
							x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) },
								append(optionsFor(from), dist.OnBackend(fakedev.Default))...)
							if err != nil {
								t.Fatal(err)
							}
							defer x.Free()
							var w transfers
							if mode == staged && from.Axis() != dist.Replicated && (to.Axis() == dist.Replicated || changesRank(from, to)) {
								w = toHost(int64(8 * from.LocalLen(me))).plus(toDevice(int64(8 * to.LocalLen(me))))
							}
							var y *dist.Array[float64]
							expectCopies(t, "Redistribute", w, func() (err error) {
								y, err = dist.Redistribute(x, to)
								return err
							})
							defer y.Free()
							if y.Device() != fakedev.Default.Device() || !y.Layout().Equal(to) {
								t.Fatalf("Redistribute made %v on %v, want %v on the fake device", y.Layout(), y.Device(), to)
							}
							got, err := dist.Allgather(y)
							mpitest.Check(t, c, err == nil && slices.Equal(got, want), "Redistribute %v to %v: %v (%v), want %v", from, to, got, err, want)
						})
					}
				}
			}
		})
	}
}

// TestDeviceGridGatherScatter checks Gather, Allgather, Scatter, Get and an
// axis reduction of grid arrays on the fake device: the serial array's
// values, and between host and device only what staging needs (as
// TestDeviceGatherScatter says).
func TestDeviceGridGatherScatter(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	slowDevice(t)
	for _, mode := range []awareMode{staged, aware} {
		t.Run(mode.String(), func(t *testing.T) {
			setAware(t, mode)
			for _, shape := range [][]int{{7}, {5, 3}, {1, 4}, {3, 0}, {3, 4, 5}} {
				want := refValues(shape)
				for _, g := range gridCases(shape, c.Size()) {
					t.Run(fmt.Sprintf("%v/%s", shape, g.name), func(t *testing.T) {
						x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, g.opt, dist.OnBackend(fakedev.Default))
						if err != nil {
							t.Fatal(err)
						}
						defer x.Free()
						block := int64(8 * x.Layout().LocalLen(me))
						out, in := toHost(block), toDevice(block)
						if mode == aware {
							out, in = transfers{}, transfers{}
						}
						var gathered, all []float64
						expectCopies(t, "Gather", out, func() (err error) {
							gathered, err = dist.Gather(x, 0)
							return err
						})
						expectCopies(t, "Allgather", out, func() (err error) {
							all, err = dist.Allgather(x)
							return err
						})
						mpitest.Check(t, c, slices.Equal(all, want) && (me != 0 || slices.Equal(gathered, want)), "Gather %v, Allgather %v, want %v", gathered, all, want)

						root := c.Size() - 1
						var data []float64
						if me == root {
							data = want
						}
						var y *dist.Array[float64]
						expectCopies(t, "Scatter", in, func() (err error) {
							y, err = dist.Scatter(c, root, data, shape, g.opt, dist.OnBackend(fakedev.Default))
							return err
						})
						defer y.Free()
						if y.Device() != fakedev.Default.Device() {
							t.Fatalf("Scatter made an array on %v", y.Device())
						}
						checkGridArray(t, c, y, shape, g, want)

						if len(want) == 0 {
							return
						}
						for _, i := range slices.Compact([]int{0, len(want) / 2, len(want) - 1}) {
							idx := dist.Unravel(i, shape)
							var w transfers
							if x.Layout().OwnerOf(idx) == me {
								w = toHost(8)
							}
							var v float64
							expectCopies(t, fmt.Sprintf("Get%v", idx), w, func() (err error) {
								v, err = dist.Get(x, idx...)
								return err
							})
							mpitest.Check(t, c, v == want[i], "Get%v = %v, want %v", idx, v, want[i])
						}

						// SumAxis along the last axis, through the
						// redistribution, stays on the device.
						ax := len(shape) - 1
						s, err := dist.SumAxis(x, ax)
						if err != nil {
							t.Fatal(err)
						}
						defer s.Free()
						if s.Device() != fakedev.Default.Device() {
							t.Fatalf("SumAxis made an array on %v", s.Device())
						}
						gs, err := dist.Allgather(s)
						n := shape[ax]
						ok := err == nil && len(gs)*max(n, 1) == max(len(want), len(gs))
						for o := 0; ok && o < len(gs); o++ {
							sum := 0.0
							for k := 0; k < n; k++ {
								sum += want[o*n+k]
							}
							ok = math.Abs(gs[o]-sum) <= 1e-12*(1+math.Abs(sum))
						}
						mpitest.Check(t, c, ok, "SumAxis(%d) of %v: %v (%v)", ax, shape, gs, err)
					})
				}
			}
		})
	}
}
