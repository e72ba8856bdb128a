package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// FromLocal returns the distributed array of layout l over c whose block on
// this rank is local, without copying: the array and local share memory.
// It is how memory that something else allocated (a block staged to the
// host, a PETSc Vec's array, a C library's buffer wrapped with
// backend.Wrap) becomes a dist.Array.
//
// The caller keeps the memory's ownership and lifetime: the memory must
// stay valid while the array is used. The array's Free calls local.Free,
// which for memory wrapped with backend.Wrap releases nothing (the CPU
// backend leaves host memory to its owner or the garbage collector), so
// freeing such an array never frees another library's memory.
//
// It panics if l is not a layout over c's ranks or local's length is not
// l.LocalLen of this rank. It is not collective: each rank passes its own
// block, and the blocks of all ranks together make the array.
func FromLocal[T backend.Numeric](c mpi.Comm, l Layout, local *backend.Array[T]) *Array[T] {
	l.mustBeValid("FromLocal", c.Size())
	if local == nil {
		panic("dist: FromLocal with a nil block")
	}
	if local.Freed() {
		panic(freedError("FromLocal"))
	}
	if n := l.LocalLen(c.Rank()); local.Len() != n {
		panic(fmt.Sprintf("dist: FromLocal: a block of %d elements where rank %d of %v holds %d", local.Len(), c.Rank(), l, n))
	}
	return &Array[T]{comm: c, layout: l, local: local}
}
