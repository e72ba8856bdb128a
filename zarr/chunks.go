package zarr

import (
	"strconv"
	"strings"

	"github.com/xpmpi/xpmpi/dist"
)

// alignedCounts returns block sizes for an axis of length n, as close to
// counts as the chunk length c allows, whose every block boundary is a
// multiple of c or n: each boundary rounded to the nearest multiple of c.
// It returns counts itself, and true, when they are aligned already.
func alignedCounts(counts []int, n, c int) ([]int, bool) {
	out := make([]int, len(counts))
	same := true
	lo, prev := 0, 0
	for r, k := range counts {
		hi := lo + k
		b := min((hi+c/2)/c*c, n)
		if hi == n || r == len(counts)-1 {
			b = n
		}
		b = max(b, prev)
		out[r] = b - prev
		if out[r] != k {
			same = false
		}
		lo, prev = hi, b
	}
	if same {
		return counts, true
	}
	return out, false
}

// alignedLayout returns a layout like l (the same split axis or process
// grid) whose blocks are unions of whole chunks, and whether it is l itself.
// A replicated l is returned as it is.
func alignedLayout(l dist.Layout, chunks []int) (dist.Layout, bool) {
	shape := l.Shape()
	switch ax := l.Axis(); {
	case ax == dist.Replicated:
		return l, true
	case ax >= 0:
		counts, ok := alignedCounts(l.Counts(), shape[ax], chunks[ax])
		if ok {
			return l, true
		}
		return dist.NewLayoutCounts(shape, ax, counts), false
	}
	all := true
	counts := make([][]int, len(shape))
	for a := range shape {
		var ok bool
		counts[a], ok = alignedCounts(l.GridCounts(a), shape[a], chunks[a])
		all = all && ok
	}
	if all {
		return l, true
	}
	return dist.NewGridLayoutCounts(shape, counts), false
}

// chunkRange returns the chunk indices [lo, hi) along each axis of the
// chunks that meet the box at start with extent shape; ok is false when the
// box is empty.
func chunkRange(start, shape, chunks []int) (lo, hi []int, ok bool) {
	lo, hi = make([]int, len(start)), make([]int, len(start))
	for a := range start {
		if shape[a] == 0 {
			return nil, nil, false
		}
		lo[a] = start[a] / chunks[a]
		hi[a] = (start[a] + shape[a] + chunks[a] - 1) / chunks[a]
	}
	return lo, hi, true
}

// eachIndex calls f with every multi-index in [lo, hi), in row-major order.
func eachIndex(lo, hi []int, f func(idx []int) error) error {
	for a := range lo {
		if lo[a] >= hi[a] {
			return nil
		}
	}
	idx := append([]int(nil), lo...)
	for {
		if err := f(idx); err != nil {
			return err
		}
		a := len(idx) - 1
		for ; a >= 0; a-- {
			idx[a]++
			if idx[a] < hi[a] {
				break
			}
			idx[a] = lo[a]
		}
		if a < 0 {
			return nil
		}
	}
}

// chunkKey returns the key of the chunk at idx.
func chunkKey(idx []int, sep string) string {
	var b strings.Builder
	for a, i := range idx {
		if a > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// strides returns the element strides of shape in C order, or F order.
func strides(shape []int, fortran bool) []int {
	s := make([]int, len(shape))
	n := 1
	if fortran {
		for a := range shape {
			s[a] = n
			n *= shape[a]
		}
		return s
	}
	for a := len(shape) - 1; a >= 0; a-- {
		s[a] = n
		n *= shape[a]
	}
	return s
}

// copyBox copies the box of extent ext from src to dst: the box starts at
// srcAt in src (an array with strides ss) and at dstAt in dst (strides ds).
func copyBox[T any](dst []T, ds, dstAt []int, src []T, ss, srcAt []int, ext []int) {
	nd := len(ext)
	for _, e := range ext {
		if e == 0 {
			return
		}
	}
	do, so := 0, 0
	for a := range ext {
		do += dstAt[a] * ds[a]
		so += srcAt[a] * ss[a]
	}
	last := nd - 1
	n := ext[last]
	contiguous := ds[last] == 1 && ss[last] == 1
	idx := make([]int, nd)
	for {
		if contiguous {
			copy(dst[do:do+n], src[so:so+n])
		} else {
			d, s := do, so
			for i := 0; i < n; i++ {
				dst[d] = src[s]
				d += ds[last]
				s += ss[last]
			}
		}
		a := last - 1
		for ; a >= 0; a-- {
			idx[a]++
			do += ds[a]
			so += ss[a]
			if idx[a] < ext[a] {
				break
			}
			do -= ext[a] * ds[a]
			so -= ext[a] * ss[a]
			idx[a] = 0
		}
		if a < 0 {
			return
		}
	}
}
