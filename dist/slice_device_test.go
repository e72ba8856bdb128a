package dist_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// shapeOp is one slicing or shape operation of the device tests: it makes
// its inputs with opts (the backend) and returns its result, and says
// whether it communicates (else no host copy at all is allowed).
type shapeOp struct {
	name  string
	run   func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64]
	comm  bool
	fresh bool // the result is a new array (else x itself, or a view)
}

func shapeOps(c mpi.Comm) []shapeOp {
	p := c.Size()
	split := p > 1
	var ops []shapeOp
	for _, sc := range []sliceCase{sliceCases[2], sliceCases[9], sliceCases[13], sliceCases[15], sliceCases[16]} {
		for _, l := range []sliceLayout{{0, true}, {len(sc.shape) - 1, false}, {dist.Replicated, false}} {
			outShape, _ := selectRef(sc.shape, sc.ranges)
			ops = append(ops, shapeOp{
				name:  fmt.Sprintf("Slice%v%v/%v", sc.shape, sc.ranges, l),
				comm:  split && l.axis != dist.Replicated,
				fresh: true,
				run: func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
					x := sliceArray(t, c, sc.shape, l, ref, opts...)
					defer x.Free()
					var y *dist.Array[float64]
					timed(func() (err error) { y, err = dist.Slice(x, sc.ranges...); return err })
					return y
				},
			}, shapeOp{
				name: fmt.Sprintf("SetSlice%v%v/%v", sc.shape, sc.ranges, l),
				comm: split,
				run: func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
					x := sliceArray(t, c, sc.shape, l, ref, opts...)
					v := sliceArray(t, c, outShape, sliceLayout{0, false}, func(i int) float64 { return 1000 + float64(i) }, opts...)
					defer v.Free()
					timed(func() error { return dist.SetSlice(x, sc.ranges, v) })
					return x
				},
			}, shapeOp{
				name: fmt.Sprintf("SetSliceScalar%v%v/%v", sc.shape, sc.ranges, l),
				run: func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
					x := sliceArray(t, c, sc.shape, l, ref, opts...)
					timed(func() error { dist.SetSliceScalar(x, sc.ranges, -7); return nil })
					return x
				},
			})
		}
	}
	for _, rc := range []struct {
		from, to    []int
		l           sliceLayout
		comm, fresh bool
	}{
		{[]int{6, 4}, []int{12, 2}, sliceLayout{0, false}, false, false}, // a view
		{[]int{6, 4}, []int{3, 8}, sliceLayout{0, true}, !wholeRows(sliceUneven(6, p), 4, 8), !wholeRows(sliceUneven(6, p), 4, 8)},
		{[]int{3, 4, 5}, []int{5, 12}, sliceLayout{2, false}, split, true},
		{[]int{5, 3}, []int{15}, sliceLayout{dist.Replicated, false}, false, false},
	} {
		ops = append(ops, shapeOp{
			name:  fmt.Sprintf("Reshape%v-%v/%v", rc.from, rc.to, rc.l),
			comm:  rc.comm,
			fresh: rc.fresh,
			run: func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
				x := sliceArray(t, c, rc.from, rc.l, ref, opts...)
				var y *dist.Array[float64]
				timed(func() (err error) { y, err = dist.Reshape(x, rc.to...); return err })
				return y // x's memory, for a view, is not freed
			},
		})
	}
	for _, shape := range [][]int{{5, 3}, {2, 9}, {1, 4}} {
		for _, l := range sliceLayouts(shape) {
			ops = append(ops, shapeOp{
				name:  fmt.Sprintf("Transpose%v/%v", shape, l),
				comm:  split && l.axis != dist.Replicated,
				fresh: true,
				run: func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
					x := sliceArray(t, c, shape, l, ref, opts...)
					defer x.Free()
					var y *dist.Array[float64]
					timed(func() (err error) { y, err = dist.Transpose(x); return err })
					return y
				},
			})
		}
	}
	for _, axis := range []int{0, 1} {
		ops = append(ops, shapeOp{
			name:  fmt.Sprintf("Concatenate/%d", axis),
			comm:  split,
			fresh: true,
			run: func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
				a := sliceArray(t, c, []int{3, 2}, sliceLayout{0, true}, ref, opts...)
				defer a.Free()
				b := sliceArray(t, c, []int{3, 2}, sliceLayout{1, false}, func(i int) float64 { return 100 + ref(i) }, opts...)
				defer b.Free()
				d := sliceArray(t, c, []int{3, 2}, sliceLayout{dist.Replicated, false}, func(i int) float64 { return 200 + ref(i) }, opts...)
				defer d.Free()
				var y *dist.Array[float64]
				timed(func() (err error) { y, err = dist.Concatenate(axis, a, b, d); return err })
				return y
			},
		})
	}
	for _, bc := range broadcastCases {
		ops = append(ops, shapeOp{
			name: fmt.Sprintf("Broadcast%v-%v", bc.shape, bc.bshape),
			run: func(t *testing.T, c mpi.Comm, opts []dist.Option, timed func(func() error)) *dist.Array[float64] {
				x := sliceArray(t, c, bc.shape, sliceLayout{0, true}, ref, opts...)
				b := sliceArray(t, c, bc.bshape, sliceLayout{dist.Replicated, false}, func(i int) float64 { return 3 + float64(i) }, opts...)
				defer b.Free()
				timed(func() error { return dist.Broadcast(backend.Sub, x, b, x) })
				return x
			},
		})
	}
	return ops
}

// wholeRows reports whether blocks of counts rows of xrow elements each
// start and end on whole rows of row elements.
func wholeRows(counts []int, xrow, row int) bool {
	start := 0
	for _, k := range counts {
		if (start*xrow)%row != 0 || (k*xrow)%row != 0 {
			return false
		}
		start += k
	}
	return true
}

// TestDeviceSlice runs the slicing and shape operations on the fake
// device, with MPI told it is CUDA-aware or not, and on the fake device
// without its optional interfaces ("plain", as CUDA): the CPU's results,
// on the device, and between host and device nothing with a CUDA-aware
// MPI or with nothing to send, and at most one staging copy each way (the
// packed parts to the host, the received parts to the device) when not.
func TestDeviceSlice(t *testing.T) {
	c := mpitest.World(t)
	slowDevice(t)
	for _, mode := range []string{"staged", "aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			for _, op := range shapeOps(c) {
				t.Run(op.name, func(t *testing.T) {
					cpuY := op.run(t, c, nil, func(f func() error) {
						if err := f(); err != nil {
							t.Fatal(err)
						}
					})
					want := gatherAll(t, cpuY)
					var rec transfers
					var dev fakedev.Counts
					var live int64
					y := op.run(t, c, []dist.Option{dist.OnBackend(b)}, func(f func() error) {
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
					if y.Device() != fakedev.Default.Device() {
						t.Fatalf("result on %v", y.Device())
					}
					if want := int64(8 * y.Local().Len()); (op.fresh && live != want) || (!op.fresh && live != 0) {
						t.Errorf("device bytes live grew by %d (a new result of %d bytes: %v): a temporary leaked", live, want, op.fresh)
					}
					gotY := gatherAll(t, y)
					mpitest.Check(t, c, slices.Equal(gotY, want), "on the device %v, on the CPU %v", gotY, want)
					if dev.ToHost != rec.toHost || dev.ToDevice != rec.toDevice || dev.ToHostBytes != rec.toHostBytes || dev.ToDeviceBytes != rec.toDeviceBytes {
						t.Errorf("the device made %v, recorded %+v", dev, rec)
					}
					if mode != "staged" || !op.comm {
						if rec.toHost != 0 || rec.toDevice != 0 {
							t.Errorf("host copies %+v, want none", rec)
						}
					} else if rec.toHost > 1 || rec.toDevice > 1 {
						t.Errorf("host copies %+v, want at most one each way", rec)
					}
				})
			}
		})
	}
}
