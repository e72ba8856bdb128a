package dist_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// refill sets x's block to the elements of in at its global indices.
func refill[T sortElem](x *dist.Array[T], in []T) {
	lo, _ := x.Range()
	copy(x.LocalData(), in[lo:])
}

// testSortIntoRepeated sorts many inputs, in every layout, into one
// destination of n elements, and one array in place again and again, so
// that every sort but the first uses (and may grow) the scratch space kept
// with the destination.
func testSortIntoRepeated[T sortElem](t *testing.T, c mpi.Comm, n int) {
	names, inputs := sortInputs[T](n)
	lnames, lopts := sortLayouts(n, c.Size())
	dst, err := dist.Full(c, []int{n}, T(3))
	if err != nil {
		t.Fatal(err)
	}
	self, err := dist.Zeros[T](c, []int{n})
	if err != nil {
		t.Fatal(err)
	}
	for l := range lnames {
		for k, in := range inputs {
			name := fmt.Sprintf("n=%d/%s/%s", n, names[k], lnames[l])
			x, err := dist.FromFunc(c, []int{n}, func(idx []int) T { return in[idx[0]] }, lopts[l]...)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := dist.SortWithOptions(x, dist.SortOptions{})
			if err != nil {
				t.Fatal(err)
			}
			st, err := dist.SortInto(dst, x)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkSortedInto(t, c, name+"/into one array", in, dst, st, ref.Stats)
			refill(self, in)
			// The stats of the sort of the even layout, which self has.
			if ref, err = dist.SortWithOptions(self, dist.SortOptions{}); err != nil {
				t.Fatal(err)
			}
			if st, err = dist.SortInto(self, self); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkSortedInto(t, c, name+"/in place, one array", in, self, st, ref.Stats)
		}
	}
}

// TestSortIntoRepeated sorts into one array again and again (the scratch
// space kept with it reused and grown), and one array in place again and
// again: every input and layout, with fewer elements than ranks, blocks
// below and above the radix sort's and the MSD hybrid's thresholds.
func TestSortIntoRepeated(t *testing.T) {
	c := mpitest.World(t)
	sizes := []int{0, 1, 3, 1000, 5003}
	if !testing.Short() {
		sizes = append(sizes, 70001*c.Size())
	}
	for _, n := range sizes {
		testSortIntoRepeated[float64](t, c, n)
		testSortIntoRepeated[int32](t, c, n)
	}
}

// sortIntoAllocs returns the bytes that one SortInto(dst, x) allocates,
// on average over three, after one that may allocate its scratch space.
func sortIntoAllocs(t *testing.T, dst, x *dist.Array[float64]) uint64 {
	t.Helper()
	if _, err := dist.SortInto(dst, x); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 3 {
		if _, err := dist.SortInto(dst, x); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / 3
}

// TestSortIntoKeepsScratch checks the policy of sort_scratch.go: a host
// SortInto into an array it sorted into before allocates no scratch space
// of the block's size (into another array and in place, evenly laid out
// and not), and the space kept is released once the array is unreachable.
func TestSortIntoKeepsScratch(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	const n = 1 << 18
	in := make([]float64, n)
	for i := range in {
		in[i] = float64((uint64(i)*0x9E3779B97F4A7C15)>>11) * 0x1p-53
	}
	_, lopts := sortLayouts(n, p)
	for _, opts := range [][]dist.Option{nil, lopts[len(lopts)-1]} {
		x := x0(t, c, in, opts)
		dst, err := dist.Zeros[float64](c, []int{n})
		if err != nil {
			t.Fatal(err)
		}
		block := uint64(8 * len(dst.LocalData()))
		// Less than half a block: the splitters' sample and its sort, the
		// MSD hybrid's tables. At one rank, a sort into another array
		// needs no scratch of the block's size, and the hybrid makes its
		// own for its buckets: at most 2^17 keys.
		limit := block / 2
		if p == 1 {
			limit += 8 << 17
		}
		got := sortIntoAllocs(t, dst, x)
		mpitest.Check(t, c, got < limit, "SortInto of %v into another array allocated %d bytes per call, the block has %d", x.Layout(), got, block)
		if x.Layout().Equal(dst.Layout()) {
			got = sortIntoAllocs(t, x, x)
			mpitest.Check(t, c, got < block/2, "SortInto of %v in place allocated %d bytes per call, the block has %d", x.Layout(), got, block)
		}
	}

	// Released with the array.
	var w weak.Pointer[dist.Array[float64]]
	func() {
		dst, err := dist.Zeros[float64](c, []int{n})
		if err != nil {
			t.Fatal(err)
		}
		w = weak.Make(dst)
		if _, err := dist.SortInto(dst, x0(t, c, in, nil)); err != nil {
			t.Fatal(err)
		}
		mpitest.Check(t, c, dist.SortScratchKept(w), "no scratch kept with an array after a SortInto into it")
	}()
	kept := true
	for end := time.Now().Add(5 * time.Second); kept && time.Now().Before(end); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		kept = dist.SortScratchKept(w)
	}
	mpitest.Check(t, c, !kept, "scratch still kept with an array 5 s after it was dropped (collected: %t)", w.Value() == nil)
}
