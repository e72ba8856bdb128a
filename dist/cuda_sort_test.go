//go:build cgo

package dist_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// takeCounter is the CUDA backend with its Take counted, so that a test
// sees that dist's packs of short runs used the device's gather.
type takeCounter struct {
	*cuda.Backend
	takes *atomic.Int64
}

func (b takeCounter) Take(dst, src backend.Buffer, pos []int) {
	b.takes.Add(1)
	b.Backend.Take(dst, src, pos)
}

// TestDeviceSortCUDA checks that dist.Sort of CUDA arrays sorts, cuts and
// merges on the device (the CUDA backend's backend.Sorter, sort.cu), and
// that the slicing, shape and Redistribute operations pack and unpack
// short runs with its Take: with a CUDA-aware MPI they record no copy
// between host and device (but, for float keys, the read of the first
// element of a sorted block, and of the block where it starts with NaNs,
// which the sort then moves to the end), and their results are the stable sort of the
// input on the host (sorts: the keys bit for bit, NaN payloads and the
// sign of zeros included, and the permutation) and those of the same
// operations on CPU arrays (slicing). Sorts of sizes 0, 1, 3, 17 and
// 1000 (fewer elements than ranks, empty blocks, everything on one rank,
// replicated), of NaN, ±0, ±Inf and equal keys, for float64, float32,
// int64 and uint32. It skips where any rank has no CUDA device; the fake
// CUDA driver of backend/cuda's tests counts as one (see
// TestDeviceStatsCUDA).
func TestDeviceSortCUDA(t *testing.T) {
	c := mpitest.World(t)
	b := cudaOrSkip(t, c)
	setAware(t, aware)
	t.Run("sort", func(t *testing.T) {
		deviceSortCUDA[float64](t, c, b, true)
		deviceSortCUDA[float32](t, c, b, false)
		deviceSortCUDA[int64](t, c, b, false)
		deviceSortCUDA[uint32](t, c, b, false)
	})
	t.Run("slice", func(t *testing.T) { deviceSliceCUDA(t, c, b.(*cuda.Backend)) })
}

// deviceSortCUDA sorts inputs of T on the CUDA backend b at every layout
// of sortLayouts and replicated, with and without the index, and compares
// the result with the stable sort of the input on the host (refSortPerm:
// slices.SortStableFunc in NumPy's order, npOrder): every input of sortInputs for
// n = 1000 if all, else its last (NaNs for floats, few distinct keys for
// integers).
func deviceSortCUDA[T sortElem](t *testing.T, c mpi.Comm, b backend.Backend, all bool) {
	me, p := c.Rank(), c.Size()
	for _, n := range []int{0, 1, 3, 17, 1000} {
		var e errs // checked once per size: few collectives
		names, inputs := sortInputs[T](n)
		if !all || n != 1000 {
			names, inputs = names[len(names)-1:], inputs[len(inputs)-1:]
		}
		lnames, lopts := sortLayouts(n, p)
		lnames = append(lnames, "replicated")
		lopts = append(lopts, []dist.Option{dist.SplitAxis(dist.Replicated)})
		for k, in := range inputs {
			for l := range lnames {
				for _, withIndex := range []bool{false, true} {
					name := fmt.Sprintf("%T n=%d %s/%s/index=%v", in[:0], n, names[k], lnames[l], withIndex)
					x, err := dist.FromFunc(c, []int{n}, func(idx []int) T { return in[idx[0]] }, append(lopts[l], dist.OnBackend(b))...)
					if err != nil {
						t.Fatal(err)
					}
					var res dist.SortResult[T]
					cnt := profiling.Counting(func() { res, err = dist.SortWithOptions(x, dist.SortOptions{WithIndex: withIndex}) })
					x.Free()
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					// Floats: the first element of a sorted block is read, to
					// see whether it starts with NaNs, and then the block
					// where it does (RollFlat moves them to the end with the
					// CUDA-aware MPI: no copy).
					want := 0
					if lo, hi := res.Sorted.Range(); isFloat[T]() && hi > lo {
						want++
						nan := 0
						for _, v := range in {
							if v != v {
								nan++
							}
						}
						if res.Sorted.Layout().Axis() == dist.Replicated {
							lo = 0
						}
						if lo < nan {
							want++
						}
					}
					if w := got(cnt); w.toHost != want || w.toDevice != 0 {
						e.add("%s: recorded %d copies to the host and %d to the device, want %d and none", name, w.toHost, w.toDevice, want)
					}
					if d := res.Sorted.Device(); d != b.Device() || (withIndex && res.Index.Device() != b.Device()) {
						e.add("%s: result on %v, want %v", name, d, b.Device())
					}
					out, err := dist.Allgather(res.Sorted)
					if err != nil {
						t.Fatal(err)
					}
					res.Sorted.Free()
					ref := refSortPerm(in)
					ok := len(out) == n
					for i := 0; ok && i < n; i++ {
						ok = sortBits(out[i]) == sortBits(in[ref[i]])
					}
					var perm []int64
					if withIndex {
						if perm, err = dist.Allgather(res.Index); err != nil {
							t.Fatal(err)
						}
						res.Index.Free()
						ok = ok && slices.Equal(perm, ref)
					}
					if !ok {
						e.add("%s: sorted %v (permutation %v) on CUDA, want the order %v of %v", name, out, perm, ref, in)
					}
				}
			}
		}
		e.check(t, c, fmt.Sprintf("rank %d: sort of %d", me, n))
	}
}

// deviceSliceCUDA runs the slicing and shape operations of the fake
// device's TestDeviceSlice (shapeOps), and a Redistribute of complex128
// from rows to columns, on CUDA arrays: the CPU's results, no copy between
// host and device, and Take used for the packs of short runs.
func deviceSliceCUDA(t *testing.T, c mpi.Comm, cb *cuda.Backend) {
	b := takeCounter{cb, new(atomic.Int64)}
	noCopies := func(e *errs, what string, f func() error) {
		var err error
		w := got(profiling.Counting(func() { err = f() }))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if w.toHost != 0 || w.toDevice != 0 {
			e.add("%s: recorded %d copies to the host and %d to the device, want none", what, w.toHost, w.toDevice)
		}
	}
	for _, op := range shapeOps(c) {
		var e errs
		cpuY := op.run(t, c, nil, func(f func() error) {
			if err := f(); err != nil {
				t.Fatal(err)
			}
		})
		want := gatherAll(t, cpuY)
		y := op.run(t, c, []dist.Option{dist.OnBackend(b)}, func(f func() error) { noCopies(&e, op.name, f) })
		if y.Device() != cb.Device() {
			e.add("%s: result on %v", op.name, y.Device())
		}
		if g := gatherAll(t, y); !slices.Equal(g, want) {
			e.add("%s: %v on CUDA, %v on the CPU", op.name, g, want)
		}
		e.check(t, c, fmt.Sprintf("rank %d: %s", c.Rank(), op.name))
	}

	// Redistribute of complex128 from rows to columns: the packs are runs
	// of a row's part in a column block, short where the ranks are many.
	var e errs
	for _, shape := range [][]int{{7, 5}, {3, 11}, {1, 2}, {0, 4}} {
		what := fmt.Sprintf("Redistribute complex128 %v", shape)
		val := func(idx []int) complex128 { return complex(float64(idx[0]*100+idx[1]), -float64(idx[1])-0.5) }
		var res [2][]complex128
		for i, on := range []backend.Backend{cpu.Default, b} {
			x, err := dist.FromFunc(c, shape, val, dist.SplitAxis(0), dist.OnBackend(on))
			if err != nil {
				t.Fatal(err)
			}
			var y *dist.Array[complex128]
			f := func() (err error) {
				y, err = dist.Redistribute(x, dist.NewLayout(shape, 1, c.Size()))
				return err
			}
			if i == 1 {
				noCopies(&e, what, f)
			} else if err := f(); err != nil {
				t.Fatal(err)
			}
			if res[i], err = dist.Allgather(y); err != nil {
				t.Fatal(err)
			}
			x.Free()
			y.Free()
		}
		if !slices.Equal(res[0], res[1]) {
			e.add("%s: %v on CUDA, %v on the CPU", what, res[1], res[0])
		}
	}
	takes, err := mpi.AllreduceValue(c, b.takes.Load(), mpi.Sum)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rank %d: %d Take calls (%d on all ranks)", c.Rank(), b.takes.Load(), takes)
	if takes == 0 {
		e.add("no rank gathered short runs with Take")
	}
	e.check(t, c, fmt.Sprintf("rank %d: Redistribute", c.Rank()))
}
