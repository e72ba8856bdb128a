package driver

// Sorter is implemented by a backend that sorts on its own device: the
// local steps of a sample sort (dist.Sort), so that a device array's keys
// stay on the device. Keys are ordered as cmp.Compare orders them (for
// floats NaNs first, -0 equal to +0), and every method is stable: equal
// keys keep their order. Index buffers hold Int64 elements.
//
// The CPU backend, the fake device and CUDA (kernels: a stable radix
// sort, binary-search cuts and a gather) implement it; a backend that does
// not has its keys copied to the host for those steps, recorded as the
// copies they are. dist's slicing and Redistribute packs use Take, where
// a backend has it, to gather many short runs in one call.
type Sorter interface {
	// SortByKey sorts keys in place and, if index is not nil (a buffer of
	// keys' length), sets index[i] to base plus the position, before the
	// sort, of the element now at i.
	SortByKey(keys, index Buffer, base int64)
	// Take sets dst[j] = src[pos[j]] for every j.
	Take(dst, src Buffer, pos []int)
	// Cut returns, for each splitter j, the number of leading elements of
	// the sorted keys that come before (splitKeys[j], splitIdx[j]) in
	// (key, index) order, element i having index base+i. The splitters,
	// scalars of keys' type, ascend in that order.
	Cut(keys Buffer, base int64, splitKeys []Scalar, splitIdx []int64) []int
	// MergeRuns merges the sorted runs [bounds[k], bounds[k+1]) of keys
	// into dst, taking from the earlier run on equal keys, and moves index
	// (nil: none) with the keys into dstIndex. keys and index are scratch
	// space: their contents are lost.
	MergeRuns(dst, dstIndex, keys, index Buffer, bounds []int)
}
