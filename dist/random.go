package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/rng"
)

// Distributed random arrays.
//
// Uniform, Normal and UniformInts give the element at global row-major flat
// index g the value that rng's Fill functions give element g of a whole
// array filled at once: a Philox draw with stream = g and counter = draw,
// under the key seed. An element depends only on (seed, g, draw), so an
// array has bitwise the same contents for any number of ranks, any split
// axis, any block sizes, replicated or not, and whichever backend holds the
// blocks. Use draw 0 for the first array made from a seed, draw 1 for the
// next, and so on; arrays with the same seed and draw but different shapes
// share the values of their common flat indices.
//
// Per-rank generators (an rng.Stream with ID set to the rank) are the tool
// for numbers that each rank draws for itself; those depend on the number
// of ranks, and a program that uses them gives different results on
// different rank counts.

// Uniform returns a new array of the global shape of uniform deviates in
// [0, 1): the element at global flat index g is element g of
// rng.FillUniform(whole, seed, 0, draw). The result is the same, bit for
// bit, for any number of ranks and any layout the options give. It is
// collective; seed, draw, shape and the options must be the same on every
// rank.
func Uniform[T backend.Float](c mpi.Comm, shape []int, seed, draw uint64, opts ...Option) (*Array[T], error) {
	f := backend.RandomFill{Kind: backend.RandomUniform, Seed: seed, Draw: draw}
	return randomArray[T](c, shape, opts, f, func(dst []T, first uint64) {
		rng.FillUniform(dst, seed, first, draw)
	})
}

// Normal returns a new array of the global shape of standard normal
// deviates: the element at global flat index g is element g of
// rng.FillNormal(whole, seed, 0, draw). As for Uniform, the result does not
// depend on the number of ranks or the layout.
func Normal[T backend.Float](c mpi.Comm, shape []int, seed, draw uint64, opts ...Option) (*Array[T], error) {
	f := backend.RandomFill{Kind: backend.RandomNormal, Seed: seed, Draw: draw}
	return randomArray[T](c, shape, opts, f, func(dst []T, first uint64) {
		rng.FillNormal(dst, seed, first, draw)
	})
}

// UniformInts returns a new array of the global shape of uniform integers
// in [lo, hi), without bias: the element at global flat index g is element
// g of rng.FillUniformInts(whole, seed, 0, draw, lo, hi). As for Uniform,
// the result does not depend on the number of ranks or the layout. It
// panics unless lo < hi.
func UniformInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](c mpi.Comm, shape []int, seed, draw uint64, lo, hi T, opts ...Option) (*Array[T], error) {
	if !(lo < hi) {
		panic(fmt.Sprintf("dist: UniformInts needs lo < hi, got [%v, %v)", lo, hi))
	}
	f := backend.RandomFill{Kind: backend.RandomInts, Seed: seed, Draw: draw,
		Lo: uint64(lo), Span: uint64(hi) - uint64(lo)}
	return randomArray[T](c, shape, opts, f, func(dst []T, first uint64) {
		rng.FillUniformInts(dst, seed, first, draw, lo, hi)
	})
}

// randomArray returns a new array whose local block holds elements of
// the global array given, one contiguous run of global flat indices at a
// time, by fill(dst, first), which must write elements first, first+1, ...
// of the global array into dst, or by the backend's FillRandom of f, which
// computes the same. A block on a device whose backend is a
// backend.RandomFiller is filled there, with no copy; any other device
// block is filled on the host and copied to the device once (recorded),
// and the ranks agree on that copy (filled, where every rank agrees).
func randomArray[T backend.Element](c mpi.Comm, shape []int, opts []Option, f backend.RandomFill, fill func(dst []T, first uint64)) (*Array[T], error) {
	a, err := Zeros[T](c, shape, opts...)
	if err != nil {
		return nil, err
	}
	op := randomOp(f.Kind)
	global := a.layout.shape
	start, bshape := a.layout.box(c.Rank())
	// A block split on axis 0, or replicated, is one run; a block split
	// on a later axis is one run per index of the axes before it.
	runs := func(each func(globalOff, localOff, n int)) {
		boxRuns(make([]int, len(global)), global, start, bshape, each)
	}
	if r, ok := a.local.Backend().(backend.RandomFiller); ok && !a.local.Device().IsHost() {
		if a.local.Len() > 0 {
			for _, p := range runProgressions(runs) {
				r.FillRandom(a.local.Slice(p.local, p.local+p.runs*p.n).Buffer(), f, p.runs, p.n, uint64(p.first), uint64(p.stride))
			}
		}
		// Filled on the device: no copy, nothing that fails, but the
		// ranks whose blocks were filled elsewhere agree (filled).
		return filled(op, a, nil)
	}
	if a.local.Len() > 0 {
		err = a.hostFill(func(host []T) {
			runs(func(globalOff, localOff, n int) {
				fill(host[localOff:localOff+n], uint64(globalOff))
			})
		})
	}
	// Every rank ends here, those with empty blocks (no copy) too, and
	// agrees on the copy to a device.
	return filled(op, a, err)
}

// randomOp names the constructor of a random fill of kind k, for the
// checking mode's messages.
func randomOp(k backend.RandomKind) string {
	switch k {
	case backend.RandomNormal:
		return "Normal"
	case backend.RandomInts:
		return "UniformInts"
	}
	return "Uniform"
}

// progression is a run of runs of n elements each, consecutive in the
// block from element local, whose global flat indices start at first and
// advance by stride from one run to the next.
type progression struct {
	local, runs, n, first, stride int
}

// runProgressions groups the runs that each calls (global offset, block
// offset, length; consecutive in the block, as boxRuns gives them) into
// progressions, each run joining the one before where its length and
// global stride agree: a block split on one axis is one progression.
func runProgressions(each func(func(globalOff, localOff, n int))) []progression {
	var out []progression
	each(func(g, l, n int) {
		if k := len(out) - 1; k >= 0 {
			p := &out[k]
			next := p.first + p.runs*p.stride
			switch {
			case p.n == n && p.runs == 1 && l == p.local+n:
				p.stride, p.runs = g-p.first, 2
				return
			case p.n == n && p.runs > 1 && g == next && l == p.local+p.runs*n:
				p.runs++
				return
			}
		}
		out = append(out, progression{local: l, runs: 1, n: n, first: g})
	})
	return out
}
