package driver

import "fmt"

// FFTer is implemented by a backend that computes discrete Fourier
// transforms on its own device, so that package fft's transforms of device
// arrays stay on the device. A block is viewed as pre x n x post complex
// elements in row-major order (as for AxisReducer) and transformed along
// the middle index: each of the pre*post lines x[i][0..n-1][j] (stride
// post) is replaced by its transform, in place.
//
// The conventions are NumPy's default ("backward"): the forward transform
// is unnormalized, X[k] = sum_j x[j] exp(-2 pi i j k / n), and the inverse
// divides by n, x[j] = (1/n) sum_k X[k] exp(+2 pi i j k / n). A transform
// of length 1 is the identity, forward and inverse.
//
// The CPU backend (gonum's FFTPACK, complex64 through complex128 scratch),
// the fake device (the CPU's on its memory) and CUDA (Stockham radix 2, 3,
// 4 and 5 kernels, Bluestein's chirp-z for other lengths) implement it; a
// backend that does not has its blocks copied to the host and back for the
// transform, recorded as the copies they are. Each implementation makes a
// plan (twiddle factors) once per length and element type and reuses it.
type FFTer interface {
	// FFT transforms, in place, every line along the middle axis of x
	// (Complex64 or Complex128, pre*n*post elements), forward or inverse.
	// It panics, as CheckFFT does, for arguments that do not describe x,
	// and returns an error only for what the device decides (memory for a
	// plan or scratch space).
	FFT(x Buffer, pre, n, post int, inverse bool) error
}

// CheckFFT panics, saying why, unless x is a complex buffer of pre*n*post
// elements with no size negative. Implementations of FFTer call it before
// any work.
func CheckFFT(x Buffer, pre, n, post int) {
	if !x.DType().IsComplex() {
		panic(fmt.Sprintf("backend: FFT of a %v buffer: it takes complex64 or complex128", x.DType()))
	}
	if pre < 0 || n < 0 || post < 0 {
		panic(fmt.Sprintf("backend: FFT of sizes pre=%d n=%d post=%d", pre, n, post))
	}
	if pre*n*post != x.Len() {
		panic(fmt.Sprintf("backend: FFT of %d x %d x %d elements on a buffer of %d", pre, n, post, x.Len()))
	}
}
