package fakedev

import (
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The fake device reduces along an axis on the device, with the CPU
// backend's arithmetic on its memory.
var _ driver.AxisReducer = (*Backend)(nil)

// SumAxis sums src along the middle of pre x n x post into dst.
func (b *Backend) SumAxis(dst, src driver.Buffer, pre, n, post int, squares bool) {
	hd, hs := host(b.buf("SumAxis", dst)), host(b.buf("SumAxis", src))
	b.kernel(func() { cpu.Default.SumAxis(hd, hs, pre, n, post, squares) })
}

// CastSums converts float64 sums (or their square roots) to dst's type.
func (b *Backend) CastSums(dst, acc driver.Buffer, sqrt bool) {
	hd, ha := host(b.buf("CastSums", dst)), host(b.buf("CastSums", acc))
	b.kernel(func() { cpu.Default.CastSums(hd, ha, sqrt) })
}

// ExtremeAxis finds the first minima (maxima) along the middle axis.
func (b *Backend) ExtremeAxis(vals, idx, src driver.Buffer, pre, n, post int, offset int64, max bool) {
	hv, hi, hs := host(b.buf("ExtremeAxis", vals)), host(b.buf("ExtremeAxis", idx)), host(b.buf("ExtremeAxis", src))
	b.kernel(func() { cpu.Default.ExtremeAxis(hv, hi, hs, pre, n, post, offset, max) })
}

// CombineExtremes keeps the best of p partial minima (maxima).
func (b *Backend) CombineExtremes(vals, idx, allVals, allIdx driver.Buffer, p int, max bool) {
	hv, hi := host(b.buf("CombineExtremes", vals)), host(b.buf("CombineExtremes", idx))
	hav, hai := host(b.buf("CombineExtremes", allVals)), host(b.buf("CombineExtremes", allIdx))
	b.kernel(func() { cpu.Default.CombineExtremes(hv, hi, hav, hai, p, max) })
}
