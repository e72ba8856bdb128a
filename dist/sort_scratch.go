package dist

import (
	"runtime"
	"sync"
	"weak"

	"github.com/xpmpi/xpmpi/backend"
)

// Scratch space that SortInto keeps with its destination.
//
// A host sort of keys alone needs scratch space of about its block: a
// buffer of the block's length for an in-place sort at one rank (or of a
// replicated array), and on more ranks one for the sorted block and the
// merged pieces and one for the pieces received, each about 1.1 blocks.
// The system maps fresh memory page by page as it is first touched, and
// Go's runtime returns free heap memory to the system in the background,
// so the scratch of one sort, freed, is fresh memory again for a sort a
// second later. Page faults are costly: 15-45 us each in the virtual
// machine the bench runs in, where the 16,384 faults of 64 MiB of fresh
// scratch took longer than the sort of 2^23 keys itself.
//
// So SortInto keeps the host scratch space of its sort with dst, for the
// next SortInto into dst, as a C programmer keeps a buffer beside an
// array that is sorted again and again. What is kept is what one sort
// into dst needed (a block at one rank in place, none out of place, up
// to two and a quarter blocks on more ranks); it grows only when a sort
// needs more (uneven inputs on more ranks), and it is released when dst
// becomes unreachable (a cleanup drops it), as the host memory of dst's
// own block is (Free leaves both to the garbage collector). Sort,
// SortWithIndex and SortWithOptions keep
// nothing: their result is new memory anyway. Sorts on a device, and with
// a permutation, keep nothing either.

// sortScratch is the host scratch space kept with one destination array.
// One sort at a time uses it (mu).
type sortScratch[T backend.Element] struct {
	mu   sync.Mutex
	a, b []T
}

// sortScratches maps the weak pointer of a destination *Array[T] (as any)
// to its *sortScratch[T].
var sortScratches sync.Map

// lockSortScratch returns dst's scratch space, locked: the caller unlocks
// it when its sort is done. It returns nil if another sort holds it (two
// sorts into one array at once, which the caller then serves with fresh
// memory).
func lockSortScratch[T backend.Element](dst *Array[T]) *sortScratch[T] {
	k := weak.Make(dst)
	v, ok := sortScratches.Load(k)
	if !ok {
		var loaded bool
		v, loaded = sortScratches.LoadOrStore(k, new(sortScratch[T]))
		if !loaded {
			runtime.AddCleanup(dst, func(k weak.Pointer[Array[T]]) { sortScratches.Delete(k) }, k)
		}
	}
	s := v.(*sortScratch[T])
	if !s.mu.TryLock() {
		return nil
	}
	return s
}

// unlock ends a sort's use of s (nil for none).
func (s *sortScratch[T]) unlock() {
	if s != nil {
		s.mu.Unlock()
	}
}

// bufA and bufB return the first n elements of s's buffer a or b, which
// they first replace by a new buffer of max(n, room) elements if it holds
// fewer than n: the old contents are lost. With a nil s they return a new
// slice of n elements.
func (s *sortScratch[T]) bufA(n, room int) []T {
	if s == nil {
		return make([]T, n)
	}
	return growScratch(&s.a, n, room)
}

func (s *sortScratch[T]) bufB(n, room int) []T {
	if s == nil {
		return make([]T, n)
	}
	return growScratch(&s.b, n, room)
}

// growScratch returns the first n elements of *buf, replaced first by a
// new buffer of max(n, room) elements if it holds fewer than n.
func growScratch[T any](buf *[]T, n, room int) []T {
	if cap(*buf) < n {
		*buf = nil // the old buffer may go before the new one is made
		*buf = make([]T, max(n, room))
	}
	return (*buf)[:n]
}
