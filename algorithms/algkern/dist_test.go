package algkern

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// The functions are not collective: each rank runs them on its own block
// of a dist.Array. TestOnBlocks does that at any number of ranks (1 to 4
// under mpirun), with blocks of uneven sizes, an empty block, and fewer
// elements than ranks, on host blocks and fake-device blocks, and checks
// every rank's result against package algorithms on that rank's part of
// the global data.

// blockCounts returns the block sizes of n elements over p ranks: rank 0
// empty (with more than one rank), the rest split unevenly.
func blockCounts(n, p int) []int {
	counts := make([]int, p)
	if p == 1 {
		counts[0] = n
		return counts
	}
	total, left := p*(p-1)/2, n
	for r := 1; r < p-1; r++ {
		counts[r] = n * r / total
		left -= counts[r]
	}
	counts[p-1] = left
	return counts
}

// scatterBlock returns a dist array of data with the given block sizes on
// b, and this rank's range of it.
func scatterBlock[T backend.Numeric](t *testing.T, c mpi.Comm, b backend.Backend, data []T, counts []int) (*dist.Array[T], int, int) {
	t.Helper()
	a, err := dist.Scatter(c, 0, data, []int{len(data)}, dist.BlockSizes(counts), dist.OnBackend(b))
	if err != nil {
		t.Fatal(err)
	}
	lo := 0
	for r := range c.Rank() {
		lo += counts[r]
	}
	return a, lo, lo + counts[c.Rank()]
}

func TestOnBlocks(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	cpu, err := backend.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []backend.Backend{cpu, fakedev.Default} {
		for _, n := range []int{0, 2, 1001} {
			counts := blockCounts(n, p)
			name := fmt.Sprintf("%v n=%d blocks %v", b.Device(), n, counts)
			lower, upper := [2]float64{-1, 2}, [2]float64{3, -2}
			xs, ys := coords(n, lower[0], upper[0], 12, 0), coords(n, lower[1], upper[1], 12, 1)
			dx, lo, hi := scatterBlock(t, c, b, xs, counts)
			dy, _, _ := scatterBlock(t, c, b, ys, counts)
			m := hi - lo

			// Morton keys of the block.
			keys, err := backend.NewOn[uint64](b, m)
			if err != nil {
				t.Fatal(err)
			}
			err = MortonKeys2(keys, dx.Local(), dy.Local(), lower, upper, 12)
			want := make([]uint64, m)
			algorithms.MortonKeys2(want, xs[lo:hi], ys[lo:hi], lower, upper, 12)
			got := get(t, keys)
			mpitest.Check(t, c, err == nil && slices.Equal(got, want), "%s: MortonKeys2 of the block: %v", name, err)

			// Segment sums of the block's rows by sorted key.
			sorted := slices.Clone(want)
			slices.Sort(sorted)
			segs := make([]int64, m)
			for i, k := range sorted {
				segs[i] = int64(k >> 20) // 16 segments of keys (24 bits)
			}
			vals := make([]float64, m)
			for i := range vals {
				vals[i] = math.Pow(-1.1, float64(i%17)) + float64(i)*1e-3
			}
			sums := make([]float64, 16)
			algorithms.SegmentSum(sums, segs, vals, 1)
			out := put(t, b, make([]float64, 16))
			err = SegmentSum(out, put(t, b, segs), put(t, b, vals), 1)
			gs := get(t, out)
			mpitest.Check(t, c, err == nil && slices.Equal(gs, sums), "%s: SegmentSum of the block: %v (%v, want %v)", name, err, gs, sums)

			// The block's points with a key below half the range.
			mask := make([]uint8, m)
			bools := make([]bool, m)
			for i, k := range want {
				if k < 1<<23 {
					mask[i], bools[i] = 1, true
				}
			}
			wantX := slices.Clone(xs[lo:hi])
			wm := algorithms.Compact(bools, wantX)
			sel := put(t, b, make([]float64, m))
			k, err := Compact(sel, dx.Local(), put(t, b, mask))
			gx := get(t, sel)
			mpitest.Check(t, c, err == nil && k == wm && kerneltest.Compare(wantX[:wm], gx[:k], 0) == nil, "%s: Compact of the block: %v, %d of %d", name, err, k, wm)

			// The gathered keys are the global ones.
			dk := dist.FromLocal(c, dx.Layout(), keys)
			all, err := dist.Gather(dk, 0)
			if err != nil {
				t.Fatal(err)
			}
			if c.Rank() == 0 {
				wantAll := make([]uint64, n)
				algorithms.MortonKeys2(wantAll, xs, ys, lower, upper, 12)
				if !slices.Equal(all, wantAll) {
					t.Errorf("%s: gathered keys differ from algorithms.MortonKeys2 of the whole", name)
				}
			}
			dx.Free()
			dy.Free()
			keys.Free()
		}
	}
}
