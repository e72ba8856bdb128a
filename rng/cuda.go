package rng

import _ "embed"

// CUDAHeader is the source of philox.cuh, a header-only C implementation of
// the functions of this package for CUDA kernels. Compiled by nvcc its
// functions are __host__ __device__; compiled as C99 (or C++) they are plain
// static inline functions. It defines
//
//	xpmpi_philox4x32_10(ctr, key, out)   // Philox4x32_10
//	xpmpi_uniform2(seed, stream, counter, &u0, &u1)   // Uniform2, bit-identical
//	xpmpi_uniform_f32(seed, stream, counter)          // float32 element of FillUniform, bit-identical
//	xpmpi_normal2(seed, stream, counter, &z0, &z1)    // Normal2, to ~1e-14
//	xpmpi_intn(seed, stream, counter, n)              // IntN, bit-identical
//
// with uint32_t words and uint64_t seeds, streams and counters. Kernels that
// include it should be given the global element index as the stream, as
// the Fill functions do.
//
//go:embed philox.cuh
var CUDAHeader string
