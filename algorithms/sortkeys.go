package algorithms

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unsafe"
)

// SortKeys sorts keys in place into the order of cmp.Compare, with the
// result SortByKey gives, bit for bit, without computing a permutation:
// when no companion array follows the keys, it moves 8 (or, for keys that
// span at most 32 bits, 4) bytes per key in each radix pass instead of
// the key, its position and a final gather through the permutation.
//
// Stability is observable only between keys that compare equal but have
// different bits: -0 and +0, and NaNs. A slice of floats that holds a NaN
// or a negative zero is therefore sorted by SortByKey's stable path;
// otherwise, and for integer keys, equal keys are identical and a radix
// sort of the keys alone is exactly the stable sort.
func SortKeys[K Key](keys []K) {
	n := len(keys)
	if n < radixThreshold {
		slices.SortStableFunc(keys, cmp.Compare[K])
		return
	}
	size := unsafe.Sizeof(keys[0])
	if uint64(n) > math.MaxUint32 || size != 4 && size != 8 { // the histograms count in uint32
		SortByKey(keys)
		return
	}
	if size == 4 {
		u := unsafe.Slice((*uint32)(unsafe.Pointer(&keys[0])), n)
		if !toTotal32[K](u) {
			SortByKey(keys)
			return
		}
		lo, hi := u[0], u[0]
		for _, v := range u {
			lo = min(lo, v)
			hi = max(hi, v)
		}
		if width := bits.Len32(hi - lo); width > 0 {
			for i := range u {
				u[i] -= lo
			}
			if s := radixKeys(u, width, digitBits); &s[0] != &u[0] {
				copy(u, s)
			}
			for i := range u {
				u[i] += lo
			}
		}
		fromTotal32[K](u)
		return
	}
	// 8-byte keys: sorted as their totalBits in place, or, when their
	// span fits in 32 bits, as 4-byte offsets from the smallest.
	u := unsafe.Slice((*uint64)(unsafe.Pointer(&keys[0])), n)
	if !toTotal64[K](u) {
		SortByKey(keys)
		return
	}
	lo, hi := u[0], u[0]
	for _, v := range u {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	width := bits.Len64(hi - lo)
	switch {
	case width == 0: // all keys equal
	case width <= 32:
		k := make([]uint32, n)
		for i, v := range u {
			k[i] = uint32(v - lo)
		}
		k = radixKeys(k, width, digitBits)
		for i, v := range k {
			u[i] = uint64(v) + lo
		}
	default:
		for i := range u {
			u[i] -= lo
		}
		if s := radixKeys(u, width, digitBits); &s[0] != &u[0] {
			copy(u, s)
		}
		for i := range u {
			u[i] += lo
		}
	}
	fromTotal64[K](u)
}

// toTotal64 maps 8-byte keys, seen as their bits u, in place to unsigned
// integers in their order, invertibly (fromTotal64 undoes it): signed
// integers have their sign bit flipped, floats their sign bit set if
// positive and all bits flipped if negative. It reports false, with u as
// it was, if a key is a NaN or a negative zero, whose order under
// cmp.Compare the map does not keep.
func toTotal64[K Key](u []uint64) bool {
	switch kindOf[K]() {
	case kindSigned:
		for i := range u {
			u[i] ^= 1 << 63
		}
	case kindFloat64:
		for i, b := range u {
			if b == 1<<63 || b&0x7ff0000000000000 == 0x7ff0000000000000 && b&0xfffffffffffff != 0 {
				fromTotal64[K](u[:i])
				return false
			}
			if b>>63 != 0 {
				u[i] = ^b
			} else {
				u[i] = b | 1<<63
			}
		}
	}
	return true
}

// fromTotal64 undoes toTotal64.
func fromTotal64[K Key](u []uint64) {
	switch kindOf[K]() {
	case kindSigned:
		for i := range u {
			u[i] ^= 1 << 63
		}
	case kindFloat64:
		for i, v := range u {
			if v>>63 != 0 {
				u[i] = v &^ (1 << 63)
			} else {
				u[i] = ^v
			}
		}
	}
}

// toTotal32 is toTotal64 for 4-byte keys.
func toTotal32[K Key](u []uint32) bool {
	switch kindOf[K]() {
	case kindSigned:
		for i := range u {
			u[i] ^= 1 << 31
		}
	case kindFloat32:
		for i, b := range u {
			if b == 1<<31 || b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
				fromTotal32[K](u[:i])
				return false
			}
			if b>>31 != 0 {
				u[i] = ^b
			} else {
				u[i] = b | 1<<31
			}
		}
	}
	return true
}

// fromTotal32 undoes toTotal32.
func fromTotal32[K Key](u []uint32) {
	switch kindOf[K]() {
	case kindSigned:
		for i := range u {
			u[i] ^= 1 << 31
		}
	case kindFloat32:
		for i, v := range u {
			if v>>31 != 0 {
				u[i] = v &^ (1 << 31)
			} else {
				u[i] = ^v
			}
		}
	}
}

// radixKeys sorts k by its low width bits, digit bits at a time, and
// returns the sorted keys: k itself or the scratch slice, whichever the
// last pass wrote (k is overwritten either way).
func radixKeys[U uint32 | uint64](k []U, width, digit int) []U {
	n := len(k)
	buckets := 1 << digit
	mask := U(buckets - 1)
	passes := (width + digit - 1) / digit
	counts := make([]uint32, passes*buckets)
	for _, v := range k {
		for p := range passes {
			counts[p*buckets+int((v>>(p*digit))&mask)]++
		}
	}
	k2 := make([]U, n)
	for p := range passes {
		c := counts[p*buckets : (p+1)*buckets]
		shift := p * digit
		if c[(k[0]>>shift)&mask] == uint32(n) {
			continue // every key has the same digit here
		}
		var sum uint32
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		for _, v := range k {
			d := (v >> shift) & mask
			k2[c[d]] = v
			c[d]++
		}
		k, k2 = k2, k
	}
	return k
}
