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
	return randomArray[T](c, shape, opts, func(dst []T, first uint64) {
		rng.FillUniform(dst, seed, first, draw)
	})
}

// Normal returns a new array of the global shape of standard normal
// deviates: the element at global flat index g is element g of
// rng.FillNormal(whole, seed, 0, draw). As for Uniform, the result does not
// depend on the number of ranks or the layout.
func Normal[T backend.Float](c mpi.Comm, shape []int, seed, draw uint64, opts ...Option) (*Array[T], error) {
	return randomArray[T](c, shape, opts, func(dst []T, first uint64) {
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
	return randomArray[T](c, shape, opts, func(dst []T, first uint64) {
		rng.FillUniformInts(dst, seed, first, draw, lo, hi)
	})
}

// randomArray returns a new array whose local block is filled, one
// contiguous run of global flat indices at a time, by fill(dst, first),
// which must write elements first, first+1, ... of the global array into
// dst. It fills on the host and copies to the device once.
func randomArray[T backend.Element](c mpi.Comm, shape []int, opts []Option, fill func(dst []T, first uint64)) (*Array[T], error) {
	a, err := Zeros[T](c, shape, opts...)
	if err != nil {
		return nil, err
	}
	if a.local.Len() == 0 {
		return a, nil
	}
	err = a.hostFill(func(host []T) {
		global := a.layout.shape
		start, bshape := a.layout.box(c.Rank())
		// A block split on axis 0, or replicated, is one run; a block split
		// on a later axis is one run per index of the axes before it.
		boxRuns(make([]int, len(global)), global, start, bshape, func(globalOff, localOff, n int) {
			fill(host[localOff:localOff+n], uint64(globalOff))
		})
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}
