package fft

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
)

// LocalFFT computes, in place, the forward discrete Fourier transform of
// every 1-D line along axis of x, a row-major block of the given shape,
// batched over the other axes: X[k] = sum_j x[j] exp(-2 pi i j k / n),
// unnormalized, as numpy.fft.fft(x, axis=axis). Lines along the last
// axis are contiguous; lines along an earlier axis are gathered a few at
// a time into contiguous scratch and written back. The work is spread
// over up to backend.Threads() goroutines when the block is large. It is
// the CPU backend's FFT (cpu.Backend.FFT, a backend.FFTer) on x. It is
// not collective: it touches only x.
//
// LocalFFT panics if len(x) is not the product of shape or axis is out
// of range.
func LocalFFT(x []complex128, shape []int, axis int) {
	along(x, shape, axis, false, "LocalFFT")
}

// LocalIFFT computes, in place, the inverse discrete Fourier transform of
// every 1-D line along axis of x, a row-major block of the given shape:
// x[j] = (1/n) sum_k X[k] exp(+2 pi i j k / n), as numpy.fft.ifft(x,
// axis=axis), so that LocalIFFT after LocalFFT returns the input up to
// rounding. It is not collective; it panics as LocalFFT does.
func LocalIFFT(x []complex128, shape []int, axis int) {
	along(x, shape, axis, true, "LocalIFFT")
}

// checkBlock panics unless x holds a row-major block of shape and axis is
// one of its axes, and returns the product of the axes before axis, the
// length along it and the product of the axes after it.
func checkBlock(x []complex128, shape []int, axis int, name string) (outer, n, inner int) {
	if axis < 0 || axis >= len(shape) {
		panic(fmt.Sprintf("fft: %s: axis %d out of range for %d-D shape %v", name, axis, len(shape), shape))
	}
	outer, inner = 1, 1
	for k, s := range shape {
		if s < 0 {
			panic(fmt.Sprintf("fft: %s: negative extent in shape %v", name, shape))
		}
		switch {
		case k < axis:
			outer *= s
		case k > axis:
			inner *= s
		}
	}
	n = shape[axis]
	if outer*n*inner != len(x) {
		panic(fmt.Sprintf("fft: %s: %d elements for shape %v", name, len(x), shape))
	}
	return outer, n, inner
}

func along(x []complex128, shape []int, axis int, inverse bool, name string) {
	outer, n, inner := checkBlock(x, shape, axis, name)
	hostFFT().FFT(backend.HostBufferOf(x), outer, n, inner, inverse) // the CPU's FFT returns no error
}

// hostFFT returns the CPU backend's FFT, taken from the registry (the
// program registers the CPU backend): the FFT of host blocks and slices.
func hostFFT() backend.FFTer { return backend.HostBackend().(backend.FFTer) }
