package driver

import "fmt"

// RandomKind names a fill of package rng that a RandomFiller runs on its
// device.
type RandomKind int

const (
	// RandomUniform is rng.FillUniform: uniform deviates in [0, 1) of a
	// Float32 or Float64 buffer.
	RandomUniform RandomKind = iota
	// RandomNormal is rng.FillNormal: standard normal deviates of a
	// Float32 or Float64 buffer.
	RandomNormal
	// RandomInts is rng.FillUniformInts: uniform integers in [lo, hi) of
	// an integer buffer.
	RandomInts
)

// RandomFill says which of package rng's fills a RandomFiller runs and its
// parameters.
type RandomFill struct {
	Kind RandomKind
	// Seed and Draw are the fill's seed and draw (its Philox key and
	// counter).
	Seed, Draw uint64
	// Lo and Span are, for RandomInts, uint64(lo) and
	// uint64(hi) - uint64(lo) of the range [lo, hi) in 64-bit two's
	// complement (Span > 0): element g is the buffer's type converted from
	// Lo + IntN(seed, g, draw, Span), as rng.FillUniformInts computes it.
	Lo, Span uint64
}

// RandomFiller is implemented by a backend that fills its buffers with
// package rng's counter-based random numbers on its own device, so that
// dist's random constructors (dist.Uniform, dist.Normal, dist.UniformInts)
// copy nothing from the host. The fake device and CUDA implement it; a
// backend that does not has dist fill the block on the host and copy it to
// the device once, recorded as the copy it is. The CPU backend needs no
// such method: its blocks are host memory.
type RandomFiller interface {
	// FillRandom sets runs*n elements of dst, run after run: element j of
	// run r (dst element r*n+j) is element first + r*stride + j of a whole
	// array filled by f's rng function (for RandomUniform,
	// rng.FillUniform(whole, f.Seed, 0, f.Draw)), bit for bit; for
	// RandomNormal the value may differ from the host's in the last bits
	// where the device's log, sqrt, cos differ from Go's math (rng
	// documents about 1e-14; see the implementation). Global indices wrap
	// modulo 2^64. It panics if dst is too short, if f.Kind does not fit
	// dst's type (a float kind for an integer buffer, RandomInts for a
	// float one) or if f.Span is 0 for RandomInts. It is queued on the
	// backend's stream as the other operations are.
	FillRandom(dst Buffer, f RandomFill, runs, n int, first, stride uint64)
}

// CheckRandom panics, saying why, if a FillRandom of f, runs runs of n
// elements, does not fit dst: runs*n over dst's length, a complex buffer,
// an unknown kind, a kind that does not fit dst's type, or RandomInts with
// Span 0. Implementations of RandomFiller call it before any work.
func CheckRandom(dst Buffer, f RandomFill, runs, n int) {
	dt, size := dst.DType(), dst.Len()
	if runs < 0 || n < 0 || (n > 0 && runs > size/n) {
		panic(fmt.Sprintf("backend: FillRandom of %d x %d elements into a buffer of %d", runs, n, size))
	}
	switch {
	case dt.IsComplex():
		panic(fmt.Sprintf("backend: FillRandom of a %v buffer", dt))
	case f.Kind < RandomUniform || f.Kind > RandomInts:
		panic(fmt.Sprintf("backend: FillRandom of unknown kind %d", f.Kind))
	case f.Kind == RandomInts && dt.IsFloat():
		panic(fmt.Sprintf("backend: FillRandom of integers into a %v buffer", dt))
	case f.Kind == RandomInts && f.Span == 0:
		panic("backend: FillRandom of integers in an empty range")
	case f.Kind != RandomInts && !dt.IsFloat():
		panic(fmt.Sprintf("backend: FillRandom of kind %d into a %v buffer", f.Kind, dt))
	}
}
