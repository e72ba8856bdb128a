package dist

// boxRuns calls f for each contiguous run of the box (start, shape) of the
// global index space inside a row-major block (bstart, bshape) that
// contains it: blockOff is the run's offset in the block, packedOff its
// offset in the box packed in row-major order, n its length. Runs come in
// row-major order. Nothing is called for an empty box.
func boxRuns(bstart, bshape, start, shape []int, f func(blockOff, packedOff, n int)) {
	d := len(shape)
	if prod(shape) == 0 {
		return
	}
	// Trailing dimensions that the box covers whole merge into one run.
	k := d - 1
	for k > 0 && shape[k] == bshape[k] && start[k] == bstart[k] {
		k--
	}
	run := prod(shape[k:])
	strides := make([]int, d)
	s := 1
	for a := d - 1; a >= 0; a-- {
		strides[a] = s
		s *= bshape[a]
	}
	base := 0
	for a := 0; a < d; a++ {
		base += (start[a] - bstart[a]) * strides[a]
	}
	// Iterate over the dimensions before k with a counter.
	idx := make([]int, k)
	packed := 0
	for {
		off := base
		for a := 0; a < k; a++ {
			off += idx[a] * strides[a]
		}
		f(off, packed, run)
		packed += run
		a := k - 1
		for a >= 0 {
			idx[a]++
			if idx[a] < shape[a] {
				break
			}
			idx[a] = 0
			a--
		}
		if a < 0 {
			return
		}
	}
}

// intersect returns the intersection of two boxes, and whether it is empty.
func intersect(s1, sh1, s2, sh2 []int) (start, shape []int, empty bool) {
	start, shape = make([]int, len(s1)), make([]int, len(s1))
	empty = false
	for a := range s1 {
		lo := max(s1[a], s2[a])
		hi := min(s1[a]+sh1[a], s2[a]+sh2[a])
		if hi <= lo {
			hi, empty = lo, true
		}
		start[a], shape[a] = lo, hi-lo
	}
	return start, shape, empty
}

// unravel writes the multi-index of flat offset off in shape into idx.
func unravel(off int, shape, idx []int) {
	for a := len(shape) - 1; a >= 0; a-- {
		if shape[a] > 0 {
			idx[a] = off % shape[a]
			off /= shape[a]
		}
	}
}

// ravel returns the flat row-major offset of idx in shape.
func ravel(idx, shape []int) int {
	off := 0
	for a := range shape {
		off = off*shape[a] + idx[a]
	}
	return off
}
