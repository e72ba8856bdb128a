// Package kerneltest has test helpers for kernels with a host and a CUDA
// implementation (package kernels): Parity runs a kernel's parity cases
// (odd sizes, empty arrays, one element, NaN and infinities, as each
// kernel registers them) on the host and on a device, and compares every
// array argument afterwards, within a tolerance in ULPs or bit for bit,
// reporting the first differing index and both values; it also checks
// that the arrays of const parameters come back unchanged on both sides.
//
// On a machine with a GPU the device side is the CUDA kernel. Without one
// it is the fake device (backend/fakedev), whose memory is host memory:
// there a kernel runs its host implementation on device memory (a
// recorded fallback), which checks the dispatch, the argument handling and
// the conversions, not the CUDA code; a kernel without a host
// implementation is skipped with a message. PTX compilation of the CUDA
// code (kernels.Catalog.CompileAll) needs NVRTC only, and runs in the
// tests of package kernels.
//
// kernels.StandardCases makes the standard cases of an elementwise kernel
// (empty, one element, an odd size, NaN and infinities) from one function
// that builds its arguments. Compare and CompareBytes are the comparison
// on its own.
package kerneltest
