package fakedev

import (
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The fake device compares, selects, compacts and converts on the device,
// as a driver.Converter, with the CPU backend's arithmetic on its memory:
// dist's masks and Astype of a fake-device array move nothing through the
// host.
var _ driver.Converter = (*Backend)(nil)

// Compare sets mask to x op y on the device.
func (b *Backend) Compare(op driver.CompareOp, mask, x, y driver.Buffer) {
	hm, hx, hy := host(b.buf("Compare", mask)), host(b.buf("Compare", x)), host(b.buf("Compare", y))
	b.kernel(func() { cpu.Default.Compare(op, hm, hx, hy) })
}

// CompareScalar sets mask to x op s on the device.
func (b *Backend) CompareScalar(op driver.CompareOp, mask, x driver.Buffer, s driver.Scalar) {
	hm, hx := host(b.buf("CompareScalar", mask)), host(b.buf("CompareScalar", x))
	b.kernel(func() { cpu.Default.CompareScalar(op, hm, hx, s) })
}

// Where selects between a and b by mask on the device.
func (b *Backend) Where(dst, mask, x, y driver.Buffer) {
	hd, hm := host(b.buf("Where", dst)), host(b.buf("Where", mask))
	hx, hy := host(b.buf("Where", x)), host(b.buf("Where", y))
	b.kernel(func() { cpu.Default.Where(hd, hm, hx, hy) })
}

// Compress compacts x by mask into dst on the device and returns the
// count; it waits for the work queued before it.
func (b *Backend) Compress(dst, x, mask driver.Buffer) (n int) {
	hd, hx, hm := host(b.buf("Compress", dst)), host(b.buf("Compress", x)), host(b.buf("Compress", mask))
	b.call(func() { n = cpu.Default.Compress(hd, hx, hm) })
	return n
}

// Convert converts src into dst's type on the device.
func (b *Backend) Convert(dst, src driver.Buffer) {
	hd, hs := host(b.buf("Convert", dst)), host(b.buf("Convert", src))
	b.kernel(func() { cpu.Default.Convert(hd, hs) })
}
