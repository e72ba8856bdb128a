/*
 * xpref: the plain C + MPI reference of the workloads of BENCH.md, which
 * `xpmpi bench` loads at run time (dlopen) and calls in the same process and
 * the same MPI job as the xpmpi side, alternating repetitions.
 *
 * Build (scripts/bench.sh does it; the matrix product needs OpenBLAS,
 * Debian's libopenblas-dev):
 *
 *   mpicc -O3 -march=native -fopenmp -shared -fPIC -o build/libxpref.so bench/ref/xpref.c -lopenblas
 *
 * Every function takes the parameters of one repetition, runs it on
 * MPI_COMM_WORLD (all ranks call it together), and fills a result: the
 * seconds of the timed region (the slowest rank's, the same on every rank),
 * a checksum (the same on every rank) and workload-specific figures. It
 * returns 0, or an MPI error code (the caller has set MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD), or -1 if memory ran out. Setup (allocation, first touch,
 * initial values) is outside the timed region, as on the xpmpi side.
 *
 * Data is float64, split over the ranks in contiguous blocks, the first
 * n % P ranks holding one element (or row) more, as dist.NewLayout does.
 */
#ifndef XPREF_H
#define XPREF_H

#include <stdint.h>

/* XPREF_ABI changes whenever the structs or the functions change; the Go
 * side refuses a library of another version. */
#define XPREF_ABI 6

typedef struct xpref_params {
	int64_t n;       /* size: see each function */
	int64_t iters;   /* sweeps, dots, iterations, calls or round trips */
	int64_t threads; /* OpenMP threads (xpref_triad only); 1: plain loop */
	uint64_t seed;   /* random keys (xpref_sort) */
	double tol;      /* relative residual to stop at (xpref_cg) */
} xpref_params;

typedef struct xpref_result {
	double seconds;  /* timed region, slowest rank */
	double checksum; /* see each function */
	double extra[4]; /* see each function */
	int64_t ok;      /* 1 if the function's own verification passed */
} xpref_result;

/* xpref_abi returns XPREF_ABI. */
int xpref_abi(void);

/* xpref_mpi_impl names the MPI implementation whose mpi.h the library was
 * compiled with ("Open MPI", "MPICH" or "MPI"), without calling MPI: a
 * library built for one implementation must not be loaded into a process
 * that runs another. */
const char *xpref_mpi_impl(void);

/* W1: y = a*x + y over n elements per rank (a = 0.5, x[i] = (i % 1024) /
 * 1024, y[i] = 1), one untimed sweep then iters timed sweeps, on `threads`
 * OpenMP threads (a plain loop for 1). checksum: sum of y after all the
 * sweeps (rank 0's). */
int xpref_triad(const xpref_params *p, xpref_result *r);

/* W2: dot of two global arrays of n elements (x[g] = (g % 8) / 8, y[g] =
 * (g % 16) / 16), local loop then MPI_Allreduce of one double, iters times.
 * checksum: the dot (exact: dyadic values). */
int xpref_dot(const xpref_params *p, xpref_result *r);

/* W3: Jacobi on an n x n interior, u = 1 on the top edge and 0 elsewhere,
 * row blocks with one ghost row exchanged with each neighbour per iteration
 * (MPI_Irecv, MPI_Isend, MPI_Waitall), iters iterations. checksum: sum of u
 * over the interior. */
int xpref_jacobi(const xpref_params *p, xpref_result *r);

/* W4: conjugate gradient for the 5-point Laplacian (4u - neighbours) on an
 * n x n interior with zero Dirichlet boundary, b = 1, x0 = 0, until
 * ||r|| / ||b|| <= tol or iters iterations. checksum: sum of x; extra[0]:
 * iterations; extra[1]: final relative residual (recursive); extra[2]:
 * seconds per iteration. */
int xpref_cg(const xpref_params *p, xpref_result *r);

/* W5: sample sort of n global keys, key g = the Philox4x32-10 uniform
 * double of (seed, stream g, counter 0) as rng.FillUniform makes it: local
 * LSD radix sort on the key bits, regular samples (128 per splitter per
 * rank), MPI_Alltoallv, local merge. ok: the result is in global order with
 * n keys. checksum: sum over the sorted keys of key * (g % 1024 + 1), g the
 * position in the global order; extra[0]: largest number of keys a rank
 * received over the mean. */
int xpref_sort(const xpref_params *p, xpref_result *r);

/* W6: iters calls of MPI_Allreduce of one double (every rank adds 1).
 * seconds: total; checksum: the sum of the results (iters * P). */
int xpref_allreduce(const xpref_params *p, xpref_result *r);

/* W6: ping-pong of n bytes (n/8 doubles) between ranks 0 and 1, one
 * untimed round trip, then iters timed ones; other ranks wait. seconds:
 * total of the timed round trips; checksum: sum of the doubles rank 0
 * received last (rank 0's, broadcast). Needs 2 ranks. */
int xpref_pingpong(const xpref_params *p, xpref_result *r);

/* One MPI_Allreduce of one double (p and r unused but for r->checksum):
 * what one call from Go into C and MPI costs, for the W6 breakdown. */
int xpref_allreduce1(const xpref_params *p, xpref_result *r);

/* Does nothing: the cost of the call from Go alone. */
int xpref_noop(const xpref_params *p, xpref_result *r);

/* W7: a plain sequential write of the n float64 values x[g] = (g % 1024) /
 * 1024 to one file by rank 0 (fwrite, fflush, fsync), then a sequential read
 * of them back (fread), in the folder $XPREF_W7_DIR (default /tmp); the
 * other ranks wait. seconds: write and read; extra[0]: write seconds;
 * extra[1]: read seconds; checksum: the sum of the values read. */
int xpref_filewrite(const xpref_params *p, xpref_result *r);

/* W4 with its loops fused as a performance-aware C programmer writes them:
 * the stencil and p.Ap in one loop; x += alpha p, r -= alpha Ap and r.r in
 * one loop; p = r + beta p; every reduction vectorized with
 * #pragma omp simd reduction. Parameters and results as xpref_cg. */
int xpref_cg_fused(const xpref_params *p, xpref_result *r);

/* W10: Newton's method on Kepler's equation E - e sin E = M for the n
 * global orbits, each rank its block: M_g = 2 pi (g % 1009) / 1009,
 * e_g = 0.8 ((g * 7919) % 1000) / 1000, from E = M, at most 50 steps, an
 * orbit done when f is 0, f' is 0 or |dx| < 1.48e-8 (SciPy's newton).
 * checksum: the sum of the roots over all ranks; extra[0]: every orbit's
 * steps. One thread per rank. */
int xpref_kepler(const xpref_params *p, xpref_result *r);

/* W10: RK45 (Dormand-Prince 5(4) with SciPy's step control: Hairer's first
 * step, safety 0.9, factors 0.2 to 10, the RMS error norm) on n
 * independent Van der Pol oscillators, each rank its block: y0' = y1,
 * y1' = mu (1 - y0^2) y1 - y0 with mu_s = 0.5 + (s % 100) / 100,
 * y(0) = (2, 0), t from 0 to 10, rtol 1e-6, atol 1e-9, each system its
 * own steps. checksum: the sum over all systems of y0(10) + y1(10);
 * extra[0]: every system's accepted steps. One thread per rank. */
int xpref_rk45(const xpref_params *p, xpref_result *r);

/* Matrix product C = A B of n x n matrices with OpenBLAS's cblas_dgemm on
 * `threads` OpenBLAS threads per rank, A and C split by rows,
 * a_ij = ((7i + 3j) % 17 - 8) / 8, b_ij = ((5i + 11j) % 13 - 6) / 8.
 * iters 0: B replicated, one local product per rank. iters 1: B split by
 * rows too, its blocks passed around a ring of the ranks (at step s a rank
 * holds the block of rank + s, sends it to rank - 1 and receives the next
 * from rank + 1 with MPI_Isend/MPI_Irecv while it multiplies its columns of
 * A for that block), as dist.MatMulRing. iters 2: A, B and C on a
 * 1 x size process grid (split by columns), SUMMA as dist.MatMul does it
 * on a grid: panels of at most 256 of each rank's columns of A, packed by
 * their owner and broadcast (MPI_Bcast), each rank adding the panel times
 * its rows of its block of B to its block of C. checksum: the sum over C of
 * c_ij ((i + 2j) % 5 + 1), exact in float64 at these values. */
int xpref_matmul(const xpref_params *p, xpref_result *r);

/* W8: 2-D FFT of an n x n complex128 array, forward and inverse, with
 * FFTW (loaded at run time: libfftw3.so.3) on `threads` OpenMP threads per
 * rank, slab decomposition: rows split over the ranks as dist.NewLayout
 * splits them, x_ij = ((7i + 13j) % 29) / 29 - 0.5 + i (((3i + 5j) % 31) /
 * 31 - 0.5). Forward: local row FFTs, one MPI_Alltoallv transpose, local
 * column FFTs (the result left with columns split, as
 * FFTW_MPI_TRANSPOSED_OUT); inverse: the same backwards, scaled by 1/n^2.
 * seconds: forward + inverse (the checksum of the forward result between
 * them untimed); checksum: the round-trip error max|x' - x| / max|x|;
 * extra[0]: the sum over the forward result X of
 * ((k1 + 3 k2) % 7 + 1) (Re X + 2 Im X); ok: the round-trip error is below
 * 1e-10. Returns XPREF_NO_FFTW where FFTW cannot be loaded. See w8fft.c. */
#define XPREF_NO_FFTW (-2)
int xpref_fft2(const xpref_params *p, xpref_result *r);

/* OpenBLAS's thread count, which the process shares with PETSc (Debian's
 * libblas.so.3 is OpenBLAS's): sets it to threads if threads > 0, and
 * returns the count it had in extra[0]. No MPI, no timing. The PETSc rows
 * run at the bench's thread budget, as every reference does; OpenBLAS
 * would otherwise start a thread per CPU for PETSc's BLAS calls. */
int xpref_blas_threads(const xpref_params *p, xpref_result *r);

#endif
