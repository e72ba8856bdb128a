package dist_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// sortedLayout returns the layout of the sort of an array of n elements
// laid out by x: the even split, or x's if it is replicated.
func sortedLayout(c mpi.Comm, x dist.Layout, n int) dist.Layout {
	if x.Axis() == dist.Replicated {
		return x
	}
	return dist.NewLayout([]int{n}, 0, c.Size())
}

// checkSortedInto checks that dst holds in (the whole input, the same on
// every rank) in NumPy's order (npOrder: NaNs last), ties by index, and that the
// stats are those of Sort of the same array. Every rank makes the same
// collective calls whatever fails.
func checkSortedInto[T sortElem](t *testing.T, c mpi.Comm, name string, in []T, dst *dist.Array[T], st, want dist.SortStats) {
	t.Helper()
	out, err := dist.Allgather(dst)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ref := refSortPerm(in)
	ok, at := len(out) == len(in), -1
	for i := 0; ok && i < len(in); i++ {
		if ok = sortBits(out[i]) == sortBits(in[ref[i]]); !ok {
			at = i
		}
	}
	mpitest.Check(t, c, ok, "%s: %d elements, first difference from the reference order at %d", name, len(out), at)
	if fmt.Sprint(st) != fmt.Sprint(want) {
		t.Errorf("%s: stats %+v, Sort's %+v", name, st, want)
	}
}

// sortIntoCase sorts in, laid out by opts, with SortInto into a new array
// and, where the layout allows it, in place, and checks both.
func sortIntoCase[T sortElem](t *testing.T, c mpi.Comm, name string, in []T, opts []dist.Option) {
	t.Helper()
	n := len(in)
	fill := func() *dist.Array[T] {
		x, err := dist.FromFunc(c, []int{n}, func(idx []int) T { return in[idx[0]] }, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return x
	}
	x := fill()
	ref, err := dist.SortWithOptions(x, dist.SortOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	l := sortedLayout(c, x.Layout(), n)
	// Into another array, which holds garbage.
	dst, err := dist.Full(c, []int{n}, T(3), dist.SplitAxis(l.Axis()))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	st, err := dist.SortInto(dst, x)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkSortedInto(t, c, name+"/into", in, dst, st, ref.Stats)
	// x unchanged.
	back, err := dist.Allgather(x)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	same := true
	for i := range back {
		same = same && sortBits(back[i]) == sortBits(in[i])
	}
	mpitest.Check(t, c, same, "%s: SortInto changed its source", name)
	// In place, where x has the result's layout.
	if x.Layout().Equal(l) {
		st, err := dist.SortInto(x, x)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkSortedInto(t, c, name+"/in place", in, x, st, ref.Stats)
	}
}

func testSortIntoType[T sortElem](t *testing.T, c mpi.Comm) {
	for _, n := range []int{0, 1, 3, 17, 1000, 5003} {
		names, inputs := sortInputs[T](n)
		lnames, lopts := sortLayouts(n, c.Size())
		lnames = append(lnames, "replicated")
		lopts = append(lopts, []dist.Option{dist.SplitAxis(dist.Replicated)})
		for k, in := range inputs {
			for l := range lnames {
				sortIntoCase(t, c, fmt.Sprintf("n=%d/%s/%s", n, names[k], lnames[l]), in, lopts[l])
			}
		}
	}
}

// TestSortInto sorts into an existing array and in place: every input
// (NaNs and signed zeros, all equal, few distinct), every layout (empty
// blocks, fewer elements than ranks, replicated), four key types.
func TestSortInto(t *testing.T) {
	c := mpitest.World(t)
	t.Run("float64", func(t *testing.T) { testSortIntoType[float64](t, c) })
	t.Run("float32", func(t *testing.T) { testSortIntoType[float32](t, c) })
	t.Run("int32", func(t *testing.T) { testSortIntoType[int32](t, c) })
	t.Run("uint64", func(t *testing.T) { testSortIntoType[uint64](t, c) })
}

// TestSortIntoLarge sorts blocks long enough for the MSD hybrid of
// algorithms.SortKeysTo (2^16 keys per rank at up to 4 ranks): uniform
// keys (W5's), normal ones, and all equal, into another array and in
// place, evenly laid out and not.
func TestSortIntoLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("sorts of 300,007 elements")
	}
	c := mpitest.World(t)
	const n = 300007
	names, f64 := sortInputs[float64](n)
	unif := make([]float64, n)
	for i := range unif {
		unif[i] = float64((uint64(i)*0x9E3779B97F4A7C15)>>11) * 0x1p-53
	}
	lnames, lopts := sortLayouts(n, c.Size())
	sortIntoCase(t, c, "uniform/even", unif, nil)
	sortIntoCase(t, c, "uniform/"+lnames[len(lnames)-1], unif, lopts[len(lopts)-1])
	for k := range f64 {
		if names[k] == "random" || names[k] == "equal" || names[k] == "nan" {
			sortIntoCase(t, c, names[k]+"/even", f64[k], nil)
		}
	}
}

// TestSortIntoPanics checks the arguments SortInto refuses: a destination
// of another layout, of another length, on another device, and a 2-D
// source.
func TestSortIntoPanics(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	x, _ := dist.Zeros[float64](c, []int{7})
	x2, _ := dist.Zeros[float64](c, []int{3, 2})
	short, _ := dist.Zeros[float64](c, []int{6})
	rep, _ := dist.Zeros[float64](c, []int{7}, dist.SplitAxis(dist.Replicated))
	counts := make([]int, p)
	counts[p-1] = 7
	uneven, _ := dist.Zeros[float64](c, []int{7}, dist.BlockSizes(counts))
	dev, _ := dist.Zeros[float64](c, []int{7}, dist.OnBackend(fakedev.Default))
	cases := []struct {
		name, want string
		dst, x     *dist.Array[float64]
	}{
		{"2-D", "1-D", x2, x2},
		{"shorter", "SortInto a result of", short, x},
		{"replicated into split", "SortInto a result of", x, rep},
		{"device", "SortInto of arrays on", dev, x},
	}
	if p > 1 {
		cases = append(cases, struct {
			name, want string
			dst, x     *dist.Array[float64]
		}{"uneven", "SortInto a result of", uneven, x})
	}
	for _, tc := range cases {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "dist: Sort") || !strings.Contains(msg, tc.want) {
					t.Errorf("%s: panic %q, want one with %q", tc.name, msg, tc.want)
				}
			}()
			dist.SortInto(tc.dst, tc.x)
		}()
	}
}

// TestDeviceSortInto sorts fake-device arrays into a device array and in
// place: the result stays on the device, and the copies between host and
// device are those of Sort without the permutation (none when MPI is
// CUDA-aware; the staging copies when it is not; on a backend that cannot
// sort, one copy of the block to the host and one of the result to the
// device), with no array allocated for the result.
func TestDeviceSortInto(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	slowDevice(t)
	for _, mode := range []string{"staged", "aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			for _, n := range []int{0, 1, 3, 17, 1000} {
				inames, inputs := sortInputs[float64](n)
				lnames, lopts := sortLayouts(n, p)
				lnames = append(lnames, "replicated")
				lopts = append(lopts, []dist.Option{dist.SplitAxis(dist.Replicated)})
				// The copies are counted for the input without NaN; with
				// NaNs, the sort also reads the block that starts with them
				// and rolls them to the end (RollFlat's copies).
				for _, ik := range []int{0, len(inputs) - 1} {
					in, counted := inputs[ik], ik == 0
					for l := range lnames {
						for _, inPlace := range []bool{false, true} {
							name := fmt.Sprintf("n=%d/%s/%s/in place=%v", n, inames[ik], lnames[l], inPlace)
							x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return in[idx[0]] }, append(lopts[l], dist.OnBackend(b))...)
							if err != nil {
								t.Fatal(err)
							}
							rl := sortedLayout(c, x.Layout(), n)
							if inPlace && !x.Layout().Equal(rl) {
								x.Free()
								continue
							}
							dst := x
							if !inPlace {
								if dst, err = dist.Zeros[float64](c, []int{n}, dist.SplitAxis(rl.Axis()), dist.OnBackend(b)); err != nil {
									t.Fatal(err)
								}
							}
							block := x.Layout().LocalLen(me)
							var st dist.SortStats
							before := fakedev.Stats()
							cnt := profiling.Counting(func() { st, err = dist.SortInto(dst, x) })
							d := fakedev.Stats().Sub(before)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							g := got(cnt)
							var w transfers
							switch {
							case mode == "plain":
								w = toHost(int64(8 * block)).plus(toDevice(int64(8 * rl.LocalLen(me))))
							case mode == "staged" && x.Layout().Axis() != dist.Replicated && p > 1 && n > 0:
								count := func(n int) int {
									if n > 0 {
										return 1
									}
									return 0
								}
								m := st.Received[me]
								w.toHost = 2*count(block) + count(m)
								w.toDevice = count(m) + count(rl.LocalLen(me))
							}
							// The first element of the sorted block, read to see
							// whether it starts with NaNs.
							if rl.LocalLen(me) > 0 {
								w = w.plus(toHost(8))
							}
							if counted && (g.toHost != w.toHost || g.toDevice != w.toDevice || (mode == "plain" && (g.toHostBytes != w.toHostBytes || g.toDeviceBytes != w.toDeviceBytes))) {
								t.Errorf("%s: recorded %+v, want %+v", name, g, w)
							}
							if d.ToHost != g.toHost || d.ToHostBytes != g.toHostBytes || d.ToDevice != g.toDevice || d.ToDeviceBytes != g.toDeviceBytes {
								t.Errorf("%s: the device made %v, recorded %+v", name, d, g)
							}
							if dst.Device() != fakedev.Default.Device() {
								t.Fatalf("%s: result on %v", name, dst.Device())
							}
							ref, err := dist.SortWithOptions(x0(t, c, in, lopts[l]), dist.SortOptions{})
							if err != nil {
								t.Fatal(err)
							}
							checkSortedInto(t, c, name, in, dst, st, ref.Stats)
							x.Free()
							if !inPlace {
								dst.Free()
							}
						}
					}
				}
			}
		})
	}
}

// x0 returns in laid out by opts on the host.
func x0(t *testing.T, c mpi.Comm, in []float64, opts []dist.Option) *dist.Array[float64] {
	x, err := dist.FromFunc(c, []int{len(in)}, func(idx []int) float64 { return in[idx[0]] }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

var _ backend.Backend = noSorter{}
