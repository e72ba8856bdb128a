// Package rng provides counter-based random numbers built on the
// Philox4x32-10 block cipher of Random123 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11).
//
// Every draw is a pure function of three 64-bit values: a seed, a stream and
// a counter. There is no hidden state, so the same numbers can be produced
// on any rank, on any goroutine, in any order, on the host or on a GPU (see
// CUDAHeader, which gives the same functions for CUDA kernels and plain C).
//
// # Mapping
//
// A draw encrypts the counter block
//
//	ctr = [counter_lo, counter_hi, stream_lo, stream_hi]
//
// with the key [seed_lo, seed_hi], where _lo and _hi are the low and high 32
// bits of a 64-bit value. The four output words w0..w3 form two 64-bit
// words x0 = w1<<32 | w0 and x1 = w3<<32 | w2, from which
//
//	u0 = (x0 >> 11) * 2^-53,  u1 = (x1 >> 11) * 2^-53      (Uniform2, in [0, 1))
//	r  = sqrt(-2 log(1 - u0)), theta = 2 pi u1
//	z0 = r cos(theta),        z1 = r sin(theta)           (Normal2)
//
// Uniform integers (IntN) use x0, then x1, with Lemire's unbiased
// multiply-and-reject method.
//
// # Arrays that do not depend on the number of ranks
//
// The Fill functions give element i of a global array the stream
// firstIndex+i, so a distributed array in which each rank fills its own
// block with firstIndex set to the block's global offset is identical for
// any number of ranks. The draw argument is the counter: use draw 0 for the
// first array made from a seed, draw 1 for the next, and so on.
//
// # Per-rank generators
//
// Stream is a sequential generator for a fixed (seed, stream) pair whose
// counter advances with every call. When the stream identifier is a rank,
// the numbers a program sees depend on the number of ranks; use the Fill
// functions when that matters.
package rng
