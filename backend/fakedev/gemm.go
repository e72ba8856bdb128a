package fakedev

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
)

// The fake device multiplies matrices on the device, as a backend.GEMM,
// with the CPU backend's arithmetic on its memory: dist.MatMul of
// fake-device arrays moves no matrix through the host.
var _ backend.GEMM = (*Backend)(nil)

// Gemm sets c to a*b, or to c + a*b if accumulate, on the device.
func (b *Backend) Gemm(c, x, y backend.Buffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	backend.CheckGemm(c, x, y, m, n, k, lda, ldb, ldc)
	hc, hx, hy := host(b.buf("Gemm", c)), host(b.buf("Gemm", x)), host(b.buf("Gemm", y))
	b.kernel(func() { cpu.Default.Gemm(hc, hx, hy, m, n, k, lda, ldb, ldc, accumulate) })
}
