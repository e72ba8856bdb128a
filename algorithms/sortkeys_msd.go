package algorithms

import "math/bits"

// The hybrid of SortKeysTo: one most-significant-digit pass out of src into
// dst, then every bucket sorted where it lies, in cache.
//
// An LSD radix sort of n keys reads and writes all of them once per digit
// (5 or 6 for 8-byte keys), from and to main memory, and needs a second
// buffer of n keys. The hybrid reads src twice before it moves anything
// (the highest bit in which the keys differ and the check for NaNs and
// negative zeros, then the histogram of the 11 bits from there down) and
// scatters the keys once, from src into dst, by those 11 bits. The buckets
// it makes are short enough to sort in a cache-sized scratch buffer, each
// by MSD passes on the bits below (digits as wide as the bucket's length
// makes worthwhile, at most 13 bits) down to buckets short enough for
// insertion: random keys are told apart by about log2(n) bits, not by all
// of them, so it needs fewer passes than the LSD sort, and none over main
// memory. Out of place, the scratch space is the caller's work if it gave
// one, else the largest bucket's length, not n keys: a fresh buffer of n
// keys costs as much as the sort itself where the system maps its pages
// on first touch (several times as much in a virtual machine whose page
// faults cost tens of microseconds). In place, the scatter goes to a
// buffer of n keys (work) and the buckets are sorted back into dst, whose
// keys are all in work by then, so that dst is the buckets' scratch.
//
// The window cannot always cut the keys into short buckets: keys that
// share their high bits and differ in many low ones (most of them in one
// bucket) do not. msdSort measures the buckets before it writes anything
// and reports false if the largest is longer than msdMaxBucket; the caller
// then sorts by LSD passes alone.

const (
	// msdMinKeys is the length from which SortKeysTo tries the hybrid:
	// below it, the LSD sort's buffers are in cache already.
	msdMinKeys = 1 << 16
	// msdMaxBucket is the longest bucket the hybrid sorts in place: 2^17
	// keys, 1 MiB of 8-byte keys and its scratch, in a core's L2 cache.
	msdMaxBucket = 1 << 17
	// insertionMax is the longest bucket sorted by insertion.
	insertionMax = 32
)

// msdSort sorts the keys of src, given as their bits, into dst by the
// hybrid described above, scattering them into into first: into is dst,
// which then must not overlap src, or, for an in-place sort (dst is src),
// scratch space of len(src) keys. scratch is nil, or len(src) keys that
// overlap neither into nor src unless they are dst and into is not (in
// place, dst's keys are all in into once scattered): each bucket is
// sorted with the same range of scratch as its scratch space; a nil
// scratch makes msdSort allocate the longest bucket's length. top, fm and
// sb map a key to its image, float and inf tell NaNs and negative zeros,
// as in radixSortBits. It reports false, having written nothing, if a key
// is a NaN or a negative zero (float only), or if a bucket would be
// longer than msdMaxBucket.
func msdSort[U uint32 | uint64](dst, src, into, scratch []U, float bool, top uint, fm, sb, inf U) bool {
	or, and, ok := spread(src, float, top, fm, sb, inf)
	if !ok {
		return false
	}
	// The window: the 11 bits down from the highest one in which the
	// keys differ.
	h := bits.Len64(uint64(or^and)) - 1
	if h < 0 { // every key has the same bits
		if &dst[0] != &src[0] {
			copy(dst, src)
		}
		return true
	}
	shift := uint(max(0, h-radixBits+1))
	var off [radixBuckets]uint32
	if !windowHistogram(&off, src, shift, top, fm, sb) {
		return false
	}
	var start [radixBuckets + 1]uint32
	var sum, longest uint32
	for b, c := range off {
		start[b], off[b], sum = sum, sum, sum+c
		longest = max(longest, c)
	}
	start[radixBuckets] = sum
	scatterMap(into, src, &off, shift, top, fm, sb)
	var t lowTables
	var own []U // scratch made here, if scratch is nil
	for b := range radixBuckets {
		lo, hi := start[b], start[b+1]
		if lo == hi {
			continue
		}
		var other []U
		if scratch != nil {
			other = scratch[lo:hi]
		} else {
			if own == nil {
				own = make([]U, longest)
			}
			other = own[:hi-lo]
		}
		sortLow(into[lo:hi], other, shift, dst[lo:hi], 0, &t)
		unmap(dst[lo:hi], top, fm, sb)
	}
	return true
}

// spread returns the bitwise or and and of the images of the keys of src
// (see radixSortBits), and false if float is set and a key is a NaN or a
// negative zero.
//
//go:noinline
func spread[U uint32 | uint64](src []U, float bool, top uint, fm, sb, inf U) (or, and U, ok bool) {
	and = ^U(0)
	for _, x := range src {
		if float && (x&^sb > inf || x == sb) {
			return 0, 0, false
		}
		m := x ^ (-(x>>top)&fm | sb)
		or |= m
		and &= m
	}
	return or, and, true
}

// windowHistogram counts in off the keys of src by the 11 bits of their
// images from shift on, and reports whether no bucket holds more than
// msdMaxBucket keys.
//
//go:noinline
func windowHistogram[U uint32 | uint64](off *[radixBuckets]uint32, src []U, shift, top uint, fm, sb U) bool {
	for _, x := range src {
		m := x ^ (-(x>>top)&fm | sb)
		off[(m>>shift)&(radixBuckets-1)]++
	}
	for _, c := range off {
		if c > msdMaxBucket {
			return false
		}
	}
	return true
}

// lowLevels bounds the depth of sortLow's recursion: every level sorts
// by at least 4 bits of at most 64.
const lowLevels = 16

// lowMaxBits is the widest digit of sortLow. Its table of 2^13 offsets
// (32 KiB) stays in L1 cache, and it cuts the buckets of 2^15 to 2^16
// keys that W5's uniform keys give at one and two ranks into pieces of 4
// to 8 keys for insertion, where 11 bits left 16 to 32: the insertion
// sorts took 30% of the sort at two ranks. Wider digits (14, 16) were no
// faster at 2^23 keys, whose bucket, scratch and table then outgrow L2.
const lowMaxBits = 13

// lowTables holds sortLow's bucket offsets, one table per level of its
// recursion, so that a short piece clears only the entries its digit uses.
// A level's table is made when it is first reached, as long as its widest
// digit needs: most sorts use two or three levels of the sixteen.
type lowTables struct {
	levels [lowLevels][]uint32
}

// at returns the table of level, cleared, with room for the offsets of a
// digit of mask+1 values.
func (t *lowTables) at(level int, buckets int) []uint32 {
	if len(t.levels[level]) < buckets {
		t.levels[level] = make([]uint32, buckets)
	}
	off := t.levels[level][:buckets]
	clear(off)
	return off
}

// sortLow sorts the images of data, whose bits from shift on are the same
// for all of them, into final, which is data, other, or a third slice of
// data's length that overlaps neither: other has data's length and is
// scratch space, and data's contents are lost. It scatters data into other
// by the next digit down and sorts each piece the same way, with the roles
// of the two buffers swapped, down to pieces of at most insertionMax keys.
// level is the depth of the recursion, the index of its table in t.
func sortLow[U uint32 | uint64](data, other []U, shift uint, final []U, level int, t *lowTables) {
	for {
		n := len(data)
		if n <= insertionMax || shift == 0 {
			if shift > 0 {
				insertionSort(data)
			}
			if &data[0] != &final[0] {
				copy(final, data)
			}
			return
		}
		// A digit of about log2(n) bits: pieces of one or two keys on
		// average.
		width := min(uint(lowMaxBits), shift, uint(max(4, bits.Len(uint(n))-1)))
		next := shift - width
		mask := U(1)<<width - 1
		off := t.at(level, int(mask)+1)
		digitCount(off, data, next, mask)
		if off[(data[0]>>next)&mask] == uint32(n) {
			shift = next // every key has this digit
			continue
		}
		var sum uint32
		for b, c := range off {
			off[b], sum = sum, sum+c
		}
		// The scatter leaves in off[b] the end of piece b, the start of
		// piece b+1.
		scatterDigit(other, data, off, next, mask)
		lo := uint32(0)
		for _, hi := range off {
			switch hi - lo {
			case 0:
			case 1:
				final[lo] = other[lo]
			default:
				sortLow(other[lo:hi], data[lo:hi], next, final[lo:hi], level+1, t)
			}
			lo = hi
		}
		return
	}
}

// digitCount counts the keys of a by their bits (x>>shift)&mask.
//
//go:noinline
func digitCount[U uint32 | uint64](off []uint32, a []U, shift uint, mask U) {
	for _, x := range a {
		off[(x>>shift)&mask]++
	}
}

// scatterDigit is scatter by the bits (x>>shift)&mask.
//
//go:noinline
func scatterDigit[U uint32 | uint64](out, src []U, off []uint32, shift uint, mask U) {
	for _, x := range src {
		b := (x >> shift) & mask
		out[off[b]] = x
		off[b]++
	}
}

// insertionSort sorts a in ascending order.
func insertionSort[U uint32 | uint64](a []U) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for ; j > 0 && a[j-1] > x; j-- {
			a[j] = a[j-1]
		}
		a[j] = x
	}
}

// unmap replaces the images of a by the keys they map (see radixSortBits).
//
//go:noinline
func unmap[U uint32 | uint64](a []U, top uint, fm, sb U) {
	for i, m := range a {
		a[i] = m ^ (-((^m)>>top)&fm | sb)
	}
}
