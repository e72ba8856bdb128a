// Package cuda is xpmpi's CUDA backend: arrays in the memory of an NVIDIA
// GPU and their operations run as CUDA kernels.
//
// # No NVIDIA file at build time
//
// The package is a thin cgo layer of its own over the CUDA driver API
// (libcuda.so.1) and NVRTC, both loaded at run time with dlopen and called
// through entry points bound by their explicit versioned names
// (cuMemAlloc_v2, ...) with the package's own declarations (xpcuda.h). The
// build needs no CUDA header or library, binaries depend on libc only, and
// they run everywhere: where the driver or a GPU is missing, looking the
// backend up returns an error that says which, and nothing crashes.
// Nothing is loaded when the package is initialized, only when the backend
// is first looked up (backend.Lookup("cuda"), backend.Select,
// XPMPI_BACKEND=cuda) or a function of this package that needs the driver
// is called.
//
// Importing the package registers the backend with package backend as
// "cuda"; Default and Open return it directly.
//
// # Devices and contexts
//
// Each process uses one device: ChooseDevice takes XPMPI_DEVICE=N if it is
// set, and otherwise DeviceFor(local rank, device count), the local rank
// coming from the MPI launcher's variables (launch.LocalRank), so that the
// ranks of a node spread over its GPUs and the choice is made before MPI
// starts. Open gives the backend of any device. A backend works in its
// device's primary context; since CUDA's current context belongs to an OS
// thread and goroutines move between threads, every call into the driver
// locks the goroutine to its thread and makes the context current first:
// callers never see contexts.
//
// # Memory and copies
//
// Buffers (driver.Buffer) are device memory; their Ptr is a device
// address, which Go code must not dereference (it is for CUDA-aware MPI and
// CUDA libraries; DevicePtr gives it as an integer). Views share their
// parent's memory. Memory is freed by Free, or by a cleanup once no buffer
// refers to it. CopyFromHost and CopyToHost wait for their copy;
// CopyFromHostAsync, CopyToHostAsync and CopyAsync queue it on a stream and
// need pinned host memory: AllocHost, or Go memory registered with
// RegisterHost or RegisterSlice (kept pinned with a runtime.Pinner while
// registered). Streams and events (NewStream, NewEvent, Elapsed) order and
// time work.
//
// # Kernels
//
// The operations of driver.Backend (Fill, Copy, Scale, Axpy, Binary,
// BinaryScalar, Sum, Dot, Argmin, Argmax, Jacobi5) are CUDA kernels written
// in CUDA C (KernelSource, kernels.cu, embedded), templated over the
// element types as entries named xp_<op>_<type> (KernelEntries), compiled
// with NVRTC at their first use for the device's compute capability
// (--gpu-architecture=compute_XY, or the newest older one NVRTC knows) with
// --fmad=false, so that elementwise float results are the CPU backend's bit
// for bit. Compiled PTX is cached in memory, keyed by the hash of the
// source, the architecture, the options and NVRTC's version, and on disk
// under os.UserCacheDir()/xpmpi/ptx (XPMPI_PTX_CACHE=off turns the disk
// cache off). Prepare compiles them ahead of time. CompileModule, LoadModule
// and Function.Launch (with Args, packed at each argument's true size) run
// other kernels.
//
// Reductions are deterministic: the number of blocks depends on the length
// only, each block writes a float64 (or wrapping uint64) partial, and one
// block adds the partials in a fixed order; Argmin and Argmax follow the
// CPU backend's rules (first occurrence; a NaN beats every number).
// Integer arithmetic wraps as Go's does; integer division by zero panics
// before anything is written, as on the CPU.
//
// Beyond driver.Backend, the package implements the optional interfaces
// that keep dist's operations of CUDA arrays on the device (dist picks
// them by type assertion): driver.Math (math.cu), driver.AxisReducer
// and driver.StatsReducer (stats.cu: axis sums, extremes, moments,
// products, counts, histograms and scans), driver.Converter
// (convert.cu: comparisons, Where, Compress, Convert), driver.GEMM
// (gemm.cu: matrix products in tiles of 64 x 64 through shared memory)
// and driver.WeightedStencils and driver.StencilDots (stencil.cu:
// Stencil9, Stencil7 and the fused Laplace5Dot), driver.FFTer
// (fft.cu: Stockham passes of radix 2, 3, 4 and 5 and Bluestein's chirp-z;
// within about 1e-15 of NumPy's results, not the CPU's bits; cuFFT in the
// vendor mode, below), and
// driver.Sorter (sort.cu: dist.Sort's local steps and the gather of
// dist's slicing packs). Their results are the
// CPU backend's bit for bit (Math's transcendental functions and float
// GEMM aside): the kernels take the CPU's order of floating-point
// operations (one thread per line along an axis, in order; Moments by the
// CPU's chunks of 4096 elements, added pairwise; Prod of floats in order,
// by one thread; the stencils' terms in the order of their weights;
// Laplace5Dot's 16 lanes per row), integers are counted, multiplied and
// compared exactly, and no float is ever added with an atomic operation.
// A line along an axis is serial, so a 1-D Cumsum or an axis reduction
// with few lines uses few threads. Float GEMM sums over k in order for
// each element of C, as gonum's Dgemm does (its bits, but for the terms
// gonum skips where A is zero), not as OpenBLAS does: Backend.Gemm states
// the bound. The Sorter (sort.cu) sorts by a stable radix sort whose
// digit counts and ranks are integers, so its results are the CPU's bits.
// Complex GEMM is the same tiled kernel over complex elements (the naive
// loop's bits; within the bound Backend.Gemm states of the CPU's BLAS).
// These are the parity mode's GEMM and FFT: the default vendor mode uses
// cuBLAS and cuFFT where they start (see Vendor libraries below).
//
// Complex buffers (complex64 and complex128) have the arithmetic of
// driver.Backend (driver.ComplexArith: Fill, Scale, Axpy, Axpby,
// Binary, BinaryScalar, Sum, Dot) and the functions of driver.ComplexMath
// on the device (complex.cu): Go's complex product and quotient and the
// CPU's summation order (its bits), math/cmplx's algorithms ported (Abs,
// Angle, Sqrt, Conj, Real and Imag its bits; Exp, Log and Pow over the
// device's exp, log, sin, cos and pow, within a few ulps). The backend is
// a driver.ComplexKernels too: SumAxis, CastSums, ScanAxis, Where,
// Compress, Convert (to and from every type) and Gemm take complex buffers
// on the device (complex.cu), all but Gemm with the CPU's bits, so that
// dist's operations on complex CUDA arrays make no host copy.
//
// Operations without an error result panic with a message that starts
// "cuda:" if the driver fails (a lost device, a kernel that faulted
// earlier); asynchronous errors are returned by Synchronize and the copies.
//
// # Vendor libraries and the parity mode
//
// Float and complex GEMM and the FFT have two implementations, chosen by
// the backend's LibMode: in the default vendor mode ("vendor speed")
// cuBLAS and cuFFT, loaded at run time with dlopen where present (as the
// driver is; XPMPI_CUBLAS and XPMPI_CUFFT name the files), and this
// package's kernels where they are missing or do not start (one log line;
// Backend.Vendor says which and why); in the parity mode ("same bits as
// the CPU", XPMPI_CUDA_LIBS=parity or Backend.SetLibMode) the kernels
// always, whose results are described above. VendorLibraries says whether
// the libraries load, without a device. See LibMode for the bounds.
//
// # NVRTC
//
// NVRTC is searched as NVRTCCandidates says: XPMPI_NVRTC (a path) if it is
// set; otherwise libnvrtc.so.13, .12, .11.2 and libnvrtc.so on the loader's
// path, then under $CUDA_HOME/lib64, $CUDA_PATH/lib64 and
// /usr/local/cuda/lib64. A library newer than the driver is passed over if
// an older one is found. The libnvrtc-builtins libraries next to a library
// loaded by path are loaded first, so that its folder need not be on
// LD_LIBRARY_PATH. CompilePTX needs NVRTC only, no driver or GPU: the tests
// compile the kernels with Debian's NVRTC (scripts/fetch-nvrtc.sh).
//
// # Environment
//
//	XPMPI_DEVICE=N      the device of this process (default: local rank % devices)
//	XPMPI_NVRTC=PATH    the NVRTC library to load
//	XPMPI_LIBCUDA=PATH  the driver library to load instead of libcuda.so.1
//	XPMPI_PTX_CACHE=off no PTX cache on disk
//	XPMPI_CUDA_LIBS=vendor|parity  cuBLAS and cuFFT where present (default), or this package's kernels
//	XPMPI_CUBLAS=PATH   the cuBLAS library to load
//	XPMPI_CUFFT=PATH    the cuFFT library to load
package cuda
