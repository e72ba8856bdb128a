// Package backendtest is the conformance suite that every driver.Backend
// passes, in the pattern of gonum's testblas: a backend's own test calls
//
//	func TestBackend(t *testing.T) { backendtest.TestBackend(t, cpu.Default) }
//
// and the suite runs a subtest for every Backend method and every element
// type, on inputs of many sizes (0 to past the CPU backend's parallel
// thresholds), against reference results computed here with plain loops
// from seeded random inputs.
//
// What the suite requires:
//   - Fill, Copy, Scale, Binary and BinaryScalar (float and integer):
//     bitwise the result of Go arithmetic in the element type
//     (integers wrap; a NaN result may be any NaN).
//   - Float Axpy and Axpby: a*x+y and a*x+b*y with each product rounded, or
//     within eps*(|a*x|+|b*y|+|result|) of that, so that a backend may fuse
//     a multiply-add; IEEE semantics for special values (0*Inf is NaN even
//     when a is 0). Integer Axpy and Axpby: bitwise, wrapping.
//   - Sum and Dot of floats: a Float64 scalar within 1e-12*sum|terms| of
//     the exact sum (float32 inputs included: they accumulate in float64);
//     of integers: exact wrapping sums as Int64 (signed) or Uint64
//     (unsigned) scalars; and results that do not depend on
//     backend.SetThreads.
//   - Argmin and Argmax: the exact index of the first occurrence and its
//     value as a scalar of the element type, with a NaN counting as smaller
//     (Argmin) or larger (Argmax) than every number, so that the first NaN
//     wins; -1 and a zero value for an empty buffer.
//   - Jacobi5 and Laplace5: the 5-point stencil on the interior within a few
//     ulps of 0.25*(up+down+left+right) and 4*centre-up-down-left-right
//     computed in that order (bitwise for the CPU), every other element
//     untouched; float grids only.
//   - Alloc zeroes; views made by Slice see and change only their elements;
//     CopyFromHost and CopyToHost round-trip bitwise.
//
// TestCapabilities runs, in the same pattern, one suite per optional
// interface of package backend (Capabilities: Math, Converter,
// AxisReducer, StatsReducer, Sorter, FFTer, GEMM, RandomFiller, the three
// kinds of stencils, ComplexMath, ComplexKernels, Async, Describer) that
// the backend implements, each against the contract in the interface's
// documentation: bitwise where the contract fixes the order of the
// arithmetic (axis sums, scans, products, Clip, comparisons, sorts,
// random fills), within a stated bound elsewhere (Math within 4 ulps of
// Go's math in float64, FFTs of a direct DFT, GEMM within 4(k+1) eps of
// the exact sum of magnitudes). A backend's test names the capabilities it
// claims, so that losing one fails. TestMutantsFail shows that the suites
// can fail: it runs them on the CPU backend with one method made wrong.
package backendtest
