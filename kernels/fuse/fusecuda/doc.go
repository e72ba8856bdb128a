// Package fusecuda runs the fused kernels of package fuse on CUDA devices:
// it is the fuse.CUDALauncher over package backend/cuda, which package
// fuse (pure Go) cannot import itself. Importing it, blank, registers the
// launcher, so that a fuse.Kernel whose arrays are on a CUDA device runs
// there (optimize.NewtonArray, the fused CG of solvers) without the
// program calling fuse.SetCUDALauncher:
//
//	import _ "github.com/xpmpi/xpmpi/kernels/fuse/fusecuda"
//
// The launcher compiles each generated program once per device with NVRTC
// (through the CUDA backend's module cache) and launches it as
// fuse.CUDAProgram documents: the main kernel over the elements, then,
// for a kernel with reductions, the final kernel over the per-block
// partial results, whose values come back to the host as a scalar result
// does. The device memory of the partial results is kept per device and
// program for later launches (grown to the largest grid launched, one
// piece per concurrent launch), so that a loop of launches allocates
// nothing. It needs cgo (backend/cuda); without it the package is empty.
//
// The tests run generated programs without a GPU: TestEmulated compiles
// them into backend/cuda's fake CUDA driver (internal/fakecudatest) and
// compares the launcher's results with the CPU evaluator's, elementwise
// bit for bit, reductions bit for bit with the order that
// fuse.CUDAProgram documents (which is not the CPU evaluator's: float
// sums agree with the CPU's to rounding).
package fusecuda
