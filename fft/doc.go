// Package fft computes discrete Fourier transforms of complex128 data:
// of local blocks (LocalFFT, LocalIFFT), and of distributed arrays
// (FFT, IFFT along one axis; FFT2, IFFT2, FFTN, IFFTN over several axes);
// of real float64 data (RFFT, IRFFT, RFFT2, IRFFT2, RFFTN, IRFFTN,
// LocalRFFT, LocalIRFFT); and NumPy's helpers FFTFreq, RFFTFreq,
// FFTShift and IFFTShift.
// The 1-D transforms are those of the block's backend (backend.FFTer): on
// the CPU a Stockham kernel of its own for lengths 2^a 3^b 5^c (radix 4,
// 2, 3 and 5 passes) and gonum's fourier.CmplxFFT (FFTPACK's mixed-radix
// algorithm) for any other length, on CUDA the kernels of backend/cuda's fft.cu (Stockham passes
// of radix 2, 3, 4 and 5, Bluestein's chirp-z for other lengths).
//
// # Normalization
//
// As NumPy's default ("backward"): the forward transform is unnormalized,
// X[k] = sum_j x[j] exp(-2 pi i j k / n), and the inverse divides by n,
// x[j] = (1/n) sum_k X[k] exp(+2 pi i j k / n), so an inverse after a
// forward transform returns the input up to rounding. The results equal
// numpy.fft.fft, ifft, fft2, ifft2, fftn and ifftn to about 1e-15 relative
// (in the max norm over the array); the tests require 1e-12.
//
// # Local blocks
//
// LocalFFT and LocalIFFT transform, in place, every line along one axis of
// a row-major N-D block, batched over the other axes. Lines along the last
// axis are contiguous; lines along an earlier axis are gathered a few at a
// time into contiguous scratch, transformed, and written back. A plan (the
// twiddle factors) is made once per length and reused. Large blocks are
// spread over the rank's thread budget (backend.Threads). They are the CPU
// backend's FFT (cpu.Backend.FFT) on a slice, and are not collective.
//
// # Distributed arrays
//
// FFT and IFFT transform along one axis, which must be local to every
// rank's block: not the split axis (and not split on a process grid), or
// the array replicated. They do not communicate, but they are collective
// in the sense of package dist: every rank calls them.
//
// FFTN and IFFTN (and FFT2 and IFFT2, their forms for the last two axes,
// as NumPy's) transform split arrays by the slab and pencil methods: the
// axes that are local are transformed first, then the array is
// redistributed (dist.Redistribute, one all-to-all) so that a split axis
// still to be transformed becomes local, the split moving to an axis
// already transformed, and so on until every axis is done; a last
// redistribution returns the input's layout. An array split along one
// axis (a slab decomposition) takes one redistribution each way; a 3-D
// array on a 2-D process grid split along axes 0 and 1 (pencils,
// dist.ProcessGrid(p0, p1, 1)) takes two there and one back. An array
// with no local axis to start from (every axis split) is first
// redistributed to slabs along axis 0. The TransposedOut option skips the
// redistribution back, as FFTW's FFTW_MPI_TRANSPOSED_OUT does: the result
// is in the layout the last transform left, which saves one all-to-all
// when the caller goes on in that layout (an inverse transform given that
// array returns to the input's layout only with its own redistribution).
// The Overwrite option transforms the input's block in place instead of a
// copy (the input's elements are then undefined), and redistributes it in
// place (dist.RedistributeInPlace: the input is then freed, and its memory
// is the result's where a block keeps its length). A 3-D array gets the
// method its layout asks for: slabs when it is split along one axis (the
// default layout), pencils on a process grid; FFTN does not change a slab
// layout into a grid. These are collective: every rank calls them, in the
// same order.
//
// A block is transformed on its own device where its backend is a
// backend.FFTer (the CPU backend, the fake device and CUDA are): nothing
// is copied to the host, and the redistributions move device memory as
// dist.Redistribute does. Each backend makes a plan once per (length,
// element type) and keeps it; CUDA uploads a plan's tables (twiddle
// factors, and Bluestein's chirp and kernel transform, computed on the
// host in float64) once, recorded as copies to the device, so that only
// the first transform of a length records a copy. CUDA's results are
// not the CPU's bits (another algorithm) but agree with NumPy's as
// closely (about 1e-15 relative). A block on a backend that is not an
// FFTer is copied to the host and back for each stage (backend.HostCall,
// recorded as the copies it makes) and transformed by the CPU backend.
//
// # Real input
//
// RFFT, RFFT2 and RFFTN take float64 arrays and return the half spectrum
// (n/2+1 terms along the last transformed axis), IRFFT, IRFFT2 and IRFFTN
// return the real array of a given length (NumPy's default 2(m-1), odd
// lengths too), as numpy.fft.rfft, irfft, rfft2, irfft2, rfftn and
// irfftn. A real line of even length n is transformed as n/2 complex
// values (its even and odd samples) by one complex FFT of length n/2 and
// an O(n) pass (LocalRFFT describes it): half the work and the memory of
// transforming a complex128 copy, and the distributed transposes move the
// half spectrum, about half the bytes of FFTN's; an odd length is
// transformed as complex128 lines, a few at a time. The real step runs on
// the host: a block on a device is copied to the host and its result back
// for that step alone (recorded copies), the complex stages and
// redistributions staying on the device. float32 input goes through
// dist.Astype to float64 first. FFTShift and IFFTShift roll any
// distributed array by n/2 along the axes asked for: no communication
// along axes local to the blocks, one all-to-all where a rolled axis is
// split.
package fft
