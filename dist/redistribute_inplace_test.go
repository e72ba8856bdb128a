package dist_test

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestRedistributeInPlace redistributes every layout of the shapes to
// every split axis and to uneven blocks (everything on the last rank), as
// TestRedistribute, with RedistributeInPlace: the elements must be
// Redistribute's, the input freed, and the result's block x's memory
// exactly on the ranks whose block keeps its length.
func TestRedistributeInPlace(t *testing.T) {
	c := mpitest.World(t)
	forEachLayout(t, func(t *testing.T, shape []int, axis int) {
		want, _ := dist.Allgather(refArray(t, c, shape, axis))
		targets := []dist.Layout{}
		for _, a := range axes(shape) {
			targets = append(targets, dist.NewLayout(shape, a, c.Size()))
		}
		for a := range shape {
			counts := make([]int, c.Size())
			counts[c.Size()-1] = shape[a]
			targets = append(targets, dist.NewLayoutCounts(shape, a, counts))
		}
		for _, l := range targets {
			x := refArray(t, c, shape, axis)
			var before unsafe.Pointer
			if d := x.LocalData(); len(d) > 0 {
				before = unsafe.Pointer(&d[0])
			}
			same := x.Local().Len() == l.LocalLen(c.Rank()) && l.Axis() != dist.Replicated
			y, err := dist.RedistributeInPlace(x, l)
			if err != nil {
				t.Fatal(err)
			}
			mpitest.Check(t, c, x.Freed(), "to %v: the input is not freed", l)
			mpitest.Check(t, c, y.Layout().Equal(l), "layout %v, want %v", y.Layout(), l)
			var after unsafe.Pointer
			if d := y.LocalData(); len(d) > 0 {
				after = unsafe.Pointer(&d[0])
			}
			// An empty block has no memory to compare.
			mpitest.Check(t, c, before == nil || (after == before) == same, "to %v: the result reuses x's memory: %v, want %v", l, after == before, same)
			got, _ := dist.Allgather(y)
			mpitest.Check(t, c, slices.Equal(got, want), "to %v: %v, want %v", l, got, want)
			y.Free()
		}
	})
}

// TestRedistributeInPlaceLent: an array whose memory is lent on one rank
// is refused on every rank, and left as it is.
func TestRedistributeInPlaceLent(t *testing.T) {
	c := mpitest.World(t)
	shape := []int{5, 3}
	x := refArray(t, c, shape, 0)
	want := slices.Clone(x.LocalData())
	if c.Rank() == c.Size()-1 {
		release := x.Lend()
		defer release()
	}
	y, err := dist.RedistributeInPlace(x, dist.NewLayout(shape, 1, c.Size()))
	mpitest.Check(t, c, err != nil && y == nil && strings.Contains(err.Error(), "lent"), "a lent array: %v, %v, want an error that says lent", y, err)
	mpitest.Check(t, c, !x.Freed() && slices.Equal(x.LocalData(), want), "the refused array changed")
}
