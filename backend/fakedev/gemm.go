package fakedev

import (
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The fake device multiplies matrices on the device, as a driver.GEMM,
// with the CPU backend's arithmetic on its memory: dist.MatMul of
// fake-device arrays moves no matrix through the host.
var _ driver.GEMM = (*Backend)(nil)

// Gemm sets c to a*b, or to c + a*b if accumulate, on the device.
func (b *Backend) Gemm(c, x, y driver.Buffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	driver.CheckGemm(c, x, y, m, n, k, lda, ldb, ldc)
	hc, hx, hy := host(b.buf("Gemm", c)), host(b.buf("Gemm", x)), host(b.buf("Gemm", y))
	b.kernel(func() { cpu.Default.Gemm(hc, hx, hy, m, n, k, lda, ldb, ldc, accumulate) })
}
