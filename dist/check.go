package dist

import (
	"hash/fnv"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// hash returns a hash of the layout, for the checking mode's comparison of
// the ranks' arguments.
func (l Layout) hash() int64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v int) {
		for i := range b {
			b[i] = byte(uint64(v) >> (8 * i))
		}
		h.Write(b[:])
	}
	put(len(l.shape))
	for _, d := range l.shape {
		put(d)
	}
	put(l.axis)
	for _, c := range l.counts {
		put(c)
	}
	for a, g := range l.grid { // a grid layout's blocks
		put(g)
		for _, c := range l.gcounts[a] {
			put(c)
		}
	}
	return int64(h.Sum64())
}

// check verifies, in checking mode, that every rank calls the same dist
// operation on arrays of the same element type and layout. It costs one
// branch when the checking mode is off.
func check[T backend.Numeric](op string, x *Array[T], extra ...mpi.Arg) error {
	dt := backend.DTypeOf[T]()
	args := append([]mpi.Arg{{Name: "dtype", Value: int64(dt), Text: dt.String()}, {Name: "layout", Value: x.layout.hash(), Text: x.layout.String()}}, extra...)
	return mpi.CheckCollective(x.comm, op, args...)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
