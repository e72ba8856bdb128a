package fakedev

import (
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The fake device computes dist's statistics on the device, as a
// driver.StatsReducer, with the CPU backend's arithmetic on its memory:
// scalar results (Moments, Prod, CountNonzero, Histogram's counts) come
// back as Sum's does, after the work queued before them.
var _ driver.StatsReducer = (*Backend)(nil)

// Moments returns the float64 sum of x, the sum of deviations from its
// mean and the corrected sum of squared deviations.
func (b *Backend) Moments(x driver.Buffer) (sum, dev, m2 float64) {
	h := host(b.buf("Moments", x))
	b.call(func() { sum, dev, m2 = cpu.Default.Moments(h) })
	return sum, dev, m2
}

// MomentsAxis computes the moments of each line along the middle axis of
// pre x n x post on the device.
func (b *Backend) MomentsAxis(mom, src driver.Buffer, pre, n, post int) {
	hm, hx := host(b.buf("MomentsAxis", mom)), host(b.buf("MomentsAxis", src))
	b.kernel(func() { cpu.Default.MomentsAxis(hm, hx, pre, n, post) })
}

// CombineMoments merges the moments of p parts on the device.
func (b *Backend) CombineMoments(mom, all driver.Buffer, counts []int) {
	hm, ha := host(b.buf("CombineMoments", mom)), host(b.buf("CombineMoments", all))
	counts = append([]int(nil), counts...) // the operation runs later, on the stream
	b.kernel(func() { cpu.Default.CombineMoments(hm, ha, counts) })
}

// Prod returns the product of x's elements.
func (b *Backend) Prod(x driver.Buffer) (r driver.Scalar) {
	h := host(b.buf("Prod", x))
	b.call(func() { r = cpu.Default.Prod(h) })
	return r
}

// CountNonzero returns the number of nonzero elements (NaN included).
func (b *Backend) CountNonzero(x driver.Buffer) (n int) {
	h := host(b.buf("CountNonzero", x))
	b.call(func() { n = cpu.Default.CountNonzero(h) })
	return n
}

// Histogram adds the counts of x's elements in equal-width bins over
// [lo, hi] to counts (host memory), after the work queued before it.
func (b *Backend) Histogram(counts []int64, x driver.Buffer, lo, hi float64) {
	h := host(b.buf("Histogram", x))
	b.call(func() { cpu.Default.Histogram(counts, h, lo, hi) })
}

// ScanAxis sets dst to the running sums (products) along the middle axis
// of pre x n x post, starting from carry, on the device.
func (b *Backend) ScanAxis(dst, last, src, carry driver.Buffer, pre, n, post int, prod bool) {
	hd, hl := b.hostOrNil("ScanAxis", dst), b.hostOrNil("ScanAxis", last)
	hx, hc := host(b.buf("ScanAxis", src)), b.hostOrNil("ScanAxis", carry)
	b.kernel(func() { cpu.Default.ScanAxis(hd, hl, hx, hc, pre, n, post, prod) })
}

// Ratio sets dst to num/den, or its square root, on the device.
func (b *Backend) Ratio(dst, num driver.Buffer, den float64, sqrt bool) {
	hd, hn := host(b.buf("Ratio", dst)), host(b.buf("Ratio", num))
	b.kernel(func() { cpu.Default.Ratio(hd, hn, den, sqrt) })
}
