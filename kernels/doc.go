// Package kernels runs kernels that have two implementations, a Go host
// implementation and CUDA C source, under one name and one signature, and
// keeps a catalog of them.
//
// # Kernels and calls
//
// New takes a Spec: the name, the host implementation (a HostFunc), the
// CUDA source, which must define `extern "C" __global__ void name(...)`,
// and, for a host-only kernel, the signature. The signature is parsed from
// the source (ParseSignature: pointer element types, const, __restrict__,
// scalar sizes, struct parameters; templates are parsed but not launched,
// see below); a Signature given as well must agree with it.
//
// A call (Kernel.Call, Kernel.Launch with a Config) takes Args: Array for
// a *backend.Array, Scalar for a scalar of the parameter's exact Go type,
// Int and Float for untyped numbers (converted, and refused if the
// parameter's type cannot hold them), StructValue for a struct. Every
// argument is checked before anything runs: the count, the kind (array,
// scalar, struct), the element type, the scalar's type or range, the
// struct's Go type, that a __restrict__ array shares no memory with
// another, and that the arrays are all on the host or all on one device.
// A wrong argument is an *ArgError that names it and says why. These are
// errors, not panics (the package convention for caller mistakes), because
// the signature comes from C source at run time: the Go compiler cannot
// check a call against it, and tools (the catalog, `xpmpi kernels`) report
// them.
//
// A call runs where its arrays live: all on the host, the host
// implementation; all on one CUDA device, the CUDA kernel, queued on the
// device's stream. Launch size: Config.N, or the first array's length, in
// blocks of DefaultBlock threads, or the Config's Grid and Block. A launch
// of size 0 does nothing. Dynamic shared memory above 48 KiB
// (MaxSharedMem) opts the function in with
// cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES), up to the device's
// maximum (227 KiB on an H100 or H200); more is an error naming the
// kernel. Launch errors name the kernel and the variant.
//
// Host implementations read arrays with In and write them with Out; Out
// refuses a const parameter (a panic naming the kernel and argument), and
// In's slices must be treated as read-only (kerneltest checks that const
// arrays come back unchanged). To give CUDA's bits, a host implementation
// rounds products before adding them (y = T(a*x) + y): Go may fuse a*x + y
// into one multiply-add on some processors, and kernels compile with
// --fmad=false.
//
// # Dist arrays
//
// LaunchDist (CallDist) runs a kernel on every rank over that rank's part
// of dist arrays: Dist(a) is the rank's block of a (a.Local()),
// DistGhosted(a) its ghosted storage with the ghost layers (a.Ghosted(),
// filled by a.Exchange()), and DistShape(a, axis), DistOffset(a, axis)
// and DistGhosts(a, axis) integer arguments of the block's extent, the
// global index of its first element, and the ghost width along an axis.
// Each rank then launches as Launch does, with the same argument checks,
// host fallback, profiling events and strict mode; the launch size
// defaults to the first array's length on the rank. Nothing is
// communicated. ExampleKernel_LaunchDist ports a CuPy RawKernel stencil
// program.
//
// # Fallback and strict mode
//
// Where the CUDA kernel cannot run (the kernel has no CUDA source, NVRTC
// is missing, or the device runs no CUDA code, as the fake device of
// backend/fakedev) the host implementation runs instead. If the device's
// memory is host memory (the fake device) it runs on it directly;
// otherwise the arrays are copied to the host, and the non-const ones back.
// Each such call records a profiling Fallback event and each copy a
// KernelConversion event, so that profiling.AssertNoTransfers catches
// them, and the first fallback of a kernel logs one warning (log/slog).
// Strict mode refuses with a *FallbackError instead: Spec.Strict,
// Config.Strict, or XPMPI_KERNELS_STRICT=1 for every kernel.
//
// # Variants
//
// A kernel whose parameters use the element type parameter (the macro T,
// or Spec.TypeParam) is compiled once per element type of Spec.Types, with
// "#define T double" (or float, int, long long, ...) before the source:
// this define scheme, not C++ templates, because a template kernel's entry
// has a C++-mangled name that only NVRTC name expressions can give, and
// backend/cuda does not bind them. Spec.Defines and Config.Defines are
// compile-time parameters; each set of values is a variant of its own.
// A variant is compiled with NVRTC on its first launch on a device, and
// cached per device, per variant and per hash of the source (backend/cuda
// also caches the PTX in memory and on disk). Kernels compile with
// --fmad=false and --std=c++17 unless their Options say otherwise, so that
// float results can match the host bit for bit.
//
// # Struct arguments
//
// StructOf makes a StructType from a Go struct type (fixed-size numbers,
// bool, arrays and nested structs). Its Decl is the C declaration with
// Go's layout made explicit (padding as _padN members, offsets in
// comments); the source of a variant gets it unless the CUDA source
// declares the struct itself, in which case New checks that declaration
// against the Go type by C's layout rules (CheckSource) and refuses a
// difference with an error naming the field. Every compilation appends
// static_asserts of sizeof, alignof and each field's offset and size, so
// that NVRTC refuses a layout that differs from Go's, naming the field;
// CheckLayout and Catalog.Check run that check alone (with NVRTC; without
// it, the check by C's rules is what runs: x86-64 and aarch64 Linux, and
// CUDA on them, lay these types out as Go does on 64-bit platforms).
// backend/cuda passes at most 64 bytes per argument: a larger struct runs
// on the host only, and a CUDA launch with it is an error.
//
// # Shipped headers
//
// Headers lists CUDA headers for hand-written kernels: xpmpi/reduce.cuh (a
// deterministic block sum, BlockSum on the host), xpmpi/atomic.cuh (atomic
// min and max of floats where a NaN wins, MinNaN and MaxNaN),
// xpmpi/morton.cuh (algorithms.Morton2 and Morton3), xpmpi/cell.cuh
// (algorithms.CellIndex), xpmpi/view.cuh (2-D
// and 3-D views, index-checked in debug mode) and xpmpi/philox.cuh
// (package rng's generator). A source includes them by name; each
// variant's source has their text in place. Their results are the Go
// functions' bits.
//
// # Catalog
//
// A Catalog holds kernels by name (Register, MustRegister, Lookup, All);
// Default holds the project's kernels (axpy, jacobi5 and laplace5, the
// latter two equal to backend.Jacobi5 and backend.Laplace5 on the host).
// Summary describes each kernel (host and/or CUDA, variants, signature);
// CompileAll compiles every variant to PTX with NVRTC, in parallel (no GPU
// needed); Check checks signatures and struct layouts. Kernels register
// ParityCases; Kernel.CheckParity runs one on the host and on a device and
// compares the results (bit for bit or within a tolerance in ULPs, naming
// the first differing index), Catalog.Parity runs them all, and package
// kerneltest runs them in tests. A parity check compares the host
// implementation with the CUDA source run on a CUDA device: on a device
// that runs no CUDA code, or for a kernel without CUDA source, there is
// nothing to compare and it says so (ParityUnavailable) instead of
// comparing the host implementation with itself. `xpmpi kernels` lists
// the catalog, `--compile` compiles it, `--parity` runs the parity cases
// on the selected backend's CUDA device (exit code 3: nothing to
// compare), `--json` is for scripts.
//
// # Environment
//
//	XPMPI_KERNELS_STRICT=1  refuse every host fallback
//	XPMPI_CUDA_DEBUG=1      compile with -lineinfo and XPMPI_DEBUG defined,
//	                        synchronize after every launch and report a
//	                        failure naming the kernel
//	XPMPI_NVRTC=PATH        the NVRTC library (see backend/cuda)
//
// # What does not apply to Go, and what is not done
//
// CuNumpy's PyccelKernel compiles Python host code to native code; in Go
// the host implementation is compiled Go already, so there is nothing to
// add. Its MetalKernel targets Apple GPUs, which no MPI GPU system uses;
// it is left out.
//
// Not done: C++ template kernels are parsed but refused at New (see
// Variants); struct arguments over 64 bytes on CUDA; pointers to structs and arrays of
// structs; NVRTC include files other than the shipped headers (New
// refuses an #include of any other file, naming the shipped ones).
//
// Tested without a GPU: every kernel compiles to PTX with NVRTC (Debian's
// NVRTC 11.8 in the tests), and the CUDA launch path (variant compilation,
// module loading, argument and struct packing, launch sizes, the shipped
// headers) runs on backend/cuda's fake driver, which executes the kernels
// compiled as C++ on the host; package kerneltest runs parity on the GPU
// where there is one, else on the fake driver with every parity variant
// of the kernels compiled in (the CUDA source against the host
// implementation, for every element type and define).
//
// Built without cgo, the package keeps its host paths; CUDA and NVRTC
// report that they are not built in.
package kernels
