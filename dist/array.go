package dist

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Array is a distributed N-dimensional array: a global shape divided among
// the ranks of a communicator by a Layout, each rank holding its block in
// row-major order on its backend. Every function that takes an Array is
// collective unless its documentation says otherwise: all ranks of the
// communicator call it, with arrays of the same layout.
type Array[T backend.Numeric] struct {
	comm   mpi.Comm
	layout Layout
	local  *backend.Array[T]
	lent   atomic.Int32 // loans of the block's memory not yet ended (Lend)
	freed  bool         // Free has run on this rank
	// gh is the ghost exchange of an array made with Ghosts or Periodic
	// (nil for the others): its storage holds the block (local, a view of
	// it) between the ghost layers.
	gh *exchange[T]
}

// Option sets how a new array is laid out and where it lives.
type Option func(*options)

type options struct {
	axis        int
	axisSet     bool // SplitAxis was given
	counts      []int
	grid        []int   // ProcessGrid
	gridCounts  [][]int // GridBlockSizes
	backend     backend.Backend
	ghosts      int   // Ghosts
	ghosted     bool  // Ghosts given
	periodic    bool  // Periodic
	convert     bool  // Load: convert another element type (Convert)
	discardImag bool  // Astype, Load: complex to real keeps the real parts (DiscardImag)
	paxes       []int // PeriodicAxes
}

// SplitAxis splits a new array along axis (default 0), or replicates it on
// every rank with Replicated.
func SplitAxis(axis int) Option { return func(o *options) { o.axis, o.axisSet = axis, true } }

// BlockSizes gives the block size of every rank along the split axis,
// instead of the even split.
func BlockSizes(counts []int) Option { return func(o *options) { o.counts = slices.Clone(counts) } }

// OnBackend puts a new array's blocks on backend b instead of the selected
// one.
func OnBackend(b backend.Backend) Option { return func(o *options) { o.backend = b } }

func buildOptions(c mpi.Comm, shape []int, opts []Option) (Layout, backend.Backend) {
	o := options{axis: 0}
	for _, f := range opts {
		if f != nil { // a nil Option is no option
			f(&o)
		}
	}
	if len(shape) == 0 {
		panic("dist: empty shape: arrays have at least one dimension")
	}
	var l Layout
	if o.gridOptions() {
		l = o.gridLayout(c, shape)
	} else if o.counts != nil {
		if len(o.counts) != c.Size() {
			panic(fmt.Sprintf("dist: %d block sizes for %d ranks", len(o.counts), c.Size()))
		}
		l = NewLayoutCounts(shape, o.axis, o.counts)
	} else {
		l = NewLayout(shape, o.axis, c.Size())
	}
	b := o.backend
	if b == nil {
		b = backend.Current()
	}
	return l, b
}

// backendOption returns the backend that opts choose (OnBackend; the
// selected backend by default) for a constructor whose layout is given:
// SplitAxis and BlockSizes, which make a layout from a shape, panic there.
// Ghosts and Periodic are left to the caller (ghostOptions).
func backendOption(op string, opts []Option) backend.Backend {
	o := options{axis: noAxis}
	for _, f := range opts {
		if f != nil { // a nil Option is no option
			f(&o)
		}
	}
	if o.axis != noAxis || o.counts != nil || o.grid != nil || o.gridCounts != nil {
		panic(fmt.Sprintf("dist: %s with SplitAxis, BlockSizes, ProcessGrid or GridBlockSizes: the layout already says how the array is split (only OnBackend applies)", op))
	}
	if o.backend == nil {
		return backend.Current()
	}
	return o.backend
}

// noAxis marks an options value whose split axis no option set.
const noAxis = -1 << 31

// New returns a zeroed array with layout l, on the backend OnBackend gives
// (the selected backend by default; SplitAxis and BlockSizes, which the
// layout already fixes, panic), with the ghost layers Ghosts and Periodic
// ask for. l must be a layout over c's ranks. If the allocation fails on
// any rank, New returns the same error on every rank. It is collective.
func New[T backend.Numeric](c mpi.Comm, l Layout, opts ...Option) (*Array[T], error) {
	l.mustBeValid("New", c.Size())
	return newGhosted[T](c, l, backendOption("New", opts), ghostOptions(opts))
}

// newOn is New on backend b.
func newOn[T backend.Numeric](c mpi.Comm, l Layout, b backend.Backend) (*Array[T], error) {
	a, err := newLocal[T](c, l, b)
	// An allocation that fails on some ranks fails on all of them.
	if err := mpi.Agree(c, err); err != nil {
		if a != nil {
			a.Free()
		}
		return nil, fmt.Errorf("dist: allocating %v: %w", l, err)
	}
	return a, nil
}

// newLocal allocates this rank's block of a new array, without
// communicating.
func newLocal[T backend.Numeric](c mpi.Comm, l Layout, b backend.Backend) (*Array[T], error) {
	local, err := backend.NewOn[T](b, l.LocalLen(c.Rank()))
	if err != nil {
		return nil, err
	}
	return &Array[T]{comm: c, layout: l, local: local}, nil
}

// Zeros returns a new array of zeros of the global shape.
func Zeros[T backend.Numeric](c mpi.Comm, shape []int, opts ...Option) (*Array[T], error) {
	l, b := buildOptions(c, shape, opts)
	return newGhosted[T](c, l, b, ghostOptions(opts))
}

// ZerosLike returns a new array of zeros with a's layout, communicator,
// backend and ghost layers (width and periodicity; the ghosts are zero).
func ZerosLike[T backend.Numeric](a *Array[T]) (*Array[T], error) {
	if a.freed {
		return nil, freedCollective("ZerosLike", a.comm)
	}
	return newGhosted[T](a.comm, a.layout, a.local.Backend(), a.ghostSpec())
}

// Full returns a new array with every element v.
func Full[T backend.Numeric](c mpi.Comm, shape []int, v T, opts ...Option) (*Array[T], error) {
	a, err := Zeros[T](c, shape, opts...)
	if err != nil {
		return nil, err
	}
	backend.Fill(a.local, v)
	return a, nil
}

// FromFunc returns a new array whose element at global multi-index idx is
// f(idx). f runs on the rank that holds the element, once per element, on
// the host; idx must not be kept. It is collective: a block on a device is
// filled on the host and copied there, and the ranks agree on that copy,
// so that a failure of it (a device fault) is returned on every rank.
func FromFunc[T backend.Numeric](c mpi.Comm, shape []int, f func(idx []int) T, opts ...Option) (*Array[T], error) {
	a, err := Zeros[T](c, shape, opts...)
	if err != nil {
		return nil, err
	}
	err = a.hostFill(func(host []T) {
		start, shape := a.layout.box(c.Rank())
		idx := make([]int, len(shape))
		for i := range host {
			unravel(i, shape, idx)
			for d := range idx {
				idx[d] += start[d]
			}
			host[i] = f(idx)
		}
	})
	return filled("FromFunc", a, err)
}

// filled ends constructor op, which filled a's block (err is the
// outcome) on every rank, those with empty blocks too. Where the block
// lives on a device and was filled on the host, the copy to it can fail on
// one rank alone (a device fault), so the ranks agree on the outcome (one
// allreduce) and every rank returns the error; a is freed then. Every rank
// agrees, those with host blocks or blocks filled on the device too: a
// job whose ranks make the array on different backends (OnBackend, or
// XPMPI_BACKEND's fallback to cpu, differing between ranks) works, where
// a device rank once waited in an agreement the host ranks skipped. The
// checking mode still reports such a job as a mismatch.
func filled[T backend.Numeric](op string, a *Array[T], err error) (*Array[T], error) {
	onDevice := !a.local.Device().IsHost()
	if cerr := check(op, a, mpi.Arg{Name: "device", Value: b2i(onDevice)}); cerr != nil {
		a.Free()
		return nil, cerr
	}
	if err = mpi.Agree(a.comm, err); err != nil {
		a.Free()
		return nil, err
	}
	return a, nil
}

// hostFill runs fill on the local block's elements on the host, with one
// copy to the device afterwards if the block lives there.
func (a *Array[T]) hostFill(fill func(host []T)) error {
	if a.local.Device().IsHost() {
		fill(a.local.Data())
		return nil
	}
	host := make([]T, a.local.Len())
	fill(host)
	return backend.CopyFromHostSlice(a.local, host)
}

// Arange returns the 1-D array start, start+step, ... of the values below
// stop (above it for a negative step), as NumPy's arange.
func Arange[T backend.Element](c mpi.Comm, start, stop, step T, opts ...Option) (*Array[T], error) {
	if step == 0 {
		panic("dist: Arange with step 0")
	}
	n := int(math.Ceil((float64(stop) - float64(start)) / float64(step)))
	if n < 0 {
		n = 0
	}
	return FromFunc(c, []int{n}, func(idx []int) T { return start + T(idx[0])*step }, opts...)
}

// Linspace returns the 1-D array of n evenly spaced values from start to
// stop, both included, as NumPy's linspace.
func Linspace[T backend.Float](c mpi.Comm, start, stop T, n int, opts ...Option) (*Array[T], error) {
	if n < 0 {
		panic(fmt.Sprintf("dist: Linspace of %d values", n))
	}
	step := 0.0
	if n > 1 {
		step = (float64(stop) - float64(start)) / float64(n-1)
	}
	return FromFunc(c, []int{n}, func(idx []int) T {
		if idx[0] == n-1 && n > 1 {
			return stop
		}
		return T(float64(start) + float64(idx[0])*step)
	}, opts...)
}

// Comm returns the array's communicator.
func (a *Array[T]) Comm() mpi.Comm { return a.comm }

// Layout returns the array's layout.
func (a *Array[T]) Layout() Layout { return a.layout }

// Shape returns the global shape.
func (a *Array[T]) Shape() []int { return a.layout.Shape() }

// Len returns the number of elements of the global array.
func (a *Array[T]) Len() int { return a.layout.Len() }

// Local returns this rank's block, a backend array of LocalShape's
// elements in row-major order. It is not collective.
func (a *Array[T]) Local() *backend.Array[T] { return a.local }

// LocalShape returns the shape of this rank's block.
func (a *Array[T]) LocalShape() []int { return a.layout.LocalShape(a.comm.Rank()) }

// LocalData returns this rank's block as a host slice that shares its
// memory. It panics if the block is on a device. It is not collective.
func (a *Array[T]) LocalData() []T {
	if a.freed {
		panic(freedError("LocalData"))
	}
	return a.local.Data()
}

// Range returns the global indices [lo, hi) of the split axis that this
// rank holds. It panics on an array on a process grid (Layout.Block gives
// its block). It is not collective.
func (a *Array[T]) Range() (lo, hi int) { return a.layout.rangeOf("Array.Range", a.comm.Rank()) }

// Device returns the device of this rank's block.
func (a *Array[T]) Device() backend.Device { return a.local.Device() }

func (a *Array[T]) String() string {
	return fmt.Sprintf("dist.Array[%v](%v, block on %v)", a.local.DType(), a.layout, a.local.Device())
}

// Copy returns a new array with a's layout and a copy of its elements,
// without ghost layers. It is not collective.
func (a *Array[T]) Copy() (*Array[T], error) {
	if a.freed {
		return nil, freedError("Array.Copy")
	}
	b, err := newLocal[T](a.comm, a.layout, a.local.Backend())
	if err != nil {
		return nil, err
	}
	backend.Copy(b.local, a.local)
	return b, nil
}

// Synchronize waits until the work queued on the block's device (by
// every operation before it on this rank) is done: for timing. It returns
// the device's error, if any. It is not collective.
func (a *Array[T]) Synchronize() error {
	if a.freed {
		return freedError("Synchronize")
	}
	return backend.Synchronize(a.local)
}

// Free releases the local block (with its ghost layers and their
// exchange buffers). No exchange may be in flight. It is not collective:
// it frees this rank's block only, and every rank must free its own (an
// array freed on some ranks and used on the others is a program error;
// see ErrFreed for what the checking mode catches). Freeing an array
// again does nothing; using it afterwards fails at once with an error
// wrapping ErrFreed (see the package documentation).
func (a *Array[T]) Free() {
	if a.freed {
		return
	}
	if a.lent.Load() > 0 {
		panic("dist: Free of an array whose memory is lent to another library (Lend: a PETSc Vec over it, say): end the loan first (destroy the Vec), then free the array")
	}
	a.freed = true
	if a.gh != nil {
		a.gh.free()
		// The block is a view of the ghosted storage: marked freed, so
		// that backend functions given Local() refuse it too (freeing a
		// view releases nothing).
		a.local.Free()
		return
	}
	a.local.Free()
}

// Freed reports whether Free has run on this rank's block. It is not
// collective.
func (a *Array[T]) Freed() bool { return a.freed }

// freedError returns the error of operation op on a freed array, which
// wraps ErrFreed: "dist: op of a freed array: array used after Free".
func freedError(op string) error { return backend.FreedError("dist", op) }

// freedCollective is freedError for a collective operation on c. In
// checking mode (mpi.Checking) the rank first joins the check of the
// call, so that where the other ranks' arrays are live (the array was not
// freed on every rank) their check fails with a *mpi.MismatchError, as
// this rank's error then wraps, instead of waiting for this rank forever.
func freedCollective(op string, c mpi.Comm) error {
	err := freedError(op)
	if mpi.Checking() {
		if cerr := mpi.CheckCollective(c, op, mpi.Arg{Name: "freed array", Value: 1}); cerr != nil {
			return fmt.Errorf("%w (%w)", err, cerr)
		}
	}
	return err
}

// Lend marks the block's memory as lent to code outside dist that keeps
// pointers into it (a PETSc Vec over the block): until the returned
// function ends the loan, Free panics instead of freeing memory that is
// still in use. An array may be lent several times at once; ending a loan
// twice panics. It is not collective.
func (a *Array[T]) Lend() (release func()) {
	if a.freed {
		panic(freedError("Lend"))
	}
	a.lent.Add(1)
	var done atomic.Bool
	return func() {
		if done.Swap(true) {
			panic("dist: a loan of an array's memory ended twice")
		}
		a.lent.Add(-1)
	}
}

// localHost returns this rank's block in host memory: the block itself on
// the host, or a copy of it.
func (a *Array[T]) localHost() ([]T, error) {
	if a.local.Device().IsHost() {
		return a.local.Data(), nil
	}
	h := make([]T, a.local.Len())
	if err := backend.CopyToHostSlice(h, a.local); err != nil {
		return nil, err
	}
	return h, nil
}

// sameLayout panics unless every array has the layout and communicator of
// the first.
func sameLayout[T backend.Numeric](op string, arrays ...*Array[T]) {
	x := arrays[0]
	for _, y := range arrays[1:] {
		if !x.layout.Equal(y.layout) {
			panic(fmt.Sprintf("dist: %s: layouts differ: %v and %v", op, x.layout, y.layout))
		}
		if x.comm != y.comm {
			panic(fmt.Sprintf("dist: %s: arrays on different communicators", op))
		}
	}
}

// mpiType returns the MPI datatype of T.
func mpiType[T backend.Numeric]() mpi.Datatype { return mpi.TypeOf[T]() }
