package fakedev

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The fake device computes the elementwise math functions on the device,
// as a driver.Math, with the CPU backend's arithmetic on its memory:
// dist.Exp and the others of a fake-device array move nothing through the
// host.
var _ driver.Math = (*Backend)(nil)

// Unary sets dst = op(x) elementwise on the device; dst may be x.
func (b *Backend) Unary(op driver.UnaryOp, dst, x driver.Buffer) {
	if !op.Valid() {
		panic(fmt.Sprintf("fakedev: invalid UnaryOp %d", int(op)))
	}
	hd, hx, _ := b.mathBufs(op.String(), op.FloatOnly(), dst, x)
	b.kernel(func() { cpu.Default.Unary(op, hd, hx) })
}

// Pow sets dst = x**y elementwise on the device; dst may be x or y.
func (b *Backend) Pow(dst, x, y driver.Buffer) {
	hd, hx, hy := b.mathBufs("Pow", true, dst, x, y)
	b.kernel(func() { cpu.Default.Pow(hd, hx, hy) })
}

// PowScalar sets dst = x**s elementwise on the device; dst may be x.
func (b *Backend) PowScalar(dst, x driver.Buffer, s driver.Scalar) {
	hd, hx, _ := b.mathBufs("PowScalar", true, dst, x)
	b.kernel(func() { cpu.Default.PowScalar(hd, hx, s) })
}

// Clip sets dst = min(max(x, lo), hi) elementwise on the device, as
// NumPy's clip; dst may be x.
func (b *Backend) Clip(dst, x driver.Buffer, lo, hi driver.Scalar) {
	hd, hx, _ := b.mathBufs("Clip", false, dst, x)
	b.kernel(func() { cpu.Default.Clip(hd, hx, lo, hi) })
}

// mathBufs returns host views of dst, x and (if given) y, buffers of this
// device, after checking, before anything is queued, that they have the
// same type and length and, if floatOnly, that the type is a float.
func (b *Backend) mathBufs(op string, floatOnly bool, dst, x driver.Buffer, y ...driver.Buffer) (hd, hx, hy *driver.HostBuffer) {
	d, s := b.buf(op, dst), b.buf(op, x)
	bufs := []*buffer{d, s}
	for _, v := range y {
		bufs = append(bufs, b.buf(op, v))
	}
	for _, v := range bufs[1:] {
		if v.N != d.N || v.DT != d.DT {
			panic(fmt.Sprintf("fakedev: %s of %d %v and %d %v", op, d.N, d.DT, v.N, v.DT))
		}
	}
	if floatOnly && !d.DT.IsFloat() {
		panic(fmt.Sprintf("fakedev: %s of %v: only float32 and float64 have it", op, d.DT))
	}
	hd, hx = host(d), host(s)
	if len(bufs) > 2 {
		hy = host(bufs[2])
	}
	return hd, hx, hy
}

// BinaryMath sets dst = op(x, y) elementwise on the device; dst may be x
// or y.
func (b *Backend) BinaryMath(op driver.BinaryMathOp, dst, x, y driver.Buffer) {
	if !op.Valid() {
		panic(fmt.Sprintf("fakedev: invalid BinaryMathOp %d", int(op)))
	}
	hd, hx, hy := b.mathBufs(op.String(), op.FloatOnly(), dst, x, y)
	b.kernel(func() { cpu.Default.BinaryMath(op, hd, hx, hy) })
}
