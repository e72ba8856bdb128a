package kernels

import (
	"errors"
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
)

// distArg is an argument that stands for part of a dist.Array on the
// calling rank, resolved at the launch: its block, its ghosted storage, or
// one number of its block.
type distArg struct {
	what    string // for messages: "kernels.Dist(a)", ...
	ghosted bool   // an array argument that is the ghosted storage
	grid    bool   // of an array on a process grid
	ranks   int    // the array's communicator's size
	freed   func() bool
	resolve func() Arg
}

// Dist returns an argument that is this rank's block of a (a.Local(): the
// elements the rank owns, LocalShape in row-major order), for a kernel
// launched with LaunchDist: a pointer parameter of a's element type. The
// kernel reads and writes the block itself, as every dist operation sees
// it.
func Dist[T backend.Element](a *dist.Array[T]) Arg {
	if a == nil {
		panic("kernels: Dist of a nil *dist.Array")
	}
	return Arg{kind: argDist, dist: &distArg{
		what: "kernels.Dist", ranks: a.Comm().Size(), freed: a.Freed, grid: a.Layout().Axis() == dist.Grid,
		resolve: func() Arg { return Array(a.Local()) },
	}}
}

// DistGhosted returns an argument that is this rank's ghosted storage of a
// (a.Ghosted(): the block with a.Ghosts() indices on either side of the
// split axis, or of every axis on a process grid, in row-major order of
// a.GhostedShape()), for a kernel launched with LaunchDist that reads
// across the block's edges: a pointer parameter of a's element type. The
// ghost layers hold what the last a.Exchange() put there (LaunchDist does
// not exchange). For an array without ghosts it is Dist(a).
//
// On a process grid the block is a separate array, which Exchange copies
// into the middle of the ghosted storage: a kernel's writes there would
// not reach the block, so LaunchDist refuses DistGhosted of a grid array
// for a parameter that is not const (write the block, Dist, instead).
func DistGhosted[T backend.Element](a *dist.Array[T]) Arg {
	if a == nil {
		panic("kernels: DistGhosted of a nil *dist.Array")
	}
	return Arg{kind: argDist, dist: &distArg{
		what: "kernels.DistGhosted", ghosted: true, ranks: a.Comm().Size(), freed: a.Freed, grid: a.Layout().Axis() == dist.Grid,
		resolve: func() Arg { return Array(a.Ghosted()) },
	}}
}

// DistShape returns an integer argument: the extent of this rank's block
// of a along axis (a.LocalShape()[axis]; negative axes count from the
// end), for a scalar integer parameter. The extent of the ghosted storage
// is DistShape + 2*DistGhosts.
func DistShape[T backend.Numeric](a *dist.Array[T], axis int) Arg {
	return distInt(a, "kernels.DistShape", axis, func(ax int) int { return a.LocalShape()[ax] })
}

// DistOffset returns an integer argument: the global index along axis of
// the first element of this rank's block of a (negative axes count from
// the end), for a scalar integer parameter. Element i of the block along
// axis is global element DistOffset + i; element j of the ghosted storage
// is global element DistOffset + j - DistGhosts.
func DistOffset[T backend.Numeric](a *dist.Array[T], axis int) Arg {
	return distInt(a, "kernels.DistOffset", axis, func(ax int) int {
		start, _ := a.Layout().Block(a.Comm().Rank())
		return start[ax]
	})
}

// DistGhosts returns an integer argument: the width of a's ghost layers
// along axis (negative axes count from the end): a.Ghosts() along the
// split axis (every axis on a process grid), 0 along the others and for
// an array without ghosts.
func DistGhosts[T backend.Numeric](a *dist.Array[T], axis int) Arg {
	return distInt(a, "kernels.DistGhosts", axis, func(ax int) int {
		return (a.GhostedShape()[ax] - a.LocalShape()[ax]) / 2
	})
}

// distInt makes an integer argument of a's block along axis.
func distInt[T backend.Numeric](a *dist.Array[T], what string, axis int, f func(axis int) int) Arg {
	if a == nil {
		panic("kernels: " + what + " of a nil *dist.Array")
	}
	dims := len(a.Shape())
	d := &distArg{what: what, ranks: a.Comm().Size(), freed: a.Freed}
	ax := axis
	if ax < 0 {
		ax += dims
	}
	if ax < 0 || ax >= dims {
		d.resolve = func() Arg {
			return Arg{kind: argInvalid, err: fmt.Sprintf("%s: axis %d of a %d-dimensional array", what, axis, dims)}
		}
	} else {
		d.resolve = func() Arg { return Int(f(ax)) }
	}
	return Arg{kind: argDist, dist: d}
}

// CallDist runs the kernel on dist arrays with the default Config. See
// LaunchDist.
func (k *Kernel) CallDist(args ...Arg) error { return k.LaunchDist(Config{}, args...) }

// LaunchDist runs the kernel on every rank over that rank's part of dist
// arrays: each argument made by Dist, DistGhosted, DistShape, DistOffset
// or DistGhosts becomes, on each rank, the rank's block, its ghosted
// storage, or the block's extent, global offset or ghost width along an
// axis; other arguments (Array, Scalar, Int, ...) are passed as they are
// on every rank. Then it is Launch on the rank's arguments: the same
// argument checks (an *ArgError naming the argument), the same choice of
// where to run (the CUDA kernel where the blocks are on a CUDA device;
// the host implementation on the host, or as a recorded fallback on a
// device that runs no CUDA code), the same profiling events and strict
// mode. The launch size is cfg.N, or the length of the first array
// argument on this rank (its block, or its ghosted storage): a rank with
// an empty block launches nothing.
//
// It is not collective and communicates nothing: every rank of the
// arrays' communicator calls it (each runs on its own block), and
// exchanges the ghost layers first (a.Exchange) where the kernel reads
// them. Dist arrays of communicators of different sizes, a freed dist
// array (an *ArgError wrapping dist.ErrFreed), an axis out of range, and
// DistGhosted of a process-grid array for a parameter that is not const
// are refused before anything runs.
func (k *Kernel) LaunchDist(cfg Config, args ...Arg) error {
	resolved := make([]Arg, len(args))
	params := k.sig.Params
	ranks := -1
	for i, a := range args {
		if a.kind != argDist {
			resolved[i] = a
			continue
		}
		d := a.dist
		name := ""
		if i < len(params) {
			name = params[i].Name
		}
		argErr := func(reason string, err error) error {
			return &ArgError{Kernel: k.spec.Name, Index: i, Param: name, Reason: reason, Err: err}
		}
		if d.freed() {
			return argErr(d.what+" of a freed dist array: "+dist.ErrFreed.Error(), dist.ErrFreed)
		}
		if ranks >= 0 && d.ranks != ranks {
			return argErr(fmt.Sprintf("%s of an array over %d ranks, but an earlier dist argument's array is over %d: the arrays of one launch must share a communicator", d.what, d.ranks, ranks), nil)
		}
		ranks = d.ranks
		if d.ghosted && d.grid && i < len(params) && params[i].Kind() == ArrayParam && !params[i].Const {
			return argErr(fmt.Sprintf("%s of an array on a process grid for the non-const parameter %s: its ghosted storage is a copy of the block that Exchange makes, so writes there would not reach the array; pass the block (kernels.Dist) to write, and the ghosted storage only to const parameters", d.what, params[i]), nil)
		}
		r := d.resolve()
		if r.kind == argInvalid {
			return argErr(r.err, nil)
		}
		resolved[i] = r
	}
	return k.Launch(cfg, resolved...)
}

// errDistInLaunch is the reason Launch gives for a dist argument.
var errDistInLaunch = errors.New("a dist argument (kernels.Dist, DistGhosted, DistShape, DistOffset, DistGhosts) needs LaunchDist or CallDist, which resolve it on each rank")
