package dist_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// indexOp is one indexing operation of the device test, on x: it returns
// its result (x itself where it assigns), and the host copies it makes of
// its own beyond MPI's staging (the indices or the mask, per rank).
type indexOp struct {
	name  string
	run   func(t *testing.T, c mpi.Comm, x *dist.Array[float64], opts []dist.Option, timed func(func() error)) *dist.Array[float64]
	extra int // copies to the host of the indices or the mask
	fresh bool
}

func indexOps() []indexOp {
	res := func(f func(x *dist.Array[float64]) (*dist.Array[float64], error)) func(*testing.T, mpi.Comm, *dist.Array[float64], []dist.Option, func(func() error)) *dist.Array[float64] {
		return func(t *testing.T, c mpi.Comm, x *dist.Array[float64], opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
			var y *dist.Array[float64]
			timed(func() (err error) { y, err = f(x); return err })
			return y
		}
	}
	ops := []indexOp{
		{name: "Roll", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Roll(x, 2, 0) })},
		{name: "RollFlat", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.RollFlat(x, -4) })},
		{name: "Flip", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Flip(x) })},
		{name: "Tile", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Tile(x, 2, 1) })},
		{name: "Repeat", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Repeat(x, []int{2, 0, 1}, 1) })},
		{name: "Pad", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) {
			return dist.Pad(x, [][2]int{{1, 2}, {2, 1}}, "reflect")
		})},
		{name: "PadConstant", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) {
			return dist.PadConstant(x, [][2]int{{1, 0}}, 5)
		})},
		{name: "Diff", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) { return dist.Diff(x, 2, 1) })},
		{name: "Diff axis 0", fresh: true, run: res(func(x *dist.Array[float64]) (*dist.Array[float64], error) {
			return dist.Diff(x, 1, 0, dist.Prepend(1.0))
		})},
		{name: "Take", fresh: true, extra: 1, run: func(t *testing.T, c mpi.Comm, x *dist.Array[float64], opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
			ind, err := dist.FromFunc(c, []int{4}, func(idx []int) int64 { return []int64{4, 0, -1, 2}[idx[0]] }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer ind.Free()
			var y *dist.Array[float64]
			timed(func() (err error) { y, err = dist.Take(x, ind, 0); return err })
			return y
		}},
		{name: "FillWhere", run: func(t *testing.T, c mpi.Comm, x *dist.Array[float64], opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
			m, err := dist.GreaterScalar(x, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Free()
			timed(func() error { return dist.FillWhere(x, m, -1) })
			return x
		}},
		{name: "AssignWhere", extra: 1, run: func(t *testing.T, c mpi.Comm, x *dist.Array[float64], opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
			m, err := dist.GreaterScalar(x, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Free()
			n, err := dist.Sum(m)
			if err != nil {
				t.Fatal(err)
			}
			v, err := dist.FromFunc(c, []int{int(n)}, func(idx []int) float64 { return float64(100 + idx[0]) }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Free()
			timed(func() error { return dist.AssignWhere(x, m, v) })
			return x
		}},
	}
	return ops
}

// TestDeviceIndex runs the indexing operations on the fake device: the
// CPU's results, every host copy recorded, none at all where no rank
// sends another anything but the indices' or the mask's own, and no
// device memory left behind.
func TestDeviceIndex(t *testing.T) {
	c := mpitest.World(t)
	split := c.Size() > 1
	for _, mode := range []string{"staged", "aware", "plain"} {
		b := modeBackend(t, mode)
		for _, op := range indexOps() {
			for _, l := range []sliceLayout{{0, true}, {1, false}, {dist.Replicated, false}} {
				name := fmt.Sprintf("%s/%s/%v", mode, op.name, l)
				shape := []int{5, 3}
				x := sliceArray(t, c, shape, l, func(i int) float64 { return float64(i%7) - 3 })
				cpuY := op.run(t, c, x, nil, func(f func() error) {
					if err := f(); err != nil {
						t.Fatal(err)
					}
				})
				want := gatherAll(t, cpuY)
				cpuY.Free()
				x.Free()
				opts := []dist.Option{dist.OnBackend(b)}
				x = sliceArray(t, c, shape, l, func(i int) float64 { return float64(i%7) - 3 }, opts...)
				var rec transfers
				var dev fakedev.Counts
				var live int64
				y := op.run(t, c, x, opts, func(f func() error) {
					before := fakedev.Stats()
					var err error
					cnt := profiling.Counting(func() { err = f() })
					dev = fakedev.Stats().Sub(before)
					live = fakedev.Stats().LiveBytes - before.LiveBytes
					rec = got(cnt)
					if err != nil {
						t.Fatal(err)
					}
				})
				if y.Device() != b.Device() {
					t.Errorf("%s: result on %v", name, y.Device())
				}
				if w := int64(8 * y.Local().Len()); (op.fresh && live != w) || (!op.fresh && live != 0) {
					t.Errorf("%s: device bytes live grew by %d (a new result of %d bytes: %v): a temporary leaked", name, live, w, op.fresh)
				}
				gotY := gatherAll(t, y)
				mpitest.Check(t, c, slices.Equal(gotY, want), "%s: on the device %v, on the CPU %v", name, gotY, want)
				if dev.ToHost != rec.toHost || dev.ToDevice != rec.toDevice || dev.ToHostBytes != rec.toHostBytes || dev.ToDeviceBytes != rec.toDeviceBytes {
					t.Errorf("%s: the device made %v, recorded %+v", name, dev, rec)
				}
				// A backend without Take ("plain") copies its gathers to the
				// host and back, recorded; the others copy only the indices
				// or the mask, and what MPI stages where MPI is called.
				comm := split && (l.axis != dist.Replicated || op.name == "AssignWhere")
				if mode != "plain" && (mode == "aware" || !comm) && (rec.toHost > op.extra || rec.toDevice != 0) {
					t.Errorf("%s: %d copies to the host and %d to the device, want at most %d and none (the indices or the mask)", name, rec.toHost, rec.toDevice, op.extra)
				}
				if y != x {
					y.Free()
				}
				x.Free()
			}
		}
	}
}
