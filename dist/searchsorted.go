package dist

import (
	"fmt"
	"sort"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Side says which of equal elements Searchsorted places a value before or
// after, as NumPy's side argument.
type Side int

const (
	// SideLeft gives the first suitable index: the number of elements of a
	// less than the value (NumPy's side="left", the default).
	SideLeft Side = iota
	// SideRight gives the last suitable index: the number of elements of a
	// less than or equal to the value (NumPy's side="right").
	SideRight
)

func (s Side) String() string {
	switch s {
	case SideLeft:
		return "left"
	case SideRight:
		return "right"
	}
	return fmt.Sprintf("Side(%d)", int(s))
}

// Searchsorted returns, for every element of v, the index at which it
// would be inserted into a to keep a sorted, as NumPy's searchsorted(a, v,
// side): an int64 array of v's shape and layout (without ghost layers). a
// is 1-D, split along its axis or replicated, with any block sizes, and
// sorted ascending in NumPy's order (NaNs last, as NumPy's sort and
// dist.Sort put them); as in NumPy, an a that is not sorted gives indices without
// meaning, unchecked. v may have any shape and layout, on a's
// communicator. It is collective.
//
// a is not gathered: an all-gather of each rank's first and last element
// and block length (3p values) tells every rank which rank's block holds
// the insertion point of each of its values (at most one rank can: the
// others' blocks lie wholly below or above the value); the values whose
// point lies inside another rank's block go to that rank in one
// all-to-all, it finds them by binary search, and one all-to-all of
// indices answers (at most the values, |v|/p per rank if v is even, each
// way). A replicated a needs no communication. It panics if a is not 1-D,
// if the arrays are on different communicators, or for another Side.
func Searchsorted[T backend.Element](a, v *Array[T], side Side) (*Array[int64], error) {
	if a.freed || v.freed {
		return nil, freedCollective("Searchsorted", a.comm)
	}
	if d := a.layout.Dims(); d != 1 {
		panic(fmt.Sprintf("dist: Searchsorted in a %d-dimensional array %v: a must be 1-D", d, a.layout))
	}
	if a.comm != v.comm {
		panic("dist: Searchsorted of arrays on different communicators")
	}
	if side != SideLeft && side != SideRight {
		panic(fmt.Sprintf("dist: Searchsorted with side %v: use SideLeft or SideRight", side))
	}
	if err := check("Searchsorted", a, mpi.Arg{Name: "side", Value: int64(side)}); err != nil {
		return nil, err
	}
	c := a.comm
	block, err := hostCopy(a.local)
	var vals []T
	if err == nil {
		vals, err = hostCopy(v.local)
	}
	if err := agreeStep(c, "Searchsorted", err); err != nil {
		return nil, err
	}
	// before reports whether element e of a goes before value w: the
	// elements before w are a prefix of the sorted a.
	before := func(e, w T) bool { return npCompare(e, w) < 0 }
	if side == SideRight {
		before = func(e, w T) bool { return npCompare(e, w) <= 0 }
	}
	count := func(s []T, w T) int64 {
		return int64(sort.Search(len(s), func(i int) bool { return !before(s[i], w) }))
	}
	out := make([]int64, len(vals))
	if a.layout.axis == Replicated {
		for i, w := range vals {
			out[i] = count(block, w)
		}
		return fromHost(c, v.layout, v.local.Backend(), out)
	}

	p, me := c.Size(), c.Rank()
	var first, last T
	if len(block) > 0 {
		first, last = block[0], block[len(block)-1]
	}
	firsts, lasts := make([]T, p), make([]T, p)
	if err := mpi.Allgather(c, []T{first}, firsts); err != nil {
		return nil, err
	}
	if err := mpi.Allgather(c, []T{last}, lasts); err != nil {
		return nil, err
	}
	lens := a.layout.counts
	starts := prefix(lens)
	var ne []int // the ranks with elements, in order
	for r := range p {
		if lens[r] > 0 {
			ne = append(ne, r)
		}
	}
	var dest []int
	var ask []T
	var asked []int // the positions in vals of the values asked
	for i, w := range vals {
		// The last rank whose first element goes before w.
		k := sort.Search(len(ne), func(j int) bool { return !before(firsts[ne[j]], w) }) - 1
		switch {
		case k < 0:
			out[i] = 0
		case before(lasts[ne[k]], w):
			out[i] = int64(starts[ne[k]+1])
		case ne[k] == me:
			out[i] = int64(starts[me]) + count(block, w)
		default:
			dest = append(dest, ne[k])
			ask = append(ask, w)
			asked = append(asked, i)
		}
	}
	got, from, err := route(c, dest, ask, 1)
	if err != nil {
		return nil, err
	}
	reply := make([]int64, len(got))
	for j, w := range got {
		reply[j] = int64(starts[me]) + count(block, w)
	}
	ans, err := routeBack(c, dest, from, reply, 1)
	if err != nil {
		return nil, err
	}
	for j, i := range asked {
		out[i] = ans[j]
	}
	return fromHost(c, v.layout, v.local.Backend(), out)
}
