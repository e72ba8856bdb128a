package fakedev

import (
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The fake device sorts on the device, as a driver.Sorter, with the CPU
// backend's arithmetic on its memory: dist.Sort of a fake-device array
// moves no keys through the host.
var _ driver.Sorter = (*Backend)(nil)

// hostOrNil returns a host view of x, or nil for a nil buffer.
func (b *Backend) hostOrNil(op string, x driver.Buffer) driver.Buffer {
	if x == nil {
		return nil
	}
	return host(b.buf(op, x))
}

// SortByKey sorts keys stably on the device and sets index (if not nil).
func (b *Backend) SortByKey(keys, index driver.Buffer, base int64) {
	hk, hi := host(b.buf("SortByKey", keys)), b.hostOrNil("SortByKey", index)
	b.kernel(func() { cpu.Default.SortByKey(hk, hi, base) })
}

// Take sets dst[j] = src[pos[j]] on the device.
func (b *Backend) Take(dst, src driver.Buffer, pos []int) {
	hd, hs := host(b.buf("Take", dst)), host(b.buf("Take", src))
	pos = append([]int(nil), pos...) // the operation runs later, on the stream
	b.kernel(func() { cpu.Default.Take(hd, hs, pos) })
}

// Cut returns where the sorted keys are cut by the splitters; it waits for
// the work queued before it.
func (b *Backend) Cut(keys driver.Buffer, base int64, splitKeys []driver.Scalar, splitIdx []int64) (cuts []int) {
	hk := host(b.buf("Cut", keys))
	b.call(func() { cuts = cpu.Default.Cut(hk, base, splitKeys, splitIdx) })
	return cuts
}

// MergeRuns merges the sorted runs of keys (and index) into dst (and
// dstIndex) on the device.
func (b *Backend) MergeRuns(dst, dstIndex, keys, index driver.Buffer, bounds []int) {
	hd, hdi := host(b.buf("MergeRuns", dst)), b.hostOrNil("MergeRuns", dstIndex)
	hk, hi := host(b.buf("MergeRuns", keys)), b.hostOrNil("MergeRuns", index)
	bounds = append([]int(nil), bounds...)
	b.kernel(func() { cpu.Default.MergeRuns(hd, hdi, hk, hi, bounds) })
}
