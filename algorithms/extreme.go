package algorithms

// Better reports whether the value v at index i beats the best so far, bv
// at index bi, for a minimum (max false) or a maximum: a NaN beats every
// number, ties go to the smaller index, and an index below zero marks no
// value (every value beats it; it beats none). It is the order of NumPy's
// argmin and argmax, as the reductions of dist and the backends use it.
func Better[K Key](v K, i int64, bv K, bi int64, max bool) bool {
	if bi < 0 {
		return i >= 0
	}
	if i < 0 {
		return false
	}
	vn, bn := v != v, bv != bv
	switch {
	case vn || bn:
		if vn && bn {
			return i < bi
		}
		return vn
	case v == bv:
		return i < bi
	case max:
		return v > bv
	default:
		return v < bv
	}
}
