// Package kerneltest has test helpers for kernels with a host and a CUDA
// implementation (package kernels): Parity runs a kernel's parity cases
// (odd sizes, empty arrays, one element, NaN and infinities, as each
// kernel registers them) on the host and on a device, and compares every
// array argument afterwards, within a tolerance in ULPs or bit for bit,
// reporting the first differing index and both values; it also checks
// that the arrays of const parameters come back unchanged on both sides.
//
// On a machine with a GPU the device side is the CUDA kernel. Without one
// it is the same CUDA source on backend/cuda's fake CUDA driver, which
// runs it compiled as C++ on the host (Emulate: the driver is built with
// every variant of the kernels' parity cases compiled in, and the test
// runs again in a child process on it). Where neither can run (-short,
// no g++, an MPI build) the test is skipped, saying there is nothing to
// compare: the host implementation is never compared with itself. PTX
// compilation of the CUDA code (kernels.Catalog.CompileAll) needs NVRTC
// only, and runs in the tests of package kernels.
//
// kernels.StandardCases makes the standard cases of an elementwise kernel
// (empty, one element, an odd size, NaN and infinities) from one function
// that builds its arguments. Compare and CompareBytes are the comparison
// on its own.
package kerneltest
