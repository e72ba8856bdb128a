package dist_test

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
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
		for _, l := range redistributeTargets(shape, c.Size()) {
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

// TestRedistributeInPlaceLent: where x's memory is lent (on the last
// rank), the result gets new memory there and x stays as it is; the other
// ranks move in place and free x.
func TestRedistributeInPlaceLent(t *testing.T) {
	c := mpitest.World(t)
	shape := []int{6, 6}
	x := refArray(t, c, shape, 0)
	want, _ := dist.Allgather(x)
	mine := slices.Clone(x.LocalData())
	lender := c.Rank() == c.Size()-1
	if lender {
		release := x.Lend()
		defer release()
	}
	y, err := dist.RedistributeInPlace(x, dist.NewLayout(shape, 1, c.Size()))
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	got, _ := dist.Allgather(y)
	mpitest.Check(t, c, slices.Equal(got, want), "%v, want %v", got, want)
	if lender {
		mpitest.Check(t, c, !x.Freed() && slices.Equal(x.LocalData(), mine), "the lent array was freed or changed")
	} else {
		mpitest.Check(t, c, x.Freed(), "the input is not freed")
	}
}

// A transpose back and forth in a loop: each move hands the result the
// input's memory, so the loop allocates no array-sized memory after the
// first array.
func ExampleRedistributeInPlace() {
	world := mpi.World()
	shape := []int{4, 4}
	x, _ := dist.FromFunc(world, shape, func(idx []int) float64 {
		return float64(4*idx[0] + idx[1])
	}) // split by rows
	for range 3 {
		cols, err := dist.RedistributeInPlace(x, dist.NewLayout(shape, 1, world.Size()))
		if err != nil {
			panic(err)
		}
		// ... work on whole columns ...
		x, err = dist.RedistributeInPlace(cols, dist.NewLayout(shape, 0, world.Size()))
		if err != nil {
			panic(err)
		}
	}
	all, _ := dist.Allgather(x)
	fmt.Println(all)
	// Output:
	// [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]
}

// TestRedistributeInPlaceEven moves arrays whose blocks keep their length
// on every rank (sides that the rank count divides) between their split
// axes in place, there and back several times: every move is in place,
// and those from a later axis to an earlier one send each peer's part
// straight from the block (one run of it; several peers' parts one run
// where they follow each other), receiving into scratch. The elements
// must be those of the input each time, and the memory the first array's.
func TestRedistributeInPlaceEven(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, shape := range [][]int{{2 * p, 2 * p}, {3 * p, 2, p}, {p, 5, 2 * p}} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			want, _ := dist.Allgather(refArray(t, c, shape, 0))
			x := refArray(t, c, shape, 0)
			mem := unsafe.Pointer(&x.LocalData()[0])
			last := len(shape) - 1
			for i, axis := range []int{last, 0, last, 0} {
				y, err := dist.RedistributeInPlace(x, dist.NewLayout(shape, axis, p))
				if err != nil {
					t.Fatal(err)
				}
				x = y
				got, _ := dist.Allgather(x)
				mpitest.Check(t, c, slices.Equal(got, want), "move %d, to axis %d: %v, want %v", i, axis, got, want)
				mpitest.Check(t, c, unsafe.Pointer(&x.LocalData()[0]) == mem, "move %d, to axis %d: not in place", i, axis)
			}
			x.Free()
		})
	}
}
