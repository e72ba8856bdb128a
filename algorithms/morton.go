package algorithms

import (
	"fmt"
	"math"
)

// Maximum numbers of levels (bits per axis) of Morton keys.
const (
	// MaxLevels2 is the number of levels of a 2-D Morton key: 32 bits per
	// axis fill the 64-bit key.
	MaxLevels2 = 32
	// MaxLevels3 is the number of levels of a 3-D Morton key: 21 bits per
	// axis fill bits 0..62 of the key; bit 63 is always zero.
	MaxLevels3 = 21
)

// spread2 moves bit b of x to bit 2b.
func spread2(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	v = (v | v<<8) & 0x00FF00FF00FF00FF
	v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F
	v = (v | v<<2) & 0x3333333333333333
	v = (v | v<<1) & 0x5555555555555555
	return v
}

// compact2 moves bit 2b of v to bit b, dropping the odd bits.
func compact2(v uint64) uint32 {
	v &= 0x5555555555555555
	v = (v | v>>1) & 0x3333333333333333
	v = (v | v>>2) & 0x0F0F0F0F0F0F0F0F
	v = (v | v>>4) & 0x00FF00FF00FF00FF
	v = (v | v>>8) & 0x0000FFFF0000FFFF
	v = (v | v>>16) & 0x00000000FFFFFFFF
	return uint32(v)
}

// spread3 moves bit b of x (b < 21) to bit 3b.
func spread3(x uint32) uint64 {
	v := uint64(x) & 0x1FFFFF
	v = (v | v<<32) & 0x001F00000000FFFF
	v = (v | v<<16) & 0x001F0000FF0000FF
	v = (v | v<<8) & 0x100F00F00F00F00F
	v = (v | v<<4) & 0x10C30C30C30C30C3
	v = (v | v<<2) & 0x1249249249249249
	return v
}

// compact3 moves bit 3b of v to bit b, dropping the other bits.
func compact3(v uint64) uint32 {
	v &= 0x1249249249249249
	v = (v | v>>2) & 0x10C30C30C30C30C3
	v = (v | v>>4) & 0x100F00F00F00F00F
	v = (v | v>>8) & 0x001F0000FF0000FF
	v = (v | v>>16) & 0x001F00000000FFFF
	v = (v | v>>32) & 0x00000000001FFFFF
	return uint32(v)
}

// Morton2 returns the 2-D Morton (Z-order) key of the cell (x, y): bit 2b of
// the key is bit b of x and bit 2b+1 is bit b of y, for b in [0, 32).
func Morton2(x, y uint32) uint64 {
	return spread2(x) | spread2(y)<<1
}

// Morton2Decode returns the cell (x, y) of the 2-D Morton key k; it inverts
// Morton2.
func Morton2Decode(k uint64) (x, y uint32) {
	return compact2(k), compact2(k >> 1)
}

// Morton3 returns the 3-D Morton (Z-order) key of the cell (x, y, z): bit
// 3b+a of the key is bit b of axis a (x is axis 0, y 1, z 2), for b in
// [0, 21). It panics if a coordinate is 2^21 or more.
func Morton3(x, y, z uint32) uint64 {
	if (x|y|z)>>MaxLevels3 != 0 {
		panic(fmt.Sprintf("algorithms: Morton3 coordinates (%d, %d, %d) must be below 2^21", x, y, z))
	}
	return spread3(x) | spread3(y)<<1 | spread3(z)<<2
}

// Morton3Decode returns the cell (x, y, z) of the 3-D Morton key k; it
// inverts Morton3. Bit 63 of k, which no 3-D key sets, is ignored.
func Morton3Decode(k uint64) (x, y, z uint32) {
	return compact3(k), compact3(k >> 1), compact3(k >> 2)
}

// cellOf is CellIndex without the argument checks; scale is 2^levels.
func cellOf(x, lower, upper, scale float64) uint32 {
	q := float64((x-lower)*scale) / (upper - lower)
	switch {
	case !(q >= 0): // negative or NaN
		return 0
	case q >= scale:
		return uint32(scale - 1)
	default:
		return uint32(q) // q >= 0, so truncation is floor
	}
}

// checkBounds panics unless levels is in [0, maxLevels] and every axis has
// finite, distinct bounds. It returns 2^levels.
func checkBounds(fn string, lower, upper []float64, levels, maxLevels int) float64 {
	if levels < 0 || levels > maxLevels {
		panic(fmt.Sprintf("algorithms: %s levels %d outside [0, %d]", fn, levels, maxLevels))
	}
	for a := range lower {
		l, u := lower[a], upper[a]
		if math.IsNaN(l) || math.IsInf(l, 0) || math.IsNaN(u) || math.IsInf(u, 0) || l == u {
			panic(fmt.Sprintf("algorithms: %s bounds [%v, %v] of axis %d must be finite and distinct", fn, l, u, a))
		}
	}
	return float64(uint64(1) << levels)
}

// CellIndex returns the cell of the coordinate x on an axis from lower to
// upper divided into 2^levels cells, for levels in [0, 32]:
//
//	q = ((x - lower) * 2^levels) / (upper - lower)   (in float64, in this order)
//	cell = floor(q), clipped to [0, 2^levels - 1]
//
// A point on a cell boundary, where q is an integer, goes to the cell above
// it (the higher index); x = upper goes to the last cell. Points below lower
// go to cell 0 and points above upper to the last cell; NaN goes to cell 0.
// When lower > upper the axis is reversed: cell 0 starts at lower, the
// larger coordinate, and indices grow as x decreases, so a point on a
// boundary goes to the cell on the side of smaller x.
//
// The evaluation order above is part of the contract: CUDA kernels that
// compute the same expression get bit-identical cells. CellIndex panics if
// levels is outside [0, 32] or if lower and upper are equal or not finite.
func CellIndex(x, lower, upper float64, levels int) uint32 {
	scale := checkBounds("CellIndex", []float64{lower}, []float64{upper}, levels, MaxLevels2)
	return cellOf(x, lower, upper, scale)
}

// MortonKeys2 writes to dst the 2-D Morton keys of the points (xs[i], ys[i])
// in the box [lower, upper] divided into 2^levels cells per axis:
//
//	dst[i] = Morton2(CellIndex(xs[i], lower[0], upper[0], levels),
//	                 CellIndex(ys[i], lower[1], upper[1], levels))
//
// See CellIndex for boundaries, points outside the box, NaN and reversed
// axes. It panics if the slices differ in length, if levels is outside
// [0, MaxLevels2], or if a bound pair is equal or not finite.
func MortonKeys2(dst []uint64, xs, ys []float64, lower, upper [2]float64, levels int) {
	if len(xs) != len(dst) || len(ys) != len(dst) {
		panic(fmt.Sprintf("algorithms: MortonKeys2 lengths differ: dst %d, xs %d, ys %d", len(dst), len(xs), len(ys)))
	}
	scale := checkBounds("MortonKeys2", lower[:], upper[:], levels, MaxLevels2)
	for i := range dst {
		dst[i] = Morton2(
			cellOf(xs[i], lower[0], upper[0], scale),
			cellOf(ys[i], lower[1], upper[1], scale))
	}
}

// MortonKeys3 writes to dst the 3-D Morton keys of the points
// (xs[i], ys[i], zs[i]) in the box [lower, upper] divided into 2^levels
// cells per axis:
//
//	dst[i] = Morton3(CellIndex(xs[i], lower[0], upper[0], levels),
//	                 CellIndex(ys[i], lower[1], upper[1], levels),
//	                 CellIndex(zs[i], lower[2], upper[2], levels))
//
// See CellIndex for boundaries, points outside the box, NaN and reversed
// axes. It panics if the slices differ in length, if levels is outside
// [0, MaxLevels3], or if a bound pair is equal or not finite.
func MortonKeys3(dst []uint64, xs, ys, zs []float64, lower, upper [3]float64, levels int) {
	if len(xs) != len(dst) || len(ys) != len(dst) || len(zs) != len(dst) {
		panic(fmt.Sprintf("algorithms: MortonKeys3 lengths differ: dst %d, xs %d, ys %d, zs %d", len(dst), len(xs), len(ys), len(zs)))
	}
	scale := checkBounds("MortonKeys3", lower[:], upper[:], levels, MaxLevels3)
	for i := range dst {
		dst[i] = spread3(cellOf(xs[i], lower[0], upper[0], scale)) |
			spread3(cellOf(ys[i], lower[1], upper[1], scale))<<1 |
			spread3(cellOf(zs[i], lower[2], upper[2], scale))<<2
	}
}
