// Package chunks holds the rule by which packages h5 and zarr choose the
// chunk shape of an array that the caller gave none for: chunks aligned to
// the ranks' blocks, so that each rank writes whole chunks of its own
// where the blocks allow.
package chunks

import "github.com/xpmpi/xpmpi/dist"

// MaxBytes bounds the size of the chunks that Default chooses.
const MaxBytes int64 = 16 << 20

// Split reports, for each axis of l, whether l divides it among ranks: the
// split axis of a layout of row blocks, the axes of a process grid with
// more than one rank along them, none for a replicated array.
func Split(l dist.Layout) []bool {
	s := make([]bool, l.Dims())
	switch ax := l.Axis(); {
	case ax == dist.Replicated:
	case ax >= 0:
		s[ax] = true
	default:
		for a, d := range l.GridDims() {
			s[a] = d > 1
		}
	}
	return s
}

// Default returns the chunk shape for an array of layout l with elements
// of size bytes: along a split axis the largest block, along the others the
// whole axis (at least 1); then, while a chunk is larger than limit bytes,
// the axes that are not split are halved (rounding up), from the first on,
// and then the split ones.
func Default(l dist.Layout, size int, limit int64) []int {
	shape := l.Shape()
	split := Split(l)
	c := make([]int, len(shape))
	for a, n := range shape {
		c[a] = max(n, 1)
		if split[a] {
			m := 1
			for _, k := range l.GridCounts(a) {
				m = max(m, k)
			}
			c[a] = m
		}
	}
	bytes := func() int64 {
		b := int64(size)
		for _, k := range c {
			b *= int64(k)
		}
		return b
	}
	for _, pass := range []bool{false, true} {
		for a := range c {
			if split[a] != pass {
				continue
			}
			for c[a] > 1 && bytes() > limit {
				c[a] = (c[a] + 1) / 2
			}
		}
	}
	return c
}
