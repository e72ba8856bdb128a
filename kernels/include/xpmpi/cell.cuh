/*
 * xpmpi/cell.cuh: the cell of a coordinate on an axis divided into 2^levels
 * cells, bit for bit algorithms.CellIndex of package algorithms (with
 * xpmpi/morton.cuh, the keys of algorithms.MortonKeys2 and MortonKeys3).
 * Header-only; __host__ __device__ under nvcc and NVRTC, plain static
 * inline C/C++ elsewhere. Offered to NVRTC by package kernels as
 * #include "xpmpi/cell.cuh".
 *
 *   xpmpi_cell_scale(levels)                 2^levels as a double, levels
 *                                            in [0, 32]
 *   xpmpi_cell_index(x, lower, upper, scale) the cell of x:
 *
 *       q = ((x - lower) * scale) / (upper - lower)   in double, this order
 *       cell = floor(q) clipped to [0, scale - 1]; NaN (and q < 0) gives 0
 *
 * A point on a cell boundary goes to the cell above it; x = upper goes to
 * the last cell; lower > upper reverses the axis. The caller checks what
 * algorithms.CellIndex checks (finite, distinct bounds; levels in range).
 * Compile without contraction of multiply-adds (NVRTC --fmad=false, which
 * package kernels uses; g++ -ffp-contract=off), although this expression
 * has none to contract.
 */
#ifndef XPMPI_CELL_CUH
#define XPMPI_CELL_CUH

#if defined(__CUDACC__)
#define XPMPI_CELL_FN static __host__ __device__ __forceinline__
#else
#define XPMPI_CELL_FN static inline
#endif

XPMPI_CELL_FN double xpmpi_cell_scale(int levels)
{
	return (double)(1ull << levels);
}

XPMPI_CELL_FN unsigned int xpmpi_cell_index(double x, double lower, double upper, double scale)
{
	double q = ((x - lower) * scale) / (upper - lower);
	if (!(q >= 0)) { /* negative or NaN */
		return 0;
	}
	if (q >= scale) {
		return (unsigned int)(scale - 1);
	}
	return (unsigned int)q; /* q >= 0: truncation is floor */
}

#endif
