package fakedev

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
)

// The fake device computes discrete Fourier transforms on the device, as a
// backend.FFTer, with the CPU backend's FFT on its memory: package fft's
// transforms of fake-device arrays copy nothing to the host.
var _ backend.FFTer = (*Backend)(nil)

// FFT transforms every line along the middle axis of x, pre x n x post, in
// place on the device (see backend.FFTer); the results are the CPU
// backend's bit for bit. It panics as backend.CheckFFT does.
func (b *Backend) FFT(x backend.Buffer, pre, n, post int, inverse bool) error {
	hx := host(b.buf("FFT", x))
	backend.CheckFFT(hx, pre, n, post)
	b.kernel(func() { cpu.Default.FFT(hx, pre, n, post, inverse) })
	return nil
}
