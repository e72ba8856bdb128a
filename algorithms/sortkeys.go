package algorithms

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// SortKeys sorts keys in place into the order of cmp.Compare, with the
// result SortByKey gives, bit for bit, without computing a permutation. It
// is SortKeysTo(keys, keys, nil).
func SortKeys[K Key](keys []K) {
	SortKeysTo(keys, keys, nil)
}

// SortKeysTo sets dst to the keys of src in the order of cmp.Compare, with
// the result SortByKey gives, bit for bit, without computing a
// permutation. dst and src must have the same length, and be the same
// slice (an in-place sort) or not overlap; src is not modified unless it
// is dst. work is scratch space: if it has at least len(src) elements,
// the sort uses its first len(src) and allocates none of that size (it
// must not overlap dst or src); otherwise (nil, say) the sort allocates
// len(src) keys where it needs them: always for an in-place sort, and,
// from 2^16 keys on, only for keys that the hybrid below cannot cut into
// short buckets. A caller that sorts repeatedly and passes the same work
// each time therefore touches no fresh memory of the input's size. It
// panics if the lengths of dst and src differ.
//
// From 2^16 keys on, keys of 4 and 8 bytes are first tried with a hybrid
// (see sortkeys_msd.go): one scatter out of src by the 11 highest bits in
// which the keys differ, then each bucket sorted in a cache-sized scratch
// buffer by MSD passes on the bits below, down to buckets short enough for
// insertion. It reads src three times (the spread of the bits, the
// window's histogram, the scatter) and writes dst about twice, and needs no
// scratch of len(src) keys unless the sort is in place (the scatter then
// goes to work, and the buckets are sorted back into dst with dst as
// their scratch); out of place, the buckets' scratch is work if given,
// else one buffer of the longest bucket's length. If a bucket would be
// longer than 2^17 keys (keys that share their high bits), it gives up
// before writing anything, and the LSD sort below runs.
//
// From radixThreshold (256) keys on, and for what the hybrid leaves, keys
// of 4 and 8 bytes are sorted by
// an LSD radix sort of an order-preserving map of their bits to unsigned
// integers, 11 bits per pass (3 passes for 4-byte keys, 6 for 8-byte
// ones): one read pass counts every pass's digits, a pass whose digit is
// the same for every key is skipped, the passes alternate between dst and
// work so that the last one writes dst, and the first pass maps the keys
// and the last maps them back as they move. An in-place sort with an odd
// number of passes copies the keys to work first. Shorter inputs, and
// 1- and 2-byte keys, use the stable sorts of SortByKey.
//
// Stability is observable only between keys that compare equal but have
// different bits: -0 and +0, and NaNs. A slice of floats that holds a NaN
// or a negative zero is therefore sorted by SortByKey's stable path (the
// read pass finds them before anything is written); otherwise, and for
// integer keys, equal keys are identical and a radix sort of the keys
// alone is exactly the stable sort.
func SortKeysTo[K Key](dst, src, work []K) {
	n := len(src)
	if len(dst) != n {
		panic(fmt.Sprintf("algorithms: SortKeysTo of %d keys into %d", n, len(dst)))
	}
	if n == 0 {
		return
	}
	inPlace := &dst[0] == &src[0]
	fallback := func() {
		if !inPlace {
			copy(dst, src)
		}
		if n < radixThreshold {
			slices.SortStableFunc(dst, cmp.Compare[K])
		} else {
			SortByKey(dst)
		}
	}
	size := unsafe.Sizeof(src[0])
	if n < radixThreshold || uint64(n) > math.MaxUint32 || size != 4 && size != 8 { // the histograms count in uint32
		fallback()
		return
	}
	if len(work) < n {
		work = nil
	} else {
		work = work[:n]
	}
	kind := kindOf[K]()
	var ok bool
	if size == 8 {
		var fm, sb uint64
		switch kind {
		case kindFloat64:
			fm, sb = math.MaxUint64, 1<<63
		case kindSigned:
			sb = 1 << 63
		}
		ok = radixSortBits(bitsOf64(dst), bitsOf64(src), bitsOf64(work), kind == kindFloat64, fm, sb, 0x7ff0000000000000)
	} else {
		var fm, sb uint32
		switch kind {
		case kindFloat32:
			fm, sb = math.MaxUint32, 1<<31
		case kindSigned:
			sb = 1 << 31
		}
		ok = radixSortBits(bitsOf32(dst), bitsOf32(src), bitsOf32(work), kind == kindFloat32, fm, sb, 0x7f800000)
	}
	if !ok {
		fallback()
	}
}

// bitsOf64 returns the 8-byte keys k as their bits.
func bitsOf64[K Key](k []K) []uint64 {
	if k == nil {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(k))), len(k))
}

// bitsOf32 returns the 4-byte keys k as their bits.
func bitsOf32[K Key](k []K) []uint32 {
	if k == nil {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(k))), len(k))
}

// radixBits is the width of a digit of radixSortBits; radixBuckets the
// number of its values.
const (
	radixBits    = 11
	radixBuckets = 1 << radixBits
)

// radixSortBits sorts the keys of src, given as their bits, into dst (see
// SortKeysTo): a key x is ordered as its image x ^ (-(x>>top)&fm | sb),
// with top its highest bit (fm all ones and sb the sign bit for floats;
// fm zero and sb the sign bit for signed integers; both zero for unsigned
// ones). It reports false, having written nothing, if float is set and a
// key is a NaN (its bits without the sign above inf) or a negative zero,
// whose order under cmp.Compare the map does not keep. work is nil or has
// len(src) elements.
func radixSortBits[U uint32 | uint64](dst, src, work []U, float bool, fm, sb, inf U) bool {
	n := len(src)
	top := uint(unsafe.Sizeof(U(0))*8 - 1)
	digits := int(top/radixBits) + 1 // 6 for 64 bits, 3 for 32
	inPlace := &dst[0] == &src[0]
	if n >= msdMinKeys {
		// Out of place, the keys are scattered into dst and work (if
		// given) holds the buckets' scratch; in place, they are scattered
		// into work and sorted back into dst, which is then free to be
		// the scratch.
		into, scratch := dst, work
		if inPlace {
			if work == nil {
				work = make([]U, n)
			}
			into, scratch = work, dst
		}
		if msdSort(dst, src, into, scratch, float, top, fm, sb, inf) {
			return true
		}
	}
	counts := make([][radixBuckets]uint32, digits)
	if !histograms(counts, src, float, fm, sb, inf) {
		return false
	}
	// The digits to sort by: those not shared by every key.
	first := src[0] ^ (-(src[0]>>top)&fm | sb)
	var passes []int
	for d := range digits {
		if counts[d][(first>>(d*radixBits))&(radixBuckets-1)] != uint32(n) {
			passes = append(passes, d)
		}
	}
	if len(passes) == 0 { // every key has the same bits
		if !inPlace {
			copy(dst, src)
		}
		return true
	}
	if work == nil {
		work = make([]U, n)
	}
	// Alternate so that the last pass writes dst.
	out, next := dst, work
	if len(passes)%2 == 0 {
		out, next = work, dst
	} else if inPlace {
		copy(work, src)
		src = work
	}
	for i, d := range passes {
		off := &counts[d]
		var sum uint32
		for b, c := range off {
			off[b], sum = sum, sum+c
		}
		shift := uint(d * radixBits)
		last := i == len(passes)-1
		switch {
		case i == 0 && last:
			scatterMapped(out, src, off, shift, top, fm, sb)
		case i == 0:
			scatterMap(out, src, off, shift, top, fm, sb)
		case last:
			scatterUnmap(out, src, off, shift, top, fm, sb)
		default:
			scatter(out, src, off, shift)
		}
		src, out, next = out, next, out
	}
	return true
}

// histograms counts, for every digit d of counts, how many keys of src
// have each value of that digit of their image (see radixSortBits). It
// reports false if float is set and a key is a NaN or a negative zero.
//
//go:noinline
func histograms[U uint32 | uint64](counts [][radixBuckets]uint32, src []U, float bool, fm, sb, inf U) bool {
	top := unsafe.Sizeof(U(0))*8 - 1
	const mask = radixBuckets - 1
	if len(counts) == 3 {
		c0, c1, c2 := &counts[0], &counts[1], &counts[2]
		for _, x := range src {
			if float && (x&^sb > inf || x == sb) {
				return false
			}
			m := x ^ (-(x>>top)&fm | sb)
			c0[m&mask]++
			c1[(m>>radixBits)&mask]++
			c2[(m>>(2*radixBits))&mask]++
		}
		return true
	}
	c0, c1, c2, c3, c4, c5 := &counts[0], &counts[1], &counts[2], &counts[3], &counts[4], &counts[5]
	for _, x := range src {
		if float && (x&^sb > inf || x == sb) {
			return false
		}
		m := uint64(x ^ (-(x>>top)&fm | sb))
		c0[m&mask]++
		c1[(m>>radixBits)&mask]++
		c2[(m>>(2*radixBits))&mask]++
		c3[(m>>(3*radixBits))&mask]++
		c4[(m>>(4*radixBits))&mask]++
		c5[(m>>(5*radixBits))&mask]++
	}
	return true
}

// scatter moves every key x of src to out[off[digit]], digit being x's
// bits from shift on, and increments that offset. The scatter and
// histogram loops are not inlined: in a function of their own they keep
// their values in registers.
//
//go:noinline
func scatter[U uint32 | uint64](out, src []U, off *[radixBuckets]uint32, shift uint) {
	for _, x := range src {
		b := (x >> shift) & (radixBuckets - 1)
		out[off[b]] = x
		off[b]++
	}
}

// scatterMap is scatter of the keys' images: the first of several passes.
//
//go:noinline
func scatterMap[U uint32 | uint64](out, src []U, off *[radixBuckets]uint32, shift, top uint, fm, sb U) {
	for _, x := range src {
		m := x ^ (-(x>>top)&fm | sb)
		b := (m >> shift) & (radixBuckets - 1)
		out[off[b]] = m
		off[b]++
	}
}

// scatterUnmap is scatter of images that writes the keys they map:
// the last of several passes.
//
//go:noinline
func scatterUnmap[U uint32 | uint64](out, src []U, off *[radixBuckets]uint32, shift, top uint, fm, sb U) {
	for _, m := range src {
		b := (m >> shift) & (radixBuckets - 1)
		out[off[b]] = m ^ (-((^m)>>top)&fm | sb)
		off[b]++
	}
}

// scatterMapped is scatter of keys by the digit of their images: the only
// pass.
//
//go:noinline
func scatterMapped[U uint32 | uint64](out, src []U, off *[radixBuckets]uint32, shift, top uint, fm, sb U) {
	for _, x := range src {
		m := x ^ (-(x>>top)&fm | sb)
		b := (m >> shift) & (radixBuckets - 1)
		out[off[b]] = x
		off[b]++
	}
}
