package dist

import (
	"encoding/binary"
	"hash"
	"hash/fnv"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// hash returns a hash of the layout, for the checking mode's comparison of
// the ranks' arguments.
func (l Layout) hash() int64 {
	h := fnv.New64a()
	put := func(v int) { putInt(h, v) }
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

// hashInts returns a hash of v (its length and its values, FNV-1a), for
// the checking mode's comparison of the ranks' arguments.
func hashInts(v ...int) int64 {
	h := fnv.New64a()
	putInt(h, len(v))
	for _, x := range v {
		putInt(h, x)
	}
	return int64(h.Sum64())
}

// putInt writes v to h as 8 little-endian bytes.
func putInt(h hash.Hash64, v int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	h.Write(b[:])
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
