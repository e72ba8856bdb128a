package fakedev

import (
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The fake device computes discrete Fourier transforms on the device, as a
// driver.FFTer, with the CPU backend's FFT on its memory: package fft's
// transforms of fake-device arrays copy nothing to the host.
var _ driver.FFTer = (*Backend)(nil)

// FFT transforms every line along the middle axis of x, pre x n x post, in
// place on the device (see driver.FFTer); the results are the CPU
// backend's bit for bit. It panics as driver.CheckFFT does.
func (b *Backend) FFT(x driver.Buffer, pre, n, post int, inverse bool) error {
	hx := host(b.buf("FFT", x))
	driver.CheckFFT(hx, pre, n, post)
	b.kernel(func() { cpu.Default.FFT(hx, pre, n, post, inverse) })
	return nil
}
