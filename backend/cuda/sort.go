package cuda

import (
	_ "embed"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CUDA backend runs the local steps of a sample sort (dist.Sort) and
// the gathers of dist's slicing and Redistribute packs on its device, as a
// driver.Sorter, with the kernels of sort.cu: a CUDA array's keys never
// go through the host. The results are the CPU backend's bit for bit: the
// order of cmp.Compare (NaNs first, -0 equal to +0), stable, keys moved
// with their own bits.
//
// SortByKey and MergeRuns are a stable LSD radix sort of 4-bit digits over
// an order-preserving map of the keys to unsigned integers (sort.cu):
// per-tile digit counts, an exclusive scan of each digit's counts (a block
// per digit), and a scatter that ranks each tile's keys in shared memory,
// deterministic and without atomics. A first reduction finds the digits in which the keys differ
// (their mapped bits' AND and OR, 16 bytes read back), and only those
// digits get a pass: keys spanning 20 bits take 5 passes whatever their
// type, and equal keys none. MergeRuns is that sort of the concatenated
// runs, which puts equal keys of an earlier run first, as a merge that
// prefers the earlier run does. Cut is one binary search per splitter on
// the device (one thread each); its splitters go to the device and its
// cuts come back, a few words each. Take is one gather kernel, its
// positions uploaded once per call.
var _ driver.Sorter = (*Backend)(nil)

// sortSource is sort.cu, which KernelSource appends after fft.cu.
//
//go:embed sort.cu
var sortSource string

// sortItems is the number of consecutive keys of a thread of the sort's
// kernels (sort.cu's XP_SORT_ITEMS), sortTile the keys of a block
// (XP_SORT_TILE), sortBits the bits of a digit (XP_SORT_BITS) and
// sortRadix its values (XP_SORT_RADIX).
const (
	sortItems = 4
	sortTile  = reduceBlock * sortItems
	sortBits  = 4
	sortRadix = 1 << sortBits
)

// takeSizes are the element sizes of Take's entries, xp_take_b1 to
// xp_take_b16 (16: complex128).
var takeSizes = []int{1, 2, 4, 8, 16}

// sortEntries returns the names of the entries of sort.cu.
func sortEntries() []string {
	var out []string
	for dt := backend.DType(0); int(dt) < len(typeSuffix); dt++ {
		for _, op := range []string{"sortbits", "sortcount", "sortscatter", "cut"} {
			out = append(out, kernelName(op, dt))
		}
	}
	out = append(out, "xp_sortbits2_u64", "xp_sortscan_i64", "xp_sortiota_i64")
	for _, s := range takeSizes {
		out = append(out, takeName(s))
	}
	return out
}

// takeName returns the entry of Take for elements of size bytes.
func takeName(size int) string { return "xp_take_b" + strconv.Itoa(size) }

// sortKeys returns x as a buffer of keys of this backend, panicking for a
// complex type, which has no order.
func (b *Backend) sortKeys(op string, x driver.Buffer) *devBuffer {
	d := b.buf(op, x)
	if d.DT.IsComplex() {
		panic(fmt.Sprintf("cuda: %s of %v keys: complex numbers have no order", op, d.DT))
	}
	return d
}

// sortIndex returns x as an Int64 buffer of n elements of this backend,
// or nil for a nil x.
func (b *Backend) sortIndex(op, what string, x driver.Buffer, n int) *devBuffer {
	if x == nil {
		return nil
	}
	d := b.buf(op, x)
	if d.DT != backend.Int64 || d.N != n {
		panic(fmt.Sprintf("cuda: %s: %s of %d %v for %d keys, want Int64", op, what, d.N, d.DT, n))
	}
	return d
}

// sortAddr returns the device address of d, 0 for nil.
func sortAddr(d *devBuffer) uint64 {
	if d == nil {
		return 0
	}
	return addr(d)
}

// orderBits returns the image of s, a key of type dt, under sort.cu's
// order-preserving map (xp_order): an unsigned integer of dt's width that
// orders as cmp.Compare orders the keys.
func orderBits(dt backend.DType, s driver.Scalar) uint64 {
	w := 8 * dt.Size()
	sign := uint64(1) << (w - 1)
	all := ^uint64(0) >> (64 - w)
	b := convert(s, dt).Bits() & all
	switch {
	case dt.IsFloat():
		inf := uint64(0x7f800000)
		if w == 64 {
			inf = 0x7ff0000000000000
		}
		switch mag := b &^ sign; {
		case mag > inf:
			return 0 // a NaN
		case mag == 0:
			return sign // -0 is +0
		case b&sign != 0:
			return ^b & all
		default:
			return b | sign
		}
	case dt.IsSigned():
		return b ^ sign
	}
	return b
}

// sortScratch is the device memory of one SortByKey or MergeRuns call,
// allocated once: the reduction's partials and result, the digit counts
// of the tiles, and for SortByKey room for the keys and indices of
// alternate passes.
type sortScratch struct {
	buf                      driver.Buffer // Uint8
	partials, result, counts uint64        // device addresses
	keys, index              uint64        // 0 when absent
	keysOff, keysBytes       int           // the keys' region, as bytes of buf
}

// sortTiles returns the number of tiles of n keys.
func sortTiles(n int) int { return (n + sortTile - 1) / sortTile }

// newSortScratch allocates the scratch of a sort of n keys of type dt,
// with room for alternate keys and indices if keys and index are set.
func (b *Backend) newSortScratch(op string, dt backend.DType, n int, keys, index bool) *sortScratch {
	align := func(v int) int { return (v + 255) &^ 255 }
	off := 0
	region := func(bytes int) int {
		at := off
		off = align(off + bytes)
		return at
	}
	pOff := region(2 * maxReduceGrid * 8)
	rOff := region(2 * 8)
	cOff := region((sortRadix*sortTiles(n) + sortRadix) * 8) // counts, then each digit's total
	kOff, iOff := -1, -1
	if keys {
		kOff = region(n * dt.Size())
	}
	if index {
		iOff = region(n * 8)
	}
	s := &sortScratch{buf: b.temp(op, backend.Uint8, off)}
	base := addr(b.buf(op, s.buf))
	s.partials, s.result, s.counts = base+uint64(pOff), base+uint64(rOff), base+uint64(cOff)
	if keys {
		s.keys, s.keysOff, s.keysBytes = base+uint64(kOff), kOff, n*dt.Size()
	}
	if index {
		s.index = base + uint64(iOff)
	}
	return s
}

// sortShifts returns the shifts of the digits in which the n keys k
// differ, lowest first, from the AND and OR of their mapped bits, which it
// reduces on the device and reads back (16 bytes).
func (b *Backend) sortShifts(op string, k *devBuffer, s *sortScratch) []int {
	n := k.N
	g := reduceGrid(n)
	b.launch(op, kernelName("sortbits", k.DT), Dim3{X: g}, Dim3{X: reduceBlock},
		(&Args{}).Int64(int64(n)).Buffer(k).DevicePtr(s.partials))
	b.launch(op, "xp_sortbits2_u64", Dim3{X: 1}, Dim3{X: reduceBlock},
		(&Args{}).Int32(int32(g)).DevicePtr(s.partials).DevicePtr(s.result))
	var r [2]uint64
	off := int(s.result - addr(b.buf(op, s.buf)))
	if err := b.CopyToHost(unsafe.Pointer(&r[0]), b.Slice(s.buf, off, off+16)); err != nil {
		fail(op, err)
	}
	diff := r[0] ^ r[1]
	var shifts []int
	for sh := 0; sh < 8*k.DT.Size(); sh += sortBits {
		if (diff>>sh)&(sortRadix-1) != 0 {
			shifts = append(shifts, sh)
		}
	}
	return shifts
}

// sortSide is the keys and values (0: none) of one side of a radix pass.
type sortSide struct{ k, v uint64 }

// radixPasses sorts the n keys of type dt at from stably by the digits at
// shifts, one pass each, moving the values with them; the passes alternate
// between from and to, so the result is in to after an odd number of
// passes and in from after an even one.
func (b *Backend) radixPasses(op string, dt backend.DType, n int, shifts []int, from, to sortSide, counts uint64) {
	tiles := sortTiles(n)
	for _, sh := range shifts {
		b.launch(op, kernelName("sortcount", dt), Dim3{X: tiles}, Dim3{X: reduceBlock},
			(&Args{}).Int64(int64(n)).Int32(int32(sh)).DevicePtr(from.k).Int64(int64(tiles)).DevicePtr(counts))
		b.launch(op, "xp_sortscan_i64", Dim3{X: sortRadix}, Dim3{X: reduceBlock},
			(&Args{}).Int64(int64(tiles)).DevicePtr(counts))
		b.launch(op, kernelName("sortscatter", dt), Dim3{X: tiles}, Dim3{X: reduceBlock},
			(&Args{}).Int64(int64(n)).Int32(int32(sh)).DevicePtr(from.k).DevicePtr(to.k).
				DevicePtr(from.v).DevicePtr(to.v).Int64(int64(tiles)).DevicePtr(counts))
		from, to = to, from
	}
}

// iota sets the n Int64 elements at p to base, base+1, ...
func (b *Backend) iota(op string, p uint64, n int, base int64) {
	b.launch(op, "xp_sortiota_i64", elemGrid(n), Dim3{X: blockSize}, (&Args{}).Int64(int64(n)).DevicePtr(p).Int64(base))
}

// copyBytes queues a copy of n bytes from device address src to dst on the
// backend's stream.
func (b *Backend) copyBytes(op string, dst, src *devBuffer) {
	if err := b.CopyAsync(dst, src, nil); err != nil {
		fail(op, err)
	}
}

// SortByKey sorts keys stably on the device, in the order of cmp.Compare
// (NaNs first, -0 equal to +0: the CPU backend's result bit for bit), and,
// if index is not nil (an Int64 buffer of keys' length), sets index[i] to
// base plus the position before the sort of the element now at i. It reads
// back 16 bytes (the digits in which the keys differ), so it waits for the
// work queued before it. It panics for complex keys and for an index of
// another type or length.
func (b *Backend) SortByKey(keys, index driver.Buffer, base int64) {
	const op = "SortByKey"
	defer keep(keys, index) // their addresses go to several launches
	k := b.sortKeys(op, keys)
	ix := b.sortIndex(op, "index", index, k.N)
	n := k.N
	if n == 0 {
		return
	}
	if n == 1 {
		if ix != nil {
			b.iota(op, addr(ix), 1, base)
		}
		return
	}
	s := b.newSortScratch(op, k.DT, n, true, ix != nil)
	defer b.Free(s.buf)
	shifts := b.sortShifts(op, k, s)
	mine := sortSide{addr(k), sortAddr(ix)}
	other := sortSide{s.keys, s.index}
	from, to := mine, other
	if len(shifts)%2 == 1 { // start from a copy, so that the last pass writes keys
		b.copyBytes(op, b.buf(op, b.Slice(s.buf, s.keysOff, s.keysOff+s.keysBytes)), k)
		from, to = other, mine
	}
	if ix != nil {
		b.iota(op, from.v, n, base)
	}
	b.radixPasses(op, k.DT, n, shifts, from, to, s.counts)
}

// Take sets dst[j] = src[pos[j]] for every j, on the device, for every
// element type (complex ones too): one gather kernel, one thread per
// element, with pos uploaded as Int64 kernel input (8 bytes per position,
// not recorded as a copy of an array's elements). It waits for the upload
// and for the work queued before it. It panics if the types differ, if
// pos is longer than dst, if a position is outside src, or if dst's
// written part and src share memory.
func (b *Backend) Take(dst, src driver.Buffer, pos []int) {
	const op = "Take"
	d, s := b.buf(op, dst), b.buf(op, src)
	if d.DT != s.DT {
		panic(fmt.Sprintf("cuda: Take of %v into %v", s.DT, d.DT))
	}
	if len(pos) > d.N {
		panic(fmt.Sprintf("cuda: Take of %d positions into %d elements", len(pos), d.N))
	}
	if len(pos) == 0 {
		return
	}
	p := make([]int64, len(pos))
	for j, i := range pos {
		if i < 0 || i >= s.N {
			panic(fmt.Sprintf("cuda: Take: position %d (pos[%d]) out of range [0, %d)", i, j, s.N))
		}
		p[j] = int64(i)
	}
	size := d.DT.Size()
	da, sa := addr(d), addr(s)
	if da < sa+uint64(s.Bytes()) && sa < da+uint64(len(pos)*size) {
		panic("cuda: Take with dst and src in the same memory")
	}
	dp := b.temp(op, backend.Int64, len(p))
	defer b.Free(dp)
	if err := b.CopyFromHost(dp, unsafe.Pointer(&p[0])); err != nil {
		fail(op, err)
	}
	b.launch(op, takeName(size), elemGrid(len(p)), Dim3{X: blockSize},
		(&Args{}).Int64(int64(len(p))).Buffer(d).Buffer(s).Buffer(dp))
}

// Cut returns, for each splitter j, the number of leading elements of the
// sorted keys that come before (splitKeys[j], splitIdx[j]) in (key,
// index) order, element i having index base+i (see driver.Sorter): one
// binary search per splitter on the device, a thread each. The splitters
// go to the device mapped to sort.cu's order, and the cuts come back: 16
// bytes each way per splitter. It waits for the work queued before it. It
// panics for complex keys and if splitKeys and splitIdx differ in length.
func (b *Backend) Cut(keys driver.Buffer, base int64, splitKeys []driver.Scalar, splitIdx []int64) []int {
	const op = "Cut"
	k := b.sortKeys(op, keys)
	m := len(splitKeys)
	if len(splitIdx) != m {
		panic(fmt.Sprintf("cuda: Cut with %d splitter keys and %d indices", m, len(splitIdx)))
	}
	cuts := make([]int, m)
	if m == 0 || k.N == 0 {
		return cuts
	}
	w := make([]uint64, 2*m)
	for j, sk := range splitKeys {
		w[j] = orderBits(k.DT, sk)
		w[m+j] = uint64(splitIdx[j])
	}
	t := b.temp(op, backend.Uint64, 3*m)
	defer b.Free(t)
	if err := b.CopyFromHost(b.Slice(t, 0, 2*m), unsafe.Pointer(&w[0])); err != nil {
		fail(op, err)
	}
	ta := addr(b.buf(op, t))
	b.launch(op, kernelName("cut", k.DT), elemGrid(m), Dim3{X: blockSize},
		(&Args{}).Int64(int64(k.N)).Buffer(k).Int64(base).Int64(int64(m)).
			DevicePtr(ta).DevicePtr(ta+uint64(8*m)).DevicePtr(ta+uint64(16*m)))
	out := make([]uint64, m)
	b.read(op, out, b.Slice(t, 2*m, 3*m))
	for j, v := range out {
		cuts[j] = int(v)
	}
	return cuts
}

// MergeRuns merges the sorted runs [bounds[k], bounds[k+1]) of keys into
// dst, taking from the earlier run on equal keys, and moves index (nil:
// none) with the keys into dstIndex, on the device: a stable radix sort of
// the concatenated runs (see SortByKey), which orders equal keys by run
// and, within a run, as they were: the merge's result, bit for bit. keys
// and index are its alternate buffers: their contents are lost. One run
// (or none) is a copy. It reads back 16 bytes, so it waits for the work
// queued before it. It panics, as the CPU backend's does, for lengths that
// differ or bounds that do not ascend from 0 to len(keys), and for complex
// keys.
func (b *Backend) MergeRuns(dst, dstIndex, keys, index driver.Buffer, bounds []int) {
	const op = "MergeRuns"
	defer keep(dst, dstIndex, keys, index) // their addresses go to several launches
	d, k := b.sortKeys(op, dst), b.sortKeys(op, keys)
	n := k.N
	lenOf := func(x driver.Buffer) int {
		if x == nil {
			return 0
		}
		return x.Len()
	}
	if d.N != n || d.DT != k.DT || lenOf(index) != lenOf(dstIndex) || (index != nil && index.Len() != n) {
		panic(fmt.Sprintf("cuda: MergeRuns of %d %v keys and %d indices into %d %v and %d", n, k.DT, lenOf(index), d.N, d.DT, lenOf(dstIndex)))
	}
	ix, dix := b.sortIndex(op, "index", index, n), b.sortIndex(op, "dstIndex", dstIndex, n)
	runs := 0
	for j := range bounds {
		if j > 0 && bounds[j] < bounds[j-1] {
			runs = -1
			break
		}
		if j > 0 && bounds[j] > bounds[j-1] {
			runs++
		}
	}
	if len(bounds) == 0 || bounds[0] != 0 || bounds[len(bounds)-1] != n || runs < 0 {
		panic(fmt.Sprintf("cuda: MergeRuns with bounds %v for %d keys", bounds, n))
	}
	if n == 0 {
		return
	}
	copyIn := func() {
		b.copyBytes(op, d, k)
		if ix != nil {
			b.copyBytes(op, dix, ix)
		}
	}
	if runs == 1 {
		copyIn()
		return
	}
	s := b.newSortScratch(op, k.DT, n, false, false)
	defer b.Free(s.buf)
	shifts := b.sortShifts(op, k, s)
	mine := sortSide{addr(k), sortAddr(ix)}
	out := sortSide{addr(d), sortAddr(dix)}
	from, to := mine, out
	if len(shifts)%2 == 0 { // start from dst, so that the last pass writes it
		copyIn()
		from, to = out, mine
	}
	b.radixPasses(op, k.DT, n, shifts, from, to, s.counts)
}
