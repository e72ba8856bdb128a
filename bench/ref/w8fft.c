/*
 * W8: the 2-D FFT of BENCH.md, as a performance-aware C programmer writes it
 * with FFTW and MPI. xpref.c includes this file (it uses block, finish and
 * CHECK from there); FFTW is loaded at run time with dlopen
 * ("libfftw3.so.3", Debian's libfftw3-double3, which libfftw3-dev pulls in),
 * so the reference's link line needs no -lfftw3 and a machine without FFTW
 * fails only this workload, with its own error code (XPREF_NO_FFTW).
 *
 * Slab decomposition of an n x n complex128 array, rows split over the ranks
 * as dist.NewLayout splits them. Forward: FFTs of the local rows; one
 * MPI_Alltoallv that transposes (each rank then holds whole columns, stored
 * one after another: FFTW_MPI_TRANSPOSED_OUT's layout); FFTs of the local
 * columns. Inverse: the same backwards, ending in the row layout, scaled by
 * 1 / n^2. One 1-D plan per direction, FFTW_MEASURE, made once per length
 * outside the timed region and reused; the row loops and the packing run on
 * `threads` OpenMP threads (fftw_execute_dft is thread-safe).
 */

#include <dlfcn.h>

/* FFTW's ABI, from fftw3.h (3.3), so that no FFTW header is needed. */
typedef double xp_fftw_complex[2];
typedef void *xp_fftw_plan;
#define XP_FFTW_FORWARD (-1)
#define XP_FFTW_BACKWARD (+1)
#define XP_FFTW_MEASURE (0U)
#define XP_FFTW_UNALIGNED (1U << 1)

static struct {
	int tried;
	void *h;
	xp_fftw_plan (*plan_dft_1d)(int, xp_fftw_complex *, xp_fftw_complex *, int, unsigned);
	void (*execute_dft)(const xp_fftw_plan, xp_fftw_complex *, xp_fftw_complex *);
	void (*destroy_plan)(xp_fftw_plan);
	void *(*malloc_)(size_t);
	void (*free_)(void *);
	int64_t n;
	xp_fftw_plan fwd, bwd;
} xp_fftw;

/* fftw_load opens FFTW once; 0 if it is there. */
static int fftw_load(void) {
	if (!xp_fftw.tried) {
		xp_fftw.tried = 1;
		void *h = dlopen("libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
		if (h) {
			*(void **)&xp_fftw.plan_dft_1d = dlsym(h, "fftw_plan_dft_1d");
			*(void **)&xp_fftw.execute_dft = dlsym(h, "fftw_execute_dft");
			*(void **)&xp_fftw.destroy_plan = dlsym(h, "fftw_destroy_plan");
			*(void **)&xp_fftw.malloc_ = dlsym(h, "fftw_malloc");
			*(void **)&xp_fftw.free_ = dlsym(h, "fftw_free");
			if (xp_fftw.plan_dft_1d && xp_fftw.execute_dft && xp_fftw.destroy_plan && xp_fftw.malloc_ &&
			    xp_fftw.free_)
				xp_fftw.h = h;
			else
				dlclose(h);
		}
	}
	return xp_fftw.h ? 0 : -1;
}

/* fftw_plans makes (once per n) the forward and backward plans of length
 * n, measured on scratch rows aligned as the rows of the arrays will be. */
static int fftw_plans(int64_t n) {
	if (xp_fftw.n == n && xp_fftw.fwd && xp_fftw.bwd) return 0;
	if (xp_fftw.fwd) xp_fftw.destroy_plan(xp_fftw.fwd);
	if (xp_fftw.bwd) xp_fftw.destroy_plan(xp_fftw.bwd);
	xp_fftw.fwd = xp_fftw.bwd = NULL;
	xp_fftw_complex *a = xp_fftw.malloc_(sizeof(xp_fftw_complex) * (size_t)n);
	if (!a) return -1;
	/* Rows of odd length start at 16-byte boundaries only. */
	unsigned flags = XP_FFTW_MEASURE | (n % 2 ? XP_FFTW_UNALIGNED : 0);
	xp_fftw.fwd = xp_fftw.plan_dft_1d((int)n, a, a, XP_FFTW_FORWARD, flags);
	xp_fftw.bwd = xp_fftw.plan_dft_1d((int)n, a, a, XP_FFTW_BACKWARD, flags);
	xp_fftw.free_(a);
	if (!xp_fftw.fwd || !xp_fftw.bwd) return -1;
	xp_fftw.n = n;
	return 0;
}

/* The input and the checksum weights, as bench/fft.go has them. */
static double w8_re(int64_t i, int64_t j) { return (double)((i * 7 + j * 13) % 29) / 29 - 0.5; }
static double w8_im(int64_t i, int64_t j) { return (double)((i * 3 + j * 5) % 31) / 31 - 0.5; }
static double w8_w(int64_t k1, int64_t k2) { return (double)((k1 + 3 * k2) % 7 + 1); }

/* rows_fft transforms m contiguous rows of length n in place; scale != 1
 * multiplies the result (the inverse's 1/n^2, while the row is in cache). */
static void rows_fft(xp_fftw_plan plan, double *a, int64_t m, int64_t n, double scale, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
	for (int64_t r = 0; r < m; r++) {
		xp_fftw_complex *row = (xp_fftw_complex *)(a + 2 * r * n);
		xp_fftw.execute_dft(plan, row, row);
		if (scale != 1) {
			double *d = a + 2 * r * n;
			for (int64_t k = 0; k < 2 * n; k++) d[k] *= scale;
		}
	}
}

#define W8_TILE 16

int xpref_fft2(const xpref_params *p, xpref_result *r) {
	int64_t n = p->n;
	int threads = p->threads > 0 ? (int)p->threads : 1;
	int size, rank;
	CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	int bad = fftw_load() != 0, anybad;
	CHECK(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	if (anybad) return XPREF_NO_FFTW;

	int64_t *rlo = malloc(sizeof(int64_t) * size), *rcnt = malloc(sizeof(int64_t) * size);
	int *scounts = malloc(sizeof(int) * size), *sdispl = malloc(sizeof(int) * size);
	int *rcounts = malloc(sizeof(int) * size), *rdispl = malloc(sizeof(int) * size);
	for (int s = 0; s < size; s++) block(n, size, s, &rlo[s], &rcnt[s]);
	int64_t nr = rcnt[rank], r0 = rlo[rank]; /* my rows, and my columns */
	int64_t nc = nr, c0 = r0;
	double *x = alloc_doubles(2 * nr * n), *y = alloc_doubles(2 * nc * n);
	double *sbuf = alloc_doubles(2 * nr * n), *rbuf = alloc_doubles(2 * nc * n);
	bad = !rlo || !rcnt || !scounts || !sdispl || !rcounts || !rdispl || !x || !y || !sbuf || !rbuf ||
	      fftw_plans(n) != 0;
	CHECK(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	if (anybad) {
		free(rlo), free(rcnt), free(scounts), free(sdispl), free(rcounts), free(rdispl);
		free(x), free(y), free(sbuf), free(rbuf);
		return -1;
	}
	for (int64_t i = 0; i < nr; i++)
		for (int64_t j = 0; j < n; j++) {
			x[2 * (i * n + j)] = w8_re(r0 + i, j);
			x[2 * (i * n + j) + 1] = w8_im(r0 + i, j);
		}
	memset(y, 0, sizeof(double) * 2 * (size_t)(nc * n));
	memset(sbuf, 0, sizeof(double) * 2 * (size_t)(nr * n));
	memset(rbuf, 0, sizeof(double) * 2 * (size_t)(nc * n));
	/* Forward: rank s receives from me my rows of its columns, [c][i];
	 * inverse: the same counts the other way. */
	int64_t off = 0;
	for (int s = 0; s < size; s++) {
		scounts[s] = (int)(2 * rcnt[s] * nr), sdispl[s] = (int)off;
		off += 2 * rcnt[s] * nr;
	}
	off = 0;
	for (int s = 0; s < size; s++) {
		rcounts[s] = (int)(2 * nc * rcnt[s]), rdispl[s] = (int)off;
		off += 2 * nc * rcnt[s];
	}

	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	/* Forward: rows, transpose, columns. */
	rows_fft(xp_fftw.fwd, x, nr, n, 1, threads);
	for (int d = 0; d < size; d++) {
		double *sb = sbuf + sdispl[d];
		int64_t cl = rlo[d], cc = rcnt[d];
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
		for (int64_t i0 = 0; i0 < nr; i0 += W8_TILE)
			for (int64_t c = 0; c < cc; c++)
				for (int64_t i = i0; i < nr && i < i0 + W8_TILE; i++) {
					sb[2 * (c * nr + i)] = x[2 * (i * n + cl + c)];
					sb[2 * (c * nr + i) + 1] = x[2 * (i * n + cl + c) + 1];
				}
	}
	CHECK(MPI_Alltoallv(sbuf, scounts, sdispl, MPI_DOUBLE, rbuf, rcounts, rdispl, MPI_DOUBLE, MPI_COMM_WORLD));
	for (int s = 0; s < size; s++) {
		const double *rb = rbuf + rdispl[s];
		int64_t rl = rlo[s], rc = rcnt[s];
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
		for (int64_t c = 0; c < nc; c++) memcpy(y + 2 * (c * n + rl), rb + 2 * c * rc, sizeof(double) * 2 * (size_t)rc);
	}
	rows_fft(xp_fftw.fwd, y, nc, n, 1, threads);
	double t1 = MPI_Wtime();

	/* The forward result's checksum, untimed: y[c][k1] is X[k1][c0 + c]. */
	double sum = 0;
	for (int64_t c = 0; c < nc; c++)
		for (int64_t k1 = 0; k1 < n; k1++)
			sum += w8_w(k1, c0 + c) * (y[2 * (c * n + k1)] + 2 * y[2 * (c * n + k1) + 1]);
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t2 = MPI_Wtime();

	/* Inverse: columns, transpose back, rows (scaled by 1/n^2). */
	rows_fft(xp_fftw.bwd, y, nc, n, 1, threads);
	for (int s = 0; s < size; s++) {
		double *sb = rbuf + rdispl[s];
		int64_t rl = rlo[s], rc = rcnt[s];
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
		for (int64_t c = 0; c < nc; c++) memcpy(sb + 2 * c * rc, y + 2 * (c * n + rl), sizeof(double) * 2 * (size_t)rc);
	}
	CHECK(MPI_Alltoallv(rbuf, rcounts, rdispl, MPI_DOUBLE, sbuf, scounts, sdispl, MPI_DOUBLE, MPI_COMM_WORLD));
	for (int d = 0; d < size; d++) {
		const double *sb = sbuf + sdispl[d];
		int64_t cl = rlo[d], cc = rcnt[d];
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
		for (int64_t i0 = 0; i0 < nr; i0 += W8_TILE)
			for (int64_t c = 0; c < cc; c++)
				for (int64_t i = i0; i < nr && i < i0 + W8_TILE; i++) {
					x[2 * (i * n + cl + c)] = sb[2 * (c * nr + i)];
					x[2 * (i * n + cl + c) + 1] = sb[2 * (c * nr + i) + 1];
				}
	}
	rows_fft(xp_fftw.bwd, x, nr, n, 1.0 / ((double)n * (double)n), threads);
	double elapsed = (t1 - t0) + (MPI_Wtime() - t2);

	/* Round-trip error: max |x - x0| / max |x0| over all ranks. */
	double e[2] = {0, 0}, g[2];
	for (int64_t i = 0; i < nr; i++)
		for (int64_t j = 0; j < n; j++) {
			double re = w8_re(r0 + i, j), im = w8_im(r0 + i, j);
			double dr = x[2 * (i * n + j)] - re, di = x[2 * (i * n + j) + 1] - im;
			double d = sqrt(dr * dr + di * di), m = sqrt(re * re + im * im);
			if (isnan(d)) d = INFINITY;
			if (d > e[0]) e[0] = d;
			if (m > e[1]) e[1] = m;
		}
	free(rlo), free(rcnt), free(scounts), free(sdispl), free(rcounts), free(rdispl);
	free(x), free(y), free(sbuf), free(rbuf);
	CHECK(MPI_Allreduce(e, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	CHECK(MPI_Allreduce(&sum, &r->extra[0], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	r->checksum = g[1] > 0 ? g[0] / g[1] : g[0];
	r->ok = r->checksum < 1e-10;
	return finish(elapsed, r);
}
